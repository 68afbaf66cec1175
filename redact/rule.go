package redact

import (
	"math"
	"regexp"
	"strings"
	"sync"

	"github.com/recall-dev/recall/redact/gitleaks"
	"github.com/recall-dev/recall/redact/resyntax"
)

// A rule finds one kind of secret. It runs only where one of its keywords
// occurs (the prefilter finds them all in one pass), in one of two ways:
//
//   - a whole rule (gitleaks' rules) runs its regular expression over the
//     whole text once any of its keywords occurs, as gitleaks does;
//   - an anchored rule (recall's own rules) runs its expression, which
//     starts with the keyword, at each occurrence of a keyword, on at most
//     window bytes, and a check in Go decides with the context.
//
// Expressions are compiled on first use: a run that meets only a few kinds
// of secret compiles only those rules.
type rule struct {
	kind     string   // the placeholder's type: [REDACTED:kind]
	keywords []string // lower case
	// priority decides the kind of a placeholder when the spans of two
	// rules overlap: lower wins (specific rules beat generic ones).
	priority int
	source   string

	// Whole rules: gitleaks' semantics.
	guarded bool // some keyword has a guard (gitleaksGuard)
	// mayMatch, if set, is false for a text the expression cannot match
	// (gitleaksMayMatch): the whole text is then not run.
	mayMatch func(text string) bool
	// textPrecheck, if set, is false for a text or window the expression
	// cannot match (wholePrecheck).
	textPrecheck func(text string) bool
	secretGroup  int
	entropy      float64
	allow        []gitleaks.Allowlist

	// Anchored rules.
	anchored bool
	window   int
	// accept returns the span of the secret in text for the match m of the
	// expression (indexes into text), or ok false when the match is not a
	// secret after all.
	accept func(text string, m []int) (lo, hi int, ok bool)
	// precheck, if set, is false at a keyword occurrence text[start:]
	// where the expression run on text[start:end] finds nothing the
	// accept check takes (anchoredPrecheck).
	precheck func(text string, start, end int) bool
	// find, if set, takes the place of an anchored rule's expression and
	// accept check: the spans of the secrets it finds at the keyword
	// occurrence that starts at start, reading text[:end] at most past
	// it (a rule may look back from start, as to the start of a name).
	find func(text string, start, end int, out [][2]int) [][2]int

	compiled func() compiledRule
}

type compiledRule struct {
	re    *regexp.Regexp
	allow []allowlist
	// window is the longest match of a whole rule that can run in windows
	// around its keywords (windowLen), 0 if it runs over the whole text.
	window int
	// run is a run of characters every match of a whole rule holds
	// (runToCheck): a window or text without it is not run.
	run resyntax.ClassRun
}

// allowlist is a compiled gitleaks allowlist: a finding it matches is not
// a secret. Conditions on paths and commits were dropped when the rules
// were generated (text has neither).
type allowlist struct {
	target string // "" (the secret), "match" or "line"
	and    bool
	re     *regexp.Regexp
	stop   []string // lower case
}

func (r *rule) init() {
	r.compiled = sync.OnceValue(func() compiledRule {
		c := compiledRule{allow: compileAllowlists(r.allow)}
		if r.find == nil {
			c.re = regexp.MustCompile(r.source)
		}
		if !r.anchored && !r.guarded {
			c.window = resyntax.WindowLen(r.source, r.keywords)
		}
		if !r.anchored {
			c.run = resyntax.RunToCheck(r.source)
		}
		return c
	})
}

func compileAllowlists(specs []gitleaks.Allowlist) []allowlist {
	out := make([]allowlist, 0, len(specs))
	for _, s := range specs {
		a := allowlist{target: s.Target, and: s.And}
		if len(s.Regexes) > 0 {
			// One alternation, as gitleaks joins them.
			a.re = regexp.MustCompile("(?:" + strings.Join(s.Regexes, ")|(?:") + ")")
		}
		for _, w := range s.StopWords {
			a.stop = append(a.stop, strings.ToLower(w))
		}
		out = append(out, a)
	}
	return out
}

// span is one secret found: text[lo:hi] becomes a placeholder.
type span struct {
	lo, hi int
	rule   *rule
}

// findAll runs a whole rule over text, where its keywords occur at occ (in
// order of their ends): in windows around them when it can (windowLen),
// else over the whole text.
func (r *rule) findAll(text string, occ []resyntax.Occurrence, global []allowlist, out []span, ranges [][2]int) ([]span, [][2]int) {
	c := r.compiled()
	if c.window == 0 {
		if r.mayMatch != nil && !r.mayMatch(text) || r.textPrecheck != nil && !r.textPrecheck(text) || !c.run.In(text) {
			return out, ranges
		}
		return r.report(text, c, c.re.FindAllStringSubmatchIndex(text, -1), 0, global, out), ranges
	}
	ranges = resyntax.Windows(occ, c.window, len(text), ranges[:0])
	for _, w := range ranges {
		if r.textPrecheck != nil && !r.textPrecheck(text[w[0]:w[1]]) || !c.run.In(text[w[0]:w[1]]) {
			continue
		}
		out = r.report(text, c, c.re.FindAllStringSubmatchIndex(text[w[0]:w[1]], -1), w[0], global, out)
	}
	return out, ranges
}

// report turns the matches of a whole rule (indexes into text from
// offset) into findings the way gitleaks' detectRule does: the secret is
// the rule's secret group, else the first non-empty group, else the
// match; a secret whose entropy is at or below the rule's bound, or that
// an allowlist (the rule's or a global one) matches, is not reported.
func (r *rule) report(text string, c compiledRule, matches [][]int, offset int, global []allowlist, out []span) []span {
	for _, m := range matches {
		for i := range m {
			if m[i] >= 0 {
				m[i] += offset
			}
		}
		lo, hi := trimNewlines(text, m[0], m[1])
		mlo, mhi := lo, hi
		if len(m) > 2 {
			var ok bool
			if lo, hi, ok = secretGroup(m, r.secretGroup, lo, hi); !ok {
				continue
			}
		}
		if lo >= hi {
			continue
		}
		secret := text[lo:hi]
		if r.entropy != 0 && shannonEntropy(secret) <= r.entropy {
			continue
		}
		line := lineAround(text, mlo, mhi)
		if allowed(global, secret, text[mlo:mhi], line) || allowed(c.allow, secret, text[mlo:mhi], line) {
			continue
		}
		out = append(out, span{lo: lo, hi: hi, rule: r})
	}
	return out
}

// findAt runs an anchored rule at the keyword occurrence that starts at
// start.
func (r *rule) findAt(text string, start int, global []allowlist, out []span) []span {
	end := min(len(text), start+r.window)
	if r.precheck != nil && !r.precheck(text, start, end) {
		return out
	}
	if r.find != nil {
		for _, f := range r.find(text, start, end, nil) {
			lo, hi := f[0], f[1]
			if lo >= hi || lo < 0 || hi > len(text) {
				continue
			}
			if allowed(global, text[lo:hi], text[lo:hi], lineAround(text, lo, hi)) {
				continue
			}
			out = append(out, span{lo: lo, hi: hi, rule: r})
		}
		return out
	}
	c := r.compiled()
	m := c.re.FindStringSubmatchIndex(text[start:end])
	if m == nil {
		return out
	}
	for i := range m {
		if m[i] >= 0 {
			m[i] += start
		}
	}
	lo, hi, ok := r.accept(text, m)
	if !ok || lo >= hi {
		return out
	}
	secret := text[lo:hi]
	if allowed(global, secret, text[m[0]:m[1]], lineAround(text, m[0], m[1])) {
		return out
	}
	return append(out, span{lo: lo, hi: hi, rule: r})
}

// secretGroup picks the secret's span among the groups of match m as
// gitleaks does; ok is false when the rule names a group the match lacks.
func secretGroup(m []int, group, lo, hi int) (int, int, bool) {
	if group > 0 {
		if 2*group+1 >= len(m) || m[2*group] < 0 {
			return 0, 0, false
		}
		return m[2*group], m[2*group+1], true
	}
	for g := 2; g+1 < len(m); g += 2 {
		if m[g] >= 0 && m[g+1] > m[g] {
			return m[g], m[g+1], true
		}
	}
	return lo, hi, true
}

func trimNewlines(text string, lo, hi int) (int, int) {
	for lo < hi && text[lo] == '\n' {
		lo++
	}
	for hi > lo && text[hi-1] == '\n' {
		hi--
	}
	return lo, hi
}

// lineContext bounds the line an allowlist reads on either side of a
// match: a message can be one line of megabytes, and reading it all for
// every finding would cost more than finding.
const lineContext = 1 << 10

// lineAround is the line (or lines) of text holding text[lo:hi], at most
// lineContext bytes of it on either side.
func lineAround(text string, lo, hi int) string {
	from := max(0, lo-lineContext)
	start := from + strings.LastIndexByte(text[from:lo], '\n') + 1
	to := min(len(text), hi+lineContext)
	end := strings.IndexByte(text[hi:to], '\n')
	if end < 0 {
		return text[start:to]
	}
	return text[start : hi+end]
}

// allowed applies gitleaks' allowlist semantics (detect.checkFindingAllowed)
// to one finding.
func allowed(lists []allowlist, secret, match, line string) bool {
	for i := range lists {
		a := &lists[i]
		target := secret
		switch a.target {
		case "match":
			target = match
		case "line":
			target = line
		}
		regexOK := a.re != nil && a.re.MatchString(target)
		stopOK := containsStopWord(a.stop, secret)
		if a.and {
			if (a.re == nil || regexOK) && (len(a.stop) == 0 || stopOK) {
				return true
			}
			continue
		}
		if regexOK || stopOK {
			return true
		}
	}
	return false
}

func containsStopWord(stop []string, secret string) bool {
	if len(stop) == 0 {
		return false
	}
	s := strings.ToLower(secret)
	for _, w := range stop {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// shannonEntropy is gitleaks' entropy of a secret, in bits per character
// (characters are counted as runes, frequencies relative to the length in
// bytes, exactly as gitleaks computes it).
func shannonEntropy(s string) float64 {
	if s == "" {
		return 0
	}
	var ascii [128]int
	var other map[rune]int
	for _, c := range s {
		if c < 128 {
			ascii[c]++
			continue
		}
		if other == nil {
			other = map[rune]int{}
		}
		other[c]++
	}
	inv := 1 / float64(len(s))
	e := 0.0
	add := func(n int) {
		if n > 0 {
			f := float64(n) * inv
			e -= f * math.Log2(f)
		}
	}
	for _, n := range ascii {
		add(n)
	}
	for _, n := range other {
		add(n)
	}
	return e
}
