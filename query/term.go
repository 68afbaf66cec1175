package query

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/recall-dev/recall/textrules"
)

// Span is a match: byte offsets into the text, End exclusive.
type Span struct{ Start, End int }

// Term is one compiled search term: a word, a quoted phrase or a regex.
// A Term is immutable and safe for concurrent use.
type Term struct {
	display string // as the user wrote it: jwt, "jwt auth", /mutex|deadlock/
	key     string // equal keys match exactly the same texts
	lit     *literal
	re      *regexMatcher
	shape   Shape
	runs    [][]*literal // shape.Alts as case-insensitive matchers
	plain   []bool       // per alternative: its pieces are plain runs of word characters, which runs settles
	forms   *forms       // the accent and word-form channels (forms.go); nil: exact only
}

// String is the term's display form: a word as typed, a phrase in double
// quotes, a regex between slashes.
func (t *Term) String() string { return t.display }

// Match reports whether text contains the term. Plain words and phrases
// do not allocate.
func (t *Term) Match(text []byte) bool {
	if t.lit != nil {
		return t.lit.match(text) || t.forms != nil && t.forms.match(text)
	}
	return t.re.match(text)
}

// FindAll appends every non-overlapping match, leftmost first, to dst and
// returns it. A regex that can match the empty string reports empty
// spans, as regexp's FindAllIndex does, except with --word.
//
// A term with channels also reports its accent and word-form hits, each
// a whole word (HitForm tells them apart).
func (t *Term) FindAll(text []byte, dst []Span) []Span {
	if t.lit != nil {
		if t.forms == nil {
			return t.lit.findAll(text, dst)
		}
		n := len(dst)
		dst = t.lit.findAll(text, dst)
		exact := len(dst)
		if dst = t.forms.appendSpans(text, dst, dst[n:exact]); len(dst) > exact && exact > n {
			sortSpans(dst[n:])
		}
		return dst
	}
	return t.re.findAll(text, dst)
}

// termKind says how a token's text is read.
type termKind uint8

const (
	wordTerm   termKind = iota // `_` is a wildcard
	phraseTerm                 // everything literal
	regexTerm                  // an RE2 pattern
)

// compileTermWith compiles one token, with the accent and word-form
// channels when withForms is set and the token is a plain word that can
// have them (hasChannels).
func compileTermWith(text string, kind termKind, opt MatchOptions, withForms bool) (*Term, error) {
	if kind == regexTerm {
		re, err := compileRegex(text, opt)
		if err != nil {
			return nil, err
		}
		return withShape(&Term{display: "/" + text + "/", key: "r" + text, re: re}, re.shape), nil
	}
	text = strings.ToValidUTF8(text, string(utf8.RuneError))
	display := text
	wildcards := kind == wordTerm && strings.Trim(text, "_") != ""
	if kind == phraseTerm {
		display = `"` + text + `"` // a phrase cannot hold a double quote
	}
	t := withShape(&Term{
		display: display,
		key:     literalKey(text, wildcards, opt),
		lit:     compileLiteral(text, wildcards, opt),
	}, literalShape(text, wildcards, opt))
	if withForms && kind == wordTerm && t.shape.Exact && !opt.Word && IsShortWord(text) {
		// Matched as a word of its own, with no channels: its accent
		// and word forms would be substrings too (no stem is that short).
		t.lit.word = partBound
		t.key = "p" + t.key // not the same texts as the substring
		t.shape.Parts = true
		return t, nil
	}
	if withForms && kind == wordTerm && t.shape.Exact && !opt.Word && !strings.Contains(text, "_") {
		if t.forms = newForms(text); t.forms != nil {
			t.key = "f" + t.key // not the same texts as the exact word
			t.shape.Forms = &t.forms.Forms
		}
	}
	return t, nil
}

// MaxShortWordRunes is the longest query word that matches only as a
// word of its own (partBound). One or two letters or digits occur inside
// most longer words by chance: "id" in "Guide", "go" in "ago", "1" in
// "10", "pr" in "express"; a hit there says nothing about the word, yet
// counted (even at FormInside's weight) it filled results with
// unrelated sessions. Three letters already spell words people search
// for inside others ("log" in "changelog", "api" in "apikey"), and
// stay substrings.
const MaxShortWordRunes = 2

// IsShortWord reports whether a positional word is short enough to
// match only as a word of its own: at most MaxShortWordRunes letters or
// digits of a script that separates words by spaces (Latin, Greek,
// Cyrillic). Chinese or Japanese run words together, and a Korean word
// carries its particles ("세션을"): a short word of theirs stays a
// substring.
func IsShortWord(text string) bool {
	n := 0
	for _, r := range text {
		if n++; n > MaxShortWordRunes || !isSpacedWordRune(r) {
			return false
		}
	}
	return n > 0
}

func isSpacedWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r|0x20 && r|0x20 <= 'z' || '0' <= r && r <= '9'
	}
	return (unicode.IsLetter(r) || unicode.IsDigit(r)) && unicode.In(r, unicode.Latin, unicode.Greek, unicode.Cyrillic)
}

// literalKey identifies what a literal matches: 'l', then one tagged
// entry per character, 'w' for a wildcard, 'c' and the rune (case-folded
// when folding) for a literal character. UTF-8 being self-delimiting, two
// keys are equal only for the same sequence of entries. Term.Literals
// (literals.go) reads this format back.
func literalKey(text string, wildcards bool, opt MatchOptions) string {
	var b strings.Builder
	b.WriteByte('l')
	for _, r := range text {
		switch {
		case wildcards && r == '_':
			b.WriteByte('w')
		case !opt.CaseSensitive:
			b.WriteByte('c')
			b.WriteRune(textrules.CanonicalFold(r))
		default:
			b.WriteByte('c')
			b.WriteRune(r)
		}
	}
	return b.String()
}
