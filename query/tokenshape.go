package query

import (
	"bytes"
	"regexp/syntax"
	"slices"
	"unicode"
	"unicode/utf8"

	"github.com/recall-dev/recall/textrules"
)

// Token-position shapes. A run of word characters sits inside a token, but
// the characters around it in a match say more: a run followed by a
// non-word character ends its token, one preceded by a non-word character
// starts it, and two runs with only word characters between them (or an
// optional one) lie in one token, in order. So `race condition` needs a
// token ending in RACE and one starting with CONDITION, and `dead.?lock`
// a token holding DEAD then LOCK, or one ending in DEAD and one starting
// with LOCK; a row that says "deadline" and "lock" is neither.
//
// A Piece is what one token must hold. The index looks a piece up by its
// longest run and keeps the tokens Piece.Times accepts; IndexMatch asks
// the same of a text's tokens, so both paths count the same rows.

// Piece is a condition on one token: it holds Runs in order, without
// overlaps, starting with the first when Start and ending with the last
// when End. Runs are folded like the index's tokens.
type Piece struct {
	Runs       []string
	Start, End bool
}

// plain reports whether the piece is one run anywhere in a token, which a
// substring search answers alone.
func (p Piece) plain() bool { return len(p.Runs) == 1 && !p.Start && !p.End }

// Key is the run the index searches its vocabulary for: the longest, so
// that the fewest tokens need checking.
func (p Piece) Key() string {
	key := p.Runs[0]
	for _, r := range p.Runs[1:] {
		if len(r) > len(key) {
			key = r
		}
	}
	return key
}

// Times returns how many matches can hold the piece in tok, a folded
// token: 0 when tok does not hold it; for a piece at the token's start
// or end, 1 (matches do not overlap, and each holds that edge); else the
// occurrences of its first run, each of which at most one match holds.
func (p Piece) Times(tok []byte) int {
	if !p.holds(tok) {
		return 0
	}
	if p.Start || p.End {
		return 1
	}
	return bytes.Count(tok, []byte(p.Runs[0]))
}

// holds reports whether tok holds the runs in order without overlaps,
// at its edges as the piece says. Taking each run at its leftmost place
// after the previous one is never worse than any other choice.
func (p Piece) holds(tok []byte) bool {
	pos := 0
	last := len(p.Runs) - 1
	for i, run := range p.Runs {
		switch {
		case i == 0 && p.Start:
			if !bytes.HasPrefix(tok, []byte(run)) {
				return false
			}
			if i == last && p.End {
				return len(tok) == len(run)
			}
			pos = len(run)
		case i == last && p.End:
			return len(tok)-len(run) >= pos && bytes.HasSuffix(tok, []byte(run))
		default:
			at := bytes.Index(tok[pos:], []byte(run))
			if at < 0 {
				return false
			}
			pos += at + len(run)
		}
	}
	return true
}

// PartsIn counts the occurrences of run in tok, a folded token, that
// are the whole token or a whole part of it between underscores
// (Shape.Parts): "ID" twice in "ID_USER_ID", never in "GUIDE".
func PartsIn(tok []byte, run string) int {
	n := 0
	for at := 0; ; {
		i := bytes.Index(tok[at:], []byte(run))
		if i < 0 {
			return n
		}
		start, end := at+i, at+i+len(run)
		if (start == 0 || tok[start-1] == '_') && (end == len(tok) || tok[end] == '_') {
			n++
			at = end
		} else {
			at = start + 1
		}
	}
}

// glue is what a shape walk knows of the character a match read last.
type glue uint8

const (
	glueNone  glue = iota // nothing: the next word character starts a new piece, anywhere in its token
	glueRun               // a word character of the last run: the next one extends that run
	glueToken             // only word characters since the last run: the next run is in its token, later
	glueBreak             // a non-word character (or, with --word, the text's start): the next word character starts its token
)

// walkAlt is one alternative being built by a shape walk.
type walkAlt struct {
	pieces []Piece
	// open is the last run while word characters extend it (g is
	// glueRun): appending to the run's string instead made a long word
	// quadratic (a 120 KB case-sensitive phrase took seconds). flush
	// writes it into the run before anything else reads the pieces.
	open     []byte
	g        glue
	consumed bool // a character may come before the first run: matches need not start in its token
	anchored bool
}

func (a walkAlt) clone() walkAlt {
	a.flush()
	a.open = slices.Clone(a.open)
	a.pieces = slices.Clone(a.pieces)
	if n := len(a.pieces); n > 0 {
		a.pieces[n-1].Runs = slices.Clone(a.pieces[n-1].Runs)
	}
	return a
}

// word adds a word character, folded.
func (a *walkAlt) word(folded rune) {
	switch a.g {
	case glueRun:
		a.open = utf8.AppendRune(a.open, folded)
	case glueToken:
		last := &a.pieces[len(a.pieces)-1]
		last.Runs = append(last.Runs, string(folded))
		a.open = utf8.AppendRune(a.open[:0], folded)
	default:
		if len(a.pieces) == 0 {
			a.anchored = !a.consumed
		}
		a.pieces = append(a.pieces, Piece{Runs: []string{string(folded)}, Start: a.g == glueBreak})
		a.open = utf8.AppendRune(a.open[:0], folded)
	}
	a.g, a.consumed = glueRun, true
}

// flush writes the run being extended (open) into its piece.
func (a *walkAlt) flush() {
	if a.g == glueRun && len(a.pieces) > 0 {
		last := &a.pieces[len(a.pieces)-1]
		last.Runs[len(last.Runs)-1] = string(a.open)
	}
}

// nonWord adds a non-word character: it ends the last run's token if it
// follows that run.
func (a *walkAlt) nonWord() {
	a.flush()
	if a.g == glueRun {
		a.pieces[len(a.pieces)-1].End = true
	}
	a.g, a.consumed = glueBreak, true
}

// unknown adds any characters, perhaps none.
func (a *walkAlt) unknown() {
	a.flush()
	a.g, a.consumed = glueNone, true
}

// wordChars adds word characters of unknown number and identity.
func (a *walkAlt) wordChars() {
	a.flush()
	if a.g == glueRun || a.g == glueToken {
		a.g = glueToken
	} else {
		a.g = glueNone
	}
	a.consumed = true
}

// shapeWalk derives the alternatives of a pattern, element by element.
type shapeWalk struct {
	alts []walkAlt
}

func newShapeWalk(word bool) *shapeWalk {
	start := walkAlt{}
	if word {
		start.g = glueBreak // a whole-word match follows a non-word character or the text's start
	}
	return &shapeWalk{alts: []walkAlt{start}}
}

// each applies fn to every alternative.
func (w *shapeWalk) each(fn func(a *walkAlt)) {
	for i := range w.alts {
		fn(&w.alts[i])
	}
}

// char adds one rune of a literal, matched with its case orbit when fold.
func (w *shapeWalk) char(r rune, fold bool) {
	isWord, isNonWord := runeKinds(r, fold)
	switch {
	case isWord && !isNonWord:
		f := textrules.CanonicalFold(r)
		w.each(func(a *walkAlt) { a.word(f) })
	case isNonWord && !isWord:
		w.each((*walkAlt).nonWord)
	default:
		w.each((*walkAlt).unknown)
	}
}

// single adds one character of a set (a class, `.`, a wildcard), or none
// when optional. After a run, a character that may be either kind forks
// the alternative: the run's token goes on (the character is a word one,
// or absent) or ends (it is not).
func (w *shapeWalk) single(canWord, canNonWord, optional bool) {
	var out []walkAlt
	for i, a := range w.alts {
		open := a.g == glueRun || a.g == glueToken
		room := len(out)+2+len(w.alts)-i-1 <= maxShapeAlts
		switch {
		case open && canNonWord && (canWord || optional) && room:
			split := a.clone()
			split.nonWord()
			a.wordChars()
			out = append(out, a, split)
		case open && !canNonWord:
			a.wordChars()
			out = append(out, a)
		case !canWord && !optional:
			a.nonWord()
			out = append(out, a)
		case !canWord && a.g == glueBreak:
			a.consumed = true // absent or non-word: still after a break
			out = append(out, a)
		default:
			a.unknown()
			out = append(out, a)
		}
	}
	w.alts = out
}

// repeated adds a repetition of one character of a set, at least min
// times. Several characters of both kinds say nothing (a break may be
// anywhere among them).
func (w *shapeWalk) repeated(canWord, canNonWord bool, min int) {
	switch {
	case !canNonWord:
		w.each((*walkAlt).wordChars)
	case !canWord:
		w.single(false, true, min == 0) // one break or many: the same edges
	default:
		w.each((*walkAlt).unknown)
	}
}

// regex walks a simplified regex.
func (w *shapeWalk) regex(re *syntax.Regexp) {
	switch re.Op {
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			w.char(r, re.Flags&syntax.FoldCase != 0)
		}
	case syntax.OpCharClass, syntax.OpAnyCharNotNL, syntax.OpAnyChar:
		canWord, canNonWord := setKinds(re)
		w.single(canWord, canNonWord, false)
	case syntax.OpCapture:
		w.regex(re.Sub[0])
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			w.regex(sub)
		}
	case syntax.OpQuest, syntax.OpStar, syntax.OpPlus, syntax.OpRepeat:
		w.repeat(re)
	case syntax.OpAlternate:
		w.alternate(re.Sub)
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		// Zero width: the characters around it are the ones known already.
	default:
		w.each((*walkAlt).unknown)
	}
}

// repeat walks x?, x*, x+ and x{n,m}.
func (w *shapeWalk) repeat(re *syntax.Regexp) {
	least := 0
	switch re.Op {
	case syntax.OpPlus:
		least = 1
	case syntax.OpRepeat:
		least = re.Min
	}
	sub := re.Sub[0]
	if canWord, canNonWord, ok := oneChar(sub); ok {
		if re.Op == syntax.OpQuest || re.Op == syntax.OpRepeat && re.Max == 1 {
			w.single(canWord, canNonWord, least == 0)
			return
		}
		w.repeated(canWord, canNonWord, least)
		return
	}
	if least >= 1 {
		w.regex(sub) // the first time; what the others add is not known
	}
	w.each((*walkAlt).unknown)
}

// alternate walks each branch from every alternative so far; past
// maxShapeAlts it only knows that some characters were read.
func (w *shapeWalk) alternate(subs []*syntax.Regexp) {
	var out []walkAlt
	for _, sub := range subs {
		branch := &shapeWalk{alts: make([]walkAlt, len(w.alts))}
		for i, a := range w.alts {
			branch.alts[i] = a.clone()
		}
		branch.regex(sub)
		out = append(out, branch.alts...)
		if len(out) > maxShapeAlts {
			w.each((*walkAlt).unknown)
			return
		}
	}
	w.alts = out
}

// shape ends the walk: with --word the match is followed by a non-word
// character or the text's end, which ends the last run's token. Nil Alts
// when some alternative holds no run.
func (w *shapeWalk) shape(word bool) Shape {
	s := Shape{Anchored: true}
	for _, a := range w.alts {
		a.flush()
		if len(a.pieces) == 0 {
			return Shape{}
		}
		if word && a.g == glueRun {
			a.pieces[len(a.pieces)-1].End = true
		}
		var runs []string
		for _, p := range a.pieces {
			runs = append(runs, p.Runs...)
		}
		s.Anchored = s.Anchored && a.anchored
		if slices.ContainsFunc(s.Pieces, func(q []Piece) bool { return slices.EqualFunc(q, a.pieces, equalPiece) }) {
			continue
		}
		s.Alts = append(s.Alts, runs)
		s.Pieces = append(s.Pieces, a.pieces)
	}
	return s
}

func equalPiece(a, b Piece) bool {
	return a.Start == b.Start && a.End == b.End && slices.Equal(a.Runs, b.Runs)
}

// oneChar reports whether re matches exactly one character, and of which
// kinds.
func oneChar(re *syntax.Regexp) (canWord, canNonWord, ok bool) {
	switch re.Op {
	case syntax.OpLiteral:
		if len(re.Rune) != 1 {
			return false, false, false
		}
		canWord, canNonWord = runeKinds(re.Rune[0], re.Flags&syntax.FoldCase != 0)
		return canWord, canNonWord, true
	case syntax.OpCharClass, syntax.OpAnyCharNotNL, syntax.OpAnyChar:
		canWord, canNonWord = setKinds(re)
		return canWord, canNonWord, true
	}
	return false, false, false
}

// runeKinds says whether r, or with fold any rune of its case orbit, is a
// word character, and whether one is not. Letters' orbits hold letters,
// but not all: U+0345 (a combining mark) is in the orbit of ι.
func runeKinds(r rune, fold bool) (canWord, canNonWord bool) {
	kind := func(r rune) {
		if textrules.IsWordRune(r) {
			canWord = true
		} else {
			canNonWord = true
		}
	}
	kind(r)
	if fold {
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			kind(f)
		}
	}
	return canWord, canNonWord
}

// maxClassScan bounds the runes a class is checked rune by rune; a larger
// class is taken to hold both kinds.
const maxClassScan = 4096

// setKinds says whether a one-character set can match a word character
// and a non-word one. Invalid UTF-8 reads as U+FFFD, a non-word rune.
func setKinds(re *syntax.Regexp) (canWord, canNonWord bool) {
	if re.Op != syntax.OpCharClass {
		return true, true
	}
	scanned := 0
	for i := 0; i+1 < len(re.Rune); i += 2 {
		lo, hi := re.Rune[i], re.Rune[i+1]
		if int(hi-lo) >= maxClassScan-scanned {
			return true, true
		}
		scanned += int(hi-lo) + 1
		for r := lo; r <= hi; r++ {
			if textrules.IsWordRune(r) {
				canWord = true
			} else {
				canNonWord = true
			}
		}
	}
	return canWord, canNonWord
}

// literalWalk walks a word or phrase: `_` is any one character when
// wildcards is set.
func literalWalk(text string, wildcards bool, opt MatchOptions) *shapeWalk {
	w := newShapeWalk(opt.Word)
	for _, r := range text {
		if wildcards && r == '_' {
			w.single(true, true, false)
			continue
		}
		w.char(r, !opt.CaseSensitive)
	}
	return w
}

// tokenPieces reports whether text has, for every piece, a token holding
// it: whether the term index counts text for these pieces.
func tokenPieces(text []byte, pieces []Piece) bool {
	for len(pieces) > 64 {
		if !tokenPieces(text, pieces[:64]) {
			return false
		}
		pieces = pieces[64:]
	}
	var found uint64 // bit i: piece i held by some token
	want := uint64(1)<<len(pieces) - 1
	var stack [64]byte
	textrules.EachToken(text, stack[:0], func(tok []byte) bool {
		for i, p := range pieces {
			if found&(1<<i) == 0 && p.holds(tok) {
				found |= 1 << i
			}
		}
		return found != want
	})
	return found == want
}
