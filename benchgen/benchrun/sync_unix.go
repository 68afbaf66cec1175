//go:build unix

package benchrun

import "syscall"

// syncAll writes every file system's dirty pages back (sync(2)), so that
// a run does not pay for the writes of the one before it.
func syncAll() error {
	syscall.Sync()
	return nil
}
