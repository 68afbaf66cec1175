//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// runCLIWithin runs recall in process and fails the test if it has not
// returned within limit: a FIFO opened for reading waits for a writer
// forever.
func runCLIWithin(t *testing.T, limit time.Duration, args ...string) runResult {
	t.Helper()
	done := make(chan runResult, 1)
	go func() { done <- runCLI(t, args...) }()
	select {
	case r := <-done:
		return r
	case <-time.After(limit):
		t.Fatalf("recall %s: still running after %v (a FIFO opened for reading?)", strings.Join(args, " "), limit)
		return runResult{}
	}
}

// TestFIFOsAreNeverOpened: FIFOs where transcripts, history.jsonl and a
// running session's file are looked for are skipped with a warning, never
// opened: `recall index`, a search, recovery of a lost manifest (whose
// transcript became a FIFO) and a repair all complete.
func TestFIFOsAreNeverOpened(t *testing.T) {
	home := t.TempDir()
	src := filepath.Join(home, ".claude", "projects")
	if err := os.CopyFS(src, os.DirFS(fixtures)); err != nil {
		t.Fatal(err)
	}
	idx := filepath.Join(home, "index")
	common := []string{"--source", src, "--index-dir", idx}
	shop := filepath.Join(src, "-home-dev-src-shop")
	if r := runCLIWithin(t, time.Minute, append([]string{"index", "-q"}, common...)...); r.code != 0 {
		t.Fatalf("index: %d %s", r.code, r.stderr)
	}
	mkfifo := func(path string) {
		t.Helper()
		os.Remove(path)
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := unix.Mkfifo(path, 0o600); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
	}
	// A new session, a subagent, an indexed transcript replaced, and the
	// signals a quick check reads.
	fresh := filepath.Join(shop, "55555555-5555-4555-8555-555555555555.jsonl")
	replaced := filepath.Join(shop, "22222222-2222-4222-8222-222222222222.jsonl")
	for _, p := range []string{
		fresh,
		filepath.Join(shop, "11111111-1111-4111-8111-111111111111", "subagents", "agent-fifo.jsonl"),
		replaced,
		filepath.Join(home, ".claude", "history.jsonl"),
		filepath.Join(home, ".claude", "sessions", "4242.json"),
	} {
		mkfifo(p)
	}

	r := runCLIWithin(t, time.Minute, append([]string{"index"}, common...)...)
	if r.code != 0 || !strings.Contains(r.stderr, "skipped "+fresh+": a FIFO, not a regular file") {
		t.Errorf("index: exit %d, stderr %q", r.code, r.stderr)
	}
	if r := runCLIWithin(t, time.Minute, append([]string{"jwt", "-v"}, common...)...); r.code != 0 || !strings.Contains(r.stderr, "a FIFO, not a regular file") {
		t.Errorf("search: exit %d, stderr %q", r.code, r.stderr)
	}
	if r := runCLIWithin(t, time.Minute, append([]string{"jwt"}, common...)...); r.code != 0 || strings.Contains(r.stderr, "FIFO") {
		t.Errorf("search without -v: exit %d, stderr %q (the warning is -v's)", r.code, r.stderr)
	}

	// Recovery: the manifest is lost, and a transcript it named is a FIFO.
	for _, m := range mustGlob(t, filepath.Join(idx, "manifest*")) {
		os.Remove(m)
	}
	r = runCLIWithin(t, time.Minute, append([]string{"jwt", "-v"}, common...)...)
	if r.code != 0 || !strings.Contains(r.stderr, "recovery: skipped "+replaced+": not a regular file (a FIFO)") {
		t.Errorf("search over a lost manifest: exit %d, stderr %q", r.code, r.stderr)
	}
	if r := runCLIWithin(t, time.Minute, append([]string{"index", "--repair"}, common...)...); r.code != 0 {
		t.Errorf("repair: exit %d, stderr %q", r.code, r.stderr)
	}
	if r := runCLIWithin(t, time.Minute, append([]string{"index", "--sweep"}, common...)...); r.code != 0 {
		t.Errorf("sweep: exit %d, stderr %q", r.code, r.stderr)
	}
}
