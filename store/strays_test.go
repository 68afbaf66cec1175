package store

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/recall-dev/recall/store/snapshot"

	"github.com/recall-dev/recall/store/manifest"

	"github.com/recall-dev/recall/record"
)

// committedIndex writes a one-row index into dir and returns its
// manifest.
func committedIndex(t *testing.T, dir string) *manifest.Manifest {
	t.Helper()
	m := manifest.New()
	w, err := openRowsWriterAt(dir, m, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
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
	return m
}

// rowsFilesOf is what `zstdcat DIR/rows-*.zst` reads: the names the
// glob finds, a link as the rows file it is another name of (and that
// link a hard one, as zstd without -f reads no symbolic link).
func rowsFilesOf(t *testing.T, dir string) []string {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, "rows-*.zst"))
	if err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for i := range names {
		info, err := os.Lstat(names[i])
		if err != nil {
			t.Fatal(err)
		}
		if !info.Mode().IsRegular() {
			t.Errorf("%s is not a regular file: %v", filepath.Base(names[i]), info.Mode())
		}
		names[i] = filepath.Base(names[i])
		for _, e := range entries {
			other, err := e.Info()
			if err == nil && e.Name() != names[i] && !strings.HasPrefix(e.Name(), "rows-") && os.SameFile(info, other) {
				names[i] = e.Name()
			}
		}
	}
	return names
}

// TestNewSequenceIsStagedUntilCommitted: a rewrite into a new sequence (a
// compaction, forget, rebuild, recovery) killed before its commit leaves
// no second rows-*.zst: its files carry partSuffix, the next writer
// removes them, and stats names them meanwhile (issue 23).
func TestNewSequenceIsStagedUntilCommitted(t *testing.T) {
	dir := t.TempDir()
	m := committedIndex(t, dir)
	if hasStrays(dir) {
		t.Fatal("a clean index has strays")
	}
	next := m.Clone()
	next.Seq++
	next.RowsBytes, next.BlocksBytes, next.KeysBytes, next.EventsBytes, next.Frames, next.Rows = 0, 0, 0, 0, 0, 0
	w, err := openNewSequence(dir, next, nil)
	if err != nil {
		t.Fatal(err)
	}
	row := record.Row{Session: "s", Timestamp: "2026-01-01T00:00:00Z", Type: "user", Text: "a row of the rewrite", Source: "/t.jsonl", Line: 1, Gen: 1, Ordinal: 1}
	if err := w.Add(&row, 1); err != nil {
		t.Fatal(err)
	}
	if err := w.flushForCommit(true, false); err != nil { // written, never committed: a kill here
		t.Fatal(err)
	}
	w.Close()
	if got := rowsFilesOf(t, dir); !slices.Equal(got, []string{m.RowsName()}) {
		t.Errorf("zstdcat would read %v, want only %s", got, m.RowsName())
	}
	if !hasStrays(dir) {
		t.Error("HasStrays misses the staged files")
	}
	strays := strayFiles(dir, m)
	if len(strays) < 4 || strays[0] != next.RowsName()+manifest.PartSuffix {
		t.Errorf("Strays = %v, want the staged files and segment, the rows file first", strays)
	}
	for _, s := range strays {
		if !strings.Contains(s, "-000002") {
			t.Errorf("Strays names %s, not of the rewrite", s)
		}
	}
	if err := removeStrays(dir, m.Seq); err != nil {
		t.Fatal(err)
	}
	if hasStrays(dir) || len(strayFiles(dir, m)) > 0 {
		t.Errorf("strays left after removeStrays: %v", strayFiles(dir, m))
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
	if err := compactIndex(dir, m, nil); err != nil {
		t.Fatal(err)
	}
	if got := rowsFilesOf(t, dir); !slices.Equal(got, []string{m.RowsName()}) || m.RowsName() == old {
		t.Fatalf("after a compaction zstdcat reads %v, want only %s", got, m.RowsName())
	}

	// The crash: the manifest names the new sequence, its rows file
	// still has its part name.
	path := filepath.Join(dir, m.RowsName())
	if err := os.Rename(path, path+manifest.PartSuffix); err != nil {
		t.Fatal(err)
	}
	snap, err := snapshot.Open(dir)
	if err != nil {
		t.Fatalf("a reader after the crash: %v", err)
	}
	n := 0
	if err := snap.EachRow(func(*record.Row) error { n++; return nil }); err != nil || n != 1 {
		t.Errorf("a reader after the crash read %d rows, %v", n, err)
	}
	snap.Close()
	if err := finishPublish(dir, m); err != nil {
		t.Fatal(err)
	}
	if got := rowsFilesOf(t, dir); !slices.Equal(got, []string{m.RowsName()}) {
		t.Errorf("after finishPublish zstdcat reads %v", got)
	}
	if d, err := snapshot.Verify(dir); err != nil || !d.None() {
		t.Errorf("Verify: %+v, %v", d, err)
	}
}

// TestRewriteKeepsTheLinkUntilItsLastCommit: a rewrite's checkpoints
// commit its sequence, which readers read, while `rows-*.zst` still
// names the rows it replaces; a kill after a checkpoint, mid-frame, is
// finished by the next writer: the staged rows file is cut to its
// committed length, takes the link, and the old rows file goes.
func TestRewriteKeepsTheLinkUntilItsLastCommit(t *testing.T) {
	dir := t.TempDir()
	m := committedIndex(t, dir)
	next := m.Clone()
	next.Seq++
	next.RowsBytes, next.BlocksBytes, next.KeysBytes, next.EventsBytes, next.Frames, next.Rows = 0, 0, 0, 0, 0, 0
	w, err := openNewSequence(dir, next, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		row := record.Row{Session: "s", Timestamp: "2026-01-01T00:00:00Z", Type: "user", Text: fmt.Sprintf("rewritten row %d", i), Source: "/t.jsonl", Line: i + 1, Gen: 1, Ordinal: i + 1}
		if err := w.Add(&row, uint64(i+1)); err != nil {
			t.Fatal(err)
		}
		if err := w.StartCommit(false); err != nil { // a checkpoint
			t.Fatal(err)
		}
		if err := w.WaitCommit(); err != nil {
			t.Fatal(err)
		}
	}
	if got := rowsFilesOf(t, dir); !slices.Equal(got, []string{m.RowsName()}) {
		t.Errorf("after the rewrite's checkpoints zstdcat reads %v, want the old %s", got, m.RowsName())
	}
	snap, err := snapshot.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	if err := snap.EachRow(func(*record.Row) error { n++; return nil }); err != nil || n != 2 {
		t.Errorf("a reader between the checkpoints read %d rows, %v; want the rewrite's 2", n, err)
	}
	snap.Close()
	committed := next.RowsBytes
	w.Close()
	// The kill: half a frame past the last commit.
	staged := filepath.Join(dir, next.RowsName()+manifest.PartSuffix)
	f, err := os.OpenFile(staged, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte{0x28, 0xb5, 0x2f, 0xfd, 0x00})
	f.Close()

	now, err := manifest.ReadWhole(dir)
	if err != nil || now.Seq != next.Seq {
		t.Fatalf("the committed manifest: %v, %v", now, err)
	}
	if err := finishPublish(dir, now); err != nil {
		t.Fatal(err)
	}
	if got := rowsFilesOf(t, dir); !slices.Equal(got, []string{next.RowsName()}) {
		t.Errorf("after finishPublish zstdcat reads %v, want %s", got, next.RowsName())
	}
	if info, err := os.Stat(filepath.Join(dir, RowsLinkName)); err != nil || info.Size() != committed {
		t.Errorf("the linked rows file: %v, %v; want %d bytes, the torn frame cut", info, err, committed)
	}
	if _, err := os.Stat(filepath.Join(dir, m.RowsName())); err == nil {
		t.Errorf("the replaced rows file %s is still there", m.RowsName())
	}
}

// TestOlderRowsFileNameIsRenamed: an index an older recall wrote keeps
// its rows file as rows-v2-NNNNNN.zst, with no link. Readers read it
// there; the first run (OpenRun) renames it and links it, and zstdcat
// reads it once all along.
func TestOlderRowsFileNameIsRenamed(t *testing.T) {
	dir := t.TempDir()
	m := committedIndex(t, dir)
	if err := os.Rename(filepath.Join(dir, m.RowsName()), filepath.Join(dir, m.LegacyRowsName())); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, RowsLinkName)); err != nil {
		t.Fatal(err)
	}
	snap, err := snapshot.Open(dir)
	if err != nil {
		t.Fatalf("a reader of the older layout: %v", err)
	}
	snap.Close()
	if hasStrays(dir) || len(strayFiles(dir, m)) > 0 {
		t.Errorf("the older rows file counts as a stray: %v", strayFiles(dir, m))
	}
	w, err := Open(dir).TryLock()
	if err != nil {
		t.Fatal(err)
	}
	if _, damaged, err := w.OpenRun(false); err != nil || damaged != nil {
		t.Fatalf("a run opening the older layout: %v, %+v", err, damaged)
	}
	w.Unlock()
	if got := rowsFilesOf(t, dir); !slices.Equal(got, []string{m.RowsName()}) {
		t.Errorf("after a writer opened it zstdcat reads %v, want %s", got, m.RowsName())
	}
	if d, err := snapshot.Verify(dir); err != nil || !d.None() {
		t.Errorf("Verify: %+v, %v", d, err)
	}
}
