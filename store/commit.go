package store

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/recall-dev/recall/store/manifest"

	"github.com/recall-dev/recall/internal/atomicfile"
	"github.com/recall-dev/recall/internal/parallel"
)

// A commit in the background: StartCommit makes the rows appended so far
// durable and commits the manifest as it stands at the call, while the
// caller goes on reading and appending. A long run's intermediate
// commits stopped the whole pipeline before: four files synced and, after
// a first index's thousands of new transcripts, the whole manifest
// encoded and written (a 15 MB checkpoint at 4 GB, 140-210 ms each) while
// the readers filled their window and the encoders had nothing to do.
//
// The order that makes a commit crash-safe is the same as Sync then
// commitManifest: the data files are synced (fsync syncs every byte
// written before it, so at least the lengths the snapshot names) before
// the new manifest is renamed into place or its journal record is
// appended and synced. A crash at any point leaves the last committed
// manifest or the new one, and data past what it names, which the next
// writer cuts off (openRepaired) as after any crash.

// pendingCommit is a commit under way in the background. Once done it
// holds only the journal state the commit left, not the snapshot: kept
// until the next commit, the snapshot's copy of every file state (and
// the base it shared) kept the live heap of a 4 GB first index 20-30 MB
// higher, for a third more collections under the memory limit.
type pendingCommit struct {
	done    chan struct{}
	journal manifest.JournalState // set when done
	err     error
}

// StartCommit starts committing the rows appended so far and w's
// manifest as it stands now, and returns once the commit no longer needs
// either: the caller may go on adding rows and changing the manifest.
// A commit started before is waited for first (its error is returned),
// so commits land in order. final completes the term index of the blocks
// written, as Sync(true) does but for its last segment, written while
// the commit runs and waited for by Close, and keeps no journal base for a later
// commit of the same manifest (the run's last commit; a later commit of
// it would write a checkpoint). WaitCommit waits for the commit and must
// be called before the manifest is committed any other way; Close waits
// too.
func (w *RowsWriter) StartCommit(final bool) error {
	if err := w.flushForCommit(final, true); err != nil {
		return err
	}
	// The writer goroutine is idle (drained) and the caller waits: the
	// counters and file states copied are those of the bytes written.
	snap, err := w.m.ForCommit(final)
	if err != nil {
		return fmt.Errorf("commit manifest: %w", err)
	}
	p := &pendingCommit{done: make(chan struct{})}
	files := w.dataFiles()
	publish := w.publishNames()
	// A rewrite's rows file keeps its part name through its checkpoints
	// and is published by its last commit: what its link points at is
	// never appended to, so a kill tears no frame `zstdcat` reads.
	publishRowsNow, replaces := w.rowsStaged && final, w.replaces
	if publishRowsNow {
		w.rowsStaged = false
	}
	parallel.Go(func() error {
		if err := syncFiles(w.dir, files, publish); err != nil {
			return err
		}
		if err := manifest.Commit(w.dir, snap); err != nil {
			return err
		}
		if publishRowsNow {
			// The sequence this one replaces (a rebuild's) is no
			// longer named: its files go now.
			return publishRows(w.dir, snap.Seq, snap.RowsName(), replaces)
		}
		return nil
	}, func(err error) {
		p.err = err
		p.journal = snap.JournalState()
		close(p.done)
	})
	w.inflight = p
	return nil
}

// WaitCommit waits for the commit StartCommit started, if one is under
// way, and returns its error; the manifest then knows what was committed
// (its checkpoint epoch and journal state), as if CommitManifest had
// committed it.
// A failure sticks: every later commit returns it.
func (w *RowsWriter) WaitCommit() error {
	if p := w.inflight; p != nil {
		<-p.done
		w.inflight = nil
		w.m.SetJournalState(p.journal)
		w.commitErr = p.err
	}
	return w.commitErr
}

// syncFiles makes the data files durable, renames the staged ones in
// place (publish: their final names, each from its partSuffix name),
// then makes dir's entries durable (a new data file's name).
func syncFiles(dir string, files []*os.File, publish []string) error {
	for _, f := range files {
		if err := f.Sync(); err != nil {
			return err // a *fs.PathError: "sync NAME: …"
		}
	}
	for _, name := range publish {
		path := filepath.Join(dir, name)
		if err := os.Rename(path+manifest.PartSuffix, path); err != nil {
			return err // an *os.LinkError names both
		}
	}
	return atomicfile.SyncDir(dir)
}
