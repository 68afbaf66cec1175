package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/recall-dev/recall/indexer"
	"github.com/recall-dev/recall/search"
)

type forgetCmd struct {
	Session string `placeholder:"ID" help:"Forget this session (a unique id prefix is enough)."`
	Project string `placeholder:"PATH" help:"Forget every session of this project ('.' = the git root here) and those inside it."`
	Before  string `placeholder:"WHEN" help:"Forget messages written before a date (2026-01-31) or an age (90d)."`
	DryRun  bool   `name:"dry-run" help:"Print what would be removed; change nothing."`
}

// Help is shown under `recall forget --help`.
func (c *forgetCmd) Help() string {
	return `Removes rows from every file of the index (rows, term index, keys, events),
by compacting it: nothing hides them, they are gone. Every option given must
match. A session or project forgotten whole is not read again from its
transcripts while they stay on disk. The transcripts themselves are never
touched. Exit status: 0 removed, 1 nothing matched, 2 error.`
}

func (c *forgetCmd) Run(g *Globals) error {
	cfg, err := g.config()
	if err != nil {
		return err
	}
	sel := indexer.ForgetSelector{Session: c.Session}
	if c.Project != "" {
		sel.Project = search.ResolveProject(c.Project, g.env.cwd)
		if !filepath.IsAbs(sel.Project) {
			return fmt.Errorf("--project %q: forget takes a project path, not a name fragment", c.Project)
		}
	}
	if c.Before != "" {
		if sel.Before, err = search.ParseTime(c.Before, time.Now()); err != nil {
			return fmt.Errorf("--before: %w", err)
		}
	}
	ui := newStderrUI(g.env.stderr, g.Verbose, false)
	rep, err := indexer.Forget(ui.indexOptions(indexer.Options{Config: cfg}, ui.warn), sel, c.DryRun)
	if errors.Is(err, indexer.ErrNothingToForget) {
		fmt.Fprintln(g.env.stderr, "recall: forget: nothing matched")
		return noMatchError{}
	}
	if err != nil {
		return err
	}
	fmt.Fprintln(g.env.stdout, rep.String())
	return nil
}
