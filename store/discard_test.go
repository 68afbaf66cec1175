package store

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/recall-dev/recall/store/snapshot"

	"github.com/recall-dev/recall/store/manifest"

	"github.com/recall-dev/recall/record"
)

// TestDiscardUncommitted: rows written and synced but never committed
// (a run that failed, a full disk) are cut away, so the files end where
// the manifest says. Before, they stayed on disk and zstdcat printed them.
func TestDiscardUncommitted(t *testing.T) {
	dir := t.TempDir()
	m := manifest.New()
	w, err := openRowsWriterAt(dir, m, nil)
	if err != nil {
		t.Fatal(err)
	}
	row := record.Row{Session: "s", Timestamp: "2026-01-01T00:00:00Z", Type: "user", Text: "a committed row", Source: "/t.jsonl", Line: 1, Gen: 1, Ordinal: 1}
	if err := w.Add(&row, 1); err != nil {
		t.Fatal(err)
	}
	if err := w.Sync(true); err != nil {
		t.Fatal(err)
	}
	if err := manifest.Commit(dir, m); err != nil {
		t.Fatal(err)
	}
	committed := *m
	row.Text, row.Line, row.Ordinal = "an uncommitted row from the recall event phrase memory search", 2, 2
	if err := w.Add(&row, 2); err != nil {
		t.Fatal(err)
	}
	if err := w.Sync(true); err != nil {
		t.Fatal(err)
	}
	w.Close()
	if err := discardUncommitted(dir); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]int64{committed.RowsName(): committed.RowsBytes, committed.BlocksName(): committed.BlocksBytes,
		committed.KeysName(): committed.KeysBytes, committed.EventsName(): committed.EventsBytes} {
		info, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if info.Size() != want {
			t.Errorf("%s: %d bytes after the discard, committed %d", name, info.Size(), want)
		}
	}
	if d, err := snapshot.Verify(dir); err != nil || !d.None() {
		t.Errorf("Verify after the discard: %+v, %v", d, err)
	}
}

// TestDiscardFirstRun: a first run that fails before its first commit (a
// full disk) leaves nothing behind; its rows alone, without a manifest,
// read as a damaged index (before: every search exited 2 until the next
// `recall index`).
func TestDiscardFirstRun(t *testing.T) {
	dir := t.TempDir()
	m := manifest.New()
	w, err := openRowsWriterAt(dir, m, nil)
	if err != nil {
		t.Fatal(err)
	}
	row := record.Row{Session: "s", Timestamp: "2026-01-01T00:00:00Z", Type: "user", Text: "an uncommitted row", Source: "/t.jsonl", Line: 1, Gen: 1, Ordinal: 1}
	if err := w.Add(&row, 1); err != nil {
		t.Fatal(err)
	}
	if err := w.Sync(true); err != nil {
		t.Fatal(err)
	}
	w.Close()
	if _, err := manifest.ReadWhole(dir); !errors.Is(err, manifest.ErrDamaged) {
		t.Fatalf("rows without a manifest read as %v, want ErrManifestDamaged (the test shows nothing)", err)
	}
	if err := discardFirstRun(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := manifest.ReadWhole(dir); !errors.Is(err, manifest.ErrNoIndex) {
		t.Errorf("after the discard: %v, want ErrNoIndex", err)
	}
	if _, err := snapshot.Open(dir); !errors.Is(err, manifest.ErrNoIndex) {
		t.Errorf("a search after the discard: %v, want ErrNoIndex", err)
	}
}
