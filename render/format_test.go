package render

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/recall-dev/recall/filter"
	"github.com/recall-dev/recall/query"
	"github.com/recall-dev/recall/rank"
	"github.com/recall-dev/recall/search"
)

// Every output format must carry recall's output signature, so that
// output pasted back into a conversation is never indexed again.
func TestOutputCarriesSignature(t *testing.T) {
	q, err := query.ParseQuery([]string{"jwt"}, nil, nil, query.MatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	text := "We implemented JWT auth in the middleware."
	res := &search.Result{Query: q, Sessions: []rank.Session{{
		ID: "3f2a9c1e-0000-4000-8000-000000000000", Project: "/home/dev/src/shop", Score: 3.2, Matches: 1,
		Last: time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC), Source: "/p/s.jsonl",
		Messages: []rank.ScoredMessage{{Message: rank.Message{Type: "assistant", Text: text, Source: "/p/s.jsonl", Line: 4,
			Hits: []rank.Hit{{Term: 0, Start: 15, End: 18}}}, Score: 3.2}},
	}}}
	for _, tc := range []struct {
		format string
		ranked int // the ranking's limit: 1, as many as found, is a cut result
	}{{"human", 0}, {"human", 1}, {"json", 0}, {"json", 1}, {"markdown", 0}, {"markdown", 1}} {
		format := tc.format
		var b bytes.Buffer
		if err := Write(&b, res, search.Output{Format: format, MaxMessages: 5, Context: 300, Ranked: tc.ranked}); err != nil {
			t.Fatal(err)
		}
		if !filter.IsRecallOutput(b.String()) {
			t.Errorf("%s output is not recognised as recall output:\n%s", format, b.String())
		}
		if !strings.Contains(b.String(), "/p/s.jsonl") {
			t.Errorf("%s output lacks the evidence path:\n%s", format, b.String())
		}
	}
}

func TestHighlightMarksMatchesOnlyWithColor(t *testing.T) {
	sn := rank.Snippet{Text: "use the jwt token", Highlights: []rank.Span{{Start: 8, End: 11}}, ElidedEnd: true}
	if got := highlight(sn, painter{on: false}); got != "use the jwt token…" {
		t.Errorf("plain = %q", got)
	}
	if got := highlight(sn, painter{on: true}); got != "use the "+styleMatch+"jwt"+styleReset+" token…" {
		t.Errorf("colour = %q", got)
	}
}

func TestNoSessionsPrintNothing(t *testing.T) {
	q, _ := query.ParseQuery([]string{"jwt"}, nil, nil, query.MatchOptions{})
	for _, format := range []string{"human", "json", "markdown", "list"} {
		var b bytes.Buffer
		if err := Write(&b, &search.Result{Query: q}, search.Output{Format: format}); err != nil || b.Len() != 0 {
			t.Errorf("%s: printed %q (err %v) for no sessions", format, b.String(), err)
		}
	}
}
