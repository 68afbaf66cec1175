package gemini

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recall-dev/recall/record"
	"github.com/recall-dev/recall/transcript"
)

// BenchmarkGeminiRead reads Gemini CLI session files as the indexer
// does (a first read of each). The files are the bench generator's
// (go run ./cmd/recall-bench gen --mixed --size 128MB --out DIR), found
// under GEMINI_BENCH_DIR (DIR/gemini); without it, the fixtures' session
// files, their messages grown with long tool outputs and replies, as
// real sessions have.
func BenchmarkGeminiRead(b *testing.B) {
	var files []transcript.Transcript
	if dir := os.Getenv("GEMINI_BENCH_DIR"); dir != "" {
		files = Discover(dir, func(s string) {})
	} else {
		files = benchFiles(b)
	}
	if len(files) == 0 {
		b.Fatal("no session files")
	}
	var size int64
	for i := range files {
		st, err := transcript.StatFile(files[i].Path)
		if err != nil {
			b.Fatal(err)
		}
		files[i].Stat = st
		size += st.Size
	}
	b.SetBytes(size)
	b.ReportAllocs()
	br := bufio.NewReaderSize(nil, 1<<16)
	b.ResetTimer()
	for b.Loop() {
		rows := 0
		for _, tr := range files {
			res := transcript.ReadFormat(Format(), transcript.Work{T: tr, State: record.FileState{Path: tr.Path, Gen: 1}}, "", br)
			if res.Err != nil {
				b.Fatalf("%s: %v", tr.Path, res.Err)
			}
			rows += len(res.Rows)
		}
		if rows == 0 {
			b.Fatal("no rows")
		}
	}
}

// benchFiles writes the fixtures' .jsonl session files into a temporary
// Gemini CLI folder, each many times with its tool results and replies
// made long.
func benchFiles(b *testing.B) []transcript.Transcript {
	home := copyTree(b)
	long := strings.Repeat(`lorem ipsum dolor sit amet, \"quoted\"\n\tindented `, 200)
	var out []transcript.Transcript
	for _, tr := range Discover(home, func(string) {}) {
		if isLegacy(tr.Path) {
			continue
		}
		data, err := os.ReadFile(tr.Path)
		if err != nil {
			b.Fatal(err)
		}
		text := strings.ReplaceAll(string(data), `"output":"`, `"output":"`+long)
		text = strings.ReplaceAll(text, `"content":"`, `"content":"`+long[:2000])
		grown := strings.Repeat(text, 100)
		if err := os.WriteFile(tr.Path, []byte(grown), 0o644); err != nil {
			b.Fatal(err)
		}
		out = append(out, tr)
	}
	_ = filepath.Join
	return out
}
