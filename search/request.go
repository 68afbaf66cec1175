// Package search is recall's one search entry point: the CLI and the MCP
// server both call Run. It reads the committed index, applies the query and
// filters, the windowed recall cutoff, and ranks sessions.
package search

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/recall-dev/recall/filter"
	"github.com/recall-dev/recall/query"
	"github.com/recall-dev/recall/rank"
	"github.com/recall-dev/recall/record"
)

// Scope says where --require and --exclude apply.
type Scope string

// The scopes.
const (
	ScopeMessage Scope = "message" // each message on its own, like the classic pipeline
	ScopeSession Scope = "session" // whole sessions: required words anywhere, excluded words nowhere
)

// Request is one search.
type Request struct {
	Terms   []string // positional words, OR'ed
	Require []string
	Exclude []string
	Match   query.MatchOptions
	Scope   Scope

	Projects       []string  // absolute paths (the project or a folder above it) or name fragments
	Since, Until   time.Time // zero: unbounded
	Types          []string  // user, assistant, tool, agent, title; empty: all
	Sessions       []string  // session ids or unique prefixes
	CurrentSession string    // never shown
	// ExcludeSessions are never shown either: the sessions the running
	// one shares copied messages with (its lineage, package lineage).
	ExcludeSessions []string
	CurrentProject  string // ranked first among equals
	// IncludeHeadless searches the rows of headless runs (`claude -p`,
	// the SDKs) too; without it they are left out, unless Sessions names
	// the sessions to search.
	IncludeHeadless bool
	// Agents, if any, are the coding agents whose sessions are searched
	// (record.Agents names; --agent); empty: all.
	Agents []string

	Now      time.Time
	HalfLife time.Duration

	// Cutoff drops recall events and, within Window after each, the
	// messages that echo them. A zero Window drops only the events.
	Cutoff bool
	Window filter.Window

	// Limit is how many sessions will be shown; 0 ranks them all (for
	// --count, which reports how many matched).
	Limit int

	// Explain asks for the notes of every message's factors, which only
	// --explain prints (rank.Options.NoNotes); scores are the same
	// without.
	Explain bool

	// FullScan reads every row instead of ranking from the term index;
	// the results are the same (tests compare them), only slower.
	FullScan bool

	// keepBlocks is how many decoded blocks the accelerated search keeps
	// for later sessions (0: maxCachedBlocks); tests make it small to
	// check that dropping them changes nothing.
	keepBlocks int
	// lateEvents makes the accelerated search ask for each session's
	// recall events as it reads it (snapshot.Snapshot.SessionEvents) instead
	// of reading those of the best-bound sessions ahead; tests set it to
	// check that both give the same.
	lateEvents bool
	// readBudget is how many block reads the accelerated search may make
	// before reading every block once instead (0: readBudgetOf); tests
	// make it small to check the switch.
	readBudget int
}

// The defaults of a search, defined here once: the CLI's flags take them
// through kong variables, and the eval and the MCP server through Params.
const (
	DefaultSessions = 10                   // sessions ranked and shown (-n)
	DefaultMessages = 5                    // messages shown per session (-m)
	DefaultContext  = 300                  // snippet width in characters (-C)
	DefaultHalfLife = rank.DefaultHalfLife // recency half-life (--half-life)

	// An agent's search (the MCP tool) shows fewer sessions, so that one
	// call does not flood its context window, and as many messages as a
	// person's: the message that answers is not always among a session's
	// first three (a longer message in the same words, the question asked
	// again), and three snippets more cost about a thousand tokens.
	AgentSessions = 5
	AgentMessages = DefaultMessages
)

// The largest counts a search takes. They are flag values (and the MCP
// tools' limit and context), not typed text, so a value over one is
// refused with a message that names the cap, before anything is sized by
// it: every count has a form that means "all" (0, or --full), and a count
// of billions is a slip that would otherwise size buffers by it.
const (
	MaxSessions       = 100_000 // -n/--sessions, sessions -n, the MCP limit (0: all)
	MaxMessages       = 100_000 // -m/--messages (0: all)
	MaxContext        = 1 << 20 // -W/--width, snippet width in characters: wider than any message the index keeps (256 KiB)
	MaxShowContext    = 100_000 // show -C, the MCP show context (--full: the whole session)
	MaxWindowMessages = 100_000 // the message count of --recall-window
)

// DefaultRecallWindow is the recall cutoff's window (--recall-window) as
// ParseWindow reads it: filter.DefaultWindow.
var DefaultRecallWindow = FormatWindow(filter.DefaultWindow())

// Params is a search as a caller states it, before parsing and defaults:
// the CLI fills it from its flags, the eval from a query line and the MCP
// server from a tool call. Request turns it into a Request, so every
// caller gets the same parsing, checks and defaults.
type Params struct {
	Terms, Require, Exclude    []string
	Regex, CaseSensitive, Word bool
	Scope                      string // "message" (also "") or "session"

	Projects     []string // --project values: ".", a path or a name fragment
	Since, Until string   // ParseTime's forms; "" unbounded
	Now          string   // the clock for recency, ParseTime's forms; "" the real clock
	Types        []string // user, assistant, tool, agent, title; none: all
	Sessions     []string // session ids or prefixes
	Agents       []string // --agent values: record.Agents names; none: all

	// Limit is how many sessions to rank and show: nil DefaultSessions,
	// 0 all of them.
	Limit *int
	// Messages is how many messages to show per session: nil
	// DefaultMessages, 0 all of them.
	Messages *int
	// Context is the snippet width in characters: nil DefaultContext.
	Context *int
	// HalfLife is the recency half-life: nil DefaultHalfLife (0 is also
	// rank's default).
	HalfLife *time.Duration
	// RecallWindow is ParseWindow's form: "" DefaultRecallWindow, "0"
	// drops the recall events themselves and nothing after them.
	RecallWindow    string
	NoRecallCutoff  bool
	FullScan        bool
	IncludeHeadless bool // rows of headless runs too (Request.IncludeHeadless)
	Explain         bool // the factors' notes are printed (Request.Explain)

	// Cwd is the caller's working directory: what --project . and
	// relative paths mean, and the project ranked first among equals.
	// "": none.
	Cwd            string
	CurrentSession string // never shown
	// ExcludeSessions are never shown: the running session's lineage.
	ExcludeSessions []string
}

// Request checks p and turns it into a Request, defaults applied.
func (p Params) Request() (Request, error) {
	now := time.Now()
	if p.Now != "" {
		t, err := ParseTime(p.Now, now)
		if err != nil {
			return Request{}, fmt.Errorf("--now: %w", err)
		}
		now = t
	}
	since, err := ParseTime(p.Since, now)
	if err != nil {
		return Request{}, fmt.Errorf("--since: %w", err)
	}
	until, err := ParseTime(p.Until, now)
	if err != nil {
		return Request{}, fmt.Errorf("--until: %w", err)
	}
	if !since.IsZero() && !until.IsZero() && until.Before(since) {
		return Request{}, fmt.Errorf("--until %s is before --since %s: nothing can match", p.Until, p.Since)
	}
	windowArg := p.RecallWindow
	if windowArg == "" {
		windowArg = DefaultRecallWindow
	}
	window, err := ParseWindow(windowArg)
	if err != nil {
		return Request{}, err
	}
	halfLife := DefaultHalfLife
	if p.HalfLife != nil {
		if *p.HalfLife < 0 {
			return Request{}, fmt.Errorf("--half-life %v: must not be negative", *p.HalfLife)
		}
		halfLife = *p.HalfLife
	}
	limit, err := count(p.Limit, DefaultSessions, MaxSessions, "-n/--sessions")
	if err != nil {
		return Request{}, err
	}
	scope := Scope(p.Scope)
	switch scope {
	case "":
		scope = ScopeMessage
	case ScopeMessage, ScopeSession:
	default:
		return Request{}, fmt.Errorf("--scope %q: want %s or %s", p.Scope, ScopeMessage, ScopeSession)
	}
	for _, t := range p.Types {
		if !slices.Contains(MessageTypes, t) {
			return Request{}, fmt.Errorf("--type %q: want one of %s", t, strings.Join(MessageTypes, ", "))
		}
	}
	agents, err := AgentNames(p.Agents)
	if err != nil {
		return Request{}, err
	}
	projects := make([]string, len(p.Projects))
	for i, arg := range p.Projects {
		if arg == "." && p.Cwd == "" {
			return Request{}, errors.New("--project .: no working directory to take the project from")
		}
		projects[i] = ResolveProject(arg, p.Cwd)
	}
	req := Request{
		Terms: p.Terms, Require: p.Require, Exclude: p.Exclude,
		Match:    query.MatchOptions{Regex: p.Regex, CaseSensitive: p.CaseSensitive, Word: p.Word},
		Scope:    scope,
		Projects: projects, Since: since, Until: until, Types: p.Types, Sessions: p.Sessions,
		CurrentSession: p.CurrentSession, ExcludeSessions: p.ExcludeSessions,
		Now: now, HalfLife: halfLife,
		Cutoff: !p.NoRecallCutoff, Window: window,
		Limit: limit, FullScan: p.FullScan, Explain: p.Explain,
		IncludeHeadless: p.IncludeHeadless, Agents: agents,
	}
	if p.Cwd != "" {
		req.CurrentProject = ProjectRoot(p.Cwd)
	}
	return req, nil
}

// AgentNames checks --agent values: each an agent recall reads, in any
// case, "claude-code" taken for Claude Code's name. An unknown one is
// refused with the names there are: it is a flag's value, and a typo
// would otherwise search nothing and say no match.
func AgentNames(given []string) ([]string, error) {
	var out []string
	for _, a := range given {
		name := strings.ToLower(strings.TrimSpace(a))
		if name == "claude-code" {
			name = record.AgentClaude
		}
		if !record.IsAgent(name) {
			return nil, fmt.Errorf("--agent %q: want one of %s", a, strings.Join(record.Agents(), ", "))
		}
		out = append(out, name)
	}
	return out, nil
}

// excluded is the set of sessions never shown: the current one and its
// lineage; nil when there are none.
func (r *Request) excluded() map[string]bool {
	if r.CurrentSession == "" && len(r.ExcludeSessions) == 0 {
		return nil
	}
	set := make(map[string]bool, 1+len(r.ExcludeSessions))
	if r.CurrentSession != "" {
		set[r.CurrentSession] = true
	}
	for _, id := range r.ExcludeSessions {
		if id != "" {
			set[id] = true
		}
	}
	return set
}

// excludesHeadless reports whether the rows of headless runs are left
// out: unless asked for, or a --session names what to search.
func (r *Request) excludesHeadless() bool { return !r.IncludeHeadless && len(r.Sessions) == 0 }

// Output is how much of the result to print: MaxSessions, MaxMessages
// and Context, defaults applied. The caller sets the format, colour and
// --explain.
func (p Params) Output() (Output, error) {
	sessions, err := count(p.Limit, DefaultSessions, MaxSessions, "-n/--sessions")
	if err != nil {
		return Output{}, err
	}
	messages, err := count(p.Messages, DefaultMessages, MaxMessages, "-m/--messages")
	if err != nil {
		return Output{}, err
	}
	width := DefaultContext
	if p.Context != nil {
		width = *p.Context
	}
	if width <= 0 {
		return Output{}, fmt.Errorf("-W/--width %d: the snippet width must be at least 1 character", width)
	}
	if width > MaxContext {
		return Output{}, fmt.Errorf("-W/--width %d: the snippet width is at most %d characters (wider than any message recall keeps)", width, MaxContext)
	}
	return Output{MaxSessions: sessions, Ranked: sessions, MaxMessages: messages, Context: width}, nil
}

// count is *n, or def when n is nil; negative counts and counts over
// max are refused (0, all, is the way to ask for more than max).
func count(n *int, def, max int, name string) (int, error) {
	if n == nil {
		return def, nil
	}
	if *n < 0 {
		return 0, fmt.Errorf("%s %d: must not be negative (0 means all)", name, *n)
	}
	if *n > max {
		return 0, fmt.Errorf("%s %d: at most %d (0 means all)", name, *n, max)
	}
	return *n, nil
}

// MessageTypes are the values --type takes.
var MessageTypes = []string{"user", "assistant", "tool", "agent", "title"}

// ParseWindow reads a --recall-window value: a duration ("10m"), a
// message count ("5") or both ("10m,5"). What is not given is zero, so
// "0" is the zero window: only the recall event itself is dropped.
func ParseWindow(s string) (filter.Window, error) {
	var w filter.Window
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		if n, err := strconv.Atoi(part); err == nil && n >= 0 {
			if n > MaxWindowMessages {
				return w, fmt.Errorf("--recall-window %q: at most %d messages", s, MaxWindowMessages)
			}
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

// FormatWindow writes w as ParseWindow reads it ("10m,5").
func FormatWindow(w filter.Window) string {
	return FormatDuration(w.Duration) + "," + strconv.Itoa(w.Messages)
}

// FormatDuration writes d without zero trailing units: "10m" for 10m0s,
// "1440h" for 1440h0m0s.
func FormatDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// ParseTime reads a --since/--until value: a duration back from now
// ("30d", "2w", "12h", "90m") or a date ("2026-01-31", RFC 3339).
func ParseTime(s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, nil
	}
	if d, ok := parseAge(s); ok {
		return now.Add(-d), nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04", "2006-01-02 15:04", "2006-01-02"} {
		if t, err := time.ParseInLocation(layout, s, time.Local); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("cannot read time %q: use a date (2026-01-31) or an age (30d, 2w, 12h)", s)
}

// parseAge reads "30d", "2w", "12h", "90m", "1y".
func parseAge(s string) (time.Duration, bool) {
	if len(s) < 2 {
		return 0, false
	}
	n, err := strconv.ParseFloat(s[:len(s)-1], 64)
	if err != nil || n < 0 {
		return 0, false
	}
	unit := map[byte]time.Duration{'m': time.Minute, 'h': time.Hour, 'd': 24 * time.Hour, 'w': 7 * 24 * time.Hour, 'y': 365 * 24 * time.Hour}[s[len(s)-1]]
	if unit == 0 {
		return 0, false
	}
	return time.Duration(n * float64(unit)), true
}

// ProjectRoot is the git root above dir, else dir itself: what "the
// current project" and `--project .` mean.
func ProjectRoot(dir string) string {
	root, _ := GitRoot(dir)
	return root
}

// GitRoot is the git root above dir and true, else dir itself (made
// absolute) and false.
func GitRoot(dir string) (string, bool) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return dir, false
	}
	for d := abs; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			return d, true
		}
		if filepath.Dir(d) == d {
			return abs, false
		}
	}
}

// ResolveProject turns a --project value into what sessions are matched
// against: "." is the current project; an existing path is made absolute;
// anything else is a fragment of the project path. Relative paths are
// read from cwd (the process's directory when cwd is "").
func ResolveProject(arg, cwd string) string {
	if arg == "." {
		return ProjectRoot(cwd)
	}
	path := arg
	if !filepath.IsAbs(path) && cwd != "" {
		path = filepath.Join(cwd, path)
	}
	if info, err := os.Stat(path); err == nil && info.IsDir() {
		if abs, err := filepath.Abs(path); err == nil {
			return abs
		}
	}
	return arg
}

// projectMatches reports whether a session's project path satisfies one of
// the --project values: equal, inside it, or (for a value that is not an
// absolute path) containing it. `recall forget` selects with the same
// function (filter.ProjectMatches).
func projectMatches(project string, wanted []string) bool {
	return filter.ProjectMatches(project, wanted)
}
