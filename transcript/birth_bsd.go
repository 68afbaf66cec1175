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
