package indexer

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
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

// takeWatchLock takes the watch lock without waiting and writes our pid in
// it, so a second watcher can say who is running.
func takeWatchLock(dir string) (*Lock, error) {
	if err := ensureDir(dir); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, WatchLockName)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open watch lock %s: %w", path, err)
	}
	err = flockNoWait(f)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		f.Close()
		return nil, &WatchRunningError{Dir: dir, PID: watchLockHolder(path)}
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	if err := writePID(f); err != nil {
		l := &Lock{f: f}
		return nil, errors.Join(fmt.Errorf("write pid to %s: %w", path, err), l.Unlock())
	}
	return &Lock{f: f}, nil
}

func flockNoWait(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err != syscall.EINTR {
			return err
		}
	}
}

func writePID(f *os.File) error {
	if err := f.Truncate(0); err != nil {
		return err
	}
	_, err := f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	return err
}

func watchLockHolder(path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(data))
}
