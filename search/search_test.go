package search

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/recall-dev/recall/filter"
	"github.com/recall-dev/recall/rank"
)

func TestParseTime(t *testing.T) {
	now := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		in   string
		want time.Time
		ok   bool
	}{
		{"", time.Time{}, true},
		{"30d", now.Add(-30 * 24 * time.Hour), true},
		{"2w", now.Add(-14 * 24 * time.Hour), true},
		{"12h", now.Add(-12 * time.Hour), true},
		{"90m", now.Add(-90 * time.Minute), true},
		{"2026-01-31T08:00:00Z", time.Date(2026, 1, 31, 8, 0, 0, 0, time.UTC), true},
		{"yesterday", time.Time{}, false},
		{"-3d", time.Time{}, false},
		{"3x", time.Time{}, false},
	}
	for _, tt := range tests {
		got, err := ParseTime(tt.in, now)
		if (err == nil) != tt.ok || (tt.ok && !got.Equal(tt.want)) {
			t.Errorf("ParseTime(%q) = %v, %v; want %v, ok %v", tt.in, got, err, tt.want, tt.ok)
		}
	}
	if d, err := ParseTime("2026-01-31", now); err != nil || d.Day() != 31 {
		t.Errorf("date only: %v %v", d, err)
	}
}

func TestProjectMatches(t *testing.T) {
	tests := []struct {
		project string
		wanted  []string
		want    bool
	}{
		{"/home/dev/src/shop", nil, true},
		{"/home/dev/src/shop", []string{"/home/dev/src/shop"}, true},
		{"/home/dev/src/shop/api", []string{"/home/dev/src/shop"}, true},
		{"/home/dev/src/shopping", []string{"/home/dev/src/shop"}, false},
		{"/home/dev/src/blog", []string{"/home/dev/src/shop"}, false},
		{"/home/dev/src/Shop-API", []string{"shop"}, true},
		{"/home/dev/src/blog", []string{"/x", "blog"}, true},
	}
	for _, tt := range tests {
		if got := projectMatches(tt.project, tt.wanted); got != tt.want {
			t.Errorf("projectMatches(%q, %q) = %v, want %v", tt.project, tt.wanted, got, tt.want)
		}
	}
}

// Every output format must carry recall's output signature, so that
// output pasted back into a conversation is never indexed again.
func TestOutputCarriesSignature(t *testing.T) {
	q, err := filter.ParseQuery([]string{"jwt"}, nil, nil, filter.MatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	text := "We implemented JWT auth in the middleware."
	res := &Result{Query: q, Sessions: []rank.Session{{
		ID: "3f2a9c1e-0000-4000-8000-000000000000", Project: "/home/dev/src/shop", Score: 3.2, Matches: 1,
		Last: time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC), Source: "/p/s.jsonl",
		Messages: []rank.ScoredMessage{{Message: rank.Message{Type: "assistant", Text: text, Source: "/p/s.jsonl", Line: 4,
			Hits: []rank.Hit{{Term: 0, Start: 15, End: 18}}}, Score: 3.2}},
	}}}
	for _, format := range []string{"human", "json", "markdown"} {
		var b bytes.Buffer
		if err := Write(&b, res, Output{Format: format, MaxMessages: 5, Context: 300}); err != nil {
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
	q, _ := filter.ParseQuery([]string{"jwt"}, nil, nil, filter.MatchOptions{})
	for _, format := range []string{"human", "json", "markdown", "list"} {
		var b bytes.Buffer
		if err := Write(&b, &Result{Query: q}, Output{Format: format}); err != nil || b.Len() != 0 {
			t.Errorf("%s: printed %q (err %v) for no sessions", format, b.String(), err)
		}
	}
}
