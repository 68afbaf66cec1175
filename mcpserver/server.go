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
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/recall-dev/recall/rank"
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
	// Sources are the transcript folders the index is read from: a
	// search that finds nothing in an empty index says which of them
	// gave nothing.
	Sources []string
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
	mcp.AddTool(s, &mcp.Tool{Name: "search", Title: "Search past sessions", Description: searchDescription, Annotations: readOnly,
		InputSchema: inputSchema[SearchInput]()}, h.search)
	mcp.AddTool(s, &mcp.Tool{Name: "show", Title: "Read a past session", Description: showDescription, Annotations: readOnly,
		InputSchema: inputSchema[ShowInput]()}, h.show)
	mcp.AddTool(s, &mcp.Tool{Name: "sessions", Title: "List past sessions", Description: sessionsDescription, Annotations: readOnly,
		InputSchema: inputSchema[SessionsInput]()}, h.sessions)
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
		return r.v, agentError(inParameters(r.err))
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
		return nil, nil, stale, indexError(h.cfg, err, stale)
	}
	snap, err = store.Open(h.cfg.IndexDir).Snapshot()
	if err != nil {
		return nil, nil, stale, indexError(h.cfg, err, stale)
	}
	return m, snap, stale, nil
}

func indexError(cfg Config, err error, updating bool) error {
	switch {
	case errors.Is(err, manifest.ErrNoIndex) && updating:
		return fmt.Errorf("recall is building its index in %s for the first time: call again in a minute", cfg.IndexDir)
	case errors.Is(err, manifest.ErrNoIndex):
		why := fmt.Sprintf("recall has no index in %s yet: the user should run `recall index`", cfg.IndexDir)
		if err != manifest.ErrNoIndex {
			why = fmt.Sprintf("recall has no index in %s: %v", cfg.IndexDir, err)
		}
		for _, h := range render.SourceHints(cfg.Sources) {
			why += "; " + h
		}
		return errors.New(why)
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
	Scope   string `json:"scope,omitempty" jsonschema:"where require and exclude apply: message (the default: each message) or session (whole sessions)"`
	Project string `json:"project,omitempty" jsonschema:"only sessions of this project: '.' for the current one, a path, or a fragment of the project path"`
	Since   string `json:"since,omitempty" jsonschema:"only messages since a date (2026-01-31) or an age (30d, 2w, 12h)"`
	Until   string `json:"until,omitempty" jsonschema:"only messages until a date or an age"`
	Limit   *Count `json:"limit,omitempty" jsonschema:"sessions to return (default 5; 0: as many as max_tokens holds)"`
	Offset  *Count `json:"offset,omitempty" jsonschema:"best sessions to skip: a previous result's next_offset, for the next page"`
	// MaxTokens bounds the result; see budget.go.
	MaxTokens *Count `json:"max_tokens,omitempty" jsonschema:"size bound of the result in tokens (default 8000, at most 16000): sessions past it are left for the next page"`
	// CountAll ranks every match, as `recall -c` does, so total is set.
	CountAll bool `json:"count,omitempty" jsonschema:"also count every matching session (total): ranks them all, which takes longer for common words"`

	IncludeHeadless bool   `json:"include_headless,omitempty" jsonschema:"also search headless runs (claude -p, SDK scripts), which are left out by default"`
	Agent           string `json:"agent,omitempty" jsonschema:"only sessions of these coding agents, space-separated: claude, codex, gemini, opencode, aider (default: all)"`
}

// Count is a count argument (limit, context): a whole number. One past
// what an int holds reads as the largest int, which package search
// refuses with a message naming its cap, rather than failing as a number
// the SDK's decoder cannot hold.
type Count int

// UnmarshalJSON reads a whole number, saturating at the int range, from
// a JSON number or a string of one.
func (c *Count) UnmarshalJSON(data []byte) error {
	if unquoted, err := strconv.Unquote(string(data)); err == nil && len(data) > 0 && data[0] == '"' {
		data = []byte(strings.TrimSpace(unquoted))
	}
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

// Marker marks a structured result as recall's own output
// (filter.JSONOutputKey): pasted back into a conversation, or kept in a
// transcript as the JSON the model read, it is never indexed again.
type Marker struct {
	RecallOutput bool `json:"recall_mcp_result" jsonschema:"always true: marks recall's own output, which recall does not index again"`
}

// SearchOutput is the search tool's structured result: the sessions as
// `recall --json` prints them, without each message's whole text (the
// snippet and its evidence are there; the show tool reads the rest).
type SearchOutput struct {
	Marker
	Query    string    `json:"query" jsonschema:"the query as recall read it"`
	Sessions []Session `json:"sessions" jsonschema:"best first"`
	// Offset and NextOffset page through the ranking: NextOffset is set
	// when sessions are left for another call.
	Offset     int `json:"offset" jsonschema:"best sessions skipped before the first shown"`
	NextOffset int `json:"next_offset,omitempty" jsonschema:"set when more sessions are left: pass it as offset for the next page"`
	// Total is known when the ranking reached every matching session.
	Total    *int     `json:"total,omitempty" jsonschema:"how many sessions matched, when known (absent when more may match than were ranked)"`
	Notes    []string `json:"notes,omitempty" jsonschema:"what the result left out or why nothing matched, and what to try"`
	Warnings []string `json:"warnings,omitempty"`
}

// Session is one search result: the fields of a --json session
// (docs/json-output.md) with lighter messages.
type Session struct {
	render.JSONSessionHead
	// SimilarLeftOut counts the similar sessions past the first
	// maxSimilar, left out of Similar (and SimilarWhy) to keep the
	// result small.
	SimilarLeftOut int       `json:"similar_left_out,omitempty"`
	Messages       []Message `json:"messages"`
}

// maxSimilar is how many collapsed near-duplicates a search result
// lists per session.
const maxSimilar = 10

// minSnippet is the narrowest snippet a small budget gets, in characters.
const minSnippet = 80

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
	if err := nonNegative(in.Limit, "limit"); err != nil {
		return nil, SearchOutput{}, err
	}
	if err := nonNegative(in.Offset, "offset"); err != nil {
		return nil, SearchOutput{}, err
	}
	limit, offset, messages := countOr(in.Limit, search.AgentSessions), countOr(in.Offset, 0), search.AgentMessages
	b := budgetOf(in.MaxTokens, defaultSearchTokens)
	ranked := pageEnd(offset, limit, 1) // one past the page says whether another follows
	if in.CountAll && limit <= search.MaxSessions {
		ranked = 0 // every match ranked: total is known
	}
	params := search.Params{
		Terms: nonEmpty(in.Query), Require: nonEmpty(in.Require), Exclude: nonEmpty(in.Exclude), Scope: in.Scope,
		Projects: nonEmpty(in.Project), Since: in.Since, Until: in.Until,
		Limit: &ranked, Messages: &messages, Cwd: h.cfg.Cwd,
		IncludeHeadless: in.IncludeHeadless, Agents: agentList(in.Agent),
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
	title := search.QueryTitle(res.Query)
	warnings := withStale(res.Stats.Warnings(agentWording), stale)
	var notes []string
	if b.note != "" {
		notes = append(notes, b.note)
	}
	onPage := max(len(res.Sessions)-offset, 0)
	if limit > 0 {
		onPage = min(onPage, limit)
	}
	switch {
	case len(res.Sessions) == 0:
		notes = append(notes, fmt.Sprintf("No past session matched %s.", title))
		for _, hint := range render.WhyNothing(m, snap, h.cfg.Sources, params, req, "the sessions tool") {
			notes = append(notes, hint+".")
		}
	case onPage == 0:
		notes = append(notes, fmt.Sprintf("No sessions after offset %d: %d matched.", offset, len(res.Sessions)))
	}
	out.Format, out.Offset = "markdown", offset
	page := func(k int) (string, SearchOutput, error) {
		o := out
		o.MaxSessions = k
		result := SearchOutput{Marker: Marker{RecallOutput: true}, Query: title, Sessions: []Session{}, Offset: offset, Notes: notes, Warnings: warnings}
		if ranked == 0 || len(res.Sessions) < ranked {
			total := len(res.Sessions)
			result.Total = &total
		}
		if k == 0 {
			return textOf("", notes, warnings), result, nil
		}
		result.Sessions = toSessions(render.JSON(res, o))
		var text strings.Builder
		if err := render.Write(&text, res, o); err != nil {
			return "", result, err
		}
		return textOf(text.String(), notes, warnings), result, nil
	}
	var renderErr error
	fits := func(k int) bool {
		text, result, err := page(k)
		if err != nil {
			renderErr = err
			return false
		}
		return b.fits(text, result)
	}
	// One session always fits: with fewer messages, then narrower
	// snippets, when the budget is small.
	for onPage > 0 && out.MaxMessages > 1 && !fits(1) {
		out.MaxMessages--
	}
	for onPage > 0 && out.Context > minSnippet && !fits(1) {
		out.Context = max(out.Context/2, minSnippet)
	}
	if out.MaxMessages < messages || out.Context < search.DefaultContext {
		notes = append(notes, fmt.Sprintf("To fit max_tokens (%d), each session shows %d messages with snippets of %d characters.", b.bytes/bytesPerToken, out.MaxMessages, out.Context))
	}
	k := fitCount(onPage, fits)
	if renderErr != nil {
		return nil, SearchOutput{}, renderErr
	}
	next := 0
	switch {
	case k < onPage:
		next = offset + k
		notes = append(notes, fmt.Sprintf("%d of the %d sessions asked for fit max_tokens (%d); call again with offset %d for the next page.", k, onPage, b.bytes/bytesPerToken, next))
	case limit > 0 && len(res.Sessions) > offset+limit:
		next = offset + k
		notes = append(notes, fmt.Sprintf("More sessions matched: call again with offset %d for the next page.", next))
	}
	text, result, err := page(k)
	if err != nil {
		return nil, SearchOutput{}, err
	}
	result.NextOffset = next
	if !within(text, result, ceilingTokens*bytesPerToken) {
		return nil, SearchOutput{}, overCeiling("search")
	}
	h.cfg.Log.Info("search", "query", title, "sessions", len(result.Sessions), "next", next)
	return textContent(text), result, nil
}

func toSessions(js []render.JSONSession) []Session {
	out := make([]Session, len(js))
	for i, s := range js {
		out[i] = Session{JSONSessionHead: s.JSONSessionHead, Messages: make([]Message, len(s.Messages))}
		if n := len(s.Similar); n > maxSimilar {
			out[i].Similar, out[i].SimilarLeftOut = s.Similar[:maxSimilar], n-maxSimilar
			if len(s.SimilarWhy) > maxSimilar {
				out[i].SimilarWhy = s.SimilarWhy[:maxSimilar]
			}
		}
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
	Line    *Count `json:"line,omitempty" jsonschema:"transcript line to centre on (the :LINE of the evidence)"`
	Context *Count `json:"context,omitempty" jsonschema:"messages before and after (default 5)"`
	Full    bool   `json:"full,omitempty" jsonschema:"the whole session, in order, a page at a time"`
	Offset  *Count `json:"offset,omitempty" jsonschema:"with full: messages to skip, a previous result's next_offset, for the next page"`
	Query   string `json:"query,omitempty" jsonschema:"the words searched for: highlighted, and without a line the first message matching them is centred"`
	// MaxTokens bounds the result; see budget.go.
	MaxTokens *Count `json:"max_tokens,omitempty" jsonschema:"size bound of the result in tokens (default 12000, at most 16000): messages past it are left for the next page, and a message longer than a fifth of it is cut"`
}

// ShowOutput is the show tool's structured result: the session as
// `recall show --json` prints it, one page of it.
type ShowOutput struct {
	Marker
	render.JSONShown
	NextOffset int `json:"next_offset,omitempty" jsonschema:"set when messages are left: pass it as offset (with full) for the next page"`
}

// shown is a show tool call's answer.
type shown struct {
	res *mcp.CallToolResult
	out ShowOutput
}

func (h handlers) show(ctx context.Context, _ *mcp.CallToolRequest, in ShowInput) (*mcp.CallToolResult, ShowOutput, error) {
	r, err := turn(ctx, h, "show", func(ctx context.Context) (shown, error) {
		res, out, err := h.showNow(ctx, in)
		return shown{res, out}, err
	})
	return r.res, r.out, err
}

func (h handlers) showNow(ctx context.Context, in ShowInput) (*mcp.CallToolResult, ShowOutput, error) {
	if err := nonNegative(in.Offset, "offset"); err != nil {
		return nil, ShowOutput{}, err
	}
	offset := countOr(in.Offset, 0)
	if offset > 0 && !in.Full {
		return nil, ShowOutput{}, errors.New("offset pages through a whole session: give full=true with it")
	}
	b := budgetOf(in.MaxTokens, defaultShowTokens)
	req, err := show.Params{Session: in.Session, Line: countOr(in.Line, 0), Context: countPtr(in.Context), Full: in.Full, Query: in.Query}.Request()
	if err != nil {
		return nil, ShowOutput{}, err
	}
	m, snap, stale, err := h.open(ctx)
	if err != nil {
		return nil, ShowOutput{}, err
	}
	defer snap.Close()
	sh, err := show.Session(snap, m, req)
	if err != nil {
		return nil, ShowOutput{}, err
	}
	warnings := withStale(problem.SayAll(sh.Warnings, agentWording), stale)
	var notes []string
	if b.note != "" {
		notes = append(notes, b.note)
	}
	all := sh.Messages
	if cut := cutMessages(all, b.bytes/5); cut > 0 {
		notes = append(notes, fmt.Sprintf("%d long messages were cut to a fifth of max_tokens each (a result carries each twice: as JSON and as text); a larger max_tokens (up to %d) shows more of them.", cut, ceilingTokens))
	}
	from := min(offset, len(all))
	window := func(k int) (int, int) { return from, from + k }
	n := len(all) - from
	if !in.Full {
		window = nearest(all)
	}
	page := func(k int, notes []string) (string, ShowOutput, error) {
		a, z := window(k)
		part := *sh
		part.Messages, part.Start, part.Notes = all[a:z], sh.Start+a, append(slices.Clip(sh.Notes), notes...)
		part.Warnings = nil
		var text strings.Builder
		if err := render.WriteShown(&text, &part, "markdown", false, agentWording); err != nil {
			return "", ShowOutput{}, err
		}
		js := render.ShownJSON(&part, agentWording)
		js.Warnings = warnings
		return textOf(text.String(), nil, warnings), ShowOutput{Marker: Marker{RecallOutput: true}, JSONShown: js}, nil
	}
	k, err := fitPage(b, n, func(k int) (string, ShowOutput, error) { return page(k, notes) })
	if err != nil {
		return nil, ShowOutput{}, err
	}
	a, z := window(k)
	next := 0
	switch {
	case in.Full && z < len(all):
		next = z
		notes = append(notes, fmt.Sprintf("Messages %d–%d of %d fit max_tokens (%d): call show with full=true and offset %d for the next page.", sh.Start+a+1, sh.Start+z, sh.Total, b.bytes/bytesPerToken, next))
	case !in.Full && k < n:
		notes = append(notes, fmt.Sprintf("The %d messages nearest the one asked for fit max_tokens (%d) of the %d asked for.", k, b.bytes/bytesPerToken, n))
	}
	text, out, err := page(k, notes)
	if err != nil {
		return nil, ShowOutput{}, err
	}
	out.NextOffset = next
	if !within(text, out, ceilingTokens*bytesPerToken) {
		return nil, ShowOutput{}, overCeiling("show")
	}
	h.cfg.Log.Info("show", "session", sh.Session, "messages", len(out.Messages), "next", next)
	return textContent(text), out, nil
}

// cutMessages cuts every message text longer than max bytes, saying so at
// its end, and returns how many it cut.
func cutMessages(msgs []show.Message, max int) int {
	cut := 0
	for i := range msgs {
		text, left := cutText(msgs[i].Text, max, writtenSize)
		if left == 0 {
			continue
		}
		msgs[i].Text = text + fmt.Sprintf(" [… %d more bytes of this message left out to fit max_tokens]", left)
		var kept []rank.Span
		for _, h := range msgs[i].Highlights {
			if h.End <= len(text) {
				kept = append(kept, h)
			}
		}
		msgs[i].Highlights = kept
		cut++
	}
	return cut
}

// writtenSize is the most bytes text takes in a result: escaped in the
// structured JSON, or made printable in the markdown.
func writtenSize(text string) int {
	data, _ := json.Marshal(text)
	return max(len(data), len(render.SafeText(text)))
}

// nearest is the window of k messages of msgs nearest the one asked for
// (the first hit, else the middle), as many before it as after where
// the session allows.
func nearest(msgs []show.Message) func(k int) (int, int) {
	centre := len(msgs) / 2
	for i := range msgs {
		if msgs[i].Hit {
			centre = i
			break
		}
	}
	return func(k int) (int, int) {
		a := max(centre-(k-1)/2, 0)
		z := min(a+k, len(msgs))
		return max(z-k, 0), z
	}
}

// SessionsInput is the sessions tool's arguments.
type SessionsInput struct {
	Project string `json:"project,omitempty" jsonschema:"only sessions of this project: '.' for the current one, a path, or a fragment of the project path"`
	Since   string `json:"since,omitempty" jsonschema:"only sessions with messages since a date (2026-01-31) or an age (30d, 2w, 12h)"`
	Until   string `json:"until,omitempty" jsonschema:"only sessions with messages until a date or an age"`
	Limit   *Count `json:"limit,omitempty" jsonschema:"sessions to list (default 20; 0: as many as max_tokens holds)"`
	Offset  *Count `json:"offset,omitempty" jsonschema:"newest sessions to skip: a previous result's next_offset, for the next page"`
	// MaxTokens bounds the result; see budget.go.
	MaxTokens *Count `json:"max_tokens,omitempty" jsonschema:"size bound of the result in tokens (default 6000, at most 16000): sessions past it are left for the next page"`

	IncludeHeadless bool   `json:"include_headless,omitempty" jsonschema:"also list headless runs (claude -p, SDK scripts), which are left out by default"`
	Agent           string `json:"agent,omitempty" jsonschema:"only sessions of these coding agents, space-separated: claude, codex, gemini, opencode, aider (default: all)"`
}

// SessionsOutput is the sessions tool's structured result.
type SessionsOutput struct {
	Marker
	Sessions   []render.JSONSessionInfo `json:"sessions" jsonschema:"newest first"`
	Total      int                      `json:"total" jsonschema:"sessions that matched the filters, listed or not"`
	Offset     int                      `json:"offset" jsonschema:"newest sessions skipped before the first listed"`
	NextOffset int                      `json:"next_offset,omitempty" jsonschema:"set when more sessions are left: pass it as offset for the next page"`
	Notes      []string                 `json:"notes,omitempty" jsonschema:"what the result left out or why nothing matched, and what to try"`
	Warnings   []string                 `json:"warnings,omitempty"`
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
	if err := nonNegative(in.Limit, "limit"); err != nil {
		return nil, SessionsOutput{}, err
	}
	if err := nonNegative(in.Offset, "offset"); err != nil {
		return nil, SessionsOutput{}, err
	}
	limit, offset := countOr(in.Limit, search.DefaultSessionList), countOr(in.Offset, 0)
	b := budgetOf(in.MaxTokens, defaultSessionsTokens)
	listed := pageEnd(offset, limit, 0)
	params := search.Params{Projects: nonEmpty(in.Project), Since: in.Since, Until: in.Until, Limit: &listed, Cwd: h.cfg.Cwd,
		IncludeHeadless: in.IncludeHeadless, Agents: agentList(in.Agent)}
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
	warnings := withStale(nil, stale)
	var notes []string
	if b.note != "" {
		notes = append(notes, b.note)
	}
	switch {
	case total == 0:
		notes = append(notes, "No indexed session matched.")
		for _, hint := range render.WhyNothing(m, snap, h.cfg.Sources, params, req, "the sessions tool") {
			notes = append(notes, hint+".")
		}
	case offset >= len(list):
		notes = append(notes, fmt.Sprintf("No sessions after offset %d: %d matched.", offset, total))
	}
	list = list[min(offset, len(list)):]
	page := func(k int, notes []string) (string, SessionsOutput, error) {
		out := SessionsOutput{Marker: Marker{RecallOutput: true}, Sessions: render.SessionsJSON(list[:k]), Total: total, Offset: offset, Notes: notes, Warnings: warnings}
		var text strings.Builder
		if k > 0 {
			if err := render.WriteSessions(&text, list[:k], "markdown", false); err != nil {
				return "", out, err
			}
		}
		return textOf(text.String(), notes, warnings), out, nil
	}
	k, err := fitPage(b, len(list), func(k int) (string, SessionsOutput, error) { return page(k, notes) })
	if err != nil {
		return nil, SessionsOutput{}, err
	}
	next := 0
	if offset+k < total && k > 0 {
		next = offset + k
		if k < len(list) {
			notes = append(notes, fmt.Sprintf("%d of the %d sessions asked for fit max_tokens (%d): call again with offset %d for the next page.", k, len(list), b.bytes/bytesPerToken, next))
		} else {
			notes = append(notes, fmt.Sprintf("%d of %d sessions listed: call again with offset %d for the next page.", offset+k, total, next))
		}
	}
	text, out, err := page(k, notes)
	if err != nil {
		return nil, SessionsOutput{}, err
	}
	out.NextOffset = next
	if !within(text, out, ceilingTokens*bytesPerToken) {
		return nil, SessionsOutput{}, overCeiling("sessions")
	}
	return textContent(text), out, nil
}

// textOf is a result's text for the clients that read it (Claude Code
// reads the structured content instead): the markdown block, then its
// notes and warnings.
func textOf(markdown string, notes, warnings []string) string {
	var b strings.Builder
	b.WriteString(strings.TrimRight(markdown, "\n"))
	for _, n := range notes {
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(n)
	}
	for _, w := range warnings {
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString("Warning: " + w)
	}
	return b.String()
}

// textContent is a result whose text content is text.
func textContent(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}

// pageEnd is how many of the best sessions a page from offset of limit
// sessions needs ranked, and extra more: 0 (all) for no limit, and a
// limit over the cap as it is, for the request to refuse by its name.
func pageEnd(offset, limit, extra int) int {
	if limit == 0 || limit > search.MaxSessions {
		return limit
	}
	return min(min(offset, search.MaxSessions)+limit+extra, search.MaxSessions)
}

// nonNegative refuses a negative count argument, by its parameter's name.
func nonNegative(c *Count, name string) error {
	if c != nil && *c < 0 {
		return fmt.Errorf("%s %d: must not be negative", name, int(*c))
	}
	return nil
}

// nonEmpty is s as a one-value list, none when blank: one value may hold
// several words, as one shell argument may.
func nonEmpty(s string) []string {
	if strings.TrimSpace(s) == "" {
		return nil
	}
	return []string{s}
}

// agentList reads the agent parameter: names separated by spaces or
// commas.
func agentList(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == ',' || r == '\t' })
}
