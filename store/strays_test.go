package store

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// committedIndex writes a one-row index into dir and returns its
// manifest.
func committedIndex(t *testing.T, dir string) *Manifest {
	t.Helper()
	m := NewManifest()
	w, err := OpenRowsWriter(dir, m, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	row := Row{Session: "s", Timestamp: "2026-01-01T00:00:00Z", Type: "user", Text: "a committed row", Source: "/t.jsonl", Line: 1, Gen: 1, Ordinal: 1}
	if err := w.Add(&row, 1); err != nil {
		t.Fatal(err)
	}
	if err := w.Sync(true); err != nil {
		t.Fatal(err)
	}
	if err := CommitManifest(dir, m); err != nil {
		t.Fatal(err)
	}
	return m
}

// rowsFilesOf is what `zstdcat DIR/rows-*.zst` reads.
func rowsFilesOf(t *testing.T, dir string) []string {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, "rows-*.zst"))
	if err != nil {
		t.Fatal(err)
	}
	for i := range names {
		names[i] = filepath.Base(names[i])
	}
	return names
}

// TestNewSequenceIsStagedUntilCommitted: a rewrite into a new sequence (a
// compaction, forget, rebuild, recovery) killed before its commit leaves
// no second rows-*.zst: its files carry PartSuffix, the next writer
// removes them, and stats names them meanwhile (issue 23).
func TestNewSequenceIsStagedUntilCommitted(t *testing.T) {
	dir := t.TempDir()
	m := committedIndex(t, dir)
	if HasStrays(dir) {
		t.Fatal("a clean index has strays")
	}
	next := m.clone()
	next.Seq++
	next.RowsBytes, next.BlocksBytes, next.KeysBytes, next.EventsBytes, next.Frames, next.Rows = 0, 0, 0, 0, 0, 0
	w, err := OpenNewSequence(dir, next, nil)
	if err != nil {
		t.Fatal(err)
	}
	row := Row{Session: "s", Timestamp: "2026-01-01T00:00:00Z", Type: "user", Text: "a row of the rewrite", Source: "/t.jsonl", Line: 1, Gen: 1, Ordinal: 1}
	if err := w.Add(&row, 1); err != nil {
		t.Fatal(err)
	}
	if err := w.flushForCommit(true); err != nil { // written, never committed: a kill here
		t.Fatal(err)
	}
	w.Close()
	if got := rowsFilesOf(t, dir); !slices.Equal(got, []string{m.RowsName()}) {
		t.Errorf("zstdcat would read %v, want only %s", got, m.RowsName())
	}
	if !HasStrays(dir) {
		t.Error("HasStrays misses the staged files")
	}
	strays := Strays(dir, m)
	if len(strays) < 4 || strays[0] != next.RowsName()+PartSuffix {
		t.Errorf("Strays = %v, want the staged files and segment, the rows file first", strays)
	}
	for _, s := range strays {
		if !strings.Contains(s, "-000002") {
			t.Errorf("Strays names %s, not of the rewrite", s)
		}
	}
	if err := RemoveStrays(dir, m.Seq); err != nil {
		t.Fatal(err)
	}
	if HasStrays(dir) || len(Strays(dir, m)) > 0 {
		t.Errorf("strays left after RemoveStrays: %v", Strays(dir, m))
	}
}

// TestPublishReplacesTheRowsFileAtOnce: a compaction's commit leaves one
// rows file, its own; a crash between its commit and the rename of its
// rows file leaves a rows file under its part name that readers open and
// the next writer renames.
func TestPublishReplacesTheRowsFileAtOnce(t *testing.T) {
	dir := t.TempDir()
	m := committedIndex(t, dir)
	old := m.RowsName()
	if err := Compact(dir, m, nil); err != nil {
		t.Fatal(err)
	}
	if got := rowsFilesOf(t, dir); !slices.Equal(got, []string{m.RowsName()}) || m.RowsName() == old {
		t.Fatalf("after a compaction zstdcat reads %v, want only %s", got, m.RowsName())
	}

	// The crash: the manifest names the new sequence, its rows file
	// still has its part name.
	path := filepath.Join(dir, m.RowsName())
	if err := os.Rename(path, path+PartSuffix); err != nil {
		t.Fatal(err)
	}
	snap, err := OpenSnapshot(dir)
	if err != nil {
		t.Fatalf("a reader after the crash: %v", err)
	}
	n := 0
	if err := snap.EachRow(func(*Row) error { n++; return nil }); err != nil || n != 1 {
		t.Errorf("a reader after the crash read %d rows, %v", n, err)
	}
	snap.Close()
	if err := FinishPublish(dir, m); err != nil {
		t.Fatal(err)
	}
	if got := rowsFilesOf(t, dir); !slices.Equal(got, []string{m.RowsName()}) {
		t.Errorf("after FinishPublish zstdcat reads %v", got)
	}
	if d, err := Verify(dir); err != nil || !d.None() {
		t.Errorf("Verify: %+v, %v", d, err)
	}
}
