package watch

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/recall-dev/recall/store/lockfile"

	"github.com/fsnotify/fsnotify"

	"github.com/recall-dev/recall/store"
)

// LockName is the lock a watcher holds for its whole life, so an index
// has at most one watcher. It is separate from LockName because the watcher
// must not hold the writer lock between runs: hooks and searches take that
// one briefly. Like LockName it is never deleted (see LockName for why).
const LockName = "watch.lock"

// RunningError is returned by NewWatcher when another watcher already
// keeps this index up to date.
type RunningError struct {
	Dir string // index directory
	PID string // the holder's pid as it wrote it; empty if not yet written
}

func (e *RunningError) Error() string {
	return fmt.Sprintf("another watcher holds %s (pid %s)", filepath.Join(e.Dir, LockName), e.Holder())
}

// Holder is the running watcher's pid, or "unknown" if it has not written
// it yet (it writes it right after taking the lock).
func (e *RunningError) Holder() string {
	if e.PID == "" {
		return "unknown"
	}
	return e.PID
}

// takeWatchLock takes the watch lock without waiting.
func takeWatchLock(dir string) (*lockfile.Lock, error) {
	l, err := store.Open(dir).LockFile(LockName, false)
	if errors.Is(err, lockfile.ErrLocked) {
		return nil, &RunningError{Dir: dir, PID: store.Open(dir).HolderOf(LockName)}
	}
	return l, err
}

// keepWatchLock makes sure the watcher still holds the lock of the
// index directory as it is now. An flock is on a file: when the directory
// is deleted (or replaced) under a running watcher, the watcher holds the
// lock of a file no one can open any more, and a second watcher would
// take the lock of the new one (issue 23). So the lock is checked before
// every run, and a run follows the removal of its file (an event, after
// the debounce, so an `rm -rf` of the directory is through): if its file
// is not the one at the path, the watcher takes the lock there again,
// making the directory as every run does; if another watcher holds that
// one already, this one stops (WatchRunningError), leaving one.
func (w *Watcher) keepWatchLock() error {
	dir := w.opts.IndexDir
	if w.lock.Holds(dir, LockName) {
		return nil
	}
	l, err := takeWatchLock(dir)
	if err != nil {
		return err
	}
	_ = w.lock.Unlock() // the old file's: nothing waits on it
	w.lock = l
	w.watchIndexDir()
	w.opts.Warn(fmt.Sprintf("watch: %s was replaced; took its watch lock again", dir))
	return nil
}

// watchIndexDir watches the index directory for its watch lock going
// away, so that keepWatchLock runs at once rather than at the next run.
func (w *Watcher) watchIndexDir() {
	_ = w.fsw.Add(w.opts.IndexDir) // a failure leaves the check before every run
}

// lockEvent reports an event that may have taken the watch lock's file
// away: its removal or rename, or the index directory's.
func (w *Watcher) lockEvent(ev fsnotify.Event) bool {
	if !ev.Has(fsnotify.Remove) && !ev.Has(fsnotify.Rename) {
		return false
	}
	return ev.Name == filepath.Join(w.opts.IndexDir, LockName) || ev.Name == w.opts.IndexDir
}

// Running reports whether a `recall watch` keeps the index in dir up
// to date, that is whether its lock is held. It only probes (LockHeld).
func Running(dir string) bool {
	held, err := store.Open(dir).LockHeld(LockName)
	return err == nil && held
}
