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
	"unsafe"

	"golang.org/x/sys/unix"
)

// Map maps path read-only and shared, whole, and returns its bytes; a
// file larger than max, or empty, is refused. Unmap unmaps it (not
// unix.Munmap, which knows only the mappings unix.Mmap made).
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
	// MmapPtr, not Mmap: Mmap records every mapping in a map for its
	// Munmap, a map the prompt hook's binary would make and grow on
	// every prompt. Unmap undoes it.
	ptr, err := unix.MmapPtr(fd, 0, nil, uintptr(st.Size), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil, &fs.PathError{Op: "map", Path: path, Err: err}
	}
	return unsafe.Slice((*byte)(ptr), int(st.Size)), nil
}

// Unmap unmaps what Map mapped (data whole, as Map returned it).
func Unmap(data []byte) error {
	if len(data) == 0 {
		return nil
	}
	return unix.MunmapPtr(unsafe.Pointer(unsafe.SliceData(data)), uintptr(len(data)))
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

// File is a file open for reading at offsets (pread), without a mapping:
// a read of a few bytes here and there costs a system call each, where a
// mapping costs setting up and a page fault at each place read.
type File struct {
	path string
	fd   int
	// Size is the file's size when it was opened.
	Size int64
}

// OpenFile opens path for ReadAt.
func OpenFile(path string) (*File, error) {
	fd, err := open(path, unix.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return nil, &fs.PathError{Op: "stat", Path: path, Err: err}
	}
	return &File{path: path, fd: fd, Size: st.Size}, nil
}

// ReadAt reads the n bytes at off; fewer (the file ended) is an error.
func (f *File) ReadAt(off int64, n int) ([]byte, error) {
	buf := make([]byte, n)
	for got := 0; got < n; {
		k, err := unix.Pread(f.fd, buf[got:], off+int64(got))
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return nil, &fs.PathError{Op: "read", Path: f.path, Err: err}
		case k == 0:
			return nil, &fs.PathError{Op: "read", Path: f.path, Err: fmt.Errorf("%w: %d bytes at %d past its end", ErrSize, n, off)}
		}
		got += k
	}
	return buf, nil
}

// Close closes the file.
func (f *File) Close() error { return unix.Close(f.fd) }

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

// OpenFD is open(2) with O_CLOEXEC, retried on EINTR, its error a
// *fs.PathError as os.Open's is: a descriptor for plain system calls.
func OpenFD(path string, flags int, perm os.FileMode) (int, error) {
	return open(path, flags, uint32(perm.Perm()))
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
