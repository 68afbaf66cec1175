package transcript

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/recall-dev/recall/record"
	"github.com/recall-dev/recall/redact/redacttest"
)

// addFixtureLines seeds f with every line of the hand-written transcripts.
func addFixtureLines(f *testing.F) {
	paths, _ := filepath.Glob("../testdata/transcripts/projects/*/*.jsonl")
	more, _ := filepath.Glob("../testdata/transcripts/projects/*/*/subagents/*.jsonl")
	for _, p := range append(paths, more...) {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		for _, line := range bytes.Split(data, []byte("\n")) {
			if len(line) > 0 {
				f.Add(line)
			}
		}
	}
	if len(paths) == 0 {
		f.Fatal("no fixture transcripts")
	}
}

// FuzzExtractRows: one transcript line becomes rows without panicking;
// what comes out is bounded by what went in (rows by content blocks, text
// by the line's length, with room for escapes decoded to U+FFFD and for
// placeholders longer than the secrets they replace); and every row
// survives its TSV encoding exactly.
func FuzzExtractRows(f *testing.F) {
	addFixtureLines(f)
	for _, sh := range redacttest.Shapes(1)[:4] {
		f.Add(assistantLineBytes(sh.Text))
	}
	f.Add([]byte(`{"type":"user","message":{"content":"\ud83d\ude00 \u0000 \\ \t tab\nnew line long enough"}}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		x := &lineExtractor{kind: record.KindMain, source: "/p/s.jsonl", gen: 3}
		_ = x.add(line, 7)
		if len(x.rows) > len(line)/8+1 {
			t.Fatalf("%d rows from a %d-byte line", len(x.rows), len(line))
		}
		text := 0
		for i := range x.rows {
			r := &x.rows[i].Row
			text += len(r.Text)
			enc := r.AppendTSV(nil)
			if bytes.IndexByte(enc[:len(enc)-1], '\n') >= 0 {
				t.Fatalf("row %d encodes to more than one line: %q", i, enc)
			}
			got, err := record.ParseRow(enc[:len(enc)-1])
			if err != nil {
				t.Fatalf("row %d: %v in %q", i, err, enc)
			}
			if got != *r {
				t.Fatalf("row %d round trip:\n got %+v\nwant %+v", i, got, *r)
			}
		}
		if text > 16*len(line)+64 {
			t.Fatalf("%d bytes of text from a %d-byte line", text, len(line))
		}
	})
}

func assistantLineBytes(command string) []byte {
	return []byte(`{"type":"assistant","uuid":"a","sessionId":"s","message":{"content":[{"type":"tool_use","name":"Bash","input":{"command":` +
		quoteJSON(command) + `}},{"type":"text","text":` + quoteJSON("and "+command) + `}]}}`)
}

func quoteJSON(s string) string {
	var b bytes.Buffer
	b.WriteByte('"')
	for _, c := range []byte(s) {
		switch c {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\n':
			b.WriteString(`\n`)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}
