package query

import (
	"bytes"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/recall-dev/recall/textrules"
)

// Match channels. A positional plain word (letters and digits, no `_`,
// without --regex, --case-sensitive or --word) matches a message in three
// ways, each a Form of its hits:
//
//   - exact: the word as a case-insensitive substring, as always
//     (FormWord where the hit starts a word, FormInside where it starts
//     inside one: "lock" in "deadlock"; a hit of fewer than MinPrefixRunes
//     characters that starts a longer word is inside it too: "car" in
//     "career", "go" in "good");
//   - accents: a word of the message whose letters, accents folded
//     (textrules.AccentFold), contain the word's, accents folded:
//     cestiny finds "češtiny" and češtiny finds "cestiny" (FormAccent);
//   - word forms: a word of the message with the same English word-form
//     key (textrules.StemKey) that starts with the key's prefix
//     (textrules.FormPrefix), the word and the query word both within
//     maxFormDiff letters of the key (inflections, not derivations):
//     translated finds "Translate", articles finds "article", but
//     tokenizer does not find "token" (FormStem).
//
// The channels never overlap: a word of the message holding the exact
// substring is an exact hit only, and one whose folded form holds the
// folded word is an accent hit, never also a word-form hit. A hit of the
// accent or word-form channel spans the whole word. Ranking weighs the
// forms (rank.FormWeight); --require and --exclude words, phrases,
// wildcards and regexes match exactly, as typed.

// Form is how a hit matched its term (textrules.Form, shared with rank,
// which weighs it).
type Form = textrules.Form

// The forms of a hit, strongest first.
const (
	FormWord   = textrules.FormWord
	FormInside = textrules.FormInside
	FormAccent = textrules.FormAccent
	FormStem   = textrules.FormStem
)

// Forms is the word a term's channels look for, as the term index and a
// scan of the text both classify tokens with it. Tokens are as the term
// index stores them: runs of word characters, each folded with
// textrules.CanonicalFold.
type Forms struct {
	// Word is the term, folded like a token.
	Word string
	// Fold is Word with accents folded (textrules.AccentFold); "" when
	// the term has no letter, and so no accent channel.
	Fold string
	// Stem is the term's word-form key (textrules.StemKey), "" when it
	// has none; Prefix is what every token of that form starts with once
	// its accents are folded.
	Stem, Prefix string
}

// TokenMatch is how one token matches a term: Start and Inside count the
// exact occurrences (at most one starts the token), else Form says which
// channel takes the whole token, if any.
type TokenMatch struct {
	Start, Inside int
	Form          Form
	OK            bool // the token matches at all
}

// maxTokenBuf is the token length classified on the stack; longer tokens
// take a heap buffer (they are rare, and never word forms).
const maxTokenBuf = 256

// Classify says how token (folded like the term index's tokens) matches.
func (f *Forms) Classify(token []byte) TokenMatch { return f.classify(token, nil) }

// classify is Classify, asking memo (if set) whether a token has the
// term's word-form key.
func (f *Forms) classify(token []byte, memo *stemMemo) TokenMatch {
	if n := bytes.Count(token, []byte(f.Word)); n > 0 {
		start := 0
		if StartsWord(token, f.Word) {
			start = 1
		}
		return TokenMatch{Start: start, Inside: n - start, Form: FormWord, OK: true}
	}
	if f.Fold == "" && f.Stem == "" {
		return TokenMatch{}
	}
	folded := token // an ASCII token is its own fold
	var buf [maxTokenBuf]byte
	if !isASCII(token) {
		folded = textrules.AppendAccentFolded(buf[:0], token)
	}
	if f.Fold != "" && bytes.Contains(folded, []byte(f.Fold)) {
		return TokenMatch{Form: FormAccent, OK: true}
	}
	// Cheap tests first: stemming costs a microsecond.
	if f.Stem != "" && bytes.HasPrefix(folded, []byte(f.Prefix)) && inflects(token, f.Stem) && memo.hasKey(token, f.Stem) {
		return TokenMatch{Form: FormStem, OK: true}
	}
	return TokenMatch{}
}

// stemMemo remembers, for one term, which tokens have its word-form key:
// stemming costs about a microsecond, and the words a text scan offers
// the word-form channel (those starting with the key's prefix: FI… for
// "fix") are the same few hundred again and again, row after row. It is
// safe for concurrent use, and holds at most maxStemMemo tokens.
type stemMemo struct {
	mu   sync.RWMutex
	keys map[string]bool
}

const maxStemMemo = 4096

// hasKey reports whether token's word-form key is stem.
func (m *stemMemo) hasKey(token []byte, stem string) bool {
	if m == nil {
		key, ok := textrules.StemKey(token)
		return ok && key == stem
	}
	m.mu.RLock()
	is, known := m.keys[string(token)]
	m.mu.RUnlock()
	if known {
		return is
	}
	key, ok := textrules.StemKey(token)
	is = ok && key == stem
	m.mu.Lock()
	if len(m.keys) < maxStemMemo {
		m.keys[string(token)] = is
	}
	m.mu.Unlock()
	return is
}

func isASCII(b []byte) bool { return indexNonASCII(b) < 0 }

// foldASCII is textrules.CanonicalFold of an ASCII character: the least
// of its case forms, the upper case of a letter (K and S, whose other
// forms are not ASCII, included), without walking Unicode's fold orbits.
func foldASCII(c byte) byte {
	if 'a' <= c && c <= 'z' {
		return c - 'a' + 'A'
	}
	return c
}

// forms is a term's channel matcher over text: it finds the words that
// may match by a channel, then classifies them as the index does.
type forms struct {
	Forms
	// foldLit finds Fold in text when it differs from Word (the term had
	// accents): words spelt without them.
	foldLit *literal
	// prefixLit finds Prefix in text: where a word form may start.
	prefixLit *literal
	// stems remembers which words have the word-form key Stem.
	stems *stemMemo
	// noASCIIHits says that no word of an ASCII text is a channel hit:
	// there a token is its own accent fold, so the accent channel takes
	// only a token holding Fold, which holds Word (an exact hit) when
	// Fold is Word; and a token starting with Prefix holds Word when
	// Prefix starts with Word ("fix": FIX and FIX), so the word-form
	// channel takes none either. Most texts are ASCII, and most of a
	// common word's prefix finds are then its own exact hits.
	noASCIIHits bool
}

// newForms prepares the channels of a plain word, or returns nil when it
// has none (no letter at all).
func newForms(word string) *forms {
	var tok []byte
	for _, r := range word {
		tok = utf8.AppendRune(tok, textrules.CanonicalFold(r))
	}
	f := &forms{Forms: Forms{Word: string(tok)}}
	fold := textrules.AppendAccentFolded(nil, tok)
	if hasLetter(fold) {
		f.Fold = string(fold)
		if f.Fold != f.Word {
			f.foldLit = compileLiteral(f.Fold, false, MatchOptions{})
		}
	}
	if key, ok := textrules.StemKey(tok); ok && inflects(tok, key) {
		f.Stem, f.Prefix = key, textrules.FormPrefix(key)
		f.prefixLit = compileLiteral(f.Prefix, false, MatchOptions{})
		f.stems = &stemMemo{keys: map[string]bool{}}
	}
	if f.Fold == "" && f.Stem == "" {
		return nil
	}
	f.noASCIIHits = (f.Fold == "" || f.Fold == f.Word) && (f.Stem == "" || strings.HasPrefix(f.Prefix, f.Word))
	return f
}

func hasLetter(s []byte) bool {
	for _, r := range string(s) {
		if textrules.IsWordRune(r) && !('0' <= r && r <= '9') && r != '_' {
			return true
		}
	}
	return false
}

// match reports whether some word of text matches through a channel.
// The caller has found no exact match in text.
func (f *forms) match(text []byte) bool {
	found := false
	f.eachCandidate(text, func(start, end int) bool {
		if m := f.classifyText(text[start:end]); m.OK && m.Form >= FormAccent {
			found = true
			return false
		}
		return true
	})
	return found
}

// appendSpans appends the channel hits of text (whole words) to dst, in
// order. exact holds the term's exact hits in text, in order (they may
// lie in dst's backing array, before what is appended): a word holding
// one is an exact hit and never a channel's (Classify counts Word
// first), which, for an ASCII word, the exact hit settles without
// folding and classifying the word: each of its bytes matched the
// term's character at its place ignoring case, so it folds to Word's.
func (f *forms) appendSpans(text []byte, dst, exact []Span) []Span {
	if f.noASCIIHits && isASCII(text) {
		return dst
	}
	f.eachCandidate(text, func(start, end int) bool {
		for len(exact) > 0 && exact[0].Start < start {
			exact = exact[1:]
		}
		if len(exact) > 0 && exact[0].Start < end && isASCII(text[start:end]) {
			return true // holds an exact hit
		}
		if m := f.classifyText(text[start:end]); m.OK && m.Form >= FormAccent {
			dst = append(dst, Span{Start: start, End: end})
		}
		return true
	})
	return dst
}

// classifyText classifies one word of the text, folding it as the
// tokenizer does.
func (f *forms) classifyText(word []byte) TokenMatch {
	var buf [maxTokenBuf]byte
	tok := buf[:0]
	if len(word) > maxTokenBuf/2 {
		tok = make([]byte, 0, 2*len(word))
	}
	for i := 0; i < len(word); {
		if c := word[i]; c < utf8.RuneSelf {
			tok = append(tok, foldASCII(c))
			i++
			continue
		}
		r, w := utf8.DecodeRune(word[i:])
		tok = utf8.AppendRune(tok, textrules.CanonicalFold(r))
		i += w
	}
	return f.classify(tok, f.stems)
}

// eachCandidate calls fn with every word of text that a channel may take,
// in order, each once, until fn returns false. A channel word holds, once
// accents are folded, Fold (accent channel) or starts with Prefix (word
// forms). Such a word either has an accented letter, or holds Fold or
// Prefix as it is: the scans look for those three things only.
func (f *forms) eachCandidate(text []byte, fn func(start, end int) bool) {
	lastEnd := -1
	// The three sources are merged in text order: each is scanned
	// forward, and the smallest next position is visited first. A prefix
	// found inside a word does not start a word form, and is passed over.
	a, b, c := nextAccented(text, 0), nextLiteral(f.foldLit, text, 0), f.nextPrefix(text, 0)
	for a >= 0 || b >= 0 || c >= 0 {
		at := minPos(a, minPos(b, c))
		if at >= lastEnd {
			start, end := wordAround(text, at)
			if start < end {
				lastEnd = end
				if !fn(start, end) {
					return
				}
			}
		}
		from := max(at+1, lastEnd)
		if a >= 0 && a < from {
			a = nextAccented(text, from)
		}
		if b >= 0 && b < from {
			b = nextLiteral(f.foldLit, text, from)
		}
		if c >= 0 && c < from {
			c = f.nextPrefix(text, from)
		}
	}
}

// nextPrefix returns where the next occurrence of Prefix that starts a
// word lies, at or after from, or -1.
func (f *forms) nextPrefix(text []byte, from int) int {
	for {
		at := nextLiteral(f.prefixLit, text, from)
		if at < 0 || !startsInsideWord(text, at) {
			return at
		}
		_, w := utf8.DecodeRune(text[at:])
		from = at + w
	}
}

// minPos is the smaller of two positions, -1 meaning none.
func minPos(a, b int) int {
	switch {
	case a < 0:
		return b
	case b < 0:
		return a
	}
	return min(a, b)
}

// nextLiteral returns where the next match of lit at or after from
// starts, or -1 (always -1 for a nil lit).
func nextLiteral(lit *literal, text []byte, from int) int {
	if lit == nil || from > len(text) {
		return -1
	}
	var sp Span
	var ok bool
	if lit.fixed != nil && !lit.specials.in(text[from:]) {
		sp, ok = lit.fixed.find(text, from, anyBound)
	} else {
		sp, ok = lit.findGeneral(text, from)
	}
	if !ok {
		return -1
	}
	return sp.Start
}

// nextAccented returns the position of the next accented letter
// (textrules.IsAccented) at or after from, or -1.
func nextAccented(text []byte, from int) int {
	for i := from; i < len(text); {
		j := indexNonASCII(text[i:])
		if j < 0 {
			return -1
		}
		i += j
		r, w := utf8.DecodeRune(text[i:])
		if textrules.IsAccented(r) {
			return i
		}
		i += w
	}
	return -1
}

// indexNonASCII returns the index of the first byte ≥ 0x80, or -1,
// eight bytes at a time.
func indexNonASCII(b []byte) int {
	i := 0
	for ; i+8 <= len(b); i += 8 {
		if u := uint64(b[i]) | uint64(b[i+1])<<8 | uint64(b[i+2])<<16 | uint64(b[i+3])<<24 |
			uint64(b[i+4])<<32 | uint64(b[i+5])<<40 | uint64(b[i+6])<<48 | uint64(b[i+7])<<56; u&0x8080808080808080 != 0 {
			break
		}
	}
	for ; i < len(b); i++ {
		if b[i] >= utf8.RuneSelf {
			return i
		}
	}
	return -1
}

// wordAround returns the run of word characters holding position at, or
// an empty span when the character there is not one.
func wordAround(text []byte, at int) (start, end int) {
	start, end = at, at
	for start > 0 {
		r, w := utf8.DecodeLastRune(text[:start])
		if !textrules.IsWordRune(r) {
			break
		}
		start -= w
	}
	for end < len(text) {
		r, w := utf8.DecodeRune(text[end:])
		if !textrules.IsWordRune(r) {
			break
		}
		end += w
	}
	return start, end
}

// HitForm says how the hit [start, end) of t in text matched: the
// channel of a whole-word hit of a term with channels that is not an
// exact match, else, for a plain word, FormInside for a hit starting
// inside a word (or shorter than MinPrefixRunes and ending inside one)
// and FormWord for one starting a word; a short word's hits are words
// or parts of one (Shape.Parts), all FormWord. Every hit of a phrase, wildcard
// or regex is FormWord: the user spelt out what to find.
func (t *Term) HitForm(text string, start, end int) Form {
	if start < 0 || end > len(text) || start > end || !t.shape.Exact {
		return FormWord // a phrase or pattern is taken as typed
	}
	if t.forms != nil && !t.forms.foldsToWord(text[start:end]) {
		if s, e := wordAroundString(text, start); s == start && e == end && e > s {
			if m := t.forms.classifyText([]byte(text[s:e])); m.OK && m.Form >= FormAccent {
				return m.Form
			}
		}
	}
	if t.shape.Parts {
		return FormWord // a word of its own, or a part of one (Shape.Parts)
	}
	if startsInsideWordString(text, start) || endsInsideWordString(text, end) && utf8.RuneCountInString(text[start:end]) < MinPrefixRunes {
		return FormInside
	}
	return FormWord
}

// foldsToWord reports whether hit, ASCII, folds to Word: then it is an
// exact hit, which the channels never take (Classify counts Word first),
// and HitForm need not fold and classify it. Most hits are.
func (f *forms) foldsToWord(hit string) bool {
	if len(hit) != len(f.Word) {
		return false
	}
	for i := range len(hit) {
		if c := hit[i]; c >= utf8.RuneSelf || foldASCII(c) != f.Word[i] {
			return false
		}
	}
	return true
}

// endsInsideWordString reports whether a hit ending at end stops inside a
// word: its last character and the one after it are word characters.
func endsInsideWordString(text string, end int) bool {
	if end <= 0 || end >= len(text) {
		return false
	}
	p, _ := utf8.DecodeLastRuneInString(text[:end])
	r, _ := utf8.DecodeRuneInString(text[end:])
	return textrules.IsWordRune(r) && textrules.IsWordRune(p)
}

// MinPrefixRunes is the shortest hit that counts as starting the word it
// begins: shorter ones are prefixes of too many unrelated words ("art"
// of "article", "go" of "good") unless they are the whole word.
const MinPrefixRunes = 4

// StartsWord reports whether an occurrence of run at the start of token
// is a hit that starts a word (FormWord): token begins with run, and run
// is the whole token or at least MinPrefixRunes characters long.
func StartsWord(token []byte, run string) bool {
	return bytes.HasPrefix(token, []byte(run)) && (len(token) == len(run) || utf8.RuneCountInString(run) >= MinPrefixRunes)
}

// startsInsideWord reports whether a hit at start begins inside a word:
// its first character and the one before it are both word characters.
func startsInsideWord(text []byte, start int) bool {
	if start <= 0 || start >= len(text) {
		return false
	}
	r, _ := utf8.DecodeRune(text[start:])
	p, _ := utf8.DecodeLastRune(text[:start])
	return textrules.IsWordRune(r) && textrules.IsWordRune(p)
}

func startsInsideWordString(text string, start int) bool {
	if start <= 0 || start >= len(text) {
		return false
	}
	r, _ := utf8.DecodeRuneInString(text[start:])
	p, _ := utf8.DecodeLastRuneInString(text[:start])
	return textrules.IsWordRune(r) && textrules.IsWordRune(p)
}

// wordAroundString is wordAround on a string.
func wordAroundString(text string, at int) (start, end int) {
	start, end = at, at
	for start > 0 {
		r, w := utf8.DecodeLastRuneInString(text[:start])
		if !textrules.IsWordRune(r) {
			break
		}
		start -= w
	}
	for end < len(text) {
		r, w := utf8.DecodeRuneInString(text[end:])
		if !textrules.IsWordRune(r) {
			break
		}
		end += w
	}
	return start, end
}

// Forms returns the term's channels, or nil when it matches exactly only.
func (t *Term) Forms() *Forms {
	if t.forms == nil {
		return nil
	}
	return &t.forms.Forms
}

// sortSpans orders spans by Start; spans of different channels never
// overlap.
func sortSpans(spans []Span) {
	slices.SortStableFunc(spans, func(x, y Span) int { return x.Start - y.Start })
}

// maxFormDiff is how many letters an inflection adds to its word-form
// key at most: "painting" is PAINT and three letters, "translated" is
// TRANSLAT and two, while derivations add more ("tokenizer" is TOKEN and
// four) and are not forms of each other's words.
const maxFormDiff = 3

// inflects reports whether word (a token or a query word) is within
// maxFormDiff letters of its word-form key: an inflection of the key
// rather than a derivation.
func inflects(word []byte, key string) bool {
	d := utf8.RuneCount(word) - len(key)
	return -maxFormDiff <= d && d <= maxFormDiff
}
