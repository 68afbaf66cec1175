package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/recall-dev/recall/claude"
	"github.com/recall-dev/recall/indexer"
	"github.com/recall-dev/recall/internal/sibling"
	"github.com/recall-dev/recall/render"
)

// setupFlags are shared by install and uninstall.
type setupFlags struct {
	Settings string `placeholder:"PATH" help:"settings.json to change (default $CLAUDE_CONFIG_DIR/settings.json, else ~/.claude/settings.json); the skill goes to skills/recall next to it."`
	DryRun   bool   `name:"dry-run" help:"Print the change on stdout (a diff, and the claude mcp command) and change nothing."`
}

type installCmd struct {
	setupFlags
	NoMCP bool `name:"no-mcp" help:"Do not register recall's MCP server with Claude Code."`
	Hints bool `help:"Also add the prompt hint: a UserPromptSubmit and SessionStart hook that puts a past session that clearly answers the prompt into Claude's context (off without it)."`
}

type uninstallCmd struct {
	setupFlags
}

// Run adds recall's SessionEnd and Stop hooks to settings.json, keeping
// everything else in it, installs the recall skill and registers the MCP
// server (`claude mcp add`, or the command printed when claude is not on
// PATH).
func (c *installCmd) Run(g *Globals) error {
	s, err := c.setup(g)
	if err != nil {
		return err
	}
	if s.RecallPath, err = recallPath(); err != nil {
		return err
	}
	if s.HookArgs, err = hookArgs(g); err != nil {
		return err
	}
	s.Hints = c.Hints
	if c.Hints {
		s.HintPath = hintBinary(s.RecallPath)
		if s.HintPath == "" {
			fmt.Fprintf(g.env.stderr, "recall: no recall-hint beside %s: every prompt runs `recall hook` (tens of milliseconds at 1 GB instead of a few); `go install github.com/recall-dev/recall/cmd/recall-hint@latest` or `make build` puts it there\n", s.RecallPath)
		}
	}
	if c.NoMCP {
		s.MCP = nil
	} else {
		s.MCP.Server = append([]string{s.RecallPath, "mcp"}, s.HookArgs...)
	}
	if err := claude.Install(s); err != nil {
		return err
	}
	if !c.NoMCP && mcpBinaryFor(s.RecallPath) == "" {
		fmt.Fprintf(g.env.stderr, "recall: no recall-mcp beside %s nor on PATH: the MCP server is registered, but `recall mcp` cannot start it until it is there; `go install github.com/recall-dev/recall/cmd/recall-mcp@latest` or `make install` puts it there\n", s.RecallPath)
	}
	// The hooks' index runs are detached: a database they cannot read
	// warns where nobody looks, so install says it now.
	if cfg, err := g.config(); err == nil {
		if dir := missingHelper(cfg.Agents); dir != "" {
			fmt.Fprintf(g.env.stderr, "recall: no recall-opencode beside %s nor on PATH: OpenCode's database under %s is not indexed until it is there; `go install github.com/recall-dev/recall/cmd/recall-opencode@latest` or `make install` puts it there\n", s.RecallPath, render.SafeText(dir))
		}
	}
	if strings.HasPrefix(s.RecallPath, os.TempDir()+string(filepath.Separator)) {
		fmt.Fprintf(g.env.stderr, "recall: warning: %s is in the temp directory (go run?); the hooks and the MCP server break once it is removed\n", s.RecallPath)
	}
	return nil
}

// hintBinary is the prompt hook's small binary (cmd/recall-hint) beside
// recall, "" when there is none.
func hintBinary(recallPath string) string { return sibling.Beside(recallPath, "recall-hint") }

// Run removes exactly what install added, and puts settings.json back as
// it was.
func (c *uninstallCmd) Run(g *Globals) error {
	s, err := c.setup(g)
	if err != nil {
		return err
	}
	return claude.Uninstall(s)
}

// hookArgs passes the index directory and sources to the hooks when they
// are not the defaults: Claude Code runs hooks in its own environment, where
// a RECALL_INDEX_DIR set in this shell may not exist, and the hooks must
// index where searches from here look.
func hookArgs(g *Globals) ([]string, error) {
	cfg, err := g.config()
	if err != nil {
		return nil, err
	}
	var args []string
	if dir, err := indexer.DefaultIndexDir(); err != nil || dir != cfg.IndexDir {
		args = append(args, "--index-dir", cfg.IndexDir)
	}
	if root, err := indexer.DefaultSource(); err != nil || len(cfg.Sources) != 1 || cfg.Sources[0] != root {
		for _, s := range cfg.Sources {
			args = append(args, "--source", s)
		}
	}
	return args, nil
}

func (f setupFlags) setup(g *Globals) (claude.Setup, error) {
	s, err := claude.DefaultSetup(g.fromCwd(f.Settings))
	s.DryRun, s.Out, s.Log = f.DryRun, g.env.stdout, g.env.stderr
	s.MCP = mcpSetup()
	return s, err
}

// mcpSetup finds the claude CLI (none: install and uninstall print the
// commands instead) and Claude Code's user configuration.
func mcpSetup() *claude.MCPSetup {
	path, _ := exec.LookPath("claude")
	return &claude.MCPSetup{Claude: path, ConfigFile: claude.UserConfigFile()}
}

// recallPath is the binary the hooks should run: recall as found on PATH
// when that is this very binary, since a PATH entry such as a symlink in
// /usr/local/bin outlives upgrades, else this executable's own path.
func recallPath() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find the recall executable: %w", err)
	}
	onPath, err := exec.LookPath("recall")
	if err != nil {
		return exe, nil
	}
	onPath, err = filepath.Abs(onPath)
	if err != nil {
		return exe, nil
	}
	if sameFile(onPath, exe) {
		return onPath, nil
	}
	return exe, nil
}

func sameFile(a, b string) bool {
	infoA, errA := os.Stat(a)
	infoB, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(infoA, infoB)
}
