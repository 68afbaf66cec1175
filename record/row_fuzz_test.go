package record

import (
	"bytes"
	"errors"
	"testing"
)

// FuzzParseRowBytes: any line parses as a row or fails with ErrBadRow,
// never panics; a row that parses encodes to one line that parses to the
// same row and encodes the same again.
func FuzzParseRowBytes(f *testing.F) {
	rows := []Row{
		{Session: "11111111-1111-4111-8111-111111111111", Timestamp: "2026-03-01T10:00:00.000Z", Type: TypeUser,
			Text: "How should we implement JWT auth?\n\tcode\\path", Project: "/home/dev/src/shop",
			Source: "/home/dev/.claude/projects/-home-dev-src-shop/1.jsonl", Line: 3, UUID: "u", Role: "user", Gen: 1, Ordinal: 1},
		{Type: TypeAgent, Text: "Bash: go test ./...", AgentID: "a0123", Role: "tool", Line: -1, Gen: 1<<32 - 1, Ordinal: 1 << 40},
	}
	for _, r := range rows {
		enc := r.AppendTSV(nil)
		f.Add(enc[:len(enc)-1])
		f.Add(enc[:len(enc)/2])
	}
	f.Add([]byte(Header()))
	f.Add([]byte("a\tb\tc\td\te\tf\t1\th\ti\tj\t2\t3\t"))
	f.Add([]byte("\\\t\\t\t\\n\t\\\\\t\\q\t\t0\t\t\t\t0\t0"))
	f.Fuzz(func(t *testing.T, line []byte) {
		r, err := ParseRow(line)
		if err != nil {
			if !errors.Is(err, ErrBadRow) {
				t.Fatalf("ParseRow(%q): %v is not ErrBadRow", line, err)
			}
			return
		}
		enc := r.AppendTSV(nil)
		if bytes.IndexByte(enc[:len(enc)-1], '\n') >= 0 {
			t.Fatalf("row of %q encodes to more than one line: %q", line, enc)
		}
		again, err := ParseRow(enc[:len(enc)-1])
		if err != nil || again != r {
			t.Fatalf("%q: parsed %+v, encoded %q, parsed again %+v (%v)", line, r, enc, again, err)
		}
		if enc2 := again.AppendTSV(nil); !bytes.Equal(enc2, enc) {
			t.Fatalf("encoding is not stable: %q then %q", enc, enc2)
		}
	})
}
