package query

import (
	"regexp/syntax"
	"strings"
	"testing"
)

// TestRegexCostIsBounded: a pattern whose program is too large to run over
// an index is refused with a message that says why; ordinary patterns,
// and counted repeats of literals (whose required string is then the
// whole run, so the prefilter stays selective), are not.
func TestRegexCostIsBounded(t *testing.T) {
	for _, pattern := range []string{`a{1000}`, `(a|b|c)*d{500}`, `(\w+\s+){200}`, `(?:x{20}){30}`} {
		_, err := ParseQuery([]string{pattern}, nil, nil, MatchOptions{Regex: true})
		if err == nil || !strings.Contains(err.Error(), "too large") {
			t.Errorf("%q: %v, want a too-large error", pattern, err)
		}
	}
	for _, pattern := range []string{`mutex|dead.?lock`, `\b[A-Z][a-z]+Error\b`, `a{100}`, `[0-9a-f]{40}`, `(?i)jwt (auth|token)s?`} {
		if _, err := ParseQuery([]string{pattern}, nil, nil, MatchOptions{Regex: true}); err != nil {
			t.Errorf("%q refused: %v", pattern, err)
		}
	}
	set, ok := required(mustSimplify(t, `x*a{12}y`))
	if !ok || len(set.lits) != 1 || set.lits[0].text != strings.Repeat("a", 12) {
		t.Errorf("required(x*a{12}y) = %+v, %v; want the twelve a's", set, ok)
	}
}

func mustSimplify(t *testing.T, pattern string) *syntax.Regexp {
	t.Helper()
	tree, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		t.Fatal(err)
	}
	return tree.Simplify()
}
