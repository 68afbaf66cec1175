package transcript

import (
	"testing"
)

// TestGarbageTimestampIsNotKept: a line whose timestamp does not read
// keeps the last timestamp that did, and does not pass its garbage on to
// the lines after it. Before, the garbage was stored verbatim and
// inherited.
func TestGarbageTimestampIsNotKept(t *testing.T) {
	x := &lineExtractor{kind: "main", source: "/t.jsonl", gen: 1}
	lines := []string{
		`{"type":"user","uuid":"u1","timestamp":"2026-03-01T10:00:00.000Z","sessionId":"s","message":{"role":"user","content":"the first prompt about tokens"}}`,
		`{"type":"user","uuid":"u2","timestamp":"\u001b]0;pwned\u0007 not a time","sessionId":"s","message":{"role":"user","content":"the second prompt about tokens"}}`,
		`{"type":"user","uuid":"u3","sessionId":"s","message":{"role":"user","content":"the third prompt, with no timestamp"}}`,
	}
	for i, l := range lines {
		if err := x.add([]byte(l), i+1); err != nil {
			t.Fatal(err)
		}
	}
	if len(x.rows) != 3 {
		t.Fatalf("%d rows", len(x.rows))
	}
	for _, r := range x.rows {
		if r.Timestamp != "2026-03-01T10:00:00.000Z" {
			t.Errorf("line %d: timestamp %q, want the last readable one", r.Line, r.Timestamp)
		}
	}
}
