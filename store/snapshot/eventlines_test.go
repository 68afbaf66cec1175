package snapshot

import (
	"bytes"
	"fmt"
	"slices"
	"testing"

	"github.com/recall-dev/recall/record"
)

// groupedLines is what sessionLines must find: each session's lines in
// the order of the data, by the session their escaped first field names.
func groupedLines(data []byte) map[string][]string {
	out := map[string][]string{}
	for len(data) > 0 {
		var line []byte
		line, data, _ = bytes.Cut(data, []byte{'\n'})
		id := string(sessionField(line))
		if bytes.IndexByte(sessionField(line), '\\') >= 0 {
			id = record.Unescape(sessionField(line))
		}
		out[id] = append(out[id], string(line))
	}
	return out
}

func linesOf(x *sessionLines, id string) []string {
	var got []string
	x.each(id, func(line []byte) { got = append(got, string(line)) })
	return got
}

func TestSessionLines(t *testing.T) {
	tests := []struct {
		name string
		data string
		id   string
		want []string
	}{
		{"empty data", "", "a", nil},
		{"one line, no newline", "a\t1", "a", []string{"a\t1"}},
		{"in order, others between", "a\t1\nb\t2\na\t3\nc\t4\na\t5\n", "a", []string{"a\t1", "a\t3", "a\t5"}},
		{"absent session", "a\t1\nb\t2\n", "z", nil},
		{"escaped field names the unescaped id", "x\\ty\t1\nx\\\\ty\t2\n", "x\ty", []string{"x\\ty\t1"}},
		{"a literal backslash is escaped", "x\\ty\t1\nx\\\\ty\t2\n", `x\ty`, []string{"x\\\\ty\t2"}},
		{"escaped form as the id names nothing", "x\\ty\t1\n", `x\ty`, nil},
		{"empty lines skipped for other ids", "\n\na\t1\n\n", "a", []string{"a\t1"}},
		{"a line with no tab is its own session", "a\na\t2\n", "a", []string{"a", "a\t2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := linesOf(newSessionLines([]byte(tt.data)), tt.id)
			if !slices.Equal(got, tt.want) {
				t.Errorf("lines of %q = %q, want %q", tt.id, got, tt.want)
			}
		})
	}
}

// TestSessionLinesManySessions checks the hash chains where many sessions
// share slots: every session's lines come back whole and in order.
func TestSessionLinesManySessions(t *testing.T) {
	var b bytes.Buffer
	for i := range 5000 {
		fmt.Fprintf(&b, "session-%d\tline %d\n", (i*7919)%1300, i)
	}
	want := groupedLines(b.Bytes())
	x := newSessionLines(b.Bytes())
	for id, lines := range want {
		if got := linesOf(x, id); !slices.Equal(got, lines) {
			t.Fatalf("lines of %s = %q, want %q", id, got, lines)
		}
	}
	if got := linesOf(x, "session-1300"); got != nil {
		t.Errorf("absent session found lines %q", got)
	}
}

func FuzzSessionLines(f *testing.F) {
	f.Add([]byte("a\t1\nb\t2\na\t3\n"), "a")
	f.Add([]byte("x\\ty\t1\nx\\\\ty\t2"), "x\ty")
	f.Add([]byte("\n\n\\\n"), "")
	f.Fuzz(func(t *testing.T, data []byte, id string) {
		want := groupedLines(data)[id]
		if got := linesOf(newSessionLines(data), id); !slices.Equal(got, want) {
			t.Fatalf("lines of %q = %q, want %q", id, got, want)
		}
	})
}
