package codex_test

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/recall-dev/recall/benchgen"
	"github.com/recall-dev/recall/record"
	"github.com/recall-dev/recall/transcript"
	"github.com/recall-dev/recall/transcript/codex"
)

// The benchmarks read the rollouts of the bench generator's mixed corpus
// (benchgen, as `recall-bench gen --mixed` writes them: long tool
// outputs, reasoning, replies, token counts, as real rollouts are),
// written once per test binary. CODEX_BENCH_HOME names a Codex home to
// read instead (go run ./cmd/recall-bench gen --mixed --size 1GB --out
// DIR; then DIR/codex).

var (
	benchOnce sync.Once
	benchDir  string // the generated corpus, removed when the tests end
	benchHome string
	benchErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if benchDir != "" {
		os.RemoveAll(benchDir)
	}
	os.Exit(code)
}

// benchRoot is the Codex home the benchmarks read.
func benchRoot(b *testing.B) string {
	if dir := os.Getenv("CODEX_BENCH_HOME"); dir != "" {
		return dir
	}
	benchOnce.Do(func() {
		dir, err := os.MkdirTemp("", "codex-bench-")
		if err != nil {
			benchErr = err
			return
		}
		benchDir = dir
		// 20 MB of other agents' sessions: Codex's share is 8 MB.
		_, benchErr = benchgen.GenerateAgents(benchgen.AgentOptions{Dir: dir, ProjectsSize: 32 << 20,
			Bytes: 20 << 20, Seed: 1, Workers: 1})
		benchHome = filepath.Join(dir, "codex")
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return benchHome
}

// benchRollouts are the uncompressed rollouts of the bench corpus (the
// compressed ones cost their decompression too, which is not the
// reader's).
func benchRollouts(b *testing.B) []transcript.Transcript {
	var out []transcript.Transcript
	for _, tr := range codex.Discover(benchRoot(b), func(s string) { b.Fatal(s) }) {
		if strings.HasSuffix(tr.Path, ".jsonl") {
			out = append(out, tr)
		}
	}
	if len(out) == 0 {
		b.Fatal("no rollouts in the bench corpus")
	}
	return out
}

// BenchmarkCodexRead reads every rollout of the bench corpus whole, as
// the indexer does a new file.
func BenchmarkCodexRead(b *testing.B) {
	trs := benchRollouts(b)
	var size int64
	for _, tr := range trs {
		size += tr.Stat.Size
	}
	b.SetBytes(size)
	b.ReportAllocs()
	br := bufio.NewReaderSize(nil, transcript.ReadBufferSize)
	rows := 0
	for b.Loop() {
		rows = 0
		for _, tr := range trs {
			res := transcript.ReadFormat(codex.Format(), transcript.Work{T: tr, State: record.FileState{Path: tr.Path, Gen: 1}}, "", br)
			if res.Err != nil {
				b.Fatal(res.Err)
			}
			rows += len(res.Rows)
		}
	}
	if rows == 0 {
		b.Fatal("no rows")
	}
}

// BenchmarkCodexReadIncremental reads one long rollout (2 MB: the bench
// corpus's rollouts one after the other, as one thread) as the indexer
// reads a live one: in 100 reads, each of the lines appended since the
// one before. Each read continues the file, so the bytes of every read
// before are replayed (catchUp); the MB/s are of the file's bytes.
func BenchmarkCodexReadIncremental(b *testing.B) {
	const (
		target = 2 << 20
		reads  = 100
	)
	var lines [][]byte
	total := 0
	for i, tr := range benchRollouts(b) {
		data, err := os.ReadFile(tr.Path)
		if err != nil {
			b.Fatal(err)
		}
		for j, line := range bytes.SplitAfter(data, []byte("\n")) {
			if len(line) == 0 || j == 0 && i > 0 {
				continue // one session_meta: the first file's
			}
			lines = append(lines, line)
			total += len(line)
		}
		if total >= target {
			break
		}
	}
	path := filepath.Join(b.TempDir(), filepath.Base(benchRollouts(b)[0].Path))
	b.SetBytes(int64(total))
	b.ReportAllocs()
	br := bufio.NewReaderSize(nil, transcript.ReadBufferSize)
	per := (len(lines) + reads - 1) / reads
	for b.Loop() {
		f, err := os.Create(path)
		if err != nil {
			b.Fatal(err)
		}
		var state record.FileState
		rows := 0
		for at := 0; at < len(lines); at += per {
			for _, line := range lines[at:min(at+per, len(lines))] {
				if _, err := f.Write(line); err != nil {
					b.Fatal(err)
				}
			}
			st, err := transcript.StatFile(path)
			if err != nil {
				b.Fatal(err)
			}
			tr := transcript.Transcript{Path: path, Kind: record.KindOf(record.AgentCodex, false), Stat: st}
			state.Path, state.Gen = path, 1
			res := transcript.ReadFormat(codex.Format(), transcript.Work{T: tr, State: state}, "", br)
			if res.Err != nil {
				b.Fatal(res.Err)
			}
			rows += len(res.Rows)
			state = record.FileState{Offset: res.Offset, Lines: res.Lines, Session: res.Session, Project: res.Project, Tail: res.Tail}
		}
		f.Close()
		if rows == 0 {
			b.Fatal("no rows")
		}
	}
}
