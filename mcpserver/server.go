// Package mcpserver serves recall to Claude Code as an MCP server over
// stdio, on the official Go SDK: tools search, show and sessions, so that
// Claude recalls past sessions without shelling out. Every request is
// built by package search (search.Params, search.ShowParams), the one
// place its defaults are defined, and every call opens its own snapshot
// of the index, so calls are served concurrently. The server writes only
// protocol on its output; diagnostics go to the logger (stderr).
package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recall-dev/recall/search"
	"github.com/recall-dev/recall/store"
)

// Config is what the server needs of recall's configuration.
type Config struct {
	IndexDir string
	// CurrentSession is the session the server runs in
	// (CLAUDE_CODE_SESSION_ID): searches never show it, as on the CLI.
	CurrentSession string
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
}

// Serve runs the server over in and out until the client disconnects or
// ctx ends.
func Serve(ctx context.Context, cfg Config, in io.Reader, out io.Writer) error {
	t := &mcp.IOTransport{Reader: io.NopCloser(in), Writer: nopWriteCloser{out}}
	return New(cfg).Run(ctx, t)
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// New builds the server and its tools.
func New(cfg Config) *mcp.Server {
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "recall", Title: "recall: past Claude Code sessions", Version: cfg.Version},
		&mcp.ServerOptions{Instructions: instructions, Logger: cfg.Log, Capabilities: &mcp.ServerCapabilities{}})
	h := handlers{cfg: cfg, fresh: &freshener{update: cfg.Freshen}}
	readOnly := &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: new(false)}
	mcp.AddTool(s, &mcp.Tool{Name: "search", Title: "Search past sessions", Description: searchDescription, Annotations: readOnly}, h.search)
	mcp.AddTool(s, &mcp.Tool{Name: "show", Title: "Read a past session", Description: showDescription, Annotations: readOnly}, h.show)
	mcp.AddTool(s, &mcp.Tool{Name: "sessions", Title: "List past sessions", Description: sessionsDescription, Annotations: readOnly}, h.sessions)
	return s
}

type handlers struct {
	cfg   Config
	fresh *freshener
}

// freshener runs the index update for the server's calls. Calls that
// arrive together share one update rather than race for the index lock,
// in which case a losing call would read the index as it was (none at
// all, on a first call); an update that started after a call arrived
// serves that call.
type freshener struct {
	update    func()
	mu        sync.Mutex
	lastStart time.Time // when the last finished update started
}

func (f *freshener) run() { f.runFor(time.Now()) }

// runFor updates the index for a call that arrived at the given time,
// unless an update that started after it has finished meanwhile.
func (f *freshener) runFor(arrived time.Time) {
	if f.update == nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.lastStart.After(arrived) {
		return
	}
	start := time.Now()
	f.update()
	f.lastStart = start
}

// open brings the index up to date and opens the committed manifest and
// a snapshot of its own for one call.
func (h handlers) open() (*store.Manifest, *store.Snapshot, error) {
	h.fresh.run()
	m, err := store.ReadManifest(h.cfg.IndexDir)
	if err != nil {
		return nil, nil, indexError(h.cfg.IndexDir, err)
	}
	snap, err := store.OpenSnapshot(h.cfg.IndexDir)
	if err != nil {
		return nil, nil, indexError(h.cfg.IndexDir, err)
	}
	return m, snap, nil
}

func indexError(dir string, err error) error {
	if errors.Is(err, store.ErrNoIndex) {
		return fmt.Errorf("recall has no index in %s yet: the user should run `recall index`", dir)
	}
	return err
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
	Limit   *int   `json:"limit,omitempty" jsonschema:"sessions to return (default 5)"`

	IncludeHeadless bool `json:"include_headless,omitempty" jsonschema:"also search headless runs (claude -p, SDK scripts), which are left out by default"`
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
	search.JSONSessionHead
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

func (h handlers) search(ctx context.Context, _ *mcp.CallToolRequest, in SearchInput) (*mcp.CallToolResult, SearchOutput, error) {
	limit, messages := search.AgentSessions, search.AgentMessages
	if in.Limit != nil {
		limit = *in.Limit
	}
	params := search.Params{
		Terms: nonEmpty(in.Query), Require: nonEmpty(in.Require), Exclude: nonEmpty(in.Exclude), Scope: in.Scope,
		Projects: nonEmpty(in.Project), Since: in.Since, Until: in.Until,
		Limit: &limit, Messages: &messages, Cwd: h.cfg.Cwd, CurrentSession: h.cfg.CurrentSession,
		IncludeHeadless: in.IncludeHeadless,
	}
	req, err := params.Request()
	if err != nil {
		return nil, SearchOutput{}, err
	}
	out, err := params.Output()
	if err != nil {
		return nil, SearchOutput{}, err
	}
	m, snap, err := h.open()
	if err != nil {
		return nil, SearchOutput{}, err
	}
	defer snap.Close()
	res, err := search.Run(snap, req)
	if err != nil {
		return nil, SearchOutput{}, err
	}
	result := SearchOutput{Query: search.QueryTitle(res.Query), Sessions: toSessions(search.JSON(res, out)), Warnings: res.Stats.Warnings()}
	var text strings.Builder
	if len(res.Sessions) == 0 {
		fmt.Fprintf(&text, "No past session matched %s.", result.Query)
		for _, hint := range search.NoMatchHints(m, params, req) {
			text.WriteString(" " + hint + ".")
		}
	} else {
		out.Format = "markdown"
		if err := search.Write(&text, res, out); err != nil {
			return nil, SearchOutput{}, err
		}
	}
	h.cfg.Log.Info("search", "query", result.Query, "sessions", len(result.Sessions))
	return textResult(text.String(), result.Warnings), result, nil
}

func toSessions(js []search.JSONSession) []Session {
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
	Context *int   `json:"context,omitempty" jsonschema:"messages before and after (default 5)"`
	Full    bool   `json:"full,omitempty" jsonschema:"the whole session, in order (can be long)"`
	Query   string `json:"query,omitempty" jsonschema:"the words searched for: highlighted, and without a line the first message matching them is centred"`
}

func (h handlers) show(ctx context.Context, _ *mcp.CallToolRequest, in ShowInput) (*mcp.CallToolResult, search.JSONShown, error) {
	req, err := search.ShowParams{Session: in.Session, Line: in.Line, Context: in.Context, Full: in.Full, Query: in.Query}.Request()
	if err != nil {
		return nil, search.JSONShown{}, err
	}
	m, snap, err := h.open()
	if err != nil {
		return nil, search.JSONShown{}, err
	}
	defer snap.Close()
	sh, err := search.Show(snap, m, req)
	if err != nil {
		return nil, search.JSONShown{}, err
	}
	var text strings.Builder
	if err := search.WriteShown(&text, sh, "markdown", false); err != nil {
		return nil, search.JSONShown{}, err
	}
	h.cfg.Log.Info("show", "session", sh.Session, "messages", len(sh.Messages))
	return textResult(text.String(), sh.Warnings), search.ShownJSON(sh), nil
}

// SessionsInput is the sessions tool's arguments.
type SessionsInput struct {
	Project string `json:"project,omitempty" jsonschema:"only sessions of this project: '.' for the current one, a path, or a fragment of the project path"`
	Since   string `json:"since,omitempty" jsonschema:"only sessions with messages since a date (2026-01-31) or an age (30d, 2w, 12h)"`
	Until   string `json:"until,omitempty" jsonschema:"only sessions with messages until a date or an age"`
	Limit   *int   `json:"limit,omitempty" jsonschema:"sessions to list (default 20; 0 lists all)"`

	IncludeHeadless bool `json:"include_headless,omitempty" jsonschema:"also list headless runs (claude -p, SDK scripts), which are left out by default"`
}

// SessionsOutput is the sessions tool's structured result.
type SessionsOutput struct {
	Sessions []search.JSONSessionInfo `json:"sessions" jsonschema:"newest first"`
	Total    int                      `json:"total" jsonschema:"sessions that matched the filters, listed or not"`
}

func (h handlers) sessions(ctx context.Context, _ *mcp.CallToolRequest, in SessionsInput) (*mcp.CallToolResult, SessionsOutput, error) {
	limit := search.DefaultSessionList
	if in.Limit != nil {
		limit = *in.Limit
	}
	params := search.Params{Projects: nonEmpty(in.Project), Since: in.Since, Until: in.Until, Limit: &limit, Cwd: h.cfg.Cwd,
		IncludeHeadless: in.IncludeHeadless}
	req, err := params.Request()
	if err != nil {
		return nil, SessionsOutput{}, err
	}
	m, snap, err := h.open()
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
		for _, hint := range search.NoMatchHints(m, params, req) {
			text.WriteString(" " + hint + ".")
		}
	} else if err := search.WriteSessions(&text, list, "markdown", false); err != nil {
		return nil, SessionsOutput{}, err
	}
	return textResult(text.String(), nil), SessionsOutput{Sessions: search.SessionsJSON(list), Total: total}, nil
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
