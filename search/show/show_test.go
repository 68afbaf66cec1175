package show

import (
	"fmt"
	"strings"
	"testing"

	"github.com/recall-dev/recall/record"
)

// A session reads in conversation order: each transcript in file order,
// even where its timestamps go backwards, subagents merged in by time.
func TestSessionOrder(t *testing.T) {
	row := func(source string, line int, ts string) record.Row {
		return record.Row{Source: source, Line: line, Timestamp: ts}
	}
	in := []record.Row{
		row("main", 1, "2026-03-01T10:00:00.000Z"),
		row("main", 2, "2026-03-01T10:05:00.000Z"),
		row("main", 3, "2026-03-01T10:04:59.000Z"), // written out of order: stays after line 2
		row("main", 4, "2026-03-01T10:09:00.000Z"),
		row("agent", 1, "2026-03-01T10:01:00.000Z"),
		row("agent", 2, "2026-03-01T10:06:00.000Z"),
	}
	want := []string{"main:1", "agent:1", "main:2", "main:3", "agent:2", "main:4"}
	got := sessionOrder(in)
	for i, r := range got {
		if s := r.Source + ":" + string(rune('0'+r.Line)); s != want[i] {
			t.Fatalf("order %d: %s, want %v", i, s, want)
		}
	}
}

func TestWindow(t *testing.T) {
	tests := []struct{ hit, n, context, from, to int }{
		{5, 20, 2, 3, 8},
		{0, 20, 2, 0, 3},
		{19, 20, 2, 17, 20},
		{-1, 20, 2, 0, 5}, // no hit: the start
		{-1, 3, 5, 0, 3},
		{4, 10, 0, 4, 5},
	}
	for _, tt := range tests {
		if from, to := window(tt.hit, tt.n, tt.context); from != tt.from || to != tt.to {
			t.Errorf("window(%d, %d, %d) = %d, %d; want %d, %d", tt.hit, tt.n, tt.context, from, to, tt.from, tt.to)
		}
	}
}

func TestSplitLine(t *testing.T) {
	tests := []struct {
		in, target string
		line       int
	}{
		{"abc:12", "abc", 12},
		{"/p/x.jsonl:3", "/p/x.jsonl", 3},
		{"abc", "abc", 0},
		{"abc:0", "abc:0", 0},
		{"c:/x", "c:/x", 0},
	}
	for _, tt := range tests {
		if target, line := splitLine(tt.in); target != tt.target || line != tt.line {
			t.Errorf("splitLine(%q) = %q, %d", tt.in, target, line)
		}
	}
}

// TestContextCap: a context over its cap is refused, naming the cap,
// before anything is sized by it.
func TestContextCap(t *testing.T) {
	huge := int(^uint(0) >> 1)
	_, err := Params{Session: "abc", Context: &huge}.Request()
	want := fmt.Sprintf("-C/--context %d: at most 100000 messages before and after (--full shows the whole session)", huge)
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("-C %d: %v, want %q", huge, err, want)
	}
}
