// Command recall-mcp is recall's MCP server (package mcpserver/stdio):
// `recall mcp`, the command `recall install` registers with Claude Code,
// hands over to it.
package main

import (
	"os"

	"github.com/recall-dev/recall/mcpserver/stdio"
)

// version is set by the Makefile through -ldflags.
var version = "dev"

func main() {
	cwd, _ := os.Getwd()
	os.Exit(stdio.Main(os.Args[1:], version, stdio.Env{
		Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr,
		Cwd: cwd, Getenv: os.Getenv, ParentPID: os.Getppid(),
	}))
}
