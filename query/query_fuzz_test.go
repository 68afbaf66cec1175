package query

import (
	"strings"
	"testing"
	"unicode"
)

// typed reports whether s holds something a person typed as a search: a
// character that is neither space nor a quote (an empty phrase, "", is
// nothing to search for).
func typed(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return !unicode.IsSpace(r) && r != '"' }) >= 0
}

// FuzzTypedQueryNeverFails: no text a person types is an error. Without
// --regex, any positional words parse, whatever their characters, with
// any --require (of at most maxPositiveTerms words) and --exclude (within
// MaxFilterWords and MaxFilterBytes), in
// every matching mode; the query then matches its own words without
// panicking.
func FuzzTypedQueryNeverFails(f *testing.F) {
	f.Add("how did we implement jwt auth?", "", "test", false, false)
	f.Add(`"rate limiter" reset_windows`, `"a b`, "", true, true)
	f.Add("a{1000} (unclosed [regex", "", "", false, false)
	f.Add("...", "", "", false, false)
	f.Add("the of and is", "", "", false, true)
	f.Add("last week's deploy", "", "", false, false)
	f.Add("\xff\xfe \x00 \u200b", "_", "", true, false)
	f.Add(`""" x`, "", `"`, false, false)
	f.Fuzz(func(t *testing.T, positional, require, exclude string, caseSensitive, word bool) {
		if !typed(positional) || len(appendTokens(nil, require, true)) > maxPositiveTerms ||
			len(exclude) > MaxFilterBytes || len(appendTokens(nil, exclude, true)) > MaxFilterWords {
			return // --require and --exclude past their caps are refused (TestParseQuerySizeCaps)
		}
		opt := MatchOptions{CaseSensitive: caseSensitive, Word: word}
		q, err := ParseQuery([]string{positional}, []string{require}, []string{exclude}, opt)
		if err != nil {
			t.Fatalf("ParseQuery(%q, --require %q, --exclude %q, %+v): %v", positional, require, exclude, opt, err)
		}
		q.MatchMessage([]byte(positional))
	})
}
