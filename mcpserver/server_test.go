package mcpserver

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Calls that arrive while an update runs are served by the next one, and
// a call is never served by an update that started before it arrived.
func TestFreshenerSharesUpdates(t *testing.T) {
	ctx := context.Background()
	updates := 0
	f := &freshener{update: func() { updates++ }}
	before := time.Now()
	if !f.run(ctx) || updates != 1 {
		t.Fatalf("%d updates, want 1", updates)
	}
	f.runFor(ctx, before) // arrived before the update above started: served by it
	if updates != 1 {
		t.Errorf("a call served by a later update updated again: %d", updates)
	}
	f.runFor(ctx, time.Now()) // arrived after: needs its own
	if updates != 2 {
		t.Errorf("a call that arrived after the last update was not served: %d", updates)
	}
	(&freshener{}).run(ctx) // no update configured: nothing to do
}

// A call waits for the update only as long as its context lets it; the
// update goes on and serves the calls after.
func TestFreshenerWaitIsBounded(t *testing.T) {
	release := make(chan struct{})
	f := &freshener{update: func() { <-release }}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if f.run(ctx) {
		t.Fatal("run reported an update that had not finished")
	}
	arrived := time.Now()
	close(release)
	// The update above started before this call arrived: it needs one of
	// its own, which runs at once.
	if !f.runFor(context.Background(), arrived) {
		t.Fatal("the next call was not served")
	}
}

func connect(t *testing.T, cfg Config) *mcp.ClientSession {
	t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	if _, err := New(cfg).Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// Bad arguments and a missing index are tool errors the model can read,
// naming the tool's parameters, never the CLI's flags.
func TestToolErrors(t *testing.T) {
	cs := connect(t, Config{IndexDir: t.TempDir()})
	tests := []struct {
		tool string
		args map[string]any
		want string
	}{
		{"search", map[string]any{"query": "jwt", "scope": "everywhere"}, `/properties/scope: enum: everywhere does not equal any of: [message session]`},
		{"search", map[string]any{"query": "jwt", "since": "last tuesday"}, `since: cannot read time "last tuesday"`},
		{"search", map[string]any{"query": "jwt", "limit": -1}, "limit -1: must not be negative"},
		{"search", map[string]any{"query": "jwt", "offset": -2}, "offset -2: must not be negative"},
		{"show", map[string]any{"session": "abc", "context": 1 << 40}, "context 1099511627776: at most 100000"},
		{"show", map[string]any{"session": "abc", "offset": 3}, "give full=true with it"},
		{"search", map[string]any{"query": "jwt", "agent": "codex codx"}, `agent "codx": want one of claude, codex, gemini, opencode, aider`},
		{"sessions", map[string]any{"agent": "cursor"}, `agent "cursor": want one of`},
		{"search", map[string]any{"query": "jwt"}, "recall has no index in"},
		{"show", map[string]any{"session": ""}, "give a session id"},
		{"sessions", map[string]any{}, "recall has no index in"},
	}
	for _, tt := range tests {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tt.tool, Arguments: tt.args})
		if err != nil {
			t.Fatalf("%s %v: protocol error %v", tt.tool, tt.args, err)
		}
		text := ""
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				text += tc.Text
			}
		}
		if !res.IsError || !strings.Contains(text, tt.want) {
			t.Errorf("%s %v: error %v %q, want %q", tt.tool, tt.args, res.IsError, text, tt.want)
		}
		if strings.Contains(text, "--") {
			t.Errorf("%s %v: %q names a CLI flag", tt.tool, tt.args, text)
		}
	}
}
