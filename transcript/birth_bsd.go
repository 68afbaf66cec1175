//go:build darwin || freebsd || netbsd

package transcript

import "golang.org/x/sys/unix"

// BirthNs is when the file at path was created, in Unix nanoseconds, 0
// when it cannot be read.
func BirthNs(path string) int64 {
	var st unix.Stat_t
	if unix.Lstat(path, &st) != nil {
		return 0
	}
	return st.Btim.Nano()
}

// statAt stats name in the directory dirfd, following a link, with its
// creation time.
func statAt(dirfd int, name string) (entryStat, error) {
	var st unix.Stat_t
	if err := unix.Fstatat(dirfd, name, &st, 0); err != nil {
		return entryStat{}, err
	}
	return entryStat{mode: uint32(st.Mode), stat: fileStatOf(&st), bornNs: st.Btim.Nano()}, nil
}
