package indexer

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/recall-dev/recall/indexer/freshstate"
	"github.com/recall-dev/recall/store"
	"github.com/recall-dev/recall/transcript/agents"
)

// codexLine is one Codex rollout line: a user prompt.
func codexLine(n int, text string) string {
	return fmt.Sprintf(`{"timestamp":"2026-03-14T09:%02d:00.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":%q}]}}`+"\n", n%60, text)
}

// TestQuickCheckOfAnAgent: the quick check stats an agent's watched
// paths only; with nothing changed it reads nothing and does not sweep,
// and a prompt appended to the newest rollout is read by the next quick
// run.
func TestQuickCheckOfAnAgent(t *testing.T) {
	home := t.TempDir()
	day := filepath.Join(home, "sessions", "2026", "03", "14")
	if err := os.MkdirAll(day, 0o755); err != nil {
		t.Fatal(err)
	}
	const id = "0199b6f2-1c3a-7d41-9e0a-5b7c2d9e1f01"
	rollout := filepath.Join(day, "rollout-2026-03-14T09-12-33-"+id+".jsonl")
	meta := `{"timestamp":"2026-03-14T09:12:33.000Z","type":"session_meta","payload":{"id":"` + id + `","cwd":"/home/dev/shop","source":"cli","originator":"codex_cli_rs"}}` + "\n"
	if err := os.WriteFile(rollout, []byte(meta+codexLine(1, "Why does the checkout total ignore the discount code?")), 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	for _, p := range []string{rollout, day, filepath.Dir(day), filepath.Dir(filepath.Dir(day)), filepath.Join(home, "sessions"), home} {
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	idx := t.TempDir()
	run := func() Summary {
		t.Helper()
		sum, err := Run(Options{Config: Config{IndexDir: idx, Agents: []agents.Source{{Agent: "codex", Path: home}}},
			Quick: true, SweepEvery: 1000 * time.Hour, Warn: func(s string) { t.Log(s) }})
		if err != nil {
			t.Fatal(err)
		}
		return sum
	}
	sweepNs := func() int64 {
		t.Helper()
		s, err := freshstate.Read(store.Open(idx))
		if err != nil {
			t.Fatalf("no freshness state: %v", err)
		}
		return s.SweepNs
	}
	if sum := run(); sum.RowsAdded != 1 {
		t.Fatalf("first run added %d rows, want 1", sum.RowsAdded)
	}
	before := sweepNs()
	if sum := run(); sum.FilesRead != 0 || sum.RowsAdded != 0 {
		t.Errorf("no change: read %d files, added %d rows", sum.FilesRead, sum.RowsAdded)
	}
	f, err := os.OpenFile(rollout, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(codexLine(2, "Round the discount to cents before tax, please")); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if sum := run(); sum.RowsAdded != 1 {
		t.Errorf("after a prompt appended: %d rows added, want 1", sum.RowsAdded)
	}
	if sweepNs() != before {
		t.Error("the runs swept every file; the test wants the quick check")
	}
}
