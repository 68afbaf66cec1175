package claude

import (
	"os"
	"os/exec"
	"syscall"

	"github.com/recall-dev/recall/internal/errpath"
)

// Command is a process for a hook to start and leave running.
type Command struct {
	Path string
	// Args follow the program name: Args[0] is the subcommand.
	Args []string
	Env  []string
	Dir  string
	// Output receives the child's stdout and stderr; nil discards them.
	Output *os.File
}

// Starter starts c without waiting for it and returns its process id.
// Tests replace it to see the exact argv and environment.
type Starter func(c Command) (pid int, err error)

// StartDetached starts c in a session of its own, with stdin from
// /dev/null and its output in c.Output, and does not wait for it. The new
// session keeps it out of Claude Code's process group, so it survives
// Claude Code cancelling or killing the hook (it does so for async hooks
// at the end of `claude -p`), and no pipe of the hook's is left open in
// it for Claude Code to wait on.
func StartDetached(c Command) (int, error) {
	devNull, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return 0, err // a *fs.PathError: it names the file
	}
	defer devNull.Close()
	out := c.Output
	if out == nil {
		out = devNull
	}
	cmd := &exec.Cmd{
		Path:        c.Path,
		Args:        append([]string{c.Path}, c.Args...),
		Env:         c.Env,
		Dir:         c.Dir,
		Stdin:       devNull,
		Stdout:      out,
		Stderr:      out,
		SysProcAttr: &syscall.SysProcAttr{Setsid: true},
	}
	if err := cmd.Start(); err != nil {
		return 0, errpath.Wrap("start", c.Path, err) // fork/exec names it already
	}
	pid := cmd.Process.Pid
	// Release, not Wait: the child outlives this process, and init (or
	// the nearest subreaper) reaps it.
	_ = cmd.Process.Release()
	return pid, nil
}
