// Package rawfile opens, maps and reads files with plain system calls,
// for the prompt hook's small binary (cmd/recall-hint), which lives a few
// milliseconds: os.Open makes a regular file non-blocking and offers it
// to the network poller (which refuses it) before handing it back, five
// system calls more than the open itself, and the first such open starts
// the poller (three more). A hook that opens a dozen files paid for them
// on every prompt.
package rawfile

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"slices"

	"golang.org/x/sys/unix"
)

// Map maps path read-only and shared, whole, and returns its bytes; a
// file larger than max, or empty, is refused. The mapping is never
// unmapped by this package.
func Map(path string, max int64) ([]byte, error) {
	fd, err := open(path, unix.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, &fs.PathError{Op: "stat", Path: path, Err: err}
	}
	if st.Size <= 0 || st.Size > max || st.Size > math.MaxInt {
		return nil, &fs.PathError{Op: "map", Path: path, Err: fmt.Errorf("%w: %d bytes", ErrSize, st.Size)}
	}
	data, err := unix.Mmap(fd, 0, int(st.Size), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil, &fs.PathError{Op: "map", Path: path, Err: err}
	}
	return data, nil
}

// ErrSize wraps Map's refusal of an empty file or one past its max.
var ErrSize = errors.New("unexpected file size")

// ReadFile reads path whole, at most max bytes (a longer file is cut
// there, as io.LimitReader would).
func ReadFile(path string, max int) ([]byte, error) {
	fd, err := open(path, unix.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	buf := make([]byte, 0, min(max, 4096))
	for len(buf) < max {
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, len(buf))
		}
		n, err := unix.Read(fd, buf[len(buf):min(cap(buf), max)])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "read", Path: path, Err: err}
		}
		if n == 0 {
			break
		}
		buf = buf[:len(buf)+n]
	}
	return buf, nil
}

// OpenAppend opens path for appending, creating it with perm, as
// os.OpenFile(path, O_WRONLY|O_APPEND|O_CREATE, perm) does, without the
// poller: the file stays blocking.
func OpenAppend(path string, perm os.FileMode) (*os.File, error) {
	fd, err := open(path, unix.O_WRONLY|unix.O_APPEND|unix.O_CREAT, uint32(perm.Perm()))
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), path), nil
}

// open is open(2) with O_CLOEXEC, retried on EINTR, its error a
// *fs.PathError as os.Open's is.
func open(path string, flags int, perm uint32) (int, error) {
	for {
		fd, err := unix.Open(path, flags|unix.O_CLOEXEC, perm)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return -1, &fs.PathError{Op: "open", Path: path, Err: err}
		}
		return fd, nil
	}
}
