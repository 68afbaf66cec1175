package transcript

import (
	"errors"
	"fmt"
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// ErrNotRegular is the error for a path that holds something other than
// a regular file: a FIFO, a socket or a device. recall never reads one:
// opening a FIFO for reading waits for a writer, forever if none comes,
// and a device can be endless or have side effects.
var ErrNotRegular = errors.New("not a regular file")

// notRegular is ErrNotRegular for path, naming what is there.
func notRegular(path string, mode uint32) error {
	return fmt.Errorf("%s: %w (%s)", path, ErrNotRegular, kindOf(mode))
}

// kindOf names a file type from its stat mode.
func kindOf(mode uint32) string {
	switch mode & unix.S_IFMT {
	case unix.S_IFIFO:
		return "a FIFO"
	case unix.S_IFSOCK:
		return "a socket"
	case unix.S_IFCHR:
		return "a character device"
	case unix.S_IFBLK:
		return "a block device"
	case unix.S_IFDIR:
		return "a folder"
	case unix.S_IFLNK:
		return "a symbolic link"
	}
	return "not a regular file"
}

// OpenRegular opens path for reading if it is a regular file, and
// otherwise fails with ErrNotRegular without waiting: the open does not
// block (O_NONBLOCK, which a FIFO needs) and the type is checked on the
// open file, so a file replaced by a FIFO between a stat and the open is
// refused all the same. Every transcript, history and session file recall
// reads is opened through it.
func OpenRegular(path string) (*os.File, error) {
	var fd int
	var err error
	for {
		fd, err = unix.Open(path, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return nil, &os.PathError{Op: "stat", Path: path, Err: err}
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		unix.Close(fd)
		return nil, notRegular(path, uint32(st.Mode))
	}
	if err := unix.SetNonblock(fd, false); err != nil {
		unix.Close(fd)
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(fd), path), nil
}

// readRegular reads a small regular file whole, at most limit bytes
// (more is an error); anything else is ErrNotRegular.
func readRegular(path string, limit int64) ([]byte, error) {
	f, err := OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err == nil && int64(len(data)) > limit {
		err = fmt.Errorf("%s: over %d bytes", path, limit)
	}
	return data, err
}
