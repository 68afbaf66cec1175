package indexer

import (
	"testing"
	"time"

	"github.com/recall-dev/recall/record"
	"github.com/recall-dev/recall/transcript"
)

// entered runs enter(n) in a goroutine and reports its result on the
// returned channel.
func entered(w *aheadWindow, n int64) <-chan bool {
	done := make(chan bool, 1)
	go func() { done <- w.enter(n) }()
	return done
}

// waitsFor checks that done stays empty for a moment (the enter waits),
// then that it reports want once unblock has run.
func waitsFor(t *testing.T, what string, done <-chan bool, unblock func(), want bool) {
	t.Helper()
	select {
	case <-done:
		t.Fatalf("%s: entered while the window was full", what)
	case <-time.After(50 * time.Millisecond):
	}
	unblock()
	select {
	case got := <-done:
		if got != want {
			t.Fatalf("%s: enter = %v, want %v", what, got, want)
		}
	case <-time.After(5 * time.Second):
		t.Fatalf("%s: still waiting after the window made room", what)
	}
}

// TestAheadWindowBoundsFilesAndBytes: the window lets in a file larger
// than its byte bound when it is empty, holds files back past its byte
// or file bound until the committer takes one, and lets the feeder go
// once closed.
func TestAheadWindowBoundsFilesAndBytes(t *testing.T) {
	w := newAheadWindow()
	if !w.enter(3 * maxAheadBytes) {
		t.Fatal("an empty window refused a large file")
	}
	waitsFor(t, "bytes", entered(w, 1), func() { w.leave(3 * maxAheadBytes) }, true)

	for range maxAheadFiles - 1 {
		if !w.enter(1) {
			t.Fatal("the window refused a small file with room for it")
		}
	}
	waitsFor(t, "files", entered(w, 1), func() { w.leave(1) }, true)

	waitsFor(t, "close", entered(w, 1), w.close, false)
	if w.enter(0) {
		t.Error("a closed window let a file in")
	}
}

// TestAheadBytes: a file counts in the read-ahead window by the rows it
// will hold, its bytes weighed when they are all text or compressed.
func TestAheadBytes(t *testing.T) {
	tests := []struct {
		name string
		kind string
		path string
		want int64
	}{
		{"Claude Code's JSONL", record.KindMain, "/p/s.jsonl", 1000},
		{"Codex's JSONL", record.KindOf(record.AgentCodex, false), "/c/rollout.jsonl", 1000},
		{"Codex's compressed rollout", record.KindOf(record.AgentCodex, false), "/c/rollout.jsonl.zst", 1000 * transcript.DenseWeight},
		{"Aider's markdown history", record.KindOf(record.AgentAider, false), "/a/.aider.chat.history.md", 1000 * transcript.DenseWeight},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := planned{t: &transcript.Transcript{Path: tt.path, Kind: tt.kind, Stat: transcript.FileStat{Size: 1500}}, st: &record.FileState{Offset: 500}}
			if got := p.aheadBytes(); got != tt.want {
				t.Errorf("aheadBytes = %d, want %d", got, tt.want)
			}
		})
	}
}
