package query

import (
	"regexp/syntax"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/recall-dev/recall/textrules"
)

// Shape is what the term index needs to look a term up. The index holds
// tokens, the runs of word characters (IsWordRune) of every message,
// folded with CanonicalFold; a Shape names the runs a match must contain.
type Shape struct {
	// Alts are alternatives, each a list of runs (folded like the index's
	// tokens): every match contains, for one alternative, every run of it,
	// each inside a token, and one occurrence of each run per match
	// (Pieces says more). Nil
	// when some match need contain no run at all (a regex without a
	// required string, a phrase of punctuation): the index cannot help.
	Alts [][]string
	// Exact: one alternative of one run, and a message matches exactly
	// when one of its tokens contains the run (equals it, with Whole), as
	// many times as those tokens hold it. A plain case-insensitive word.
	Exact bool
	// Pieces are the alternatives again, each as the tokens that must
	// hold its runs (tokenshape.go): where in its token a run sits, and
	// which runs share a token. The index counts a row for the term when
	// its tokens hold every piece of one alternative, and so does
	// IndexMatch.
	Pieces [][]Piece
	// Whole is --word: an exact run must be a whole token.
	Whole bool
	// Parts: an exact run must be a whole token or a whole part of one
	// between underscores (USER_ID holds ID once, GUIDE not at all),
	// every such occurrence a hit starting a word (FormWord). A short
	// positional word (IsShortWord).
	Parts bool
	// Anchored: every match starts inside a token holding the first run of
	// its alternative, so a match starts in code only where such a token
	// is in code.
	Anchored bool
	// Forms, when set (an Exact shape), are the term's accent and
	// word-form channels: beside the tokens holding the run, the index
	// counts those Forms.Classify takes, one hit per token.
	Forms *Forms
}

// Shape returns the term's shape for the term index.
func (t *Term) Shape() Shape { return t.shape }

// withShape sets t's shape and compiles its runs.
func withShape(t *Term, s Shape) *Term {
	t.shape = s
	for _, alt := range s.Alts {
		lits := make([]*literal, len(alt))
		for i, run := range alt {
			lits[i] = compileLiteral(run, false, MatchOptions{})
		}
		t.runs = append(t.runs, lits)
	}
	for _, alt := range s.Pieces {
		t.plain = append(t.plain, !slices.ContainsFunc(alt, func(p Piece) bool { return !p.plain() || !onlyWordRunes(p.Runs[0]) }))
	}
	return t
}

// IndexMatch reports whether text's tokens hold every piece of one of
// the shape's alternatives: whether the term index counts text as
// holding the term. For an Exact shape that is Match; for others it is
// what the index's document frequencies count, and a full scan counts
// the same. A run is made of word characters, so it occurs in the text
// exactly when a token of the text contains it: a substring search
// settles plain pieces, and rules out most texts before the tokens of
// the rest are looked at.
func (t *Term) IndexMatch(text []byte) bool {
	if t.shape.Exact {
		return t.Match(text)
	}
	for i, alt := range t.runs {
		all := true
		for _, lit := range alt {
			if !lit.match(text) {
				all = false
				break
			}
		}
		if all && (t.plain[i] || tokenPieces(text, t.shape.Pieces[i])) {
			return true
		}
	}
	return false
}

// literalShape is the shape of a word or phrase: its pieces between
// wildcards, cut into runs at every non-word character.
func literalShape(text string, wildcards bool, opt MatchOptions) Shape {
	if text != "" && !opt.CaseSensitive && !(wildcards && strings.ContainsRune(text, '_')) && onlyWordOrbits(text) {
		// A plain word: one run, the whole token with --word. Its runes
		// are folded as the tokenizer folds them, orbit or not.
		run := wordRuns(text)[0]
		piece := Piece{Runs: []string{run}, Start: opt.Word, End: opt.Word}
		return Shape{Alts: [][]string{{run}}, Pieces: [][]Piece{{piece}}, Exact: true, Whole: opt.Word, Anchored: true}
	}
	return literalWalk(text, wildcards, opt).shape(opt.Word)
}

// onlyWordOrbits reports whether every rune of s, and every rune of its
// case orbit, is a word character: then a case-insensitive match of s
// lies inside a token, as an Exact shape says. Not so for ι: its orbit
// holds U+0345, a combining mark no token holds, which the word matches.
func onlyWordOrbits(s string) bool {
	for _, r := range s {
		if canWord, canNonWord := runeKinds(r, true); !canWord || canNonWord {
			return false
		}
	}
	return true
}

func onlyWordRunes(s string) bool {
	for _, r := range s {
		if !textrules.IsWordRune(r) {
			return false
		}
	}
	return true
}

// regexShape is the shape of a simplified regex: its alternatives, each
// the pieces every match of it holds (for dead.?lock a token holding DEAD
// then LOCK, or one ending in DEAD and one starting with LOCK, so that
// "deadline" is not a candidate).
func regexShape(re *syntax.Regexp, word bool) Shape {
	w := newShapeWalk(word)
	w.regex(re)
	return w.shape(word)
}

// maxShapeAlts bounds the alternatives of a shape: each costs a lookup
// per piece, and a concatenation multiplies them.
const maxShapeAlts = 8

// wordRuns cuts s into its runs of word characters, folded.
func wordRuns(s string) []string {
	var runs []string
	var cur []byte
	for _, r := range s {
		if textrules.IsWordRune(r) {
			cur = utf8.AppendRune(cur, textrules.CanonicalFold(r))
			continue
		}
		if len(cur) > 0 {
			runs = append(runs, string(cur))
			cur = cur[:0]
		}
	}
	if len(cur) > 0 {
		runs = append(runs, string(cur))
	}
	return runs
}
