package transcript

import "golang.org/x/sys/unix"

// BirthNs is when the file at path was created, in Unix nanoseconds, 0
// when the file system does not say (statx without STATX_BTIME).
func BirthNs(path string) int64 {
	var st unix.Statx_t
	if unix.Statx(unix.AT_FDCWD, path, unix.AT_SYMLINK_NOFOLLOW, unix.STATX_BTIME, &st) != nil {
		return 0
	}
	return bornOf(&st)
}

// statAt stats name in the directory dirfd, following a link, with its
// creation time: one statx where a stat and a later BirthNs took two
// (and a walk of the whole path) for every transcript a first index
// finds.
func statAt(dirfd int, name string) (entryStat, error) {
	var st unix.Statx_t
	const want = unix.STATX_TYPE | unix.STATX_MODE | unix.STATX_SIZE | unix.STATX_MTIME | unix.STATX_INO | unix.STATX_BTIME
	if err := unix.Statx(dirfd, name, 0, want, &st); err != nil {
		return entryStat{}, err
	}
	return entryStat{
		mode: uint32(st.Mode),
		// The device as stat(2) gives it (the kernel's encoding, which
		// Mkdev is for every device number it makes), so that an
		// index's recorded stats still match.
		stat: FileStat{Size: int64(st.Size), MtimeNs: st.Mtime.Sec*1e9 + int64(st.Mtime.Nsec),
			Dev: unix.Mkdev(st.Dev_major, st.Dev_minor), Ino: st.Ino},
		bornNs: bornOf(&st),
	}, nil
}

func bornOf(st *unix.Statx_t) int64 {
	if st.Mask&unix.STATX_BTIME == 0 {
		return 0
	}
	return st.Btime.Sec*1e9 + int64(st.Btime.Nsec)
}
