package store

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/recall-dev/recall/store/snapshot"

	"github.com/recall-dev/recall/store/manifest"

	"github.com/recall-dev/recall/record"
)

// commitRow is row i of the commit tests, from transcript path.
func commitRow(path string, i int) record.Row {
	return record.Row{Session: "s", Timestamp: "2026-01-01T00:00:00.000Z", Type: "user", Text: fmt.Sprintf("row %d of %s about the scheduler", i, path),
		Source: path, Line: i, Gen: 1, Ordinal: i}
}

// addCommitRows adds n rows of path to w and moves its manifest entry.
func addCommitRows(t *testing.T, w *RowsWriter, m *manifest.Manifest, path string, n int) {
	t.Helper()
	st := m.File(path)
	if st == nil {
		st = &record.FileState{Path: path, Gen: 1, Kind: record.KindMain, Verdict: record.VerdictIndexed, Session: "s"}
		m.SetFile(path, st)
	}
	for range n {
		st.Rows++
		st.Lines++
		st.Offset += 100
		r := commitRow(path, int(st.Rows))
		must(t, w.Add(&r, uint64(len(path))<<32|uint64(st.Rows)))
	}
	m.Excluded["noise"] += int64(n)
}

// committedState is what a commit must have written of m: its counters,
// exclusions and file states.
func sameCommitted(t *testing.T, got, want *manifest.Manifest) {
	t.Helper()
	if got.RowsBytes != want.RowsBytes || got.Rows != want.Rows || got.KeysBytes != want.KeysBytes || got.KeysCRC != want.KeysCRC ||
		got.BlocksBytes != want.BlocksBytes || got.EventsBytes != want.EventsBytes || got.Frames != want.Frames ||
		!reflect.DeepEqual(got.Excluded, want.Excluded) || !reflect.DeepEqual(maps.Collect(got.Files()), maps.Collect(want.Files())) {
		t.Fatalf("committed:\n got rows %d/%d keys %d frames %d excluded %v files %d\nwant rows %d/%d keys %d frames %d excluded %v files %d",
			got.RowsBytes, got.Rows, got.KeysBytes, got.Frames, got.Excluded, got.FileCount(),
			want.RowsBytes, want.Rows, want.KeysBytes, want.Frames, want.Excluded, want.FileCount())
	}
}

// TestStartCommitCommitsTheStateAtTheCall: a commit in the background
// writes the manifest as it stood when it started, with the rows appended
// up to then durable, while rows are added and file states change
// meanwhile; the next commit (a journal record) and the last commit
// write what came after, and the index verifies. Before, a commit
// stopped the run until it was written.
func TestStartCommitCommitsTheStateAtTheCall(t *testing.T) {
	dir := t.TempDir()
	m := manifest.New()
	w, err := openRowsWriterAt(dir, m, nil)
	must(t, err)
	defer w.Close()
	addCommitRows(t, w, m, "/p/a.jsonl", 2000) // more than a block
	addCommitRows(t, w, m, "/p/b.jsonl", 10)

	must(t, w.StartCommit(false))
	atFirst := m.Snapshot(false)
	addCommitRows(t, w, m, "/p/a.jsonl", 5)
	addCommitRows(t, w, m, "/p/c.jsonl", 3000)
	must(t, w.WaitCommit())
	first := mustRead(t, dir)
	sameCommitted(t, first, atFirst)
	if first.Epoch == 0 || m.Epoch != first.Epoch {
		t.Fatalf("the writer's manifest did not take the commit's journal state: epoch %d (committed %d)", m.Epoch, first.Epoch)
	}

	// The second commit changes a few files: a journal record.
	journal := journalLength(t, dir)
	must(t, w.StartCommit(false))
	atSecond := m.Snapshot(false)
	addCommitRows(t, w, m, "/p/b.jsonl", 7)
	must(t, w.WaitCommit())
	if journalLength(t, dir) <= journal {
		t.Fatal("the second commit appended no journal record")
	}
	sameCommitted(t, mustRead(t, dir), atSecond)

	must(t, w.StartCommit(true))
	must(t, w.WaitCommit())
	sameCommitted(t, mustRead(t, dir), m)
	w.Close()
	if d, err := snapshot.Verify(dir); err != nil || !d.None() {
		t.Fatalf("Verify: %+v, %v", d, err)
	}
	snap, err := snapshot.Open(dir)
	must(t, err)
	defer snap.Close()
	if snap.M.Rows != 2000+10+5+3000+7 {
		t.Errorf("the index holds %d rows, want %d", snap.M.Rows, 2000+10+5+3000+7)
	}
}

// TestStartCommitFailureSticks: a commit that fails in the background
// (here its manifest cannot be renamed into place) fails the next commit
// too, so a run never commits past a failed commit.
func TestStartCommitFailureSticks(t *testing.T) {
	dir := t.TempDir()
	m := manifest.New()
	w, err := openRowsWriterAt(dir, m, nil)
	must(t, err)
	defer w.Close()
	addCommitRows(t, w, m, "/p/a.jsonl", 10)
	blocker := filepath.Join(dir, manifest.Name, "x")
	must(t, os.MkdirAll(blocker, 0o700)) // a rename cannot replace a folder that holds something
	must(t, w.StartCommit(false))
	if err := w.WaitCommit(); err == nil {
		t.Fatal("a commit whose manifest cannot be renamed into place succeeded")
	}
	must(t, os.RemoveAll(filepath.Join(dir, manifest.Name)))
	if err := w.StartCommit(true); err == nil {
		t.Fatal("the commit after a failed one succeeded")
	}
	if err := w.Sync(true); err == nil {
		t.Fatal("Sync after a failed commit succeeded")
	}
	if hasManifest(dir) {
		t.Fatal("a manifest was committed after a failed commit")
	}
}

// TestLastCommitLeavesCheckpointLinesUnread: a small run opens the
// manifest with only the lines it looks up (OpenManifest), and its last
// commit, a journal record, must not read the rest. The first version of
// StartCommit loaded every line to copy them, which made a 10-line
// append at 4 GB parse the whole 15 MB checkpoint (10 → 170 ms).
func TestLastCommitLeavesCheckpointLinesUnread(t *testing.T) {
	dir := t.TempDir()
	m := manifest.New()
	w, err := openRowsWriterAt(dir, m, nil)
	must(t, err)
	for i := range 3000 {
		addCommitRows(t, w, m, fmt.Sprintf("/p/%04d.jsonl", i), 1)
	}
	must(t, w.StartCommit(true))
	must(t, w.WaitCommit())
	w.Close()

	m, err = manifest.ReadLazy(dir)
	must(t, err)
	if !m.Partial() {
		t.Fatal("OpenManifest read every line: the test needs a checkpoint read by chunks")
	}
	w, err = openRowsWriterAt(dir, m, nil)
	must(t, err)
	defer w.Close()
	if m.File("/p/0042.jsonl") == nil {
		t.Fatal("a committed file is missing")
	}
	addCommitRows(t, w, m, "/p/0042.jsonl", 10)
	must(t, w.StartCommit(true))
	must(t, w.WaitCommit())
	if !m.Partial() {
		t.Error("the last commit read every line of the checkpoint")
	}
	got := mustRead(t, dir)
	if got.FileCount() != 3000 || got.File("/p/0042.jsonl").Rows != 11 {
		t.Fatalf("committed %d files, /p/0042.jsonl with %d rows; want 3000 and 11", got.FileCount(), got.File("/p/0042.jsonl").Rows)
	}
}
