package benchgen

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestAppendTurnsContinuesTheThread(t *testing.T) {
	var source transcriptFile
	for _, f := range transcripts(t) {
		if strings.Count(f.rel, "/") == 1 && f.records[0].Type != "queue-operation" && len(f.records) > 20 {
			source = f
			break
		}
	}
	if source.rel == "" {
		t.Fatal("no interactive session in the test corpus")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "s.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(source.raw, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := AppendTurns(path, 10, 1); err != nil {
		t.Fatal(err)
	}
	files, err := loadTranscripts(dir)
	if err != nil {
		t.Fatal(err) // also catches invalid JSON in the appended lines
	}
	got := files[0].records
	if len(got) != len(source.records)+10 {
		t.Fatalf("%d records after appending 10 to %d", len(got), len(source.records))
	}
	var prev record
	for _, rec := range source.records {
		if rec.UUID != nil {
			prev = rec
		}
	}
	for i, rec := range got[len(source.records):] {
		if rec.UUID == nil || rec.ParentUUID == nil || *rec.ParentUUID != *prev.UUID {
			t.Fatalf("appended record %d does not continue the chain from %s", i, *prev.UUID)
		}
		if rec.SessionID != prev.SessionID || rec.Cwd != prev.Cwd {
			t.Errorf("appended record %d has session %s cwd %s, want %s %s", i, rec.SessionID, rec.Cwd, prev.SessionID, prev.Cwd)
		}
		at, _ := time.Parse(timestampLayout, rec.Timestamp)
		before, _ := time.Parse(timestampLayout, prev.Timestamp)
		if !at.After(before) {
			t.Errorf("appended record %d at %s, not after %s", i, at, before)
		}
		want := []string{"user", "assistant"}[i%2]
		if rec.Type != want {
			t.Errorf("appended record %d is %s, want %s", i, rec.Type, want)
		}
		prev = rec
	}
}

func TestAppendTurnsNeedsAThread(t *testing.T) {
	path := filepath.Join(t.TempDir(), "side.jsonl")
	if err := os.WriteFile(path, []byte(`{"type":"permission-mode","permissionMode":"default"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := AppendTurns(path, 2, 1); err == nil {
		t.Error("AppendTurns on a file without threaded records succeeded")
	}
	if err := AppendTurns(filepath.Join(t.TempDir(), "missing.jsonl"), 2, 1); err == nil {
		t.Error("AppendTurns on a missing file succeeded")
	}
}
