package codex

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/recall-dev/recall/record"
	"github.com/recall-dev/recall/transcript"
)

// FuzzCodexLine: no line makes the parser panic; a line read twice
// makes at most a row each time, of valid UTF-8 no longer than the line
// allows (bounded memory), each with an identity of its own; and the parser keeps no
// more than a count per message it read.
func FuzzCodexLine(f *testing.F) {
	err := filepath.WalkDir(fixtures, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".jsonl") {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, line := range bytes.Split(data, []byte("\n")) {
			f.Add(line)
		}
		return nil
	})
	if err != nil {
		f.Fatal(err)
	}
	f.Add([]byte(`{"timestamp":"2026-01-01T00:00:00.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"\ud800\u0000 ghp_aB3aB3aB3aB3aB3aB3aB3aB3aB3aB3aB3aB3"}]}}`))
	f.Add([]byte(`{"timestamp":"x","type":"response_item","payload":{"type":"reasoning","type":"message","role":"user","content":"dup keys"}}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		w := transcript.Work{
			T:     transcript.Transcript{Path: "/h/sessions/rollout-2026-01-01T00-00-00-" + threadPlain + ".jsonl", Kind: record.KindOf(record.AgentCodex, false)},
			State: record.FileState{Gen: 1},
		}
		b := transcript.NewBuilder(w, record.AgentCodex)
		p := newParser(w).(*parser)
		if err := p.Line(b, []byte(metaLine(threadPlain, "/a", "cli")), 1); err != nil {
			t.Fatal(err)
		}
		_ = p.Line(b, line, 2)
		_ = p.Line(b, line, 3)
		rows := b.Rows()
		if len(rows) > 2 {
			t.Fatalf("%d rows from a line read twice", len(rows))
		}
		for _, r := range rows {
			if !utf8.ValidString(r.Text) || r.UUID == "" || r.Session == "" {
				t.Fatalf("row %+v", r.Row)
			}
			// A byte that is not UTF-8 decodes to U+FFFD, three bytes; a
			// secret's placeholder is longer than a short secret.
			if len(r.Text) > 3*len(line)+64 {
				t.Fatalf("a %d-byte row from a %d-byte line", len(r.Text), len(line))
			}
		}
		if len(rows) == 2 && rows[0].UUID == rows[1].UUID {
			t.Fatalf("a line read twice is one message: %q", rows[0].Text)
		}
		if len(p.seen.counts) > 2 {
			t.Fatalf("%d identities counted from one line read twice", len(p.seen.counts))
		}
	})
}
