package indexer

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/recall-dev/recall/claude"
)

// Config says where transcripts are read from and where the index lives.
type Config struct {
	// Sources are transcript roots: directories holding one folder per
	// project, as ~/.claude/projects does.
	Sources []string
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
	for _, s := range in.Sources {
		if s != "" {
			cfg.Sources = append(cfg.Sources, s)
		}
	}
	if len(cfg.Sources) == 0 {
		for _, s := range filepath.SplitList(os.Getenv("RECALL_SOURCE")) {
			if s != "" {
				cfg.Sources = append(cfg.Sources, s)
			}
		}
	}
	if len(cfg.Sources) == 0 {
		root, err := DefaultSource()
		if err != nil {
			return cfg, err
		}
		cfg.Sources = []string{root}
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

// DefaultSource is $CLAUDE_CONFIG_DIR/projects, else ~/.claude/projects
// (claude.ConfigDir).
func DefaultSource() (string, error) {
	dir, err := claude.ConfigDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "projects"), nil
}

// DefaultIndexDir is $XDG_DATA_HOME/recall, else ~/.local/share/recall.
func DefaultIndexDir() (string, error) {
	if dir := os.Getenv("XDG_DATA_HOME"); dir != "" && filepath.IsAbs(dir) {
		return filepath.Join(dir, "recall"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", errors.New("no index directory: set --index-dir or RECALL_INDEX_DIR")
	}
	return filepath.Join(home, ".local", "share", "recall"), nil
}

// CurrentSessionFromEnv reads the running Claude Code session id:
// CLAUDE_CODE_SESSION_ID (set for Bash commands, hooks and MCP servers),
// else the older CLAUDE_SESSION_ID.
func CurrentSessionFromEnv() string {
	if id := os.Getenv("CLAUDE_CODE_SESSION_ID"); id != "" {
		return id
	}
	return os.Getenv("CLAUDE_SESSION_ID")
}
