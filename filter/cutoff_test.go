package filter

import (
	"testing"
	"time"
)

func TestRecallWindow(t *testing.T) {
	at := time.Date(2026, 3, 1, 10, 10, 0, 0, time.UTC)
	e := RecallEvent{Time: at, Source: "/a.jsonl", Line: 20, Ordinal: 8, Words: []string{"kubernetes", "ingress"}}
	w := DefaultWindow()
	tests := []struct {
		name   string
		t      time.Time
		source string
		ord    int
		want   bool
	}{
		{"before the event", at.Add(-5 * time.Minute), "/a.jsonl", 5, false},
		{"minutes after", at.Add(3 * time.Minute), "/a.jsonl", 40, true},
		{"long after, far away", at.Add(2 * time.Hour), "/a.jsonl", 30, false},
		{"long after but within five rows", at.Add(2 * time.Hour), "/a.jsonl", 13, true},
		{"six rows after", at.Add(2 * time.Hour), "/a.jsonl", 14, false},
		{"within rows of another file", at.Add(2 * time.Hour), "/b.jsonl", 10, false},
	}
	for _, tt := range tests {
		if got := e.InWindow(w, tt.t, tt.source, tt.ord); got != tt.want {
			t.Errorf("%s: InWindow = %v, want %v", tt.name, got, tt.want)
		}
	}
	if !e.SharesWords("The Kubernetes ingress controller was misconfigured") {
		t.Error("echo sharing words not recognised")
	}
	if e.SharesWords("We implemented JWT auth in the middleware") {
		t.Error("unrelated message treated as an echo")
	}
}
