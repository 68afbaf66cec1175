package benchrun

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/recall-dev/recall/store/lockfile"
)

// The hook payload is Claude Code's: the transcript_path is where Claude
// Code keeps a session of the cwd, under the first Claude Code source
// (never another agent's).
func TestHookPayload(t *testing.T) {
	tests := []struct {
		name    string
		sources []string
		want    string
	}{
		{"claude only", []string{"--source", "c/projects"}, "/w/c/projects/-w/" + hookSession + ".jsonl"},
		{"agents first", []string{"--source", "codex:c/codex", "--source", "c/projects", "--source", "gemini:c/gemini"}, "/w/c/projects/-w/" + hookSession + ".jsonl"},
		{"no claude source", []string{"--source", "codex:c/codex"}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var p struct {
				SessionID      string `json:"session_id"`
				TranscriptPath string `json:"transcript_path"`
				Cwd            string `json:"cwd"`
				Event          string `json:"hook_event_name"`
				Prompt         string `json:"prompt"`
			}
			if err := json.Unmarshal([]byte(hookPayload("/w", tc.sources)), &p); err != nil {
				t.Fatal(err)
			}
			if p.TranscriptPath != tc.want || p.SessionID != hookSession || p.Cwd != "/w" || p.Event != "UserPromptSubmit" || p.Prompt != hintPrompt {
				t.Errorf("payload %+v, want transcript_path %q", p, tc.want)
			}
		})
	}
}

// awaitIndexer returns when no indexer holds the lock, never while one
// does.
func TestAwaitIndexer(t *testing.T) {
	dir := t.TempDir()
	if err := awaitIndexer(dir); err != nil {
		t.Fatalf("no lock file: %v", err)
	}
	l, err := lockfile.Acquire(dir, lockfile.WriterName, false)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- awaitIndexer(dir) }()
	time.Sleep(3 * indexerSettle)
	select {
	case err := <-done:
		t.Fatalf("returned while the lock was held: %v", err)
	default:
	}
	if err := l.Unlock(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
