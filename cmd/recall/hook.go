package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/recall-dev/recall/claude"
	"github.com/recall-dev/recall/indexer"
)

// hookCmd is what recall's Claude Code hooks run: it starts a detached
// incremental index and returns at once. It always exits 0, because a
// failing Stop hook can block Claude; problems go to <index dir>/hook.log.
type hookCmd struct{}

// hookStdinTimeout bounds the wait for the payload. Claude Code writes it
// at once; the bound only matters when stdin is an open, silent pipe.
const hookStdinTimeout = 2 * time.Second

func (c *hookCmd) Run(g *Globals) error {
	defer func() {
		// Even a bug must not fail the hook; say what happened and exit 0.
		if r := recover(); r != nil {
			fmt.Fprintln(g.env.stderr, "recall hook: internal error:", r)
		}
	}()
	cfg, err := g.config()
	if err != nil {
		// No index dir, so no log to write to.
		fmt.Fprintln(g.env.stderr, "recall hook:", err)
		return nil
	}
	newHook(cfg, g.env).Run()
	return nil
}

// newHook wires a hook to this process: its stdin, environment, clock and
// executable, and the real detached start.
func newHook(cfg indexer.Config, e env) claude.Hook {
	exe, _ := os.Executable() // empty on error; the hook logs that
	return claude.Hook{
		Stdin:        payloadReader(e.stdin),
		StdinTimeout: hookStdinTimeout,
		IndexDir:     cfg.IndexDir,
		Sources:      cfg.Sources,
		Executable:   exe,
		Environ:      os.Environ(),
		Now:          time.Now,
		Start:        claude.StartDetached,
		Stderr:       e.stderr,
		Hint:         hookHint(cfg),
		Stdout:       e.stdout,
	}
}

// payloadReader is what to read the hook payload from: a file (the real
// stdin) as claude.PayloadReader says, any other reader as it is.
func payloadReader(stdin io.Reader) io.Reader {
	if f, ok := stdin.(*os.File); ok {
		return claude.PayloadReader(f)
	}
	if stdin == nil {
		return strings.NewReader("")
	}
	return stdin
}
