package indexer

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/recall-dev/recall/store"
)

// buildRecall builds the recall binary once per test into a temp dir.
func buildRecall(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "recall")
	cmd := exec.Command("go", "build", "-o", bin, "github.com/recall-dev/recall/cmd/recall")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build recall: %v\n%s", err, out)
	}
	return bin
}

// writeCrashCorpus writes sessions with enough lines that an index run
// takes long enough to be killed in the middle, including forks (copies),
// subagents and noise.
func writeCrashCorpus(t *testing.T, src string, sessions, prompts int, rng *rand.Rand) {
	t.Helper()
	words := strings.Fields("jwt auth token cache mutex deadlock goroutine pricing checkout invoice retry backoff " +
		"schema migration index query planner vacuum replica shard lock timeout channel select context cancel")
	for s := range sessions {
		dir := filepath.Join(src, fmt.Sprintf("-home-dev-p%d", s%4))
		os.MkdirAll(dir, 0o755)
		var b strings.Builder
		for p := range prompts {
			var text strings.Builder
			for range 8 + rng.IntN(40) {
				text.WriteString(words[rng.IntN(len(words))] + " ")
			}
			uuid := fmt.Sprintf("cccccccc-%04d-4000-8000-%012d", s, p)
			if s%5 == 4 && p < prompts/2 {
				uuid = fmt.Sprintf("cccccccc-%04d-4000-8000-%012d", s-1, p) // a fork's copy
			}
			fmt.Fprintf(&b, `{"type":"user","uuid":%q,"sessionId":"sess-%d","timestamp":"2026-05-01T10:00:00.000Z","cwd":"/p%d","message":{"role":"user","content":%q}}`+"\n",
				uuid, s, s%4, text.String())
			fmt.Fprintf(&b, `{"type":"user","uuid":"r-%d-%d","message":{"role":"user","content":[{"type":"tool_result","content":%q}]}}`+"\n",
				s, p, strings.Repeat("tool output ", 60))
		}
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("sess-%d.jsonl", s)), []byte(b.String()), 0o644)
	}
}

// TestCrashSafety kills the indexer with SIGKILL at random points, many
// times, while it indexes (with transcripts growing in between), then lets
// it finish; the decompressed index must equal a clean build's.
func TestCrashSafety(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test builds and runs the binary")
	}
	bin := buildRecall(t)
	rng := rand.New(rand.NewPCG(1, 2))
	src := t.TempDir()
	idx := t.TempDir()
	writeCrashCorpus(t, src, 60, 600, rng)
	kills := 0
	for round := range 25 {
		if round > 0 {
			growOneTranscript(t, src, round, rng)
		}
		cmd := exec.Command(bin, "index", "--source", src, "--index-dir", idx, "--checkpoint-bytes", "200000", "-q")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(rng.IntN(60)) * time.Millisecond)
		cmd.Process.Signal(syscall.SIGKILL)
		if err := cmd.Wait(); err != nil && strings.Contains(err.Error(), "killed") {
			kills++
		}
	}
	if kills < 10 {
		t.Fatalf("only %d of 25 runs were killed before they finished; the test proves nothing", kills)
	}
	out, err := exec.Command(bin, "index", "--source", src, "--index-dir", idx, "-q").CombinedOutput()
	if err != nil {
		t.Fatalf("final run: %v\n%s", err, out)
	}
	clean := t.TempDir()
	runIndex(t, src, clean, "")
	got, want := rowLines(liveRows(t, idx), src), rowLines(liveRows(t, clean), src)
	if len(want) == 0 {
		t.Fatal("clean build is empty")
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("after %d kills the index has %d rows, a clean build %d; first difference: %s", kills, len(got), len(want), firstDiff(got, want))
	}
	t.Logf("%d kills, %d rows identical to a clean build", kills, len(got))
}

// growOneTranscript appends lines to a few transcripts so that every
// round has work to be killed in.
func growOneTranscript(t *testing.T, src string, round int, rng *rand.Rand) {
	t.Helper()
	for k := range 4 {
		s := rng.IntN(60)
		path := filepath.Join(src, fmt.Sprintf("-home-dev-p%d", s%4), fmt.Sprintf("sess-%d.jsonl", s))
		var b strings.Builder
		for n := range 200 {
			fmt.Fprintf(&b, `{"type":"user","uuid":"grow-%d-%d-%d","sessionId":"sess-%d","timestamp":"2026-05-02T10:00:00.000Z","cwd":"/p","message":{"role":"user","content":"appended between kills, round %d line %d"}}`+"\n", round, k, n, s, round, n)
			fmt.Fprintf(&b, `{"type":"user","uuid":"grow-r-%d-%d-%d","message":{"role":"user","content":[{"type":"tool_result","content":%q}]}}`+"\n", round, k, n, strings.Repeat("tool output ", 60))
		}
		appendText(t, path, b.String())
	}
}

func firstDiff(a, b []string) string {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return fmt.Sprintf("row %d:\n got %.200s\nwant %.200s", i, a[i], b[i])
		}
	}
	return fmt.Sprintf("lengths %d vs %d", len(a), len(b))
}

// TestConcurrentRunsAndSearches: index runs started together (hooks
// firing at once, a search's update beside `recall index`) take turns on
// the writer lock, and searches during their commits always read a whole
// snapshot; the result equals a clean build.
func TestConcurrentRunsAndSearches(t *testing.T) {
	if testing.Short() {
		t.Skip("starts many processes of the built binary")
	}
	bin := buildRecall(t)
	rng := rand.New(rand.NewPCG(5, 6))
	src, idx := t.TempDir(), t.TempDir()
	writeCrashCorpus(t, src, 24, 300, rng)
	var runs, searches []*exec.Cmd
	outs := map[*exec.Cmd]*strings.Builder{}
	start := func(list *[]*exec.Cmd, args ...string) {
		cmd := exec.Command(bin, append(args, "--source", src, "--index-dir", idx)...)
		var out strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		*list, outs[cmd] = append(*list, cmd), &out
	}
	for round := range 8 {
		growOneTranscript(t, src, round+1, rng)
		start(&runs, "index", "-q", "--checkpoint-bytes", "100000")
		start(&runs, "index", "-q")
		for range 3 {
			start(&searches, "--no-update", "deadlock", "replica")
		}
	}
	for i, cmd := range runs {
		if err := cmd.Wait(); err != nil {
			t.Errorf("index run %d: %v\n%s", i, err, outs[cmd])
		}
	}
	for _, cmd := range searches {
		// 1 is "no match"; 2, before the first commit, that there is no
		// index to search yet (the search could not run). Any other exit
		// 2 is an error.
		err := cmd.Wait()
		noIndexYet := cmd.ProcessState.ExitCode() == 2 && strings.HasPrefix(outs[cmd].String(), "recall: no index to search in ")
		if err != nil && cmd.ProcessState.ExitCode() != 1 && !noIndexYet {
			t.Errorf("a search during the runs: %v\n%s", err, outs[cmd])
		}
	}
	if out, err := exec.Command(bin, "index", "-q", "--source", src, "--index-dir", idx).CombinedOutput(); err != nil {
		t.Fatalf("final run: %v\n%s", err, out)
	}
	clean := t.TempDir()
	runIndex(t, src, clean, "")
	got, want := rowLines(liveRows(t, idx), src), rowLines(liveRows(t, clean), src)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("after %d concurrent runs the index has %d rows, a clean build %d; first difference: %s", len(runs), len(got), len(want), firstDiff(got, want))
	}
	t.Logf("%d concurrent runs, %d searches during them, %d rows identical to a clean build", len(runs), len(searches), len(got))
}

// zstdcatLines is what `zstdcat DIR/rows-*.zst` prints, as lines.
func zstdcatLines(t *testing.T, idx string) []string {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(idx, "rows-*.zst"))
	if err != nil {
		t.Fatal(err)
	}
	dec, err := zstd.NewReader(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer dec.Close()
	var lines []string
	for _, name := range names {
		data, err := os.ReadFile(name)
		if err != nil {
			continue // removed between the glob and the read: as zstdcat would find it
		}
		raw, err := dec.DecodeAll(data, nil)
		if err != nil {
			t.Fatalf("%s does not decode: %v", filepath.Base(name), err)
		}
		lines = append(lines, strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n")...)
	}
	return lines
}

// TestCrashForgetAndRebuildPrintEachRowOnce kills `recall forget` and
// `recall index --rebuild` with SIGKILL at random moments: right after
// each kill, `zstdcat rows-*.zst` prints one header and every row once
// (issue 23: a killed forget or rebuild left a second rows file, and its
// rows were printed twice), and once a run has followed, every session a
// forget was started for is either whole (the kill came before its rule)
// or gone, and every other session is as a clean build has it.
func TestCrashForgetAndRebuildPrintEachRowOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test builds and runs the binary")
	}
	bin := buildRecall(t)
	rng := rand.New(rand.NewPCG(3, 4))
	src, idx := t.TempDir(), t.TempDir()
	writeCrashCorpus(t, src, 40, 300, rng)
	if out, err := exec.Command(bin, "index", "-q", "--source", src, "--index-dir", idx).CombinedOutput(); err != nil {
		t.Fatalf("index: %v\n%s", err, out)
	}
	clean := map[string]int{}
	for _, r := range liveRows(t, idx) {
		clean[r.Session]++
	}
	attempted := map[string]bool{}
	kills := 0
	next := 0
	for round := range 30 {
		var args []string
		if round%2 == 0 {
			// Sessions whose messages no fork copies, nor that copy
			// any (writeCrashCorpus: s%5 == 4 copies s-1).
			for next%5 == 3 || next%5 == 4 {
				next++
			}
			session := fmt.Sprintf("sess-%d", next)
			next++
			attempted[session] = true
			args = []string{"forget", "--session", session}
		} else {
			args = []string{"index", "-q", "--rebuild", "--yes", "--checkpoint-bytes", "100000"}
		}
		cmd := exec.Command(bin, append(args, "--source", src, "--index-dir", idx)...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(rng.IntN(150)) * time.Millisecond)
		cmd.Process.Signal(syscall.SIGKILL)
		if err := cmd.Wait(); err != nil && strings.Contains(err.Error(), "killed") {
			kills++
		}
		lines := zstdcatLines(t, idx)
		headers, seen := 0, map[string]bool{}
		for _, l := range lines {
			if strings.HasPrefix(l, "session_id\t") {
				headers++
				continue
			}
			if seen[l] {
				t.Fatalf("round %d (%s): zstdcat prints a row twice: %.120s", round, args[0], l)
			}
			seen[l] = true
		}
		if headers != 1 {
			t.Fatalf("round %d (%s): zstdcat prints %d header lines: %d rows files", round, args[0], headers, headers)
		}
	}
	if kills < 10 {
		t.Fatalf("only %d of 30 runs were killed before they finished; the test proves nothing", kills)
	}
	if out, err := exec.Command(bin, "index", "-q", "--source", src, "--index-dir", idx).CombinedOutput(); err != nil {
		t.Fatalf("final run: %v\n%s", err, out)
	}
	got := map[string]int{}
	for _, r := range liveRows(t, idx) {
		got[r.Session]++
	}
	gone := 0
	for s, n := range clean {
		switch {
		case attempted[s] && got[s] == 0:
			gone++
		case got[s] != n:
			t.Errorf("%s has %d rows after the kills, a clean build %d (forget started: %v)", s, got[s], n, attempted[s])
		}
	}
	if d, err := store.Open(idx).Verify(); err != nil || !d.None() {
		t.Errorf("the index does not verify after the kills: %+v, %v", d, err)
	}
	t.Logf("%d kills; %d of %d forgets took effect", kills, gone, len(attempted))
}
