// Package mcpserver serves recall to Claude Code as an MCP server over
// stdio, on the official Go SDK: tools search, show and sessions, so that
// Claude recalls past sessions without shelling out. Every request is
// built by package search (search.Params, show.Params), the one
// place its defaults are defined, and every call opens its own snapshot
// of the index, so calls are served concurrently. The server writes only
// protocol on its output; diagnostics go to the logger (stderr).
//
// No input ends the server: every line that is not a message gets a
// JSON-RPC error and the next is read (transport.go). At most
// Config.MaxCalls calls run at once, the others wait their turn (at most
// MaxPending in all; more are answered busy), each under
// Config.CallTimeout, and every call is cancelled when the input ends or
// Serve's context does (SIGTERM, SIGINT).
package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/recall-dev/recall/search/show"

	"github.com/recall-dev/recall/store/snapshot"

	"github.com/recall-dev/recall/store/manifest"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recall-dev/recall/internal/parallel"
	"github.com/recall-dev/recall/internal/problem"
	"github.com/recall-dev/recall/render"
	"github.com/recall-dev/recall/search"
	"github.com/recall-dev/recall/store"
)

// Config is what the server needs of recall's configuration.
type Config struct {
	IndexDir string
	// CurrentSession is the session the server runs in
	// (CLAUDE_CODE_SESSION_ID): searches never show it, as on the CLI.
	CurrentSession string
	// Current, when set, is asked on every call for the session running
	// now and its lineage (the sessions it copied messages from), which
	// no tool shows: after /clear the server's environment still names
	// the session it started in (claude.SessionTracker). It overrides
	// CurrentSession.
	Current func() (session string, lineage []string)
	// Cwd is the project Claude Code runs in (CLAUDE_PROJECT_DIR, else the
	// server's working directory): what project "." means, and the
	// project ranked first among equals.
	Cwd string
	// Freshen brings the index up to date before a call reads it: the
	// CLI's own update (skipped while `recall watch` runs, never waiting
	// for another indexer). Nil: the index is read as it is.
	Freshen func()
	// Version is recall's version, reported at initialisation.
	Version string
	// Log receives diagnostics; nil discards them.
	Log *slog.Logger

	// MaxCalls is how many calls run at once (0: DefaultMaxCalls); the
	// others wait their turn.
	MaxCalls int
	// CallTimeout bounds a call, its wait for a turn included (0:
	// DefaultCallTimeout): past it the call is answered with an error.
	CallTimeout time.Duration
	// FreshenWait is how long a call waits for the index update before
	// it reads the index as it is, with a warning (0: DefaultFreshenWait).
	FreshenWait time.Duration
}

// The defaults of Config's bounds.
const (
	DefaultMaxCalls    = 2
	DefaultCallTimeout = time.Minute
	DefaultFreshenWait = 20 * time.Second
)

// stopGrace is how long Serve waits, once the input has ended or its
// context is done, for the calls in progress to be answered.
const stopGrace = 2 * time.Second

// Serve runs the server over in and out until the input ends (the client
// disconnected) or ctx is done (a signal): either cancels the calls in
// progress, which are answered if they end within stopGrace, and Serve
// returns nil; a call's work still running then is abandoned with the
// process. The SDK's log of the session's end is left out then.
func Serve(ctx context.Context, cfg Config, in io.Reader, out io.Writer) error {
	conn := newLineConn(in, out)
	var stopping atomic.Bool
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	sdkLog := slog.New(quietWhen{cfg.Log.Handler(), &stopping})
	done := make(chan error, 1)
	go func() { done <- newServer(cfg, sdkLog).Run(context.Background(), &lineTransport{conn}) }()
	select {
	case err := <-done:
		return err
	case <-conn.ended:
	case <-ctx.Done():
	}
	stopping.Store(true)
	conn.stopReading()
	select {
	case <-done:
	case <-time.After(stopGrace):
	}
	return nil
}

// quietWhen is a log handler that drops every record once stopping is
// set: the SDK logs the end of a session it did not expect (a cancelled
// context, a write to a client that left) as an error.
type quietWhen struct {
	slog.Handler
	stopping *atomic.Bool
}

func (q quietWhen) Enabled(ctx context.Context, l slog.Level) bool {
	return !q.stopping.Load() && q.Handler.Enabled(ctx, l)
}

func (q quietWhen) WithAttrs(attrs []slog.Attr) slog.Handler {
	return quietWhen{q.Handler.WithAttrs(attrs), q.stopping}
}

func (q quietWhen) WithGroup(name string) slog.Handler {
	return quietWhen{q.Handler.WithGroup(name), q.stopping}
}

// New builds the server and its tools.
func New(cfg Config) *mcp.Server {
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	return newServer(cfg, cfg.Log)
}

// newServer builds the server, whose SDK logs to sdkLog.
func newServer(cfg Config, sdkLog *slog.Logger) *mcp.Server {
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.MaxCalls <= 0 {
		cfg.MaxCalls = DefaultMaxCalls
	}
	if cfg.CallTimeout <= 0 {
		cfg.CallTimeout = DefaultCallTimeout
	}
	if cfg.FreshenWait <= 0 {
		cfg.FreshenWait = DefaultFreshenWait
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "recall", Title: "recall: past Claude Code sessions", Version: cfg.Version},
		&mcp.ServerOptions{Instructions: instructions, Logger: sdkLog, Capabilities: &mcp.ServerCapabilities{}})
	h := handlers{cfg: cfg, fresh: &freshener{update: cfg.Freshen, log: cfg.Log}, slots: make(chan struct{}, cfg.MaxCalls)}
	readOnly := &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: new(false)}
	mcp.AddTool(s, &mcp.Tool{Name: "search", Title: "Search past sessions", Description: searchDescription, Annotations: readOnly}, h.search)
	mcp.AddTool(s, &mcp.Tool{Name: "show", Title: "Read a past session", Description: showDescription, Annotations: readOnly}, h.show)
	mcp.AddTool(s, &mcp.Tool{Name: "sessions", Title: "List past sessions", Description: sessionsDescription, Annotations: readOnly}, h.sessions)
	return s
}

type handlers struct {
	cfg   Config
	fresh *freshener
	slots chan struct{} // one per call running
}

// current is the session running now and its lineage, asked per call.
func (h handlers) current() (string, []string) {
	if h.cfg.Current != nil {
		return h.cfg.Current()
	}
	return h.cfg.CurrentSession, nil
}

// errStaleIndex is the warning of a call that read the index while its
// update was still running.
const errStaleIndex = "the index update was still running, so this answer is from the index as it was; a call made in a while sees the newest sessions"

// turn runs work for one call under the call's deadline: it waits for
// one of the server's slots, then for work, and answers with an error if
// the deadline passes or the call is cancelled first (by the client, at
// the end of the input, on a signal). work itself keeps its slot until it
// returns, so no more than MaxCalls calls' work ever runs at once; a
// panic in it is the call's error.
func turn[T any](ctx context.Context, h handlers, tool string, work func(context.Context) (T, error)) (T, error) {
	ctx, cancel := context.WithTimeout(ctx, h.cfg.CallTimeout)
	defer cancel()
	var zero T
	select {
	case h.slots <- struct{}{}:
	case <-ctx.Done():
		return zero, h.ended(ctx, tool, "waiting for its turn")
	}
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	var v T
	parallel.Go(func() (err error) {
		v, err = work(ctx)
		return err
	}, func(err error) {
		if p := (*parallel.PanicError)(nil); errors.As(err, &p) {
			// The agent gets the panic's value; the stack goes to the log.
			h.cfg.Log.Error("panic", "tool", tool, "panic", p.Value, "stack", string(p.Stack))
			err = fmt.Errorf("recall failed: %v", p.Value)
		}
		done <- result{v, err}
		<-h.slots
	})
	select {
	case r := <-done:
		return r.v, agentError(r.err)
	case <-ctx.Done():
		return zero, h.ended(ctx, tool, "running")
	}
}

// ended is the error of a call whose context ended while it was doing
// what.
func (h handlers) ended(ctx context.Context, tool, doing string) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("recall's %s did not finish within %v (it was %s): try again, or narrow the search (project, since, fewer words)", tool, h.cfg.CallTimeout, doing)
	}
	return fmt.Errorf("recall's %s was cancelled (%s)", tool, doing)
}

// freshener runs the index update for the server's calls. Calls that
// arrive together share one update rather than race for the index lock,
// in which case a losing call would read the index as it was (none at
// all, on a first call); an update that started after a call arrived
// serves that call. The update runs on its own: a call waits for it only
// as long as its context lets it.
type freshener struct {
	update    func()
	log       *slog.Logger
	mu        sync.Mutex
	lastStart time.Time     // when the last finished update started
	running   chan struct{} // closed when the running update ends; nil when none runs
}

func (f *freshener) run(ctx context.Context) bool { return f.runFor(ctx, time.Now()) }

// runFor updates the index for a call that arrived at the given time,
// unless an update that started after it has finished meanwhile, and
// reports whether one has: false when ctx ended first (the update goes
// on, for the calls after).
func (f *freshener) runFor(ctx context.Context, arrived time.Time) bool {
	if f.update == nil {
		return true
	}
	for {
		f.mu.Lock()
		if f.lastStart.After(arrived) {
			f.mu.Unlock()
			return true
		}
		if f.running == nil {
			start, done := time.Now(), make(chan struct{})
			f.running = done
			parallel.Go(func() error { f.update(); return nil }, func(err error) {
				if err != nil && f.log != nil { // a panic: the index stays as it was, and the calls read it
					f.log.Error("index update failed", "error", err)
				}
				f.mu.Lock()
				f.lastStart, f.running = start, nil
				f.mu.Unlock()
				close(done)
			})
		}
		running := f.running
		f.mu.Unlock()
		select {
		case <-running:
		case <-ctx.Done():
			return false
		}
	}
}

// open brings the index up to date, waiting for that at most
// FreshenWait, and opens the committed manifest and a snapshot of its
// own for one call. stale is set when it read the index as it was.
func (h handlers) open(ctx context.Context) (m *manifest.Manifest, snap *snapshot.Snapshot, stale bool, err error) {
	wait, cancel := context.WithTimeout(ctx, h.cfg.FreshenWait)
	stale = !h.fresh.run(wait)
	cancel()
	m, err = store.Open(h.cfg.IndexDir).Manifest()
	if err != nil {
		return nil, nil, stale, indexError(h.cfg.IndexDir, err, stale)
	}
	snap, err = store.Open(h.cfg.IndexDir).Snapshot()
	if err != nil {
		return nil, nil, stale, indexError(h.cfg.IndexDir, err, stale)
	}
	return m, snap, stale, nil
}

func indexError(dir string, err error, updating bool) error {
	switch {
	case errors.Is(err, manifest.ErrNoIndex) && updating:
		return fmt.Errorf("recall is building its index in %s for the first time: call again in a minute", dir)
	case errors.Is(err, manifest.ErrNoIndex):
		return fmt.Errorf("recall has no index in %s yet: the user should run `recall index`", dir)
	}
	return err
}

// withStale adds the stale-index warning to warnings when stale.
func withStale(warnings []string, stale bool) []string {
	if stale {
		return append(warnings, errStaleIndex)
	}
	return warnings
}

// SearchInput is the search tool's arguments.
type SearchInput struct {
	Query   string `json:"query" jsonschema:"words to look for, any of which may match (OR); \"double quotes\" make a phrase, _ matches any one character"`
	Require string `json:"require,omitempty" jsonschema:"words that must all match, space-separated"`
	Exclude string `json:"exclude,omitempty" jsonschema:"words that must not match, space-separated"`
	Scope   string `json:"scope,omitempty" jsonschema:"where require and exclude apply: message (default: each message) or session (whole sessions)"`
	Project string `json:"project,omitempty" jsonschema:"only sessions of this project: '.' for the current one, a path, or a fragment of the project path"`
	Since   string `json:"since,omitempty" jsonschema:"only messages since a date (2026-01-31) or an age (30d, 2w, 12h)"`
	Until   string `json:"until,omitempty" jsonschema:"only messages until a date or an age"`
	Limit   *Count `json:"limit,omitempty" jsonschema:"sessions to return (default 5)"`

	IncludeHeadless bool `json:"include_headless,omitempty" jsonschema:"also search headless runs (claude -p, SDK scripts), which are left out by default"`
}

// Count is a count argument (limit, context): a whole number. One past
// what an int holds reads as the largest int, which package search
// refuses with a message naming its cap, rather than failing as a number
// the SDK's decoder cannot hold.
type Count int

// UnmarshalJSON reads a whole number, saturating at the int range.
func (c *Count) UnmarshalJSON(data []byte) error {
	if n, err := strconv.ParseInt(string(data), 10, 0); err == nil {
		*c = Count(n)
		return nil
	}
	f, err := strconv.ParseFloat(string(data), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) || f != math.Trunc(f) || math.IsNaN(f) {
		return fmt.Errorf("want a whole number, not %s", clip(data))
	}
	switch {
	case f >= math.MaxInt:
		*c = math.MaxInt
	case f <= math.MinInt:
		*c = math.MinInt
	default:
		*c = Count(f)
	}
	return nil
}

// countPtr is c as an *int, nil when c is.
func countPtr(c *Count) *int {
	if c == nil {
		return nil
	}
	n := int(*c)
	return &n
}

// countOr is *c, or def when c is nil.
func countOr(c *Count, def int) int {
	if c == nil {
		return def
	}
	return int(*c)
}

// SearchOutput is the search tool's structured result: the sessions as
// `recall --json` prints them, without each message's whole text (the
// snippet and its evidence are there; the show tool reads the rest).
type SearchOutput struct {
	Query    string    `json:"query" jsonschema:"the query as recall read it"`
	Sessions []Session `json:"sessions" jsonschema:"best first"`
	Warnings []string  `json:"warnings,omitempty"`
}

// Session is one search result: the fields of a --json session
// (docs/json-output.md) with lighter messages.
type Session struct {
	render.JSONSessionHead
	Messages []Message `json:"messages"`
}

// Message is one matched message: its session, time, evidence and snippet.
type Message struct {
	SessionID string  `json:"session_id"`
	Type      string  `json:"type"`
	Timestamp string  `json:"timestamp"`
	Source    string  `json:"source"`
	Line      int     `json:"line"`
	Evidence  string  `json:"evidence" jsonschema:"transcript:line, for the show tool"`
	Snippet   string  `json:"snippet"`
	Score     float64 `json:"score"`
}

// searched is a search tool call's answer.
type searched struct {
	res *mcp.CallToolResult
	out SearchOutput
}

func (h handlers) search(ctx context.Context, _ *mcp.CallToolRequest, in SearchInput) (*mcp.CallToolResult, SearchOutput, error) {
	r, err := turn(ctx, h, "search", func(ctx context.Context) (searched, error) {
		res, out, err := h.searchNow(ctx, in)
		return searched{res, out}, err
	})
	return r.res, r.out, err
}

func (h handlers) searchNow(ctx context.Context, in SearchInput) (*mcp.CallToolResult, SearchOutput, error) {
	limit, messages := countOr(in.Limit, search.AgentSessions), search.AgentMessages
	params := search.Params{
		Terms: nonEmpty(in.Query), Require: nonEmpty(in.Require), Exclude: nonEmpty(in.Exclude), Scope: in.Scope,
		Projects: nonEmpty(in.Project), Since: in.Since, Until: in.Until,
		Limit: &limit, Messages: &messages, Cwd: h.cfg.Cwd,
		IncludeHeadless: in.IncludeHeadless,
	}
	params.CurrentSession, params.ExcludeSessions = h.current()
	req, err := params.Request()
	if err != nil {
		return nil, SearchOutput{}, err
	}
	out, err := params.Output()
	if err != nil {
		return nil, SearchOutput{}, err
	}
	m, snap, stale, err := h.open(ctx)
	if err != nil {
		return nil, SearchOutput{}, err
	}
	defer snap.Close()
	res, err := search.Run(snap, req)
	if err != nil {
		return nil, SearchOutput{}, err
	}
	result := SearchOutput{Query: search.QueryTitle(res.Query), Sessions: toSessions(render.JSON(res, out)), Warnings: withStale(res.Stats.Warnings(agentWording), stale)}
	var text strings.Builder
	if len(res.Sessions) == 0 {
		fmt.Fprintf(&text, "No past session matched %s.", result.Query)
		for _, hint := range render.NoMatchHints(m, params, req) {
			text.WriteString(" " + hint + ".")
		}
	} else {
		out.Format = "markdown"
		if err := render.Write(&text, res, out); err != nil {
			return nil, SearchOutput{}, err
		}
	}
	h.cfg.Log.Info("search", "query", result.Query, "sessions", len(result.Sessions))
	return textResult(text.String(), result.Warnings), result, nil
}

func toSessions(js []render.JSONSession) []Session {
	out := make([]Session, len(js))
	for i, s := range js {
		out[i] = Session{JSONSessionHead: s.JSONSessionHead, Messages: make([]Message, len(s.Messages))}
		for j, m := range s.Messages {
			out[i].Messages[j] = Message{SessionID: s.SessionID, Type: m.Type, Timestamp: m.Timestamp, Source: m.Source, Line: m.Line,
				Evidence: fmt.Sprintf("%s:%d", m.Source, m.Line), Snippet: m.Snippet, Score: m.Score}
		}
	}
	return out
}

// ShowInput is the show tool's arguments.
type ShowInput struct {
	Session string `json:"session" jsonschema:"a session id (a unique prefix is enough) or a message's evidence (transcript:line) from search"`
	Line    int    `json:"line,omitempty" jsonschema:"transcript line to centre on (the :LINE of the evidence)"`
	Context *Count `json:"context,omitempty" jsonschema:"messages before and after (default 5)"`
	Full    bool   `json:"full,omitempty" jsonschema:"the whole session, in order (can be long)"`
	Query   string `json:"query,omitempty" jsonschema:"the words searched for: highlighted, and without a line the first message matching them is centred"`
}

// shown is a show tool call's answer.
type shown struct {
	res *mcp.CallToolResult
	out render.JSONShown
}

func (h handlers) show(ctx context.Context, _ *mcp.CallToolRequest, in ShowInput) (*mcp.CallToolResult, render.JSONShown, error) {
	r, err := turn(ctx, h, "show", func(ctx context.Context) (shown, error) {
		res, out, err := h.showNow(ctx, in)
		return shown{res, out}, err
	})
	return r.res, r.out, err
}

func (h handlers) showNow(ctx context.Context, in ShowInput) (*mcp.CallToolResult, render.JSONShown, error) {
	req, err := show.Params{Session: in.Session, Line: in.Line, Context: countPtr(in.Context), Full: in.Full, Query: in.Query}.Request()
	if err != nil {
		return nil, render.JSONShown{}, err
	}
	m, snap, stale, err := h.open(ctx)
	if err != nil {
		return nil, render.JSONShown{}, err
	}
	defer snap.Close()
	sh, err := show.Session(snap, m, req)
	if err != nil {
		return nil, render.JSONShown{}, err
	}
	var text strings.Builder
	if err := render.WriteShown(&text, sh, "markdown", false, agentWording); err != nil {
		return nil, render.JSONShown{}, err
	}
	h.cfg.Log.Info("show", "session", sh.Session, "messages", len(sh.Messages))
	return textResult(text.String(), withStale(problem.SayAll(sh.Warnings, agentWording), stale)), render.ShownJSON(sh, agentWording), nil
}

// SessionsInput is the sessions tool's arguments.
type SessionsInput struct {
	Project string `json:"project,omitempty" jsonschema:"only sessions of this project: '.' for the current one, a path, or a fragment of the project path"`
	Since   string `json:"since,omitempty" jsonschema:"only sessions with messages since a date (2026-01-31) or an age (30d, 2w, 12h)"`
	Until   string `json:"until,omitempty" jsonschema:"only sessions with messages until a date or an age"`
	Limit   *Count `json:"limit,omitempty" jsonschema:"sessions to list (default 20; 0 lists all)"`

	IncludeHeadless bool `json:"include_headless,omitempty" jsonschema:"also list headless runs (claude -p, SDK scripts), which are left out by default"`
}

// SessionsOutput is the sessions tool's structured result.
type SessionsOutput struct {
	Sessions []render.JSONSessionInfo `json:"sessions" jsonschema:"newest first"`
	Total    int                      `json:"total" jsonschema:"sessions that matched the filters, listed or not"`
}

// listed is a sessions tool call's answer.
type listed struct {
	res *mcp.CallToolResult
	out SessionsOutput
}

func (h handlers) sessions(ctx context.Context, _ *mcp.CallToolRequest, in SessionsInput) (*mcp.CallToolResult, SessionsOutput, error) {
	r, err := turn(ctx, h, "sessions", func(ctx context.Context) (listed, error) {
		res, out, err := h.sessionsNow(ctx, in)
		return listed{res, out}, err
	})
	return r.res, r.out, err
}

func (h handlers) sessionsNow(ctx context.Context, in SessionsInput) (*mcp.CallToolResult, SessionsOutput, error) {
	limit := countOr(in.Limit, search.DefaultSessionList)
	params := search.Params{Projects: nonEmpty(in.Project), Since: in.Since, Until: in.Until, Limit: &limit, Cwd: h.cfg.Cwd,
		IncludeHeadless: in.IncludeHeadless}
	req, err := params.Request()
	if err != nil {
		return nil, SessionsOutput{}, err
	}
	m, snap, stale, err := h.open(ctx)
	if err != nil {
		return nil, SessionsOutput{}, err
	}
	defer snap.Close()
	list, total, err := search.ListSessions(snap, m, req)
	if err != nil {
		return nil, SessionsOutput{}, err
	}
	var text strings.Builder
	if len(list) == 0 {
		text.WriteString("No indexed session matched.")
		for _, hint := range render.NoMatchHints(m, params, req) {
			text.WriteString(" " + hint + ".")
		}
	} else if err := render.WriteSessions(&text, list, "markdown", false); err != nil {
		return nil, SessionsOutput{}, err
	}
	return textResult(text.String(), withStale(nil, stale)), SessionsOutput{Sessions: render.SessionsJSON(list), Total: total}, nil
}

// textResult is a result whose text content is what the model reads: the
// markdown block, then any warnings.
func textResult(text string, warnings []string) *mcp.CallToolResult {
	for _, w := range warnings {
		text += "\n\nWarning: " + w
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}

// nonEmpty is s as a one-value list, none when blank: one value may hold
// several words, as one shell argument may.
func nonEmpty(s string) []string {
	if strings.TrimSpace(s) == "" {
		return nil
	}
	return []string{s}
}
