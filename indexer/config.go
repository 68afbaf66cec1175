package indexer

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/recall-dev/recall/claude"
	"github.com/recall-dev/recall/internal/indexdir"
	"github.com/recall-dev/recall/record"
	"github.com/recall-dev/recall/transcript/agents"
)

// Config says where transcripts are read from and where the index lives.
type Config struct {
	// Sources are Claude Code transcript roots: directories holding one
	// folder per project, as ~/.claude/projects does.
	Sources []string
	// Agents are the other coding agents' places (agents.Source): their
	// default ones that exist, or those given as --source AGENT:PATH.
	Agents []agents.Source
	// InProjects also reads the session files other agents keep in the
	// projects the index knows (agents.InProjects: Aider's chat
	// histories), at each full sweep: set when no source was given.
	InProjects bool
	// IndexDir holds the index files, the lock and the hook log.
	IndexDir string
	// CurrentSession is the running session's id. Its transcript is not
	// consumed while it is current, so it is picked up whole later.
	CurrentSession string
}

// ConfigInput is what the user gave on the command line; empty fields fall
// back to the environment and then to the defaults.
type ConfigInput struct {
	IndexDir       string
	Sources        []string
	CurrentSession string
}

// ResolveConfig applies the documented precedence: flag, environment,
// default.
func ResolveConfig(in ConfigInput) (Config, error) {
	cfg := Config{IndexDir: in.IndexDir, CurrentSession: in.CurrentSession}
	given := in.Sources
	if len(nonEmpty(given)) == 0 {
		given = splitSourceList(os.Getenv("RECALL_SOURCE"))
	}
	for _, s := range nonEmpty(given) {
		if src, ok := agents.ParseSource(s); ok {
			if src.Agent == record.AgentClaude {
				cfg.Sources = append(cfg.Sources, src.Path)
			} else {
				cfg.Agents = append(cfg.Agents, src)
			}
			continue
		}
		cfg.Sources = append(cfg.Sources, s)
	}
	if len(nonEmpty(given)) == 0 {
		// Nothing given: Claude Code's place, whether or not it exists
		// yet, and each other agent's that exists.
		root, err := DefaultSource()
		if err != nil {
			return cfg, err
		}
		cfg.Sources = []string{root}
		if home, err := os.UserHomeDir(); err == nil {
			cfg.Agents = agents.Defaults(os.Getenv, home)
		}
		cfg.InProjects = true
	}
	for i, s := range cfg.Agents {
		abs, err := filepath.Abs(s.Path)
		if err != nil {
			return cfg, fmt.Errorf("source %s: %w", s, err)
		}
		cfg.Agents[i].Path = abs
	}
	if cfg.IndexDir == "" {
		dir, err := DefaultIndexDir()
		if err != nil {
			return cfg, err
		}
		cfg.IndexDir = dir
	}
	if cfg.CurrentSession == "" {
		cfg.CurrentSession = CurrentSessionFromEnv()
	}
	for i, s := range cfg.Sources {
		abs, err := filepath.Abs(s)
		if err != nil {
			return cfg, fmt.Errorf("source %s: %w", s, err)
		}
		cfg.Sources[i] = abs
	}
	abs, err := filepath.Abs(cfg.IndexDir)
	if err != nil {
		return cfg, fmt.Errorf("index dir %s: %w", cfg.IndexDir, err)
	}
	cfg.IndexDir = abs
	return cfg, nil
}

// splitSourceList splits $RECALL_SOURCE at its colons, as a PATH-like
// list, keeping an AGENT:PATH entry whole: an agent's name followed by
// a path is one source.
func splitSourceList(s string) []string {
	parts := filepath.SplitList(s)
	var out []string
	for i := 0; i < len(parts); i++ {
		if i+1 < len(parts) && parts[i+1] != "" && (parts[i] == record.AgentClaude || isOtherAgent(parts[i])) {
			out = append(out, parts[i]+":"+parts[i+1])
			i++
			continue
		}
		out = append(out, parts[i])
	}
	return out
}

// isOtherAgent reports whether name is an agent recall reads besides
// Claude Code.
func isOtherAgent(name string) bool {
	_, ok := agents.Lookup(name)
	return ok
}

// nonEmpty is list without its empty strings.
func nonEmpty(list []string) []string {
	var out []string
	for _, s := range list {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// Roots are every source's path: Claude Code's roots, then the other
// agents' places.
func (c Config) Roots() []string {
	out := append([]string(nil), c.Sources...)
	for _, a := range c.Agents {
		out = append(out, a.Path)
	}
	return out
}

// SourceList names every source as --source takes it: a Claude Code
// root as its path, another agent's as AGENT:PATH.
func (c Config) SourceList() []string {
	out := append([]string(nil), c.Sources...)
	for _, a := range c.Agents {
		out = append(out, a.String())
	}
	return out
}

// DefaultSource is $CLAUDE_CONFIG_DIR/projects, else ~/.claude/projects
// (claude.ConfigDir).
func DefaultSource() (string, error) {
	dir, err := claude.ConfigDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "projects"), nil
}

// DefaultIndexDir is $XDG_DATA_HOME/recall, else ~/.local/share/recall
// (indexdir.Default).
func DefaultIndexDir() (string, error) { return indexdir.Default() }

// CurrentSessionFromEnv reads the running session's id: Claude Code's
// CLAUDE_CODE_SESSION_ID (set for Bash commands, hooks and MCP servers),
// else the older CLAUDE_SESSION_ID, else another agent's (Codex's
// CODEX_THREAD_ID: agents.CurrentSession).
func CurrentSessionFromEnv() string {
	if id := os.Getenv("CLAUDE_CODE_SESSION_ID"); id != "" {
		return id
	}
	if id := os.Getenv("CLAUDE_SESSION_ID"); id != "" {
		return id
	}
	return agents.CurrentSession(os.Getenv)
}
