//go:build unix

package benchrun

import (
	"os"
	"runtime"
	"syscall"
)

// maxRSSBytes reads the peak resident set size from the child's rusage.
// Linux reports ru_maxrss in kilobytes, macOS in bytes.
func maxRSSBytes(ps *os.ProcessState) int64 {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok || ru == nil {
		return 0
	}
	if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		return int64(ru.Maxrss)
	}
	return int64(ru.Maxrss) * 1024
}

// exitStatus is the shell's view of how a process ended: its exit code,
// or 128+signal when a signal killed it.
func exitStatus(ps *os.ProcessState) int {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}

// reportPipe returns fd as a file if it is the pipe the harness passed,
// and nil otherwise (someone ran `measure` by hand): writing to or
// closing an unrelated descriptor 3 would damage it. The pipe is made
// close-on-exec so the measured command does not inherit it; a lingering
// grandchild holding it open would make the harness wait forever.
func reportPipe(fd int) *os.File {
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFIFO {
		return nil
	}
	syscall.CloseOnExec(fd)
	return os.NewFile(uintptr(fd), "measure-report")
}
