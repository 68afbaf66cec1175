package main

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"

	"github.com/recall-dev/recall/internal/sibling"
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
session Claude Code runs the server in (CLAUDE_CODE_SESSION_ID) is never shown.
The server is the recall-mcp binary beside recall (make build and make install
put it there), which this command becomes.`
}

// Run hands the process over to recall-mcp (exec: the same process, its
// stdin, stdout, environment and parent), with the flags resolved as
// every command resolves them.
func (c *mcpCmd) Run(g *Globals) error {
	bin, err := mcpBinary()
	if err != nil {
		return err
	}
	argv := append([]string{bin}, c.serverArgs(g)...)
	if err := unix.Exec(bin, argv, os.Environ()); err != nil {
		return fmt.Errorf("run %s: %w", bin, err)
	}
	return nil // not reached: Exec returns only on failure
}

// serverArgs are recall-mcp's flags for what this command was given:
// the index directory and sources read from the working directory and
// with ~ expanded, as config reads them.
func (c *mcpCmd) serverArgs(g *Globals) []string {
	in := g.configInput()
	var args []string
	if in.IndexDir != "" {
		args = append(args, "--index-dir", in.IndexDir)
	}
	for _, s := range in.Sources {
		args = append(args, "--source", s)
	}
	if in.CurrentSession != "" {
		args = append(args, "--current-session", in.CurrentSession)
	}
	if g.Verbose {
		args = append(args, "-v")
	}
	if c.NoUpdate {
		args = append(args, "--no-update")
	}
	return args
}

// errNoMCPBinary says where recall-mcp was looked for.
var errNoMCPBinary = errors.New("the MCP server is the recall-mcp binary, and there is none beside recall nor on PATH: `make install`, `make build`, or `go install github.com/recall-dev/recall/cmd/recall-mcp@latest` puts it there")

// mcpBinary is the recall-mcp this recall hands over to.
func mcpBinary() (string, error) {
	if path := sibling.Find("recall-mcp"); path != "" {
		return path, nil
	}
	return "", errNoMCPBinary
}

// mcpBinaryFor is the recall-mcp the recall at recallPath hands over to,
// "" when there is none.
func mcpBinaryFor(recallPath string) string { return sibling.FindFrom(recallPath, "recall-mcp") }
