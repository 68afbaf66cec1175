package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/recall-dev/recall/store"
)

// hermeticEnv is this process's environment without anything that would
// point recall at the real ~/.claude or index, with HOME in a temp dir.
func hermeticEnv(tb testing.TB) []string {
	tb.Helper()
	env := []string{"HOME=" + tb.TempDir()}
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if name != "HOME" && name != "XDG_DATA_HOME" && !strings.HasPrefix(name, "CLAUDE") && !strings.HasPrefix(name, "RECALL_") {
			env = append(env, kv)
		}
	}
	return env
}

type hookRun struct {
	exitCode       int
	stdout, stderr string
}

func runHook(tb testing.TB, bin string, env []string, stdin *os.File, payload string, args ...string) hookRun {
	tb.Helper()
	cmd := exec.Command(bin, append([]string{"hook"}, args...)...)
	cmd.Env = env
	if stdin != nil {
		cmd.Stdin = stdin
	} else {
		cmd.Stdin = strings.NewReader(payload)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		tb.Fatalf("run recall hook: %v", err)
	}
	return hookRun{exitCode: cmd.ProcessState.ExitCode(), stdout: stdout.String(), stderr: stderr.String()}
}

const testSession = "ed01c0de-0000-4000-8000-000000000001"

const logStamp = `\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z `

// The hook exits 0 whatever it is given, writes its line to hook.log, and
// the indexer it starts accepts the arguments it is given. It runs the
// binary, as Claude Code does: the hook starts it again, detached.
func TestHookCommand(t *testing.T) {
	bin := recallBinary(t)
	devNull, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer devNull.Close()

	tests := []struct {
		name     string
		payload  string
		stdin    *os.File
		wantLine string // a regexp for hook.log's first line, after the time
		started  bool
	}{
		{name: "Stop",
			payload:  `{"session_id":"` + testSession + `","transcript_path":"/x.jsonl","cwd":"/x","hook_event_name":"Stop","stop_hook_active":false}`,
			wantLine: `Stop session="` + testSession + `": started indexer pid (\d+)`, started: true},
		{name: "SessionEnd",
			payload:  `{"session_id":"` + testSession + `","hook_event_name":"SessionEnd","reason":"prompt_input_exit"}`,
			wantLine: `SessionEnd reason="prompt_input_exit" session="` + testSession + `": started indexer pid (\d+)`, started: true},
		{name: "SessionStart",
			payload:  `{"session_id":"` + testSession + `","hook_event_name":"SessionStart","source":"compact"}`,
			wantLine: `SessionStart source="compact" session="` + testSession + `": started indexer pid (\d+)`, started: true},
		{name: "malformed JSON", payload: `{"session_id":`,
			wantLine: `unknown-event: started indexer pid (\d+); payload cut short`, started: true},
		{name: "empty stdin", payload: "",
			wantLine: `unknown-event: started indexer pid (\d+); empty stdin, no payload`, started: true},
		{name: "stdin is a device", stdin: devNull,
			wantLine: `unknown-event: started indexer pid (\d+); empty stdin, no payload`, started: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			indexDir := filepath.Join(t.TempDir(), "index")
			source := sourceWithOneTranscript(t)
			run := runHook(t, bin, hermeticEnv(t), tt.stdin, tt.payload, "--index-dir", indexDir, "--source", source)
			if run.exitCode != 0 || run.stdout != "" {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 0 and no output", run.exitCode, run.stdout, run.stderr)
			}
			pid := hookLogLinePID(t, indexDir, tt.wantLine)
			waitGone(t, pid)
			assertChildAcceptedArgs(t, indexDir)
		})
	}
}

// sourceWithOneTranscript is a transcript root holding one short session,
// so the indexer the hook starts has something to do and reports no
// warning.
func sourceWithOneTranscript(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	dir := filepath.Join(root, "-home-dev-p")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	line := `{"type":"user","uuid":"u-1","sessionId":"s-1","timestamp":"2026-04-01T10:00:00.000Z","cwd":"/home/dev/p","message":{"role":"user","content":"a prompt for the hook's indexer"}}` + "\n"
	if err := os.WriteFile(filepath.Join(dir, "s-1.jsonl"), []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	return root
}

// hookLogLinePID finds the hook's own line in hook.log and returns the
// pid in it. The hook writes it just after it starts the indexer, so on a
// loaded machine the indexer's own lines can come first.
func hookLogLinePID(t *testing.T, indexDir, wantLine string) int {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(indexDir, "hook.log"))
	if err != nil {
		t.Fatalf("hook log: %v", err)
	}
	m := regexp.MustCompile(`(?m)^` + logStamp + wantLine).FindSubmatch(data)
	if m == nil {
		t.Fatalf("hook.log %q has no line matching %q", data, wantLine)
	}
	pid, _ := strconv.Atoi(string(m[1]))
	return pid
}

// assertChildAcceptedArgs reads what the indexer the hook started wrote
// to hook.log beside the hook's own line: a flag it refused would show as
// a "recall: " error there.
func assertChildAcceptedArgs(t *testing.T, indexDir string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(indexDir, "hook.log"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) < 2 {
		t.Errorf("the indexer wrote nothing to hook.log: %q", data)
	}
	for _, line := range lines {
		if strings.HasPrefix(line, "recall: ") {
			t.Errorf("the indexer failed: %s", line)
		}
	}
}

// waitGone waits for a process that is not our child (the hook started it
// and exited) to end.
func waitGone(tb testing.TB, pid int) {
	tb.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !processGone(pid) {
		if time.Now().After(deadline) {
			tb.Fatalf("process %d still running", pid)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// processGone is true once pid has exited, counting an unreaped zombie
// (a subreaper may be slow to collect it) as exited.
func processGone(pid int) bool {
	if err := unix.Kill(pid, 0); errors.Is(err, unix.ESRCH) {
		return true
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return errors.Is(err, os.ErrNotExist)
	}
	_, afterName, _ := bytes.Cut(stat, []byte(") "))
	return len(afterName) > 0 && afterName[0] == 'Z'
}

// With the lock held the hook starts nothing, so it runs in process.
func TestHookCommandWhenIndexerRunning(t *testing.T) {
	indexDir := t.TempDir()
	holdIndexLock(t, indexDir)

	run := runCLIWith(t, "", `{"session_id":"`+testSession+`","hook_event_name":"Stop"}`,
		"hook", "--index-dir", indexDir, "--source", t.TempDir())
	if run.code != 0 {
		t.Errorf("exit %d, stderr %q", run.code, run.stderr)
	}
	if !store.Open(indexDir).RerunRequested() {
		t.Error("no rerun note left while an indexer runs")
	}
	data, _ := os.ReadFile(filepath.Join(indexDir, "hook.log"))
	want := regexp.MustCompile(`^` + logStamp + `Stop session="` + testSession + `": indexer already running; left the rerun note\n$`)
	if !want.Match(data) {
		t.Errorf("hook.log = %q", data)
	}
}

// holdIndexLock takes the index lock as a running indexer does.
func holdIndexLock(tb testing.TB, indexDir string) {
	tb.Helper()
	l, err := store.Open(indexDir).TryLock()
	if err != nil {
		tb.Fatalf("take the index lock: %v", err)
	}
	tb.Cleanup(func() { _ = l.Unlock() })
}

// Even with nowhere to log, the hook exits 0 and says why on stderr. It
// runs the binary: the hook may still start an indexer.
func TestHookCommandCannotLog(t *testing.T) {
	bin := recallBinary(t)
	blocker := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(blocker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		env        []string
		args       []string
		wantStderr string
	}{
		{"index dir under a file", hermeticEnv(t), []string{"--index-dir", filepath.Join(blocker, "index"), "--source", t.TempDir()},
			"create index dir: mkdir " + blocker + ": not a directory"},
		{"no home and no index dir", slices.DeleteFunc(hermeticEnv(t), func(kv string) bool { return strings.HasPrefix(kv, "HOME=") }), nil,
			"recall hook: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run := runHook(t, bin, tt.env, nil, `{"session_id":"`+testSession+`","hook_event_name":"Stop"}`, tt.args...)
			if run.exitCode != 0 {
				t.Errorf("exit %d, want 0", run.exitCode)
			}
			if !strings.Contains(run.stderr, tt.wantStderr) {
				t.Errorf("stderr = %q, want it to contain %q", run.stderr, tt.wantStderr)
			}
			if pids := regexp.MustCompile(`pid (\d+)`).FindStringSubmatch(run.stderr); pids != nil {
				pid, _ := strconv.Atoi(pids[1])
				waitGone(t, pid)
			}
		})
	}
}

// BenchmarkHookReturn times how long Claude Code waits for `recall hook`:
// fork, exec and exit of the real binary with a Stop payload on stdin.
// "indexer-running" is the common case during a busy session (the lock is
// held, so the hook only leaves the rerun note); "start-indexer" also
// starts the detached indexer. Each reports the median per call besides
// the mean (ns/op).
func BenchmarkHookReturn(b *testing.B) {
	bin := recallBinary(b)
	env := hermeticEnv(b)
	payload := `{"session_id":"` + testSession + `","transcript_path":"/x.jsonl","cwd":"/x","hook_event_name":"Stop","stop_hook_active":false,"last_assistant_message":"` + strings.Repeat("Done. ", 200) + `"}`

	b.Run("indexer-running", func(b *testing.B) {
		indexDir, source := b.TempDir(), b.TempDir()
		holdIndexLock(b, indexDir)
		times := make([]time.Duration, 0, b.N)
		b.ResetTimer()
		for range b.N {
			begin := time.Now()
			runHook(b, bin, env, nil, payload, "--index-dir", indexDir, "--source", source)
			times = append(times, time.Since(begin))
		}
		reportMedian(b, times)
	})

	b.Run("start-indexer", func(b *testing.B) {
		indexDir, source := b.TempDir(), b.TempDir()
		logPath := filepath.Join(indexDir, "hook.log")
		pid := regexp.MustCompile(`started indexer pid (\d+)\n`)
		times := make([]time.Duration, 0, b.N)
		b.ResetTimer()
		for range b.N {
			begin := time.Now()
			runHook(b, bin, env, nil, payload, "--index-dir", indexDir, "--source", source)
			times = append(times, time.Since(begin))

			// Let that indexer finish, untimed, so the next call starts
			// one too rather than finding the lock held.
			b.StopTimer()
			data, _ := os.ReadFile(logPath)
			all := pid.FindAllSubmatch(data, -1)
			if len(all) == 0 {
				b.Fatalf("no indexer started: %q", data)
			}
			n, _ := strconv.Atoi(string(all[len(all)-1][1]))
			waitGone(b, n)
			b.StartTimer()
		}
		reportMedian(b, times)
	})
}

func reportMedian(b *testing.B, times []time.Duration) {
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)/2].Nanoseconds()), "median-ns/op")
	b.ReportMetric(float64(times[len(times)*9/10].Nanoseconds()), "p90-ns/op")
}
