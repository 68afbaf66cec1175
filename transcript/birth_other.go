//go:build !linux && !darwin && !freebsd && !netbsd

package transcript

import "golang.org/x/sys/unix"

// BirthNs is 0 where the platform keeps no creation time: transcripts
// new to a run are then read in path order.
func BirthNs(string) int64 { return 0 }

// statAt stats name in the directory dirfd, following a link.
func statAt(dirfd int, name string) (entryStat, error) {
	var st unix.Stat_t
	if err := unix.Fstatat(dirfd, name, &st, 0); err != nil {
		return entryStat{}, err
	}
	return entryStat{mode: uint32(st.Mode), stat: fileStatOf(&st)}, nil
}
