package main

import (
	"fmt"

	"github.com/recall-dev/recall/render"
	"github.com/recall-dev/recall/search"
)

type sessionsCmd struct {
	Project  []string `short:"p" placeholder:"PATH" help:"Only sessions of this project ('.' = the git root here; a path or a name fragment). Repeatable."`
	Since    string   `placeholder:"WHEN" help:"Only sessions with messages since a date (2026-01-31) or an age (30d, 2w, 12h)."`
	Until    string   `placeholder:"WHEN" help:"Only sessions with messages until a date or an age."`
	Agent    []string `placeholder:"NAME" help:"Only sessions of this coding agent: claude, codex, gemini, opencode, aider (repeatable)."`
	Limit    int      `short:"n" default:"${default_session_list}" help:"Sessions to list (0: all)."`
	JSON     bool     `help:"One JSON object per session per line (docs/json-output.md)."`
	Format   string   `default:"human" enum:"human,json,markdown" help:"Output format: ${enum}."`
	Color    string   `default:"auto" enum:"auto,always,never" help:"Colour: ${enum} (auto: on a terminal, unless NO_COLOR is set)."`
	NoUpdate bool     `name:"no-update" help:"Read the index as it is; do not index new transcript lines first."`

	IncludeHeadless bool `name:"include-headless" help:"Also list headless runs (claude -p, the SDKs), which are indexed but left out unless asked for."`
}

func (c *sessionsCmd) Run(g *Globals) error {
	cfg, err := g.config()
	if err != nil {
		return err
	}
	params := search.Params{Projects: c.Project, Since: c.Since, Until: c.Until, Limit: &c.Limit, Cwd: g.env.cwd,
		IncludeHeadless: c.IncludeHeadless, Agents: c.Agent}
	req, err := params.Request()
	if err != nil {
		return err
	}
	g.explainProjectDot(c.Project)
	if !c.NoUpdate {
		g.freshen(cfg)
	}
	m, snap, err := openIndex(cfg)
	if err != nil {
		return err
	}
	defer snap.Close()
	list, total, err := search.ListSessions(snap, m, req)
	if err != nil {
		return err
	}
	format := c.Format
	if c.JSON {
		format = "json"
	}
	if err := render.WriteSessions(g.env.stdout, list, format, wantColor(c.Color, g.env.stdout)); err != nil {
		return fmt.Errorf("write sessions: %w", err)
	}
	if len(list) == 0 {
		for _, h := range render.WhyNothing(m, snap, cfg.Sources, params, req, "`recall sessions`") {
			fmt.Fprintln(g.env.stderr, "recall:", render.Safe(h))
		}
		return noMatchError{}
	}
	if g.Verbose && total > len(list) {
		fmt.Fprintf(g.env.stderr, "recall: listed %d of %d sessions (-n 0 lists all)\n", len(list), total)
	}
	return nil
}
