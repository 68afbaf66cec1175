package store

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/recall-dev/recall/record"
	"github.com/recall-dev/recall/store/terms"
)

// termRowSeeds are rows whose fields the TSV escapes or that read oddly
// back: escapes in every column, a timestamp and a type that only parse
// (or name a type) before escaping, empty and non-UTF-8 fields.
var termRowSeeds = []record.Row{
	{Session: "s1", Timestamp: "2026-01-02T03:04:05.678Z", Type: "user", Text: "plain words about tokens", Project: "/p", Gen: 3},
	{Session: "s\t2", Timestamp: "2026-01-02T03:04:05Z", Type: "assistant", Text: "line one\nline two\twith a tab \\n not a newline\r\n", Project: "/p\\q", Gen: 1},
	{Session: "s3", Timestamp: "2026-01-02T03:04:05\n.000Z", Type: "tool\n", Text: "Bash: `go test ./...` and `ls`", Project: "", Gen: 4294967295},
	{Session: "", Timestamp: "not a time", Type: "agent", Text: "", Project: "/p"},
	{Session: "s4", Timestamp: "2026-01-02T03:04:05.678+01:00", Type: "\\user", Text: "caf\xc3\xa9 \xff bad byte ok thanks", Project: "/p", Gen: 7},
	{Session: "s4", Timestamp: "", Type: "user", Text: "ok thanks", Project: "/p", Gen: 7},
}

// segmentBytes builds one term segment from rows through the block
// builder, handing the builder the rows (direct) or its TSV (addBlockRows),
// and returns the segment's bytes.
func segmentBytes(t testing.TB, rows []record.Row, direct bool) []byte {
	bb := newBlockBuilder(blockBuf{})
	for i := range rows {
		bb.add(&rows[i])
	}
	p := bb.take(blockBuf{})
	b := terms.NewBuilder()
	if direct {
		b.AddRawBytes(len(p.raw))
		for i := range p.terms {
			b.Add(&p.terms[i])
		}
	} else {
		addBlockRows(b, p.raw)
	}
	dir := t.TempDir()
	ref, err := b.WriteFile(dir, 1, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, ref.Name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestTermRowsMatchTSV: a segment built from the rows the block builder
// hands over is byte for byte the one built by reading the block's TSV
// back, for rows with every column escaped.
func TestTermRowsMatchTSV(t *testing.T) {
	direct, read := segmentBytes(t, termRowSeeds, true), segmentBytes(t, termRowSeeds, false)
	if !bytes.Equal(direct, read) {
		t.Fatalf("segments differ: %d bytes from the rows, %d from the TSV", len(direct), len(read))
	}
}

// FuzzTermRowMatchesTSV: termRow gives the term index what addBlockRows
// reads back from the row's TSV line, for any field values.
func FuzzTermRowMatchesTSV(f *testing.F) {
	for _, r := range termRowSeeds {
		f.Add(r.Session, r.Timestamp, r.Type, r.Text, r.Project, r.Gen)
	}
	f.Fuzz(func(t *testing.T, session, ts, typ, text, project string, gen uint32) {
		rows := []record.Row{{Session: session, Timestamp: ts, Type: typ, Text: text, Project: project, Gen: gen, Source: "/s.jsonl", Line: 1}}
		if !bytes.Equal(segmentBytes(t, rows, true), segmentBytes(t, rows, false)) {
			t.Fatalf("segments differ for %+v", rows[0])
		}
	})
}
