package filter

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
	// each inside a token, and one occurrence of each run per match. Nil
	// when some match need contain no run at all (a regex without a
	// required string, a phrase of punctuation): the index cannot help.
	Alts [][]string
	// Exact: one alternative of one run, and a message matches exactly
	// when one of its tokens contains the run (equals it, with Whole), as
	// many times as those tokens hold it. A plain case-insensitive word.
	Exact bool
	// Whole is --word: an exact run must be a whole token.
	Whole bool
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
	return t
}

// IndexMatch reports whether text holds every run of one of the shape's
// alternatives: whether the term index counts text as holding the term.
// For an Exact shape that is Match; for others it is what the index's
// document frequencies count, and a full scan counts the same. A run is
// made of word characters, so it occurs in the text exactly when a token
// of the text contains it.
func (t *Term) IndexMatch(text []byte) bool {
	if t.shape.Exact {
		return t.Match(text)
	}
	for _, alt := range t.runs {
		all := true
		for _, lit := range alt {
			if !lit.match(text) {
				all = false
				break
			}
		}
		if all {
			return true
		}
	}
	return false
}

// literalShape is the shape of a word or phrase: its pieces between
// wildcards, cut into runs at every non-word character.
func literalShape(text string, wildcards bool, opt MatchOptions) Shape {
	pieces := []string{text}
	if wildcards {
		pieces = strings.FieldsFunc(text, func(r rune) bool { return r == '_' })
	}
	var runs []string
	for _, piece := range pieces {
		runs = append(runs, wordRuns(piece)...)
	}
	if len(runs) == 0 {
		return Shape{}
	}
	exact := !opt.CaseSensitive && len(pieces) == 1 && pieces[0] == text && onlyWordRunes(text)
	return Shape{Alts: [][]string{runs}, Exact: exact, Whole: opt.Word, Anchored: pieces[0] == text[:len(pieces[0])] && startsWithWordRune(text)}
}

func startsWithWordRune(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return s != "" && textrules.IsWordRune(r)
}

func onlyWordRunes(s string) bool {
	for _, r := range s {
		if !textrules.IsWordRune(r) {
			return false
		}
	}
	return true
}

// regexShape is the shape of a simplified regex: its required words as
// alternatives of runs, each alternative listing every literal word a
// match of it must contain (for dead.?lock both "dead" and "lock", so that
// "deadline" is not a candidate).
func regexShape(re *syntax.Regexp) Shape {
	alts, ok := regexAlts(re)
	if !ok {
		return Shape{}
	}
	shape := Shape{Anchored: true}
	for _, a := range alts {
		shape.Alts = append(shape.Alts, a.runs)
		shape.Anchored = shape.Anchored && a.anchored
	}
	return shape
}

// regexAlt is one alternative: runs every match of it contains, and
// whether its matches start with the first run.
type regexAlt struct {
	runs     []string
	anchored bool
}

// maxShapeAlts bounds the alternatives of a shape: each costs a lookup
// per run, and a concatenation multiplies them.
const maxShapeAlts = 8

// regexAlts derives the alternatives of re, or false when some match
// need hold no word at all.
func regexAlts(re *syntax.Regexp) ([]regexAlt, bool) {
	switch re.Op {
	case syntax.OpLiteral:
		text := string(re.Rune)
		runs := wordRuns(text)
		if len(runs) == 0 {
			return nil, false
		}
		return []regexAlt{{runs: runs, anchored: startsWithWordRune(text)}}, true
	case syntax.OpCapture, syntax.OpPlus:
		return regexAlts(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min < 1 {
			return nil, false
		}
		return regexAlts(re.Sub[0])
	case syntax.OpConcat:
		return concatAlts(re.Sub)
	case syntax.OpAlternate:
		var out []regexAlt
		for _, sub := range re.Sub {
			alts, ok := regexAlts(sub)
			if !ok || len(out)+len(alts) > maxShapeAlts {
				return nil, false
			}
			out = append(out, alts...)
		}
		return out, true
	}
	return nil, false
}

// concatAlts combines the parts of a concatenation: a match holds a match
// of every part, so each combination of the parts' alternatives is one
// alternative. Parts without words add nothing; a match starts with the
// first part's first run only if that part comes first.
func concatAlts(subs []*syntax.Regexp) ([]regexAlt, bool) {
	out := []regexAlt{{anchored: true}}
	for i, sub := range subs {
		alts, ok := regexAlts(sub)
		if !ok {
			if i == 0 {
				for j := range out {
					out[j].anchored = false
				}
			}
			continue
		}
		if len(out)*len(alts) > maxShapeAlts {
			continue // enough to go on: every match still holds the rest
		}
		var next []regexAlt
		for _, a := range out {
			for _, b := range alts {
				runs := append(slices.Clone(a.runs), b.runs...)
				anchored := a.anchored && (len(a.runs) > 0 || b.anchored)
				next = append(next, regexAlt{runs: runs, anchored: anchored})
			}
		}
		out = next
	}
	if len(out[0].runs) == 0 {
		return nil, false
	}
	return out, true
}

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
