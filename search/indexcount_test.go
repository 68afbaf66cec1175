package search

import (
	"strings"
	"testing"

	"github.com/recall-dev/recall/query"
	"github.com/recall-dev/recall/store/terms"
)

// FuzzIndexCounts builds a real term segment of the texts (one row each,
// split at NUL) and checks that the rows the counter counts for a term
// are exactly those Term.IndexMatch accepts (what a full scan counts),
// and that they include every row Term.Match accepts: a row the index
// does not count is never a candidate, so an accelerated search would
// miss it where the full scan finds it.
func FuzzIndexCounts(f *testing.F) {
	f.Add(`dead.?lock`, "deadline and lock\x00a dead-lock\x00deadlock\x00dead lock", uint8(2))
	f.Add(`"race condition"`, "race condition\x00embrace conditions\x00racecondition", uint8(0))
	f.Add(`foo_bar`, "foo bar\x00foo_bar\x00fooxbar", uint8(1))
	f.Add(`(?i)ſtra|σ\b`, "STRASSE ſtraße\x00σίσυφος ς\x00Σ", uint8(2))
	f.Add(`a{0,3}b.c`, "aab c\x00b-c\x00abxc", uint8(6))
	// ι's case orbit holds U+0345, a combining mark: no token holds it,
	// yet a case-insensitive ι matches it.
	f.Add(`ι`, "\u0345\x00ι\x00a\u0345b\x00Ι", uint8(0))
	f.Add(`ι`, "\u0345", uint8(4))
	f.Add(`Ιx`, "\u0345x\x00ιx", uint8(0))
	f.Fuzz(func(t *testing.T, pattern, texts string, mode uint8) {
		opt := query.MatchOptions{Regex: mode%3 == 2, Word: mode&4 != 0, CaseSensitive: mode&8 != 0}
		q, err := query.ParseQuery([]string{pattern}, nil, nil, opt)
		if err != nil {
			return
		}
		rows := strings.Split(texts, "\x00")
		if len(rows) > 16 {
			return
		}
		b := terms.NewBuilder()
		for _, text := range rows {
			b.Add(&terms.Row{Session: "s", Project: "p", Text: []byte(text)})
		}
		dir := t.TempDir()
		ref, err := b.WriteFile(dir, 1, 0, 1)
		if err != nil {
			t.Fatal(err)
		}
		seg, err := terms.Open(dir, ref)
		if err != nil {
			t.Fatal(err)
		}
		defer seg.Close()
		for _, term := range q.Positive() {
			shape := term.Shape()
			if shape.Alts == nil {
				continue // not looked up in the index
			}
			var c counter
			c.reset(seg.Rows(), 1, 0)
			if err := c.fill(seg, shape, &c.terms[0]); err != nil {
				t.Fatal(err)
			}
			for i, text := range rows {
				counted := c.terms[0].counts[i].hits > 0
				if want := term.IndexMatch([]byte(text)); counted != want {
					t.Errorf("%s on %q: the index counts %v, IndexMatch %v (pieces %+v)", term, text, counted, want, shape.Pieces)
				}
				if term.Match([]byte(text)) && !counted {
					t.Errorf("%s matches %q but the index does not count it (pieces %+v)", term, text, shape.Pieces)
				}
			}
		}
	})
}
