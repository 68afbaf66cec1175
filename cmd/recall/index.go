package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/recall-dev/recall/indexer"
	"github.com/recall-dev/recall/render"
)

type indexCmd struct {
	IncludeHeadless bool  `name:"include-headless" hidden:"" help:"Accepted for older scripts: headless runs are always indexed now, and a search's --include-headless shows them."`
	Rebuild         bool  `help:"Start over from the transcripts that still exist."`
	Yes             bool  `short:"y" help:"With --rebuild: drop rows whose transcript is gone without asking."`
	Repair          bool  `help:"Check every part of the index; read the transcripts of damaged rows again (those still on disk), rebuild damaged derived files from the rows, and list what could not be recovered."`
	NoRedact        bool  `name:"no-redact" help:"Keep secrets (keys, tokens, passwords) in the rows this run adds; by default they are replaced by [REDACTED:kind] placeholders."`
	Sweep           bool  `help:"Stat every transcript. Without it only what Claude Code's signals (history, running sessions, folder changes, recently written files) point at is checked, and everything is swept when the last sweep is over 10 minutes old."`
	Quiet           bool  `short:"q" help:"Print nothing unless something goes wrong."`
	CheckpointBytes int64 `name:"checkpoint-bytes" hidden:"" help:"Commit after this much input (tests)."`
}

// headlessIndexNote answers an --include-headless given to an indexing
// command, from scripts written for versions that left headless runs out
// of the index.
const headlessIndexNote = "--include-headless is for searches now: headless runs (claude -p, the SDKs) are always indexed, and a search shows them with --include-headless"

func (c *indexCmd) Run(g *Globals) error {
	limitIndexRunMemory()
	cfg, err := g.config()
	if err != nil {
		return err
	}
	ui := newStderrUI(g.env.stderr, g.Verbose, c.Quiet)
	if c.IncludeHeadless {
		ui.notice(headlessIndexNote)
	}
	opts := ui.indexOptions(indexer.Options{
		Config:          cfg,
		NoRedact:        c.NoRedact,
		CheckpointBytes: c.CheckpointBytes,
		Repair:          c.Repair,
		Quick:           !c.Sweep,
	}, ui.warn)
	var sum indexer.Summary
	start := time.Now()
	if c.Rebuild {
		sum, err = indexer.Rebuild(opts, c.Yes)
	} else {
		sum, err = indexer.Run(opts)
	}
	ui.endProgress()
	if err != nil {
		return err
	}
	if sum.Elapsed == 0 {
		sum.Elapsed = time.Since(start) // a rebuild does not time itself
	}
	if g.Verbose && sum.Sweep != "" {
		fmt.Fprintln(g.env.stderr, "recall: checked every transcript:", render.Safe(sum.Sweep))
	}
	if !c.Quiet {
		fmt.Fprintln(g.env.stderr, indexer.FormatSummary(&sum))
	}
	if sum.Files == 0 {
		// Not an error (a new machine has no sessions yet), but most often
		// a wrong --source or CLAUDE_CONFIG_DIR: say where we looked.
		fmt.Fprintf(g.env.stderr, "recall: no transcripts found under %s; if Claude Code keeps them elsewhere, give the folder with --source DIR (or RECALL_SOURCE), or set CLAUDE_CONFIG_DIR to its configuration directory\n",
			strings.Join(cfg.SourceList(), ", "))
	}
	return nil
}
