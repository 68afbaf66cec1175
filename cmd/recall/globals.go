package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/recall-dev/recall/indexer"
	"github.com/recall-dev/recall/transcript/agents"
)

// Globals are the flags every command shares, and the process a command
// runs in (set by run, never by kong: the field is unexported).
type Globals struct {
	IndexDir       string   `name:"index-dir" env:"RECALL_INDEX_DIR" placeholder:"DIR" help:"Index directory (default $XDG_DATA_HOME/recall, else ~/.local/share/recall)."`
	Source         []string `name:"source" sep:"none" placeholder:"DIR" help:"Where sessions are read, repeatable: a Claude Code projects folder, or AGENT:PATH for another agent's (codex:~/.codex, gemini:~/.gemini, opencode:~/.local/share/opencode, aider:FILE-OR-DIR). Default $RECALL_SOURCE (a colon-separated list), else $CLAUDE_CONFIG_DIR/projects or ~/.claude/projects and every other agent's default place that exists."`
	CurrentSession string   `name:"current-session" placeholder:"ID" help:"Session to treat as current (default $CLAUDE_CODE_SESSION_ID, else $CLAUDE_SESSION_ID, else Codex's $CODEX_THREAD_ID)."`
	Verbose        bool     `short:"v" help:"Log progress details on stderr."`

	env env
}

// env is what a command reads and writes besides files: commands use it
// instead of os.Stdin, os.Stdout, os.Stderr and os.Getwd, so tests can run
// the CLI in process.
type env struct {
	stdin  io.Reader
	stdout io.Writer // results only
	stderr io.Writer // diagnostics, progress, summaries
	cwd    string    // the working directory; "" when it cannot be found
}

// config resolves the global flags and environment into indexer settings.
func (g *Globals) config() (indexer.Config, error) {
	return indexer.ResolveConfig(g.configInput())
}

// configInput is the global flags with their paths read from the
// command's working directory, ~/ expanded in AGENT:PATH sources (the
// shell expands no ~ after the colon).
func (g *Globals) configInput() indexer.ConfigInput {
	sources := make([]string, len(g.Source))
	for i, s := range g.Source {
		if src, ok := agents.ParseSource(s); ok {
			src.Path = g.fromCwd(expandHome(src.Path))
			sources[i] = src.String()
			continue
		}
		sources[i] = g.fromCwd(s)
	}
	return indexer.ConfigInput{
		IndexDir:       g.fromCwd(g.IndexDir),
		Sources:        sources,
		CurrentSession: g.CurrentSession,
	}
}

// expandHome reads a leading ~/ as the home directory.
func expandHome(path string) string {
	rest, ok := strings.CutPrefix(path, "~/")
	if !ok && path != "~" {
		return path
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return path
	}
	return filepath.Join(home, rest)
}

// fromCwd reads a relative path from the command's working directory.
func (g *Globals) fromCwd(path string) string {
	if path == "" || filepath.IsAbs(path) || g.env.cwd == "" {
		return path
	}
	return filepath.Join(g.env.cwd, path)
}
