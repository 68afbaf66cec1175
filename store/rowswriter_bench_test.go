package store

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/recall-dev/recall/record"
	"github.com/recall-dev/recall/textrules"
)

// benchRows returns rows as a full index writes them: transcripts of 40
// rows sharing a session, project and source, message-like texts of which
// about one in twenty mentions memory (as in the 1 GB bench corpus) and
// one in a hundred is a recall event. With $RECALL_BENCH_ROWS naming a rows
// TSV (`zstd -dc rows-v2-*.zst`), its first 50,000 rows instead.
func benchRows(b *testing.B) []record.Row {
	if path := os.Getenv("RECALL_BENCH_ROWS"); path != "" {
		return rowsOfFile(b, path, 50000)
	}
	r := rand.New(rand.NewPCG(1, 2))
	words := strings.Fields("the error handler cache Mutex scheduler token because check system them item " +
		"section we should fix this test and then run it again with a new value")
	rows := make([]record.Row, 20000)
	for i := range rows {
		t := i / 40
		var text strings.Builder
		for range 20 + r.IntN(200) {
			text.WriteString(words[r.IntN(len(words))])
			text.WriteByte(" \n"[r.IntN(12)/11])
		}
		switch {
		case i%97 == 0:
			text.WriteString("I'll search my memory for the jwt auth work")
		case i%31 == 0:
			text.WriteString("the memory of the cache")
		}
		rows[i] = record.Row{
			Session: fmt.Sprintf("%08x-0000-4000-8000-%012x", t, t), Timestamp: "2026-03-01T10:00:00.000Z",
			Type: record.TypeAssistant, Text: text.String(), Project: fmt.Sprintf("/home/dev/src/project%d", t%7),
			Source: fmt.Sprintf("/home/dev/.claude/projects/-home-dev-src-project%d/%08x.jsonl", t%7, t),
			Line:   i%40 + 1, UUID: fmt.Sprintf("%032x", i), Role: "assistant", Gen: 1, Ordinal: i%40 + 1,
		}
	}
	return rows
}

func rowsOfFile(b *testing.B, path string, n int) []record.Row {
	f, err := os.Open(path)
	if err != nil {
		b.Fatalf("open %s: %v", path, err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<25)
	var rows []record.Row
	for sc.Scan() && len(rows) < n {
		if r, err := record.ParseRow(sc.Bytes()); err == nil {
			rows = append(rows, r)
		}
	}
	return rows
}

// BenchmarkBlockRows measures the committer's work per row in
// RowsWriter.Add, but for the key record: the row's TSV and block
// metadata (blockBuilder.add) and the recall-event check.
func BenchmarkBlockRows(b *testing.B) {
	rows := benchRows(b)
	var bytes int64
	for i := range rows {
		bytes += int64(len(rows[i].AppendTSV(nil)))
	}
	b.SetBytes(bytes)
	raw := make([]byte, 0, blockTarget+64<<10)
	for b.Loop() {
		blk := newBlockBuilder(blockBuf{raw: raw[:0]})
		for i := range rows {
			blk.add(&rows[i])
			textrules.DetectRecallEvent(rows[i].Role, rows[i].Text)
			if len(blk.buf) >= blockTarget {
				p := blk.take(blockBuf{raw: blk.buf[:0], terms: blk.terms[:0]})
				clear(p.terms)
			}
		}
	}
}
