package filter

import (
	"fmt"
	"testing"
	"time"
)

func TestDetectRecallEvent(t *testing.T) {
	tests := []struct {
		role, text string
		want       bool
		words      string
	}{
		{"tool", `Bash: recall "jwt auth" --require implement`, true, "[jwt auth implement]"},
		{"tool", `Bash: cd /src && ~/go/bin/recall search kubernetes ingress | head`, true, "[kubernetes ingress]"},
		{"tool", `Bash: RECALL_INDEX_DIR=/tmp/x recall -l websocket`, true, "[websocket]"},
		{"tool", `Bash: memory search "stripe webhooks"`, true, "[stripe webhooks]"},
		{"tool", `mcp__recall__search: flaky reconnect test`, true, "[flaky reconnect test]"},
		{"tool", `Bash: cd ~/src/recall && make test`, false, "[]"},
		{"tool", `Bash: ls recall`, false, "[]"},
		{"tool", `Edit: /src/recall/main.go`, false, "[]"},
		{"assistant", "I'll search my memory for the JWT refresh work.", true, "[jwt refresh work]"},
		{"assistant", "I ran `recall pricing rounding` and found two sessions.", true, "[pricing rounding]"},
		{"user", "Did you remember what we talked about caching?", true, "[caching]"},
		{"assistant", "I don't recall the exact flag, let me check the docs.", false, "[]"},
		{"assistant", "I'll search the codebase for the handler.", false, "[]"},
	}
	for _, tt := range tests {
		words, ok := DetectRecallEvent(tt.role, tt.text)
		if ok != tt.want || (ok && fmt.Sprint(words) != tt.words) {
			t.Errorf("DetectRecallEvent(%q, %q) = %v, %v; want %s, %v", tt.role, tt.text, words, ok, tt.words, tt.want)
		}
	}
}

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
