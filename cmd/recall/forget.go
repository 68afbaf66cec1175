package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/recall-dev/recall/indexer"
	"github.com/recall-dev/recall/render"
	"github.com/recall-dev/recall/search"
)

type forgetCmd struct {
	Session string `placeholder:"ID" help:"Forget this session (a unique id prefix is enough)."`
	Project string `placeholder:"PATH" help:"Forget every session of this project and those inside it ('.' = the git root here; '/' = every project), or of every indexed project whose path holds this fragment: what --project searches."`
	Before  string `placeholder:"WHEN" help:"Forget messages written before a date (2026-01-31) or an age (90d)."`
	DryRun  bool   `name:"dry-run" help:"Print what would be removed; change nothing."`
	Undo    bool   `help:"Take back the forget given by the same --session, --project and --before (or --all): the next index run reads its transcripts again while they exist."`
	All     bool   `help:"With --undo: take back every forget."`
}

// Help is shown under `recall forget --help`.
func (c *forgetCmd) Help() string {
	return `Removes rows from every file of the index (rows, term index, keys, events,
manifest), by compacting it: nothing hides them, they are gone. Every option
given must match. --project selects as a search's --project does. The forget
is for good: it is kept as a rule, in hashes only, that index runs, --rebuild,
--repair and the recovery of a lost manifest honour, so a session or project
forgotten whole is not read again from its transcripts, and a forgotten time
range stays forgotten when its transcripts are read again. recall stats says
how much is forgotten. --undo takes a forget back. The transcripts themselves
are never touched. Exit status: 0 removed, 1 nothing matched, 2 error.`
}

func (c *forgetCmd) Run(g *Globals) error {
	cfg, err := g.config()
	if err != nil {
		return err
	}
	if c.All && !c.Undo {
		return errors.New("--all: only with --undo")
	}
	project := ""
	if c.Project != "" {
		// A path, "." or a fragment, resolved exactly as a search's
		// --project is (search.ResolveProject, filter.ProjectMatches).
		project = search.ResolveProject(c.Project, g.env.cwd)
	}
	var before time.Time
	if c.Before != "" {
		if before, err = search.ParseTime(c.Before, time.Now()); err != nil {
			return fmt.Errorf("--before: %w", err)
		}
	}
	ui := newStderrUI(g.env.stderr, g.Verbose, false)
	opts := ui.indexOptions(indexer.Options{Config: cfg}, ui.warn)
	var rep fmt.Stringer
	if c.Undo {
		rep, err = indexer.Undo(opts, indexer.UndoSelector{Session: c.Session, Project: project, Before: before, All: c.All}, c.DryRun)
	} else {
		rep, err = indexer.Forget(opts, indexer.ForgetSelector{Session: c.Session, Project: project, Before: before}, c.DryRun)
	}
	if errors.Is(err, indexer.ErrNothingToForget) {
		what := "forget: nothing matched"
		if c.Undo {
			what = "forget --undo: no forget matched"
		}
		if err.Error() != indexer.ErrNothingToForget.Error() {
			what += " (" + render.SafeText(err.Error()) + ")"
		}
		fmt.Fprintln(g.env.stderr, "recall:", what)
		return noMatchError{}
	}
	if err != nil {
		return err
	}
	fmt.Fprintln(g.env.stdout, render.SafeText(rep.String()))
	return nil
}
