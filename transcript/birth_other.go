//go:build !linux && !darwin && !freebsd && !netbsd

package transcript

// BirthNs is 0 where the platform keeps no creation time: transcripts
// new to a run are then read in path order.
func BirthNs(string) int64 { return 0 }
