package transcript

import (
	"encoding/binary"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// eachEntry calls fn for every entry of dir with the open directory's
// descriptor, so fn can stat relative to it. It reads the directory with
// getdents64 directly: os.Open would also register the descriptor with
// the runtime's poller (an fcntl and a failing epoll_ctl each), which on
// the no-change check, thousands of session folders long, cost a quarter
// of the system calls.
func eachEntry(dir string, fn func(dirfd int, name string, typ entryType)) error {
	fd, err := openDir(dir)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	buf := make([]byte, 16<<10)
	for {
		n, err := getdents(fd, buf)
		if err != nil {
			return fmt.Errorf("read %s: %w", dir, err)
		}
		if n <= 0 {
			return nil
		}
		eachDirent(buf[:n], func(name string, dtype uint8) {
			fn(fd, name, direntType(fd, name, dtype))
		})
	}
}

func openDir(dir string) (int, error) {
	for {
		fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return -1, &os.PathError{Op: "open", Path: dir, Err: err}
		}
		return fd, nil
	}
}

func getdents(fd int, buf []byte) (int, error) {
	for {
		n, err := unix.Getdents(fd, buf)
		if err == unix.EINTR {
			continue
		}
		return n, err
	}
}

// eachDirent walks linux_dirent64 records: inode (8 bytes), offset (8),
// record length (2), type (1), then the NUL-terminated name.
func eachDirent(buf []byte, fn func(name string, dtype uint8)) {
	for len(buf) >= 19 {
		reclen := int(binary.NativeEndian.Uint16(buf[16:18]))
		if reclen < 19 || reclen > len(buf) {
			return
		}
		rec := buf[:reclen]
		buf = buf[reclen:]
		name := rec[19:]
		for i, c := range name {
			if c == 0 {
				name = name[:i]
				break
			}
		}
		if s := string(name); s != "." && s != ".." {
			fn(s, rec[18])
		}
	}
}

// direntType maps a dirent type, asking the file system when it does not
// say (DT_UNKNOWN). A link is entryLink: the caller follows it or not
// (links.go).
func direntType(dirfd int, name string, dtype uint8) entryType {
	switch dtype {
	case unix.DT_REG:
		return entryFile
	case unix.DT_DIR:
		return entryDir
	case unix.DT_FIFO, unix.DT_SOCK, unix.DT_CHR, unix.DT_BLK:
		return entrySpecial
	case unix.DT_LNK:
		return entryLink
	case unix.DT_UNKNOWN:
		var st unix.Stat_t
		if unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
			return entryOther
		}
		switch st.Mode & unix.S_IFMT {
		case unix.S_IFREG:
			return entryFile
		case unix.S_IFDIR:
			return entryDir
		case unix.S_IFIFO, unix.S_IFSOCK, unix.S_IFCHR, unix.S_IFBLK:
			return entrySpecial
		case unix.S_IFLNK:
			return entryLink
		}
	}
	return entryOther
}
