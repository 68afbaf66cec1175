// Package stdio is the recall-mcp command: recall's MCP server as a
// process of its own, which `recall mcp` hands over to. It resolves the
// index and the sources as recall does, follows the Claude Code session
// it runs in (through /clear and /resume), brings the index up to date
// before each call, and serves on stdin and stdout until Claude Code
// closes stdin or stops it.
//
// The server is a binary of its own because of what it links: the MCP
// SDK, its JSON schema and HTTP packages made recall's binary twice the
// size, and their initialisation and the larger binary's start cost
// every run of recall (the no-change index check, a search) a fifth of
// the check's time. Claude Code starts the server once a session.
package stdio

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os/signal"
	"strconv"
	"syscall"

	"github.com/recall-dev/recall/claude"
	"github.com/recall-dev/recall/indexer"
	"github.com/recall-dev/recall/indexer/watch"
	"github.com/recall-dev/recall/internal/problem"
	"github.com/recall-dev/recall/lineage"
	"github.com/recall-dev/recall/mcpserver"
	"github.com/recall-dev/recall/transcript"
)

// Env is what the command reads and writes besides files and the index.
type Env struct {
	Stdin  io.Reader
	Stdout io.Writer // the protocol only
	Stderr io.Writer // diagnostics
	// Cwd is the working directory, "" when it cannot be found.
	Cwd string
	// Getenv reads the environment (os.Getenv).
	Getenv func(string) string
	// ParentPID is the process that started the server (os.Getppid):
	// Claude Code, whose session files say which session runs now.
	ParentPID int
}

// Flags are the command line: recall's global flags, as `recall mcp`
// passes them on (paths already read from its working directory and ~
// expanded), and the mcp command's own.
type Flags struct {
	IndexDir       string
	Sources        []string
	CurrentSession string
	Verbose        bool
	NoUpdate       bool
}

// usage is what -h prints.
const usage = `recall-mcp serves recall's search, show and sessions tools to Claude Code
over the Model Context Protocol, on stdin and stdout. Claude Code runs it
through ` + "`recall mcp`" + `, which ` + "`recall install`" + ` registers.

Flags (recall's; paths are read from the working directory):
`

// Parse reads a command line; the index directory defaults to
// $RECALL_INDEX_DIR, as recall's does.
func Parse(args []string, getenv func(string) string, stderr io.Writer) (Flags, error) {
	f := Flags{IndexDir: getenv("RECALL_INDEX_DIR")}
	fs := flag.NewFlagSet("recall-mcp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
	}
	fs.StringVar(&f.IndexDir, "index-dir", f.IndexDir, "index `directory` (default $RECALL_INDEX_DIR, else recall's default)")
	fs.Func("source", "where sessions are read, repeatable: a Claude Code projects `folder` or AGENT:PATH", func(s string) error {
		f.Sources = append(f.Sources, s)
		return nil
	})
	fs.StringVar(&f.CurrentSession, "current-session", "", "session to treat as current (default $CLAUDE_CODE_SESSION_ID)")
	fs.BoolVar(&f.Verbose, "v", false, "log each call on stderr")
	fs.BoolVar(&f.NoUpdate, "no-update", false, "read the index as it is; do not index new transcript lines before each call")
	if err := fs.Parse(args); err != nil {
		return f, err
	}
	if fs.NArg() > 0 {
		return f, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	return f, nil
}

// Main parses args and serves; it returns the exit status: 0 when the
// client ends the session or stops the server (SIGTERM, SIGINT: either
// ends it at once, with nothing on stderr), 2 for a bad command line or
// a failure.
func Main(args []string, version string, e Env) int {
	f, err := Parse(args, e.Getenv, e.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(e.Stderr, "recall-mcp:", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if err := Serve(ctx, f, version, e); err != nil {
		fmt.Fprintln(e.Stderr, "recall-mcp:", err)
		return 2
	}
	return 0
}

// Serve runs the server with f until ctx ends or the client closes
// stdin.
func Serve(ctx context.Context, f Flags, version string, e Env) error {
	level := slog.LevelWarn
	if f.Verbose {
		level = slog.LevelInfo
	}
	log := slog.New(slog.NewTextHandler(e.Stderr, &slog.HandlerOptions{Level: level}))
	srv, err := ServerConfig(f, version, e, log)
	if err != nil {
		return err
	}
	return mcpserver.Serve(ctx, srv, e.Stdin, e.Stdout)
}

// ServerConfig is the server's configuration for f: the index and
// sources resolved as recall resolves them, the running session followed
// on every call, and (unless f.NoUpdate) the index brought up to date
// before each.
func ServerConfig(f Flags, version string, e Env, log *slog.Logger) (mcpserver.Config, error) {
	cfg, err := indexer.ResolveConfig(indexer.ConfigInput{IndexDir: f.IndexDir, Sources: f.Sources, CurrentSession: f.CurrentSession})
	if err != nil {
		return mcpserver.Config{}, err
	}
	project := projectDir(e)
	tracker := newSessionTracker(cfg, project, e)
	srv := mcpserver.Config{
		IndexDir:       cfg.IndexDir,
		Sources:        cfg.Sources,
		CurrentSession: cfg.CurrentSession,
		Current: func() (string, []string) {
			id := tracker.Current()
			return id, lineage.RunningSessions(cfg.IndexDir, cfg.Sources, id, tracker.Project)
		},
		Cwd:     project,
		Version: version,
		Log:     log,
	}
	if !f.NoUpdate {
		srv.Freshen = func() {
			now := cfg
			now.CurrentSession = tracker.Current() // its transcript is left for later
			freshen(now, log)
		}
	}
	return srv, nil
}

// freshen brings the index up to date before a call, as a search on the
// command line does, unless `recall watch` keeps it so. As there, what
// the update warns of is logged with -v only (what a call then reads
// from damage, it reports itself); a failed update is always logged, and
// leaves the index as it is.
func freshen(cfg indexer.Config, log *slog.Logger) {
	if watch.Running(cfg.IndexDir) {
		return
	}
	sum, _, err := indexer.Update(indexer.Options{
		Config:  cfg,
		Quick:   true,
		Warn:    func(msg string) { log.Info("index update: " + msg) },
		Notice:  func(msg string) { log.Info("index update: " + msg) },
		Wording: problem.ShellWording,
	})
	if sum.Sweep != "" {
		log.Info("index update checked every transcript: " + sum.Sweep)
	}
	if err != nil {
		log.Warn("index update failed, reading the index as it is: " + err.Error())
	}
}

// newSessionTracker follows the session the server runs in from the one
// it started in (the --current-session flag or CLAUDE_CODE_SESSION_ID),
// through /clear and /resume: see claude.SessionTracker.
func newSessionTracker(cfg indexer.Config, project string, e Env) *claude.SessionTracker {
	t := &claude.SessionTracker{Start: cfg.CurrentSession, IndexDir: cfg.IndexDir, ParentPID: e.ParentPID, Project: project}
	if pid, err := strconv.Atoi(e.Getenv("CLAUDE_PID")); err == nil && pid > 1 {
		t.ParentPID = pid
	}
	for _, src := range cfg.Sources {
		if dir := transcript.ConfigDir(src); dir != "" {
			t.ConfigDir = dir
			break
		}
	}
	return t
}

// projectDir is the project Claude Code started the server for:
// CLAUDE_PROJECT_DIR, which it sets for stdio MCP servers, else the
// working directory.
func projectDir(e Env) string {
	if dir := e.Getenv("CLAUDE_PROJECT_DIR"); dir != "" {
		return dir
	}
	return e.Cwd
}
