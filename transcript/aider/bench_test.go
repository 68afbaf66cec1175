package aider

import (
	"bufio"
	"os"
	"path/filepath"
	"testing"

	"github.com/recall-dev/recall/record"
	"github.com/recall-dev/recall/transcript"
)

// benchCorpus holds the Aider histories of a generated corpus
// (go run ./cmd/recall-bench gen --mixed --size 32MB --out DIR): set
// AIDER_BENCH_CORPUS=DIR/aider to read them; without it the benchmark
// reads the fixtures.
const benchCorpusEnv = "AIDER_BENCH_CORPUS"

// BenchmarkAiderRead reads one large history as the indexer does
// (transcript.ReadFormat from offset 0): the histories of a generated
// corpus (or the fixtures) concatenated, each run of aider starting with
// its header, replicated to about 16 MB.
func BenchmarkAiderRead(b *testing.B) {
	root := os.Getenv(benchCorpusEnv)
	if root == "" {
		root = fixtures
	}
	var src []byte
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !(d.Name() == historyName || filepath.Ext(path) == ".md" && filepath.Base(filepath.Dir(path)) == "public") {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		src = append(append(src, data...), '\n')
		return nil
	})
	if err != nil || len(src) == 0 {
		b.Fatalf("no histories in %s: %v", root, err)
	}
	var data []byte
	for len(data) < 16<<20 {
		data = append(data, src...)
	}
	path := filepath.Join(b.TempDir(), historyName)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		b.Fatal(err)
	}
	tr := transcriptOf(b, path)
	br := bufio.NewReaderSize(nil, transcript.ReadBufferSize)
	var rows []transcript.Extracted
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		res := transcript.ReadFormat(Format(), transcript.Work{T: tr, State: record.FileState{Path: tr.Path, Gen: 1}, Rows: rows}, "", br)
		if res.Err != nil || len(res.Rows) == 0 {
			b.Fatalf("%d rows, %v", len(res.Rows), res.Err)
		}
		rows = res.Rows
	}
}
