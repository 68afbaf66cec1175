// Package lockfile holds the index's file locks (flock), records who holds
// one, and makes the index directory private to its owner.
package lockfile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// WriterName is the writer lock in the index directory. It is never deleted:
// deleting a lock file while another process waits on it lets two writers
// in (one holds the old inode, one a new file).
const WriterName = "lock"

// ErrLocked is returned by TryLock when another process holds the lock.
var ErrLocked = errors.New("index is locked by another process")

// Lock is a held writer lock.
type Lock struct{ f *os.File }

// Acquire takes an flock on dir/name and writes our pid in the file, so a
// process that finds it held can say who holds it.
func Acquire(dir, name string, wait bool) (*Lock, error) {
	if err := EnsureDir(dir); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, name)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock: %w", err) // the *fs.PathError names path
	}
	how := syscall.LOCK_EX
	if !wait {
		how |= syscall.LOCK_NB
	}
	err = flock(f, how)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		f.Close()
		return nil, ErrLocked
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	recordHolder(f)
	return &Lock{f: f}, nil
}

// holderWidth is the width of the pid record: Linux pids have at most 7
// digits, other systems' fit in 10.
const holderWidth = 11

// recordHolder writes our pid in the lock file, so a waiting process can
// say who it waits for. The record has a fixed width and overwrites the
// last holder's in place: truncating the file first freed its block and
// the write allocated it again, which took 2–4 ms on ext4 — most of a
// `recall index` that finds nothing to do. A longer file (not written by
// this code) is cut to the record.
func recordHolder(f *os.File) {
	rec := fmt.Sprintf("%-*d\n", holderWidth-1, os.Getpid())
	_, _ = f.WriteAt([]byte(rec), 0)
	if info, err := f.Stat(); err == nil && info.Size() > int64(len(rec)) {
		_ = f.Truncate(int64(len(rec)))
	}
}

func HolderOf(dir, name string) string {
	data, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(data))
}

// Held reports whether another process holds the lock file at path,
// by trying to take it without waiting and letting go at once. A missing
// file means nobody ever took it; the file is never created here, so a
// probe leaves no trace.
func Held(path string) (bool, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer f.Close()
	err = flock(f, syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("lock %s: %w", path, err)
	}
	if err := flock(f, syscall.LOCK_UN); err != nil {
		return false, fmt.Errorf("unlock %s: %w", path, err)
	}
	return false, nil
}

// flock is flock(2), retried when a signal interrupts it.
func flock(f *os.File, how int) error {
	for {
		err := syscall.Flock(int(f.Fd()), how)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}

// Holds reports whether the lock is on the file now at dir/name: false
// once that file was deleted or replaced (the index directory removed
// and made again), when another process can take a lock of its own there.
func (l *Lock) Holds(dir, name string) bool {
	if l == nil || l.f == nil {
		return false
	}
	mine, err := l.f.Stat()
	if err != nil {
		return false
	}
	now, err := os.Stat(filepath.Join(dir, name))
	return err == nil && os.SameFile(mine, now)
}

// Unlock releases the lock. The file stays.
func (l *Lock) Unlock() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := flock(l.f, syscall.LOCK_UN)
	return errors.Join(err, l.f.Close())
}

// EnsureDir creates the index directory private to the user.
//
// The index holds a second copy of every conversation: a directory made
// before (by hand, by an older recall, by a restore) that others may read
// is closed to them.
func EnsureDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create the index dir: %w", err) // the *fs.PathError names dir
	}
	info, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("index dir: %w", err)
	}
	if info.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(dir, info.Mode().Perm()&0o700); err != nil {
			return fmt.Errorf("restrict the index dir to its owner: %w", err)
		}
	}
	return nil
}
