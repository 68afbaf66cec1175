package main

import (
	"bytes"
	"io"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/recall-dev/recall/mcpserver/stdio"
)

// TestRecallLinksNoHelpersPackages: the MCP server is recall-mcp's, and
// SQLite recall-opencode's; linked into recall, their packages cost
// every start (docs/mcp.md; docs/performance.md, "OpenCode's database
// read by a helper").
func TestRecallLinksNoHelpersPackages(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool")
	}
	out, err := exec.Command(goTool, "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if strings.Contains(pkg, "modelcontextprotocol") || pkg == "github.com/recall-dev/recall/mcpserver" || pkg == "encoding/gob" || pkg == "net/http" ||
			strings.HasPrefix(pkg, "modernc.org/") {
			t.Errorf("recall links %s", pkg)
		}
	}
}

// TestMCPServerArgs: what `recall mcp` passes on, recall-mcp reads back
// as the same settings, whatever the working directory and flags.
func TestMCPServerArgs(t *testing.T) {
	tests := []struct {
		name string
		g    Globals
		cmd  mcpCmd
	}{
		{"defaults", Globals{}, mcpCmd{}},
		{"relative paths from the working directory", Globals{IndexDir: "idx", Source: []string{"projects", "/abs/p"}}, mcpCmd{}},
		{"an agent's path with ~", Globals{Source: []string{"codex:~/.codex", "gemini:rel/g"}}, mcpCmd{}},
		{"session, verbose, no update", Globals{CurrentSession: "abc", Verbose: true}, mcpCmd{NoUpdate: true}},
		{"a path like a flag", Globals{IndexDir: "-v", Source: []string{"--no-update"}}, mcpCmd{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.g.env = env{cwd: "/work/dir"}
			f, err := stdio.Parse(tt.cmd.serverArgs(&tt.g), func(string) string { return "" }, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			in := tt.g.configInput()
			if f.IndexDir != in.IndexDir || !slices.Equal(f.Sources, in.Sources) || f.CurrentSession != in.CurrentSession || f.Verbose != tt.g.Verbose || f.NoUpdate != tt.cmd.NoUpdate {
				t.Errorf("recall-mcp read %+v, want %+v (verbose %v, no update %v)", f, in, tt.g.Verbose, tt.cmd.NoUpdate)
			}
			for _, s := range f.Sources {
				path := s
				if _, p, isAgent := strings.Cut(s, ":"); isAgent {
					path = p
				}
				if !filepath.IsAbs(path) {
					t.Errorf("source %q passed on unresolved", s)
				}
			}
		})
	}
}

// TestMCPWithoutServerBinary: a recall with no recall-mcp beside it nor
// on PATH says where to get it, with status 2 and nothing on stdout.
func TestMCPWithoutServerBinary(t *testing.T) {
	alone := binaryAlone(t, recallBinary(t))
	cmd := exec.Command(alone, "mcp", "--index-dir", t.TempDir())
	cmd.Env = append(hermeticEnv(t), "PATH="+t.TempDir())
	var stdout, stderr bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = strings.NewReader(""), &stdout, &stderr
	err := cmd.Run()
	if code := cmd.ProcessState.ExitCode(); code != 2 || stdout.Len() != 0 || !strings.Contains(stderr.String(), "recall-mcp") || !strings.Contains(stderr.String(), "go install github.com/recall-dev/recall/cmd/recall-mcp@latest") {
		t.Fatalf("exit %d (%v), stdout %q, stderr %q", code, err, stdout.String(), stderr.String())
	}
}
