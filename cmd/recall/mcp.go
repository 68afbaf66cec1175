package main

import (
	"context"
	"log/slog"
	"os"
	"os/signal"
	"strconv"
	"syscall"

	"github.com/recall-dev/recall/claude"
	"github.com/recall-dev/recall/indexer"
	"github.com/recall-dev/recall/mcpserver"
	"github.com/recall-dev/recall/transcript"
)

type mcpCmd struct {
	NoUpdate bool `name:"no-update" help:"Read the index as it is; do not index new transcript lines before each call."`
}

// Help is shown under `recall mcp --help`.
func (c *mcpCmd) Help() string {
	return `Speaks the Model Context Protocol on stdin and stdout, for Claude Code:
  claude mcp add --scope user recall -- /path/to/recall mcp
(recall install runs that for you). Tools: search, show, sessions. stdout
carries the protocol only; diagnostics go to stderr (-v logs each call). The
session Claude Code runs the server in (CLAUDE_CODE_SESSION_ID) is never shown.`
}

// Run serves until Claude Code closes stdin or stops the server (SIGTERM,
// SIGINT): either ends it at once, with status 0 and nothing on stderr.
func (c *mcpCmd) Run(g *Globals) error {
	cfg, err := g.config()
	if err != nil {
		return err
	}
	level := slog.LevelWarn
	if g.Verbose {
		level = slog.LevelInfo
	}
	tracker := newSessionTracker(cfg, mcpProjectDir(g))
	srv := mcpserver.Config{
		IndexDir:       cfg.IndexDir,
		Sources:        cfg.Sources,
		CurrentSession: cfg.CurrentSession,
		Current: func() (string, []string) {
			id := tracker.Current()
			return id, lineageOf(cfg, id, tracker.Project)
		},
		Cwd:     mcpProjectDir(g),
		Version: version,
		Log:     slog.New(slog.NewTextHandler(g.env.stderr, &slog.HandlerOptions{Level: level})),
	}
	if !c.NoUpdate {
		srv.Freshen = func() {
			now := cfg
			now.CurrentSession = tracker.Current() // its transcript is left for later
			g.freshen(now)
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return mcpserver.Serve(ctx, srv, g.env.stdin, g.env.stdout)
}

// newSessionTracker follows the session the server runs in from the one
// it started in (the --current-session flag or CLAUDE_CODE_SESSION_ID),
// through /clear and /resume: see claude.SessionTracker.
func newSessionTracker(cfg indexer.Config, project string) *claude.SessionTracker {
	t := &claude.SessionTracker{Start: cfg.CurrentSession, IndexDir: cfg.IndexDir, ParentPID: os.Getppid(), Project: project}
	if pid, err := strconv.Atoi(os.Getenv("CLAUDE_PID")); err == nil && pid > 1 {
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

// mcpProjectDir is the project Claude Code started the server for:
// CLAUDE_PROJECT_DIR, which it sets for stdio MCP servers, else the
// working directory.
func mcpProjectDir(g *Globals) string {
	if dir := os.Getenv("CLAUDE_PROJECT_DIR"); dir != "" {
		return dir
	}
	return g.env.cwd
}
