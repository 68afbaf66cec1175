package query

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"slices"
	"sync"
	"unicode/utf8"

	re2 "github.com/wasilibs/go-re2"
)

// Regex terms run in three stages, cheapest first:
//
//  1. A literal prefilter: strings of which every match must contain one
//     (dead for `dead(lock|ly)`, either word for `mutex|deadlock`),
//     found with the literal matcher at GB/s. Most messages stop here.
//  2. When the pattern is nothing but those strings (a word or an
//     alternation of words), the prefilter's answer is final.
//  3. Otherwise a regex engine confirms: go-re2 or the standard library.
//
// Engine choice, measured with BenchmarkRegexEngines (go test ./filter
// -bench RegexEngines -benchtime 0.5s -count 3, best run; AMD EPYC, 2
// cores shared with other jobs; texts cut from the benchmark corpus; MB/s):
//
//	pattern                   text   stdlib   go-re2
//	(?i)mutex|deadlock         256       23      323
//	(?i)mutex|deadlock        4096       22      387
//	(?i)dead\w+                256       77      874
//	(?i)dead\w+               4096       76     1676
//	(?i) --word lock (wrapped) 1024       17      340
//	kubernetes                 256     3627      785
//	kubernetes                4096    12361     3035
//
// go-re2 (RE2 compiled to Go from WebAssembly) copies each text into its
// module memory, a fixed cost per call, but its DFA is ten to twenty
// times faster than regexp's backtracker and NFA, even on 256-byte texts,
// as soon as the pattern folds case or starts with a class. regexp wins
// only when the pattern has a case-sensitive literal prefix, which it
// skips to with IndexByte. So: stdlib for patterns with a literal prefix
// and for texts that are not valid UTF-8 (go-re2 stops reading at invalid
// UTF-8, where regexp reads U+FFFD and goes on); go-re2 for the rest. The
// text's length does not enter into it.

// regexEngine is what the standard library's *regexp.Regexp and go-re2's
// *re2.Regexp have in common that the matcher uses.
type regexEngine interface {
	Match(b []byte) bool
	FindAllIndex(b []byte, n int) [][]int
	FindSubmatchIndex(b []byte) []int
}

// maxPrefilterLiterals caps the prefilter: past a handful of strings the
// scans cost more than they save.
const maxPrefilterLiterals = 8

// regexMatcher is a compiled --regex term.
type regexMatcher struct {
	prefilter []*literal // nil: no prefilter could be derived
	exact     bool       // the prefilter's answer is the match's
	// alone: prefilter strings whose presence alone is a match (the word
	// branches of an alternation: race in dead.?lock|race), which spare
	// the engine; none with --word.
	alone []*literal
	// others are the prefilter's other strings: a text holding none of
	// them can match only the branches of alone.
	others []*literal
	word   bool
	shape  Shape // for the term index
	// first is the expression. With --word it captures the pattern as
	// group 1 between consumed non-word characters (Go's \b only knows
	// ASCII), and rest is the variant without the ^ alternative that
	// findAllWords searches on with.
	first, rest compiledRegex
}

// compiledRegex is one expression compiled for both engines.
type compiledRegex struct {
	std      *regexp.Regexp
	stdFirst bool // regexp has a literal prefix to skip to
	// re2 compiles the expression for go-re2 on first use, or returns nil
	// when RE2 rejects what regexp accepts. Lazily, because RE2 takes
	// milliseconds to compile the Unicode classes of --word, and the
	// prefilter often leaves it nothing to do.
	re2 func() *re2.Regexp
}

// compileRegex compiles a user pattern with the query's options. The
// pattern is checked on its own first, so that wrapping cannot make an
// invalid pattern valid ("a)(b" inside "(?:…)").
func compileRegex(pattern string, opt MatchOptions) (*regexMatcher, error) {
	parseFlags := syntax.Perl
	flags := ""
	if !opt.CaseSensitive {
		parseFlags |= syntax.FoldCase
		flags = "(?i)"
	}
	tree, err := syntax.Parse(pattern, parseFlags)
	if err != nil {
		return nil, fmt.Errorf("query: bad regex /%s/: %w", pattern, err)
	}
	simple := tree.Simplify()
	if err := checkRegexCost(pattern, simple); err != nil {
		return nil, err
	}
	m := &regexMatcher{word: opt.Word}
	m.prefilter, m.alone, m.others, m.exact = prefilterFor(simple, opt.Word)
	m.shape = regexShape(simple, opt.Word)
	expr := flags + pattern
	if opt.Word {
		// Wrap the parsed form, which carries its flags, rather than the
		// pattern as typed: an unterminated \Q would swallow the wrapping.
		boundaries := `(` + tree.String() + `)(?:` + nonWordRegexClass + `|$)`
		expr = `(?:^|` + nonWordRegexClass + `)` + boundaries
		if m.rest, err = compileBoth(nonWordRegexClass + boundaries); err != nil {
			return nil, fmt.Errorf("query: bad regex /%s/: %w", pattern, err)
		}
	}
	if m.first, err = compileBoth(expr); err != nil {
		return nil, fmt.Errorf("query: bad regex /%s/: %w", pattern, err)
	}
	return m, nil
}

// maxRegexProgram bounds a pattern's compiled size. Matching costs about
// the program's size for every byte of every row read: a pattern past it
// ("a{1000}", nested counted repeats) took tens of seconds and gigabytes
// over a 1 GB corpus; the plainest searches use a few dozen instructions.
const maxRegexProgram = 400

// checkRegexCost refuses a pattern whose program is past maxRegexProgram,
// with a message that says why and what to do instead.
func checkRegexCost(pattern string, simple *syntax.Regexp) error {
	prog, err := syntax.Compile(simple)
	if err != nil {
		return fmt.Errorf("query: bad regex /%s/: %w", pattern, err)
	}
	if n := len(prog.Inst); n > maxRegexProgram {
		return fmt.Errorf("query: regex /%s/ is too large to run over the index (%d instructions, at most %d): use smaller counted repetitions ({n}), or words with --require", pattern, n, maxRegexProgram)
	}
	return nil
}

func compileBoth(expr string) (compiledRegex, error) {
	std, err := regexp.Compile(expr)
	if err != nil {
		return compiledRegex{}, err
	}
	prefix, _ := std.LiteralPrefix()
	return compiledRegex{
		std:      std,
		stdFirst: prefix != "",
		re2: sync.OnceValue(func() *re2.Regexp {
			fast, err := re2.Compile(expr)
			if err != nil {
				return nil
			}
			return fast
		}),
	}, nil
}

// engineFor picks the engine for text (see the table above).
func (c *compiledRegex) engineFor(text []byte) regexEngine {
	return c.engine(utf8.Valid(text))
}

// engine picks the engine for a text that is valid UTF-8 or not.
func (c *compiledRegex) engine(validUTF8 bool) regexEngine {
	if c.stdFirst || !validUTF8 {
		return c.std
	}
	if fast := c.re2(); fast != nil {
		return fast
	}
	return c.std
}

// prefilterPasses reports whether text contains one of the prefilter's
// strings, or true when there is no prefilter.
func (m *regexMatcher) prefilterPasses(text []byte) bool {
	if m.prefilter == nil {
		return true
	}
	for _, l := range m.prefilter {
		if l.match(text) {
			return true
		}
	}
	return false
}

func (m *regexMatcher) match(text []byte) bool {
	if !m.prefilterPasses(text) {
		return false
	}
	if m.exact {
		return true
	}
	for _, l := range m.alone {
		if l.match(text) {
			return true
		}
	}
	return m.first.engineFor(text).Match(text)
}

func (m *regexMatcher) findAll(text []byte, dst []Span) []Span {
	if m.exact && len(m.prefilter) == 1 && !m.word {
		// The pattern is one literal: its matches are the literal's,
		// leftmost and without overlaps as a regex finds them, found
		// without copying the text into go-re2's memory.
		return m.prefilter[0].findAll(text, dst)
	}
	if lit := m.onlyBranch(text); lit != nil {
		return lit.findAll(text, dst)
	}
	if !m.prefilterPasses(text) {
		return dst
	}
	if m.word {
		return m.findAllWords(text, dst)
	}
	for _, loc := range m.first.engineFor(text).FindAllIndex(text, -1) {
		dst = append(dst, Span{loc[0], loc[1]})
	}
	return dst
}

// onlyBranch returns the pattern's one literal branch when text holds
// none of the other branches' strings: then every match is one of that
// literal, leftmost and without overlaps (trace without dead, for
// dead.?lock|race), and the literal matcher finds them. Nil otherwise.
func (m *regexMatcher) onlyBranch(text []byte) *literal {
	if len(m.alone) != 1 {
		return nil
	}
	for _, l := range m.others {
		if l.match(text) {
			return nil
		}
	}
	return m.alone[0]
}

// findAllWords finds whole-word matches one at a time. After a match the
// search goes on from its last character, which may be the next match's
// left boundary, with rest, which requires such a boundary character and
// so cannot match where the slice starts. Empty matches are not reported
// (an empty word marks nothing), which also guarantees progress.
func (m *regexMatcher) findAllWords(text []byte, dst []Span) []Span {
	valid := utf8.Valid(text)
	engine := m.first.engine(valid)
	for at := 0; at <= len(text); {
		loc := engine.FindSubmatchIndex(text[at:])
		if loc == nil || loc[2] < 0 {
			break
		}
		start, end := at+loc[2], at+loc[3]
		engine = m.rest.engine(valid)
		if start == end {
			at = start
			continue
		}
		dst = append(dst, Span{start, end})
		_, w := utf8.DecodeLastRune(text[:end])
		at = end - w
	}
	return dst
}

// requiredSet is a set of strings at least one of which every match of a
// regex contains; exact when a text matches exactly when it contains one.
type requiredSet struct {
	lits  []requiredLiteral
	exact bool
}

type requiredLiteral struct {
	text  string
	fold  bool
	alone bool // a text holding it matches
}

// prefilterFor derives the literal prefilter of a simplified regex, and
// those of its strings whose presence alone is a match; word is --word,
// which an exact set can apply itself.
func prefilterFor(re *syntax.Regexp, word bool) (lits, alone, others []*literal, exact bool) {
	set, ok := required(re)
	if !ok {
		return nil, nil, nil, false
	}
	lits = make([]*literal, len(set.lits))
	for i, r := range set.lits {
		opt := MatchOptions{CaseSensitive: !r.fold, Word: word && set.exact}
		lits[i] = compileLiteral(r.text, false, opt)
		if r.alone && !word && !set.exact {
			alone = append(alone, lits[i])
		} else {
			others = append(others, lits[i])
		}
	}
	return lits, alone, others, set.exact
}

// required computes the required strings of re, or false when a match
// need not contain any string (a class, an optional part, an empty match)
// or there would be too many.
func required(re *syntax.Regexp) (requiredSet, bool) {
	switch re.Op {
	case syntax.OpLiteral:
		return requiredSet{
			lits:  []requiredLiteral{{text: string(re.Rune), fold: re.Flags&syntax.FoldCase != 0, alone: true}},
			exact: true,
		}, true
	case syntax.OpCapture:
		return required(re.Sub[0])
	case syntax.OpPlus:
		set, ok := required(re.Sub[0])
		return set.inexact(), ok
	case syntax.OpRepeat:
		if re.Min < 1 {
			return requiredSet{}, false
		}
		set, ok := required(re.Sub[0])
		return set.inexact(), ok
	case syntax.OpConcat:
		return requiredOfConcat(re.Sub)
	case syntax.OpAlternate:
		return requiredOfAlternate(re.Sub)
	}
	return requiredSet{}, false
}

// requiredOfConcat picks the most selective child set: every match holds
// a match of each child.
func requiredOfConcat(subs []*syntax.Regexp) (requiredSet, bool) {
	var best requiredSet
	found := false
	for _, sub := range mergeLiterals(subs) {
		set, ok := required(sub)
		if ok && (!found || set.selectivity() > best.selectivity()) {
			best, found = set, true
		}
	}
	if len(subs) > 1 {
		best = best.inexact()
	}
	return best, found
}

// inexact returns s as the set of an expression that holds more than its
// strings: neither exact nor any string alone a match.
func (s requiredSet) inexact() requiredSet {
	lits := slices.Clone(s.lits)
	for i := range lits {
		lits[i].alone = false
	}
	return requiredSet{lits: lits}
}

// mergeLiterals joins runs of adjacent literals of the same case folding
// into one: "a{100}" simplifies to a hundred one-letter literals, whose
// required string is the hundred letters, not one "a" that every row has.
func mergeLiterals(subs []*syntax.Regexp) []*syntax.Regexp {
	out := make([]*syntax.Regexp, 0, len(subs))
	for _, sub := range subs {
		if n := len(out); n > 0 && sub.Op == syntax.OpLiteral && out[n-1].Op == syntax.OpLiteral &&
			sub.Flags&syntax.FoldCase == out[n-1].Flags&syntax.FoldCase {
			merged := *out[n-1]
			merged.Rune = append(slices.Clone(merged.Rune), sub.Rune...)
			out[n-1] = &merged
			continue
		}
		out = append(out, sub)
	}
	return out
}

// requiredOfAlternate unites the children's sets: a match matches one
// child. Any child without a set leaves the alternation without one.
func requiredOfAlternate(subs []*syntax.Regexp) (requiredSet, bool) {
	union := requiredSet{exact: true}
	for _, sub := range subs {
		set, ok := required(sub)
		if !ok || len(union.lits)+len(set.lits) > maxPrefilterLiterals {
			return requiredSet{}, false
		}
		union.lits = append(union.lits, set.lits...)
		union.exact = union.exact && set.exact
	}
	return union, true
}

// selectivity ranks sets for a concatenation: the shortest string counts
// (it is the one found most often), and fewer strings break ties.
func (s requiredSet) selectivity() int {
	shortest := 0
	for i, l := range s.lits {
		if n := utf8.RuneCountInString(l.text); i == 0 || n < shortest {
			shortest = n
		}
	}
	return shortest*maxPrefilterLiterals*2 - len(s.lits)
}
