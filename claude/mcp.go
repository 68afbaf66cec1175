package claude

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// MCPServerName is the name recall's MCP server is registered under:
// Claude sees its tools as mcp__recall__search, mcp__recall__show and
// mcp__recall__sessions.
const MCPServerName = "recall"

// MCPSetup says how install registers recall's MCP server with Claude
// Code: through the claude CLI, the way Claude Code documents
// (`claude mcp add --scope user recall -- <recall> mcp`), so recall never
// edits Claude Code's own configuration file.
type MCPSetup struct {
	// Claude is the claude CLI's path; "" when it is not on PATH, and the
	// commands are printed for the user to run.
	Claude string
	// Server is the server's command line: recall's absolute path, "mcp"
	// and any flags (the index directory and sources when not the
	// defaults).
	Server []string
	// ConfigFile is Claude Code's user configuration (~/.claude.json, or
	// $CLAUDE_CONFIG_DIR/.claude.json), read only to learn what is
	// registered already; "" when unknown.
	ConfigFile string
}

// UserConfigFile is where Claude Code keeps user-scope MCP servers:
// $CLAUDE_CONFIG_DIR/.claude.json, else ~/.claude.json.
func UserConfigFile() string {
	if configDirFromEnv() != "" {
		dir, err := ConfigDir()
		if err != nil {
			return ""
		}
		return filepath.Join(dir, ".claude.json")
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".claude.json")
}

// MCPAddArgs are the claude CLI arguments that register server.
func MCPAddArgs(server []string) []string {
	return append([]string{"mcp", "add", "--scope", "user", MCPServerName, "--"}, server...)
}

// MCPRemoveArgs are the claude CLI arguments that unregister recall's
// server.
func MCPRemoveArgs() []string {
	return []string{"mcp", "remove", "--scope", "user", MCPServerName}
}

// commandLine is args after "claude", quoted for a shell: what a person
// can paste.
func commandLine(args []string) string {
	words := []string{"claude"}
	for _, a := range args {
		words = append(words, shellQuote(a))
	}
	return strings.Join(words, " ")
}

// MCPRegistration is what Claude Code's configuration says of the server
// named recall.
type MCPRegistration struct {
	Known   bool     // the configuration file was read
	Found   bool     // a user-scope server named recall is registered
	Command []string // its command and arguments
}

// IsRecall reports whether the registered server runs `recall mcp`.
func (r MCPRegistration) IsRecall() bool {
	return r.Found && len(r.Command) >= 2 && filepath.Base(r.Command[0]) == "recall" && slices.Contains(r.Command[1:], "mcp")
}

// Registered reads the user-scope registration of recall's server.
func (m *MCPSetup) Registered() MCPRegistration {
	if m.ConfigFile == "" {
		return MCPRegistration{}
	}
	data, err := os.ReadFile(m.ConfigFile)
	if errors.Is(err, fs.ErrNotExist) {
		return MCPRegistration{Known: true}
	}
	if err != nil {
		return MCPRegistration{}
	}
	var cfg struct {
		MCPServers map[string]struct {
			Command string   `json:"command"`
			Args    []string `json:"args"`
		} `json:"mcpServers"`
	}
	if json.Unmarshal(data, &cfg) != nil {
		return MCPRegistration{}
	}
	srv, ok := cfg.MCPServers[MCPServerName]
	if !ok {
		return MCPRegistration{Known: true}
	}
	return MCPRegistration{Known: true, Found: true, Command: append([]string{srv.Command}, srv.Args...)}
}

// registerMCP registers recall's server unless it is registered already
// with the same command; one registered with another (an older path) is
// replaced.
func (s Setup) registerMCP() error {
	m := s.MCP
	if m == nil {
		return nil
	}
	reg := m.Registered()
	if reg.Found && slices.Equal(reg.Command, m.Server) {
		s.logf("MCP server %s: registered already (%s)", MCPServerName, strings.Join(m.Server, " "))
		return nil
	}
	steps := [][]string{MCPAddArgs(m.Server)}
	if reg.Found {
		steps = [][]string{MCPRemoveArgs(), MCPAddArgs(m.Server)}
	}
	switch {
	case s.DryRun:
		for _, args := range steps {
			fmt.Fprintf(s.Out, "would run: %s\n", commandLine(args))
		}
		s.logf("MCP server %s: would register it with Claude Code (dry run, nothing run)", MCPServerName)
		return nil
	case m.Claude == "":
		s.logf("MCP server %s: the claude CLI is not on PATH; to give Claude recall's tools, run:\n  %s", MCPServerName, commandLine(steps[len(steps)-1]))
		return nil
	}
	for _, args := range steps {
		out, err := m.run(args)
		if err != nil && strings.Contains(strings.ToLower(out), "already exists") {
			// Registered where the configuration file did not show it:
			// replace it.
			if _, err = m.run(MCPRemoveArgs()); err == nil {
				out, err = m.run(args)
			}
		}
		if err != nil {
			return fmt.Errorf("register the MCP server: `%s`: %v: %s", commandLine(args), err, strings.TrimSpace(out))
		}
	}
	s.logf("MCP server %s: registered with Claude Code (%s)", MCPServerName, commandLine(steps[len(steps)-1]))
	return nil
}

// unregisterMCP removes recall's server if it is registered (or if the
// configuration cannot tell); a server named recall that does not run
// recall is left alone.
func (s Setup) unregisterMCP() error {
	m := s.MCP
	if m == nil {
		return nil
	}
	reg := m.Registered()
	switch {
	case reg.Known && !reg.Found:
		s.logf("MCP server %s: not registered", MCPServerName)
		return nil
	case reg.Found && !reg.IsRecall():
		s.logf("MCP server %s: the one registered runs %q, not recall; left it", MCPServerName, strings.Join(reg.Command, " "))
		return nil
	case s.DryRun:
		fmt.Fprintf(s.Out, "would run: %s\n", commandLine(MCPRemoveArgs()))
		s.logf("MCP server %s: would unregister it (dry run, nothing run)", MCPServerName)
		return nil
	case m.Claude == "":
		s.logf("MCP server %s: the claude CLI is not on PATH; to unregister recall's server, run:\n  %s", MCPServerName, commandLine(MCPRemoveArgs()))
		return nil
	}
	out, err := m.run(MCPRemoveArgs())
	if err != nil {
		if !reg.Known && strings.Contains(strings.ToLower(out), "no ") {
			s.logf("MCP server %s: not registered", MCPServerName)
			return nil
		}
		return fmt.Errorf("unregister the MCP server: `%s`: %v: %s", commandLine(MCPRemoveArgs()), err, strings.TrimSpace(out))
	}
	s.logf("MCP server %s: unregistered from Claude Code", MCPServerName)
	return nil
}

// run runs the claude CLI with args and returns what it printed.
func (m *MCPSetup) run(args []string) (string, error) {
	out, err := exec.Command(m.Claude, args...).CombinedOutput()
	return string(out), err
}
