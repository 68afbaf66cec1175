package terms

import (
	"bytes"
	"io"
	"os"
	"syscall"
	"testing"

	"github.com/recall-dev/recall/internal/tsvfield"
)

// realRowsPath is a rows TSV of the generated 1 GB corpus (make bench
// writes it); the benchmarks on real rows skip without it.
const realRowsPath = "../../bench-data/rows-1GB.tsv"

// realRows reads about one segment's worth (32 MiB) of rows from
// RECALL_BENCH_ROWS or realRowsPath, as the term pipeline hands them
// to the builder: the text unescaped.
func realRows(b *testing.B) []Row {
	b.Helper()
	path := os.Getenv("RECALL_BENCH_ROWS")
	if path == "" {
		path = realRowsPath
	}
	f, err := os.Open(path)
	if err != nil {
		b.Skipf("no rows to benchmark on: %v", err)
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, 32<<20))
	if err != nil {
		b.Fatal(err)
	}
	raw = raw[:bytes.LastIndexByte(raw, '\n')+1]
	_, raw, _ = bytes.Cut(raw, []byte{'\n'}) // the header line
	var rows []Row
	for len(raw) > 0 {
		var line []byte
		line, raw, _ = bytes.Cut(raw, []byte{'\n'})
		f := bytes.SplitN(line, []byte{'\t'}, 6)
		if len(f) < 6 {
			continue
		}
		rows = append(rows, Row{
			TimeMs:  UnknownTime,
			Type:    TypeCode(string(f[2])),
			Session: string(f[0]),
			Project: tsvfield.Unescape(f[4]),
			Text:    tsvfield.UnescapeAppend(nil, f[3]),
		})
	}
	return rows
}

// cpuTime is the process's user and system time so far: on this shared
// machine a benchmark's wall time mostly measures the other processes,
// its CPU time much less so (reported as cpu-ns/op).
func cpuTime(b *testing.B) int64 {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		b.Fatal(err)
	}
	return u.Utime.Nano() + u.Stime.Nano()
}

func reportCPU(b *testing.B, start int64) {
	b.ReportMetric(float64(cpuTime(b)-start)/float64(b.N), "cpu-ns/op")
}

func rowsBytes(rows []Row) int64 {
	var n int64
	for i := range rows {
		n += int64(len(rows[i].Text))
	}
	return n
}

// BenchmarkAddRealRows measures adding one segment's worth of real rows
// (tokenizing and the token table), per byte of text.
func BenchmarkAddRealRows(b *testing.B) {
	rows := realRows(b)
	b.SetBytes(rowsBytes(rows))
	chunks := NewChunkPool()
	b.ResetTimer()
	defer reportCPU(b, cpuTime(b))
	for range b.N {
		builder := NewBuilder()
		builder.UseChunks(chunks)
		for i := range rows {
			builder.Add(&rows[i])
		}
		builder.Release()
	}
}

// BenchmarkEncodeRealRows measures encoding one segment of real rows,
// with a word-form cache warmed as a run's later segments find it.
func BenchmarkEncodeRealRows(b *testing.B) {
	rows := realRows(b)
	builder := NewBuilder()
	stems := NewStemCache()
	builder.UseStems(stems)
	for i := range rows {
		builder.Add(&rows[i])
	}
	builder.encode(0, 1)
	b.ResetTimer()
	defer reportCPU(b, cpuTime(b))
	for range b.N {
		builder.encode(0, 1)
	}
}
