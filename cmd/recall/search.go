package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"github.com/recall-dev/recall/indexer/watch"
	"github.com/recall-dev/recall/internal/problem"

	"github.com/recall-dev/recall/store/manifest"
	"github.com/recall-dev/recall/store/snapshot"

	"github.com/recall-dev/recall/indexer"
	"github.com/recall-dev/recall/lineage"
	"github.com/recall-dev/recall/render"
	"github.com/recall-dev/recall/search"
	"github.com/recall-dev/recall/store"
)

type searchCmd struct {
	Terms   []string `arg:"" optional:"" name:"term" help:"Words to look for; any of them may match (OR)."`
	Require []string `short:"r" placeholder:"WORDS" help:"Words that must all match (repeatable)."`
	Exclude []string `short:"x" placeholder:"WORDS" help:"Words that must not match (repeatable)."`

	Regex         bool   `short:"e" help:"Read terms as RE2 regular expressions."`
	CaseSensitive bool   `name:"case-sensitive" short:"s" help:"Match case exactly."`
	Word          bool   `short:"w" help:"Match whole words only."`
	Scope         string `default:"message" enum:"message,session" help:"Where --require/--exclude apply: each message, or whole sessions (${enum})."`

	Project []string `short:"p" placeholder:"PATH" help:"Only sessions of this project ('.' = the git root here; a path or a name fragment). Repeatable."`
	Since   string   `placeholder:"WHEN" help:"Only messages since a date (2026-01-31) or an age (30d, 2w, 12h)."`
	Until   string   `placeholder:"WHEN" help:"Only messages until a date or an age."`
	Type    []string `short:"t" enum:"user,assistant,tool,agent,title" placeholder:"TYPE" help:"Only these message types: user, assistant, tool, agent, title (a session's name; repeatable)."`
	Session []string `placeholder:"ID" help:"Only this session (id or prefix; repeatable)."`
	Agent   []string `placeholder:"NAME" help:"Only sessions of this coding agent: claude, codex, gemini, opencode, aider (repeatable)."`

	IncludeHeadless bool `name:"include-headless" help:"Also search headless runs (claude -p, the SDKs), which are indexed but left out unless --session names them."`

	JSON     bool   `help:"One JSON object per session per line (docs/json-output.md)."`
	Format   string `default:"human" enum:"human,json,markdown" help:"Output format: ${enum}."`
	List     bool   `short:"l" help:"Print matching session ids only."`
	Count    bool   `short:"c" help:"Print the number of matching sessions only."`
	Sessions int    `short:"n" default:"${default_sessions}" help:"Sessions to show (0: all)."`
	Messages int    `short:"m" default:"${default_messages}" help:"Messages to show per session (0: all)."`
	Width    int    `short:"W" aliases:"context" default:"${default_context}" help:"Snippet width in characters."`
	// ShowContext catches -C, which is show's context in messages: a
	// search has no messages around its hits to show, so it says where
	// the snippet width went rather than reading -C as characters.
	ShowContext *int   `name:"show-context" short:"C" hidden:"" help:"Refused: -C is recall show's context in messages; a search's snippet width is -W/--width."`
	Explain     bool   `help:"Show how each score was made."`
	Color       string `default:"auto" enum:"auto,always,never" help:"Colour: ${enum} (auto: on a terminal, unless NO_COLOR is set)."`

	NoUpdate       bool          `name:"no-update" help:"Search the index as it is; do not index new transcript lines first."`
	NoRecallCutoff bool          `name:"no-recall-cutoff" help:"Keep messages that echo an earlier recall."`
	RecallWindow   string        `name:"recall-window" default:"${default_recall_window}" placeholder:"DUR,N" help:"Window after a recall event whose echoes are dropped: a duration, a message count, or both (default ${default}; 0: only the recall itself)."`
	Now            string        `placeholder:"TIME" help:"Fix the clock for recency (reproducible output)."`
	HalfLife       time.Duration `name:"half-life" default:"${default_half_life}" help:"Recency half-life."`
	FullScan       bool          `name:"full-scan" help:"Read every row instead of ranking from the term index (same results, slower; for checking)."`
}

// Help is shown under `recall search --help`.
func (c *searchCmd) Help() string {
	return `Query syntax:
  recall jwt auth                 messages with jwt OR auth
  recall jwt -r implement         ...that also say implement (every --require must match)
  recall jwt -x test              ...and never say test (no --exclude may match)
  recall '"jwt auth"'             the exact phrase
  recall reset_windows            _ matches any one character ("reset windows", "reset-windows")
  recall -e 'mutex|dead.?lock'    RE2 regular expressions
  recall jwt -r implement -x test --scope session
                                  sessions that mention jwt and implement anywhere and test nowhere
Matching is case-insensitive substring (like rg -i) unless --case-sensitive or --word.
Natural-language questions work as queries: stop words are dropped from the OR words.
Exit status: 0 something matched, 1 nothing matched, 2 error.`
}

func (c *searchCmd) Run(g *Globals) error {
	if len(c.Terms) == 0 && len(c.Require) == 0 {
		return errors.New("usage: recall [flags] TERM... (recall search --help shows the query syntax)")
	}
	if c.ShowContext != nil {
		return errors.New("-C is recall show's context in messages; a search's snippet width is -W/--width")
	}
	cfg, err := g.config()
	if err != nil {
		return err
	}
	params := c.params(g, cfg)
	req, err := params.Request()
	if err != nil {
		return err
	}
	out, err := params.Output()
	if err != nil {
		return err
	}
	out.Format, out.Color, out.Explain = c.format(), wantColor(c.Color, g.env.stdout), c.Explain
	g.explainProjectDot(c.Project)
	if !c.NoUpdate {
		g.freshen(cfg)
	}
	delayFirstCollection()
	snap, err := openSnapshot(cfg)
	if err != nil {
		return err
	}
	defer snap.Close()
	res, err := search.Run(snap, req)
	if err != nil {
		return err
	}
	for _, w := range res.Stats.Warnings(problem.ShellWording) {
		fmt.Fprintln(g.env.stderr, "recall:", render.SafeText(w))
	}
	if g.Verbose {
		st := res.Stats
		how := "read every row"
		if st.TermIndex {
			how = "ranked from the term index"
		}
		fmt.Fprintf(g.env.stderr, "recall: %s: read %d of %d blocks, scanned %d rows, %d matched, %d dropped by the recall cutoff\n",
			how, st.BlocksRead, st.Blocks, st.RowsScanned, st.RowsMatched, st.CutoffDropped)
		if st.Fallback != nil {
			// The term index could have answered but could not: say why
			// once, since the search is slower until it is rebuilt.
			fmt.Fprintf(g.env.stderr, "recall: read every row: %s\n", sayCLI(st.Fallback))
		}
		if st.Unserved != "" {
			fmt.Fprintf(g.env.stderr, "recall: read every row: %s\n", render.SafeText(st.Unserved))
		}
	}
	if err := render.Write(g.env.stdout, res, out); err != nil {
		return fmt.Errorf("write results: %w", err)
	}
	if (out.Format == "human" || out.Format == "markdown") && !render.Complete(res, out) {
		best := fmt.Sprintf("the best %d sessions are", len(res.Sessions))
		if len(res.Sessions) == 1 {
			best = "the best session is"
		}
		fmt.Fprintf(g.env.stderr, "recall: %s shown; more may match (-n 0 shows all, -c counts them)\n", best)
	}
	if len(res.Sessions) == 0 {
		g.hintNoMatch(cfg, snap, params, req)
		return noMatchError{}
	}
	return nil
}

// openSnapshot opens the committed index to search (noIndex when there
// is none).
func openSnapshot(cfg indexer.Config) (*snapshot.Snapshot, error) {
	snap, err := store.Open(cfg.IndexDir).Snapshot()
	if errors.Is(err, manifest.ErrNoIndex) {
		return nil, noIndex(cfg, err)
	}
	return snap, err
}

// noIndex is the error of a command that found no index to read: exit 2,
// as it could not run. It says why there is none (the error opening it
// wraps) and which transcript folders gave nothing.
func noIndex(cfg indexer.Config, err error) error {
	why := fmt.Sprintf("no index to search in %s", cfg.IndexDir)
	if err != manifest.ErrNoIndex {
		why += ": " + err.Error() // why none could be made
	} else {
		why += " yet: `recall index` builds it"
	}
	for _, h := range render.SourceHints(cfg.Sources) {
		why += "; " + h
	}
	return errors.New(why)
}

// freshen indexes new transcript lines before the index is read, as
// every search, show, sessions and MCP call does (unless --no-update).
// It is the quick check (indexer.Options.Quick): only what Claude Code's
// signals and folder mtimes say can have changed, with a full sweep when
// the last is older than indexer.DefaultSweepEvery.
// A running `recall watch` keeps the index current within its debounce,
// so checking every transcript again would only cost time; another
// indexer holding the lock means reading the last committed index rather
// than waiting. Problems are reported and the caller goes on over what is
// already indexed.
func (g *Globals) freshen(cfg indexer.Config) {
	if watch.Running(cfg.IndexDir) {
		return
	}
	ui := newStderrUI(g.env.stderr, g.Verbose, false)
	sum, _, err := indexer.Update(ui.indexOptions(indexer.Options{Config: cfg, Quick: true}, ui.verboseWarn))
	ui.endProgress()
	if sum.Sweep != "" {
		ui.verboseWarn("checked every transcript: " + sum.Sweep)
	}
	if err != nil {
		ui.warn("index update failed, reading the index as it is: " + err.Error())
	}
}

// hintNoMatch says, in one line each, which filter matches no indexed
// session, or why the index holds none: a silent exit 1 would look like
// "no such words".
func (g *Globals) hintNoMatch(cfg indexer.Config, snap *snapshot.Snapshot, p search.Params, req search.Request) {
	m, err := store.Open(cfg.IndexDir).Manifest()
	if err != nil {
		return // the index changed or broke since: the search said its warnings
	}
	for _, h := range render.WhyNothing(m, snap, cfg.Sources, p, req, "`recall sessions`") {
		fmt.Fprintln(g.env.stderr, "recall:", render.Safe(h))
	}
}

// explainProjectDot says with -v what `--project .` stands for when the
// working directory is in no git repository: the directory itself.
func (g *Globals) explainProjectDot(projects []string) {
	if !g.Verbose || g.env.cwd == "" || !slices.Contains(projects, ".") {
		return
	}
	if root, ok := search.GitRoot(g.env.cwd); !ok {
		fmt.Fprintf(g.env.stderr, "recall: --project .: %s is in no git repository; using the directory itself\n", render.Safe(root))
	}
}

// params is the search the flags ask for; search.Params applies the
// defaults and checks shared with the eval and the MCP server.
func (c *searchCmd) params(g *Globals, cfg indexer.Config) search.Params {
	limit := c.Sessions
	if c.Count && limit > 0 {
		limit = 0 // --count reports how many matched: rank them all
	}
	halfLife := c.HalfLife
	return search.Params{
		Terms: c.Terms, Require: c.Require, Exclude: c.Exclude,
		Regex: c.Regex, CaseSensitive: c.CaseSensitive, Word: c.Word,
		Scope:    c.Scope,
		Projects: c.Project, Since: c.Since, Until: c.Until, Now: c.Now, Types: c.Type, Sessions: c.Session,
		Limit: &limit, Messages: &c.Messages, Context: &c.Width,
		HalfLife: &halfLife, RecallWindow: c.RecallWindow,
		NoRecallCutoff: c.NoRecallCutoff, FullScan: c.FullScan, Explain: c.Explain,
		IncludeHeadless: c.IncludeHeadless, Agents: c.Agent,
		Cwd: g.env.cwd, CurrentSession: cfg.CurrentSession,
		ExcludeSessions: lineage.RunningSessions(cfg.IndexDir, cfg.Sources, cfg.CurrentSession, g.env.cwd),
	}
}

// format is the output format the flags choose.
func (c *searchCmd) format() string {
	switch {
	case c.Count:
		return "count"
	case c.List:
		return "list"
	case c.JSON:
		return "json"
	}
	return c.Format
}

// wantColor reads --color: auto colours output on a terminal unless
// NO_COLOR is set.
func wantColor(mode string, stdout io.Writer) bool {
	switch mode {
	case "always":
		return true
	case "never":
		return false
	}
	return os.Getenv("NO_COLOR") == "" && isTerminal(stdout)
}
