package main

import (
	"errors"
	"fmt"

	"github.com/recall-dev/recall/search/show"

	"github.com/recall-dev/recall/store/snapshot"

	"github.com/recall-dev/recall/store/manifest"

	"github.com/recall-dev/recall/indexer"
	"github.com/recall-dev/recall/internal/problem"
	"github.com/recall-dev/recall/render"
	"github.com/recall-dev/recall/store"
)

type showCmd struct {
	Session string `arg:"" name:"session" help:"Session id (a unique prefix is enough) or transcript path, optionally with :LINE: the evidence a search prints."`

	Context  int    `short:"C" default:"${default_show_context}" help:"Messages to show before and after the one asked for."`
	Full     bool   `help:"Print the whole session in order, subagent messages marked."`
	Query    string `placeholder:"WORDS" help:"Highlight the words of the search the session came from; without :LINE, show the messages around the first that matches them."`
	JSON     bool   `help:"Print one JSON object (docs/json-output.md)."`
	Format   string `default:"human" enum:"human,json,markdown" help:"Output format: ${enum}."`
	Color    string `default:"auto" enum:"auto,always,never" help:"Colour: ${enum} (auto: on a terminal, unless NO_COLOR is set)."`
	NoUpdate bool   `name:"no-update" help:"Read the index as it is; do not index new transcript lines first."`
}

// Help is shown under `recall show --help`.
func (c *showCmd) Help() string {
	return `Reads the session from the index, so it works after Claude Code has deleted
the transcript (it does after 30 days). Examples:
  recall show 3f2a9c1                          the start of the session
  recall show 3f2a9c1:120 -C 3                 three messages either side of line 120
  recall show ~/.claude/projects/-p/3f2a9c1….jsonl:120
                                               the same, from a search's evidence
  recall show 3f2a9c1 --query 'jwt auth'       around the first message about jwt or auth
  recall show 3f2a9c1 --full                   everything, in order
Exit status: 0 shown, 1 no such session, 2 error.`
}

func (c *showCmd) Run(g *Globals) error {
	cfg, err := g.config()
	if err != nil {
		return err
	}
	req, err := show.Params{Session: c.Session, Context: &c.Context, Full: c.Full, Query: c.Query}.Request()
	if err != nil {
		return err
	}
	if !c.NoUpdate {
		g.freshen(cfg)
	}
	sh, err := showSession(cfg, req)
	if err != nil {
		return err
	}
	for _, msg := range append(sh.Notes, problem.SayAll(sh.Warnings, problem.ShellWording)...) {
		fmt.Fprintln(g.env.stderr, "recall:", render.Safe(msg))
	}
	format := c.Format
	if c.JSON {
		format = "json"
	}
	if err := render.WriteShown(g.env.stdout, sh, format, wantColor(c.Color, g.env.stdout), problem.ShellWording); err != nil {
		return fmt.Errorf("write session: %w", err)
	}
	return nil
}

// showSession reads what req asks for from the committed index. A session
// no indexed one matches is a notFoundError (exit 1).
func showSession(cfg indexer.Config, req show.Request) (*show.Shown, error) {
	m, snap, err := openIndex(cfg)
	if err != nil {
		return nil, err
	}
	defer snap.Close()
	sh, err := show.Session(snap, m, req)
	if errors.Is(err, manifest.ErrNoSession) {
		return nil, notFoundError{fmt.Errorf("%w (`recall sessions` lists them)", err)}
	}
	return sh, err
}

// openIndex reads the committed manifest (transcripts, sessions) and
// opens a snapshot for the rows; no index is noIndex (exit 2).
func openIndex(cfg indexer.Config) (*manifest.Manifest, *snapshot.Snapshot, error) {
	m, err := store.Open(cfg.IndexDir).Manifest()
	if errors.Is(err, manifest.ErrNoIndex) {
		return nil, nil, noIndex(cfg, err)
	}
	if err != nil {
		return nil, nil, err
	}
	snap, err := store.Open(cfg.IndexDir).Snapshot()
	if err != nil {
		return nil, nil, err
	}
	return m, snap, nil
}
