package main

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/recall-dev/recall/filter"
	"github.com/recall-dev/recall/indexer"
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
	Type    []string `short:"t" enum:"user,assistant,tool,agent" placeholder:"TYPE" help:"Only these message types: user, assistant, tool, agent (repeatable)."`
	Session []string `placeholder:"ID" help:"Only this session (id or prefix; repeatable)."`

	JSON     bool   `help:"One JSON object per session per line (docs/json-output.md)."`
	Format   string `default:"human" enum:"human,json,markdown" help:"Output format: ${enum}."`
	List     bool   `short:"l" help:"Print matching session ids only."`
	Count    bool   `short:"c" help:"Print the number of matching sessions only."`
	Sessions int    `short:"n" default:"10" help:"Sessions to show."`
	Messages int    `short:"m" default:"5" help:"Messages to show per session."`
	Context  int    `short:"C" default:"300" help:"Snippet width in characters."`
	Explain  bool   `help:"Show how each score was made."`
	Color    string `default:"auto" enum:"auto,always,never" help:"Colour: ${enum} (auto: on a terminal, unless NO_COLOR is set)."`

	NoUpdate       bool          `name:"no-update" help:"Search the index as it is; do not index new transcript lines first."`
	NoRecallCutoff bool          `name:"no-recall-cutoff" help:"Keep messages that echo an earlier recall."`
	RecallWindow   string        `name:"recall-window" default:"10m,5" placeholder:"DUR,N" help:"Window after a recall event whose echoes are dropped: a duration, a message count, or both."`
	Now            string        `placeholder:"TIME" help:"Fix the clock for recency (reproducible output)."`
	HalfLife       time.Duration `name:"half-life" default:"1440h" help:"Recency half-life."`
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
  recall jwt -r implement --scope session
                                  sessions that mention jwt and implement anywhere and test nowhere
Matching is case-insensitive substring (like rg -i) unless --case-sensitive or --word.
Natural-language questions work as queries: stop words are dropped from the OR words.
Exit status: 0 something matched, 1 nothing matched, 2 error.`
}

func (c *searchCmd) Run(g *Globals) error {
	if len(c.Terms) == 0 && len(c.Require) == 0 {
		return errors.New("usage: recall [flags] TERM... (recall search --help shows the query syntax)")
	}
	cfg, err := g.config()
	if err != nil {
		return err
	}
	req, err := c.request(cfg)
	if err != nil {
		return err
	}
	if !c.NoUpdate && !indexer.WatcherRunning(cfg.IndexDir) {
		// A running `recall watch` keeps the index current within its
		// debounce; checking every transcript again would only cost time.
		c.update(g, cfg)
	}
	snap, err := store.OpenSnapshot(cfg.IndexDir)
	if errors.Is(err, store.ErrNoIndex) {
		return noMatchError{}
	}
	if err != nil {
		return err
	}
	defer snap.Close()
	res, err := search.Run(snap, req)
	if err != nil {
		return err
	}
	if n := res.Stats.BadRows; n > 0 {
		fmt.Fprintf(os.Stderr, "recall: %d index rows could not be read and were skipped; `recall index --rebuild` rebuilds the index\n", n)
	}
	if g.Verbose {
		st := res.Stats
		how := "read every row"
		if st.TermIndex {
			how = "ranked from the term index"
		}
		fmt.Fprintf(os.Stderr, "recall: %s: read %d of %d blocks, scanned %d rows, %d matched, %d dropped by the recall cutoff\n",
			how, st.BlocksRead, st.Blocks, st.RowsScanned, st.RowsMatched, st.CutoffDropped)
	}
	if err := search.Write(os.Stdout, res, c.output()); err != nil {
		return fmt.Errorf("write results: %w", err)
	}
	if len(res.Sessions) == 0 {
		return noMatchError{}
	}
	return nil
}

// update indexes new transcript lines first. Problems are reported and the
// search goes on over what is already indexed.
func (c *searchCmd) update(g *Globals, cfg indexer.Config) {
	ui := newStderrUI(g.Verbose, false)
	_, _, err := indexer.Update(indexer.Options{Config: cfg, Warn: ui.verboseWarn, Progress: ui.progress})
	ui.endProgress()
	if err != nil {
		ui.warn("index update failed, searching the index as it is: " + err.Error())
	}
}

func (c *searchCmd) request(cfg indexer.Config) (search.Request, error) {
	now := time.Now()
	if c.Now != "" {
		t, err := search.ParseTime(c.Now, now)
		if err != nil {
			return search.Request{}, fmt.Errorf("--now: %w", err)
		}
		now = t
	}
	since, err := search.ParseTime(c.Since, now)
	if err != nil {
		return search.Request{}, fmt.Errorf("--since: %w", err)
	}
	until, err := search.ParseTime(c.Until, now)
	if err != nil {
		return search.Request{}, fmt.Errorf("--until: %w", err)
	}
	window, err := parseWindow(c.RecallWindow)
	if err != nil {
		return search.Request{}, err
	}
	cwd, _ := os.Getwd()
	projects := make([]string, len(c.Project))
	for i, p := range c.Project {
		projects[i] = search.ResolveProject(p, cwd)
	}
	return search.Request{
		Terms: c.Terms, Require: c.Require, Exclude: c.Exclude,
		Match:    filter.MatchOptions{Regex: c.Regex, CaseSensitive: c.CaseSensitive, Word: c.Word},
		Scope:    search.Scope(c.Scope),
		Projects: projects, Since: since, Until: until, Types: c.Type, Sessions: c.Session,
		CurrentSession: cfg.CurrentSession, CurrentProject: search.ProjectRoot(cwd),
		Now: now, HalfLife: c.HalfLife,
		Cutoff: !c.NoRecallCutoff, Window: window,
		Limit: c.limit(), FullScan: c.FullScan,
	}, nil
}

// limit is how many sessions need ranking: all of them for --count.
func (c *searchCmd) limit() int {
	if c.Count {
		return 0
	}
	return c.Sessions
}

func (c *searchCmd) output() search.Output {
	format := c.Format
	switch {
	case c.Count:
		format = "count"
	case c.List:
		format = "list"
	case c.JSON:
		format = "json"
	}
	return search.Output{Format: format, MaxSessions: c.Sessions, MaxMessages: c.Messages, Context: c.Context,
		Color: wantColor(c.Color), Explain: c.Explain}
}

func wantColor(mode string) bool {
	switch mode {
	case "always":
		return true
	case "never":
		return false
	}
	return os.Getenv("NO_COLOR") == "" && isTerminal(os.Stdout)
}

// parseWindow reads "10m,5", "10m" or "5".
func parseWindow(s string) (filter.Window, error) {
	var w filter.Window
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		if n, err := strconv.Atoi(part); err == nil && n >= 0 {
			w.Messages = n
			continue
		}
		d, err := time.ParseDuration(part)
		if err != nil || d < 0 {
			return w, fmt.Errorf("--recall-window %q: want a duration (10m), a message count (5) or both (10m,5)", s)
		}
		w.Duration = d
	}
	return w, nil
}
