package transcript

import "golang.org/x/sys/unix"

// BirthNs is when the file at path was created, in Unix nanoseconds, 0
// when the file system does not say (statx without STATX_BTIME).
func BirthNs(path string) int64 {
	var st unix.Statx_t
	if unix.Statx(unix.AT_FDCWD, path, unix.AT_SYMLINK_NOFOLLOW, unix.STATX_BTIME, &st) != nil || st.Mask&unix.STATX_BTIME == 0 {
		return 0
	}
	return st.Btime.Sec*1e9 + int64(st.Btime.Nsec)
}
