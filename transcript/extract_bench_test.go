package transcript

import (
	"bytes"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/recall-dev/recall/record"
)

// BenchmarkExtractCorpus runs the extractor over every line of the
// transcripts under $RECALL_BENCH_CORPUS (a projects directory, such as a
// generated bench corpus), held in memory: the JSON walk, decoding,
// cleaning and (unless keepSecrets) redaction, without the file reads.
// It reports the process's CPU time per operation beside the wall time.
func BenchmarkExtractCorpus(b *testing.B) {
	root := os.Getenv("RECALL_BENCH_CORPUS")
	if root == "" {
		b.Skip("RECALL_BENCH_CORPUS names no projects directory")
	}
	paths, _ := filepath.Glob(filepath.Join(root, "*", "*.jsonl"))
	more, _ := filepath.Glob(filepath.Join(root, "*", "*", "subagents", "*.jsonl"))
	paths = append(paths, more...)
	var files [][]byte
	size := 0
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		size += len(data)
		files = append(files, data)
	}
	for _, keep := range []bool{true, false} {
		name := "redact"
		if keep {
			name = "keepSecrets"
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(size))
			var rows []Extracted
			var buf []byte
			start := cpuTime()
			for b.Loop() {
				for _, data := range files {
					// Copied first, as a read copies a file into the
					// reader's buffer: the extractor finds it in cache.
					buf = append(buf[:0], data...)
					x := &lineExtractor{kind: record.KindMain, source: "/p/s.jsonl", keepSecrets: keep, rows: rows[:0]}
					for n, rest := 1, buf; len(rest) > 0; n++ {
						line, after, _ := bytes.Cut(rest, []byte("\n"))
						_ = x.add(line, n)
						rest = after
					}
					rows = x.rows
				}
			}
			b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
		})
	}
}

// cpuTime is the process's user and system time in nanoseconds: on a
// machine shared with other work, wall time per operation measures the
// load as much as the code.
func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// BenchmarkExtractLines runs the extractor (secrets kept) over the first
// transcripts of $RECALL_BENCH_CORPUS, about 2 MB that stay in cache:
// steadier than BenchmarkExtractCorpus for comparing small changes.
func BenchmarkExtractLines(b *testing.B) {
	root := os.Getenv("RECALL_BENCH_CORPUS")
	if root == "" {
		b.Skip("RECALL_BENCH_CORPUS names no projects directory")
	}
	paths, _ := filepath.Glob(filepath.Join(root, "*", "*.jsonl"))
	var lines [][]byte
	size := 0
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		for l := range bytes.SplitSeq(data, []byte("\n")) {
			lines = append(lines, l)
		}
		if size += len(data); size > 2<<20 {
			break
		}
	}
	b.SetBytes(int64(size))
	x := &lineExtractor{kind: record.KindMain, source: "/p/s.jsonl", keepSecrets: true}
	start := cpuTime()
	for b.Loop() {
		x.rows = x.rows[:0]
		for i, line := range lines {
			_ = x.add(line, i+1)
		}
	}
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
}
