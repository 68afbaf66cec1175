package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/recall-dev/recall/internal/problem"
	"github.com/recall-dev/recall/store/snapshot"

	"github.com/recall-dev/recall/store/lockfile"

	"github.com/recall-dev/recall/store/keys"

	"github.com/recall-dev/recall/store/manifest"

	"github.com/recall-dev/recall/record"
	"github.com/recall-dev/recall/store/forget"
	"github.com/recall-dev/recall/store/terms"
)

// Index is an index directory: the one way into its files. What reads
// is a method of Index; what writes is a method of Writer, which only a
// held lock gives (TryLock, WaitLock), so that holding the lock is a
// fact of the types and not of a convention. The manifest's file names
// and the order of the index's upkeep stay inside the package.
type Index struct {
	dir string
	// warn hears what a reader or writer skipped or could not keep
	// without failing (a term segment it could not build, a block it
	// read around); nil drops it.
	warn func(error)
}

// Open returns the index in dir. It reads nothing: a missing index is
// found by what is asked of it (ErrNoIndex).
func Open(dir string) *Index { return &Index{dir: dir} }

// Warnings sets where the index says what it skipped or could not keep
// without failing, for every Writer and rows writer taken from it, and
// returns the index.
func (ix *Index) Warnings(warn func(error)) *Index {
	ix.warn = warn
	return ix
}

// Dir is the index directory.
func (ix *Index) Dir() string { return ix.dir }

// Snapshot opens the committed index for reading: the rows, blocks and
// events of one manifest, whatever writers do meanwhile.
func (ix *Index) Snapshot() (*snapshot.Snapshot, error) { return snapshot.Open(ix.dir) }

// Manifest reads the committed manifest whole.
func (ix *Index) Manifest() (*manifest.Manifest, error) { return manifest.ReadWhole(ix.dir) }

// OpenManifest reads the committed manifest, its per-transcript lines
// on demand (Manifest.LoadAll).
func (ix *Index) OpenManifest() (*manifest.Manifest, error) { return manifest.ReadLazy(ix.dir) }

// HasManifest reports whether a manifest has been committed.
func (ix *Index) HasManifest() bool { return hasManifest(ix.dir) }

// ManifestID identifies the committed manifest's files, for a cache
// that must notice a new commit without reading it.
func (ix *Index) ManifestID() (manifest.Stamp, error) { return manifest.ReadStamp(ix.dir) }

// Stats describes the index for `recall stats`.
func (ix *Index) Stats() (*IndexStats, error) { return stats(ix.dir) }

// Verify reads every block and derived file and says what is damaged.
func (ix *Index) Verify() (*snapshot.Damage, error) { return snapshot.Verify(ix.dir) }

// HasStrays reports, from one listing, whether files of another
// sequence or staged files are there.
func (ix *Index) HasStrays() bool { return hasStrays(ix.dir) }

// TermRefs lists the term segments in the directory.
func (ix *Index) TermRefs() ([]terms.Ref, error) { return terms.Refs(ix.dir) }

// CheckFreshness compares the transcripts on disk with what the index
// holds (current: the running session's id, never stale).
func (ix *Index) CheckFreshness(files []DiskFile, current string) (Freshness, error) {
	return checkFreshness(ix.dir, files, current)
}

// Tombstone reads the rules of `recall forget`.
func (ix *Index) Tombstone() (*forget.Tombstone, error) { return readTombstone(ix.dir) }

// TombstoneID identifies the tombstone file as it is now.
func (ix *Index) TombstoneID() record.FileID { return tombstoneID(ix.dir) }

// CheckRowsLength reports a rows file shorter than committed.
func (ix *Index) CheckRowsLength(m *manifest.Manifest) error {
	return snapshot.CheckRowsLength(ix.dir, m)
}

// KeyOwners maps each message key of m to the generation that holds it.
func (ix *Index) KeyOwners(m *manifest.Manifest) (map[uint64]uint32, error) {
	return keyOwners(ix.dir, m)
}

// ForgottenKeys returns the keys of m's generations gens that identify
// the messages rows.
func (ix *Index) ForgottenKeys(m *manifest.Manifest, gens map[uint32]bool, rows MessageRows) (map[uint64]bool, error) {
	return forgottenKeys(ix.dir, m, gens, rows)
}

// LockHolder is the pid the current or last writer wrote in the lock.
func (ix *Index) LockHolder() string { return lockfile.HolderOf(ix.dir, lockfile.WriterName) }

// LockFile takes a lock of its own on the file name in the directory
// (the watcher's), not the writer lock.
func (ix *Index) LockFile(name string, wait bool) (*lockfile.Lock, error) {
	return lockfile.Acquire(ix.dir, name, wait)
}

// LockHeld probes, without taking it, whether a process holds the lock
// on the file name in the directory.
func (ix *Index) LockHeld(name string) (bool, error) {
	return lockfile.Held(filepath.Join(ix.dir, name))
}

// HolderOf is the pid written in the lock file name.
func (ix *Index) HolderOf(name string) string { return lockfile.HolderOf(ix.dir, name) }

// TryLock takes the writer lock without waiting (ErrLocked if another
// process holds it).
func (ix *Index) TryLock() (*Writer, error) { return ix.lock(false) }

// WaitLock takes the writer lock, waiting for the holder to finish.
func (ix *Index) WaitLock() (*Writer, error) { return ix.lock(true) }

func (ix *Index) lock(wait bool) (*Writer, error) {
	l, err := lockfile.Acquire(ix.dir, lockfile.WriterName, wait)
	if err != nil {
		return nil, err
	}
	return &Writer{Index: ix, lock: l}, nil
}

// RequestRerun is what a hook does when it finds a writer running: it
// leaves the note that makes that writer run once more (runs is true),
// since a second writer would only wait on the lock. With no writer
// running it does nothing and says so (runs false): the caller starts
// one.
func (ix *Index) RequestRerun() (runs bool, err error) {
	held, err := lockfile.Held(filepath.Join(ix.dir, lockfile.WriterName))
	if err != nil || !held {
		return false, err
	}
	f, err := os.OpenFile(filepath.Join(ix.dir, rerunName), os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return true, fmt.Errorf("leave the rerun note: %w", err)
	}
	return true, f.Close()
}

// Writer is the index with its writer lock held: every change to the
// index is a method of it.
type Writer struct {
	*Index
	lock *lockfile.Lock
}

// Unlock releases the writer lock; the Writer is of no use after it.
func (w *Writer) Unlock() error {
	if w.lock == nil {
		return errors.New("unlock: the index writer is unlocked already")
	}
	err := w.lock.Unlock()
	w.lock = nil
	return err
}

// RerunRequested reports whether a rerun note is there, without taking
// it (an unlocked caller deciding whether to take the lock again).
func (ix *Index) RerunRequested() bool {
	_, err := os.Stat(filepath.Join(ix.dir, rerunName))
	return err == nil
}

// ClearRerun removes a rerun note this writer's run makes moot.
func (w *Writer) ClearRerun() { os.Remove(filepath.Join(w.dir, rerunName)) }

// CommitManifest writes m durably: the data files it names must be
// synced first (RowsWriter.Sync).
func (w *Writer) CommitManifest(m *manifest.Manifest) error { return manifest.Commit(w.dir, m) }

// CompactDropping is Compact that also drops the rows drop selects and
// the keys dropKey selects.
func (w *Writer) CompactDropping(m *manifest.Manifest, drop func(*record.Row) bool, dropKey func(key uint64, gen uint32) bool) error {
	return compactDropping(w.dir, m, w.warnOrDrop(), drop, dropKey)
}

// CompactRepaired is Compact that skips blocks that do not read,
// returning how many it skipped.
func (w *Writer) CompactRepaired(m *manifest.Manifest) (int, error) {
	return compactRepaired(w.dir, m, w.warnOrDrop())
}

// Abandon ends a run that failed: what it wrote past the last commit is
// cut, and when nothing was ever committed (first) its files go.
func (w *Writer) Abandon(first bool) error {
	if first {
		return discardFirstRun(w.dir)
	}
	return discardUncommitted(w.dir)
}

// EnsureKeyIndex builds the key index of m if it is missing or stale.
func (w *Writer) EnsureKeyIndex(m *manifest.Manifest) { keys.EnsureIndex(w.dir, m) }

// PrepareKeyIndex sorts m's keys now and returns what writes them once
// m is committed.
func (w *Writer) PrepareKeyIndex(m *manifest.Manifest) (write func() error) {
	return keys.PrepareIndex(w.dir, m)
}

// EnsureTerms builds the term segments m's blocks lack. It reads the
// header of each segment it keeps, or, with openEach (a sweep's), opens
// each as a search does.
func (w *Writer) EnsureTerms(m *manifest.Manifest, openEach bool) {
	check := checkHeaders
	if openEach {
		check = checkOpen
	}
	ensureTerms(w.dir, m, check, w.warnOrDrop())
}

// Recover makes a manifest from the rows when it is lost or damaged.
func (w *Writer) Recover(known *manifest.Manifest, complete func(*manifest.Manifest)) (*manifest.Manifest, *Recovered, error) {
	return recoverIndex(w.dir, known, w.warnOrDrop(), complete)
}

// Rederive rebuilds derived data built under other rules or an older
// format, from the rows; why says what and why ("" for nothing).
func (w *Writer) Rederive(m *manifest.Manifest, progress func(done, total int)) (string, error) {
	return rederive(w.dir, m, w.warnOrDrop(), progress)
}

// RemoveStrays removes the data files of every sequence not in keep.
func (w *Writer) RemoveStrays(keep ...int) error { return removeStrays(w.dir, keep...) }

// FinishRun is the upkeep of a run whose rows m has committed, base
// being the sequence the run started from (another when it wrote a new
// one): the files of every other sequence go, and with a new sequence
// the manifests of older versions; the rows are compacted when enough of
// them are superseded; the term index gets the segments m's blocks lack
// (openEach as in EnsureTerms). A compaction a damaged rows block stops
// is postponed with a warning, the rows being committed; compacted says
// whether one ran.
func (w *Writer) FinishRun(m *manifest.Manifest, base int, openEach bool) (compacted bool, err error) {
	if m.Seq != base {
		if err := removeStrays(w.dir, m.Seq); err != nil {
			return false, err
		}
		if err := removeOldManifests(w.dir); err != nil {
			return false, err
		}
	}
	if m.CompactionDue() {
		err := compactIndex(w.dir, m, w.warnOrDrop())
		switch {
		case errors.Is(err, snapshot.ErrBlockDamaged):
			w.warnOrDrop()(problem.Problem{Err: fmt.Errorf("compaction postponed: %w", err), Remedy: problem.Repair, Mends: "repairs the index"})
		case err != nil:
			return false, err
		default:
			compacted = true
		}
	}
	w.EnsureTerms(m, openEach)
	return compacted, nil
}

// Tidy is the upkeep of a run that wrote nothing: what an interrupted
// forget, rebuild or compaction left (a second rows file zstdcat would
// print) goes, in one listing of the index directory, and the term index
// gets the segments m's blocks lack.
func (w *Writer) Tidy(m *manifest.Manifest, openEach bool) error {
	if err := removeStrays(w.dir, m.Seq); err != nil {
		return err
	}
	w.EnsureTerms(m, openEach)
	return nil
}

// WriteTombstone replaces the rules of `recall forget` with t.
func (w *Writer) WriteTombstone(t *forget.Tombstone) error { return writeTombstone(w.dir, t) }

// OpenRowsWriter opens m's data files for appending.
func (w *Writer) OpenRowsWriter(m *manifest.Manifest) (*RowsWriter, error) {
	return openRowsWriterAt(w.dir, m, w.warnOrDrop())
}

// OpenNewSequence opens the data files of a rewrite's new sequence m.
func (w *Writer) OpenNewSequence(m *manifest.Manifest) (*RowsWriter, error) {
	return openNewSequence(w.dir, m, w.warnOrDrop())
}

// warnOrDrop is the warning sink, or one that drops what it hears, for
// the steps that call it unconditionally.
func (ix *Index) warnOrDrop() func(error) {
	if ix.warn == nil {
		return func(error) {}
	}
	return ix.warn
}

// Damaged is a committed index a run cannot trust as it is, and what of
// it recovery keeps.
type Damaged struct {
	Err error
	// Known is the manifest as read when only the block records failed
	// (nil when the manifest itself did): recovery keeps its
	// per-transcript state and reads its rows to its committed length.
	Known *manifest.Manifest
	// LastRead is the manifest as far as its journal reads whole (nil
	// when that does not read either): the entries of transcripts that
	// left no rows are kept from it.
	LastRead *manifest.Manifest
}

// OpenRun opens the committed manifest for a run that writes: a new one
// when there is no index yet. It first finishes what a killed writer left
// (a committed rows file still under its part name takes its name, the
// files of another sequence go: until then `zstdcat rows-*.zst` could
// print both), then checks the checkpoint whole (not when quick: its
// lines are read on demand), the journal, and the block records (only
// their length when quick: reading them all grows with the index).
// What fails those checks comes back as Damaged, for the caller to
// recover from the rows (Recover); any other failure as the error.
func (w *Writer) OpenRun(quick bool) (*manifest.Manifest, *Damaged, error) {
	m, err := manifest.ReadLazy(w.dir)
	if errors.Is(err, manifest.ErrNoIndex) {
		m, err = manifest.New(), nil
	}
	if err == nil && hasManifest(w.dir) {
		err = finishPublish(w.dir, m)
		if err == nil && hasStrays(w.dir) {
			err = removeStrays(w.dir, m.Seq)
		}
	}
	if err == nil && !quick {
		m.LoadAll() // and checks the checkpoint whole
		err = m.Err()
	}
	var lastRead *manifest.Manifest
	if err == nil {
		if err = manifest.CheckJournal(w.dir, m); err != nil {
			if m.LoadAll(); m.Err() == nil {
				lastRead = m
			}
		}
	}
	switch {
	case err == nil && m.RowsBytes > 0:
		check := snapshot.CheckBlocks
		if quick {
			check = snapshot.CheckBlocksLength
		}
		if err = check(w.dir, m); err == nil {
			return m, nil, nil
		}
		m.LoadAll()
		return nil, &Damaged{Err: err, Known: m, LastRead: lastRead}, nil
	case errors.Is(err, manifest.ErrDamaged):
		return nil, &Damaged{Err: err, LastRead: lastRead}, nil
	}
	return m, nil, err
}

// rerunName is the note a hook leaves when it finds an indexer running; the
// indexer runs once more when it sees it.
const rerunName = "rerun"
