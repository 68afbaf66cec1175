package indexer

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/recall-dev/recall/store"
)

// WatchLockName is the lock a watcher holds for its whole life, so an index
// has at most one watcher. It is separate from LockName because the watcher
// must not hold the writer lock between runs: hooks and searches take that
// one briefly. Like LockName it is never deleted (see LockName for why).
const WatchLockName = "watch.lock"

// WatchRunningError is returned by NewWatcher when another watcher already
// keeps this index up to date.
type WatchRunningError struct {
	Dir string // index directory
	PID string // the holder's pid as it wrote it; empty if not yet written
}

func (e *WatchRunningError) Error() string {
	return fmt.Sprintf("another watcher holds %s (pid %s)", filepath.Join(e.Dir, WatchLockName), e.Holder())
}

// Holder is the running watcher's pid, or "unknown" if it has not written
// it yet (it writes it right after taking the lock).
func (e *WatchRunningError) Holder() string {
	if e.PID == "" {
		return "unknown"
	}
	return e.PID
}

// takeWatchLock takes the watch lock without waiting.
func takeWatchLock(dir string) (*store.Lock, error) {
	l, err := store.LockFile(dir, WatchLockName, false)
	if errors.Is(err, store.ErrLocked) {
		return nil, &WatchRunningError{Dir: dir, PID: store.HolderOf(dir, WatchLockName)}
	}
	return l, err
}

// WatcherRunning reports whether a `recall watch` keeps the index in dir up
// to date, that is whether its lock is held. It only probes (LockHeld).
func WatcherRunning(dir string) bool {
	held, err := store.LockHeld(filepath.Join(dir, WatchLockName))
	return err == nil && held
}
