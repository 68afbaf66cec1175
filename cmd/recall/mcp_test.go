package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// `recall mcp` runs as Claude Code runs it: the built binary as a
// subprocess, spoken to over stdio by the SDK's client. Its answers are
// checked against the CLI's --json.

// shopSession is the fixture session the MCP tests run "inside": like
// Claude Code, they set CLAUDE_CODE_SESSION_ID for the server.
const (
	shopSession  = "11111111-1111-4111-8111-111111111111"
	shopSession3 = "33333333-3333-4333-8333-333333333333"
)

// copyFixtures copies the fixture transcripts to a directory the test may
// add to, and returns the copy's projects folder.
func copyFixtures(t *testing.T) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "projects")
	if err := os.CopyFS(dst, os.DirFS(fixtures)); err != nil {
		t.Fatal(err)
	}
	return dst
}

// mcpRig is a running `recall mcp` and the CLI beside it, over one index.
type mcpRig struct {
	t          *testing.T
	bin        string
	env        []string
	src, index string
	session    *mcp.ClientSession
	stderr     *bytes.Buffer
}

func startMCP(t *testing.T, current string) *mcpRig {
	t.Helper()
	r := &mcpRig{t: t, bin: recallBinary(t), src: copyFixtures(t), index: filepath.Join(t.TempDir(), "index"), stderr: &bytes.Buffer{}}
	// Indexed from outside the session first: a running session's own
	// transcript is not indexed until it ends.
	r.env = hermeticEnv(t)
	if res := r.cli("index"); res.code != 0 {
		t.Fatalf("index: exit %d, stderr %q", res.code, res.stderr)
	}
	if current != "" {
		r.env = append(r.env, "CLAUDE_CODE_SESSION_ID="+current)
	}
	cmd := exec.Command(r.bin, "mcp", "--index-dir", r.index, "--source", r.src)
	cmd.Env, cmd.Stderr = r.env, r.stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "recall-test", Version: "v0"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	// The initialize handshake, as Claude Code speaks it.
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
	if err != nil {
		t.Fatalf("connect: %v (stderr %q)", err, r.stderr)
	}
	t.Cleanup(func() { cs.Close() })
	r.session = cs
	return r
}

// cli runs the recall binary with the rig's index, sources and
// environment.
func (r *mcpRig) cli(args ...string) runResult {
	r.t.Helper()
	cmd := exec.Command(r.bin, append(args, "--index-dir", r.index, "--source", r.src)...)
	cmd.Env = r.env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		r.t.Fatalf("run recall: %v", err)
	}
	return runResult{stdout.String(), stderr.String(), cmd.ProcessState.ExitCode()}
}

// call calls a tool and decodes its structured content into out.
func (r *mcpRig) call(tool string, args map[string]any, out any) *mcp.CallToolResult {
	r.t.Helper()
	res, err := r.session.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		r.t.Fatalf("%s: %v", tool, err)
	}
	if res.IsError {
		r.t.Fatalf("%s: tool error: %s", tool, textOf(res))
	}
	data, err := json.Marshal(res.StructuredContent)
	if err != nil {
		r.t.Fatal(err)
	}
	if err := json.Unmarshal(data, out); err != nil {
		r.t.Fatalf("%s: structured content: %v: %s", tool, err, data)
	}
	return res
}

func textOf(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// mcpSearch is the search tool's structured result.
type mcpSearch struct {
	Query    string `json:"query"`
	Sessions []struct {
		Rank           int      `json:"rank"`
		SessionID      string   `json:"session_id"`
		Project        string   `json:"project"`
		Score          float64  `json:"score"`
		Matches        int      `json:"matches"`
		FirstTimestamp string   `json:"first_timestamp"`
		LastTimestamp  string   `json:"last_timestamp"`
		Source         string   `json:"source"`
		Similar        []string `json:"similar"`
		Messages       []struct {
			SessionID string  `json:"session_id"`
			Type      string  `json:"type"`
			Timestamp string  `json:"timestamp"`
			Source    string  `json:"source"`
			Line      int     `json:"line"`
			Evidence  string  `json:"evidence"`
			Snippet   string  `json:"snippet"`
			Score     float64 `json:"score"`
		} `json:"messages"`
	} `json:"sessions"`
}

// cliSession is a --json line, with the fields the MCP result shares.
type cliSession struct {
	Rank           int      `json:"rank"`
	SessionID      string   `json:"session_id"`
	Project        string   `json:"project"`
	Score          float64  `json:"score"`
	Matches        int      `json:"matches"`
	FirstTimestamp string   `json:"first_timestamp"`
	LastTimestamp  string   `json:"last_timestamp"`
	Source         string   `json:"source"`
	Similar        []string `json:"similar"`
	Messages       []struct {
		Type      string  `json:"type"`
		Timestamp string  `json:"timestamp"`
		Source    string  `json:"source"`
		Line      int     `json:"line"`
		Snippet   string  `json:"snippet"`
		Score     float64 `json:"score"`
	} `json:"messages"`
}

func cliSessions(t *testing.T, stdout string) []cliSession {
	t.Helper()
	var out []cliSession
	sc := bufio.NewScanner(strings.NewReader(stdout))
	for sc.Scan() {
		var s cliSession
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			t.Fatalf("--json line: %v: %s", err, sc.Text())
		}
		out = append(out, s)
	}
	return out
}

// sameAsCLI checks that the MCP search result is the CLI's --json,
// session by session and message by message (less the whole texts).
func sameAsCLI(t *testing.T, got mcpSearch, want []cliSession) {
	t.Helper()
	if len(got.Sessions) != len(want) {
		t.Fatalf("MCP found %d sessions, the CLI %d", len(got.Sessions), len(want))
	}
	for i, g := range got.Sessions {
		w := want[i]
		if g.Rank != w.Rank || g.SessionID != w.SessionID || g.Project != w.Project || g.Score != w.Score || g.Matches != w.Matches ||
			g.FirstTimestamp != w.FirstTimestamp || g.LastTimestamp != w.LastTimestamp || g.Source != w.Source || !reflect.DeepEqual(g.Similar, w.Similar) {
			t.Errorf("session %d: MCP %+v, CLI %+v", i+1, g, w)
		}
		if len(g.Messages) != len(w.Messages) {
			t.Fatalf("session %d: MCP %d messages, CLI %d", i+1, len(g.Messages), len(w.Messages))
		}
		for j, m := range g.Messages {
			cm := w.Messages[j]
			if m.SessionID != w.SessionID || m.Type != cm.Type || m.Timestamp != cm.Timestamp || m.Source != cm.Source || m.Line != cm.Line ||
				m.Snippet != cm.Snippet || m.Score != cm.Score || m.Evidence != cm.Source+":"+strconv.Itoa(cm.Line) {
				t.Errorf("session %d message %d: MCP %+v, CLI %+v", i+1, j+1, m, cm)
			}
		}
	}
}

func TestMCPServer(t *testing.T) {
	r := startMCP(t, shopSession)

	init := r.session.InitializeResult()
	if init.ServerInfo.Name != "recall" || !strings.Contains(init.Instructions, "Recall before guessing") {
		t.Errorf("initialize: %+v", init.ServerInfo)
	}
	tools, err := r.session.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
		if tool.OutputSchema == nil || !tool.Annotations.ReadOnlyHint {
			t.Errorf("%s: no output schema or not read-only", tool.Name)
		}
	}
	slices.Sort(names)
	if !reflect.DeepEqual(names, []string{"search", "sessions", "show"}) {
		t.Fatalf("tools %v", names)
	}
	for _, tool := range tools.Tools {
		if tool.Name == "search" {
			for _, want := range []string{"require", "exclude", "phrase", "_ matches any one character", "since"} {
				if !strings.Contains(tool.Description, want) {
					t.Errorf("search description does not teach %q", want)
				}
			}
			schema, _ := json.Marshal(tool.InputSchema)
			for _, field := range []string{"query", "require", "exclude", "scope", "project", "since", "until", "limit"} {
				if !strings.Contains(string(schema), `"`+field+`"`) {
					t.Errorf("search input schema lacks %s: %s", field, schema)
				}
			}
		}
	}

	// search: the CLI's --json, at the agent's defaults (5 sessions × 3
	// messages), the current session left out as on the CLI.
	var found mcpSearch
	res := r.call("search", map[string]any{"query": "jwt token"}, &found)
	cli := r.cli("--json", "-n", "5", "-m", "3", "jwt", "token")
	if cli.code != 0 {
		t.Fatalf("CLI: exit %d, stderr %q", cli.code, cli.stderr)
	}
	sameAsCLI(t, found, cliSessions(t, cli.stdout))
	if len(found.Sessions) == 0 {
		t.Fatal("search found nothing")
	}
	for _, s := range found.Sessions {
		if s.SessionID == shopSession {
			t.Errorf("the current session was returned")
		}
	}
	if text := textOf(res); !strings.HasPrefix(text, "<!-- recall-output -->\n## recall: jwt or token") {
		t.Errorf("search text content:\n%s", text)
	}
	// Outside that session, it is found: the exclusion above is real.
	r2 := &mcpRig{t: t, bin: r.bin, env: hermeticEnv(t), src: r.src, index: r.index}
	if out := r2.cli("-l", "--no-update", "jwt"); !strings.Contains(out.stdout, shopSession) {
		t.Fatalf("the fixture session does not match jwt: %q", out.stdout)
	}

	// search with filters, through the same request builder as the CLI.
	var filtered mcpSearch
	r.call("search", map[string]any{"query": "jwt", "exclude": "fork", "project": "shop", "scope": "session", "limit": 1}, &filtered)
	cli = r.cli("--json", "-n", "1", "-m", "3", "jwt", "-x", "fork", "--project", "shop", "--scope", "session")
	sameAsCLI(t, filtered, cliSessions(t, cli.stdout))

	// show: the messages around the first hit's evidence, as the CLI
	// prints them.
	m := found.Sessions[0].Messages[0]
	var shown map[string]any
	r.call("show", map[string]any{"session": m.Evidence, "context": 2, "query": "jwt"}, &shown)
	cliShow := r.cli("show", "--json", m.Evidence, "-C", "2", "--query", "jwt")
	var want map[string]any
	if err := json.Unmarshal([]byte(cliShow.stdout), &want); err != nil {
		t.Fatalf("show --json: %v (%q)", err, cliShow.stderr)
	}
	if shown["recall_mcp_result"] != true {
		t.Errorf("MCP show lacks the recall_mcp_result mark: %v", shown)
	}
	delete(shown, "recall_mcp_result") // the MCP result's own mark; the rest is the CLI's
	if !reflect.DeepEqual(shown, want) {
		t.Errorf("MCP show differs from the CLI:\n%v\n%v", shown, want)
	}
	hit := false
	for _, msg := range shown["messages"].([]any) {
		mm := msg.(map[string]any)
		if mm["hit"] == true {
			hit = mm["source"] == m.Source && int(mm["line"].(float64)) == m.Line
		}
	}
	if !hit {
		t.Errorf("show did not centre on %s", m.Evidence)
	}

	// sessions.
	var listed struct {
		Sessions []struct {
			SessionID string `json:"session_id"`
		} `json:"sessions"`
		Total int `json:"total"`
	}
	r.call("sessions", map[string]any{"project": "shop"}, &listed)
	if listed.Total != 2 || len(listed.Sessions) != 2 || listed.Sessions[0].SessionID != shopSession3 {
		t.Errorf("sessions: %+v", listed)
	}

	// An unknown session is a tool error the model can read.
	bad, err := r.session.CallTool(context.Background(), &mcp.CallToolParams{Name: "show", Arguments: map[string]any{"session": "zzz"}})
	if err != nil || !bad.IsError || !strings.Contains(textOf(bad), `no indexed session has an id starting with "zzz"`) {
		t.Errorf("show zzz: %v %+v", err, bad)
	}
}

// Calls are served concurrently, each on its own snapshot, and a search
// first indexes what was written since (as the CLI does).
func TestMCPServerConcurrentAndFresh(t *testing.T) {
	r := startMCP(t, "")
	var wg sync.WaitGroup
	results := make([]mcpSearch, 8)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.call("search", map[string]any{"query": "jwt"}, &results[i])
		}()
	}
	wg.Wait()
	for i := range results {
		if len(results[i].Sessions) == 0 || !reflect.DeepEqual(sessionIDs(results[i]), sessionIDs(results[0])) {
			t.Errorf("call %d: %v, call 0: %v", i, sessionIDs(results[i]), sessionIDs(results[0]))
		}
	}

	// A session written after the server started is found.
	s := startAt("2026-03-05T10:00:00Z").user("Where did we configure the zanzibar authorisation service?").session(sessionID('f'), "/home/dev/src/auth")
	if err := s.Write(r.src); err != nil {
		t.Fatal(err)
	}
	var fresh mcpSearch
	r.call("search", map[string]any{"query": "zanzibar"}, &fresh)
	if len(fresh.Sessions) != 1 || fresh.Sessions[0].SessionID != sessionID('f') {
		t.Errorf("a new session was not indexed first: %+v (stderr %q)", fresh, r.stderr)
	}
}

func sessionIDs(s mcpSearch) []string {
	var out []string
	for _, x := range s.Sessions {
		out = append(out, x.SessionID)
	}
	return out
}

// Nothing but protocol on stdout: every line `recall mcp` writes is a
// JSON-RPC message, even when it indexes first and logs (-v) on stderr.
func TestMCPStdoutIsProtocolOnly(t *testing.T) {
	bin := recallBinary(t)
	src := copyFixtures(t)
	index := filepath.Join(t.TempDir(), "index")
	requests := []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"search","arguments":{"query":"jwt"}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"sessions","arguments":{}}}`,
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-v", "mcp", "--index-dir", index, "--source", src)
	cmd.Env = hermeticEnv(t)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(stdin, strings.Join(requests, "\n")+"\n"); err != nil {
		t.Fatal(err)
	}
	// Read until every request is answered, then close stdin: the server
	// then exits.
	answered := map[float64]bool{}
	sc := bufio.NewScanner(stdout)
	sc.Buffer(nil, 1<<24)
	for len(answered) < 4 && sc.Scan() {
		var msg map[string]any
		if err := json.Unmarshal(sc.Bytes(), &msg); err != nil || msg["jsonrpc"] != "2.0" {
			t.Fatalf("not a JSON-RPC message on stdout: %q", sc.Text())
		}
		if id, ok := msg["id"].(float64); ok {
			result, _ := msg["result"].(map[string]any)
			if msg["error"] != nil || result["isError"] == true {
				t.Errorf("request %v failed: %s", id, sc.Text())
			}
			answered[id] = true
		}
	}
	stdin.Close()
	rest, _ := io.ReadAll(stdout)
	if err := cmd.Wait(); err != nil {
		t.Errorf("recall mcp: %v, stderr %q", err, stderr.String())
	}
	if len(answered) < 4 || len(rest) > 0 {
		t.Errorf("answered %v; more on stdout: %q (stderr %q)", answered, rest, stderr.String())
	}
	if !strings.Contains(stderr.String(), "msg=search") {
		t.Errorf("-v logged nothing on stderr: %q", stderr.String())
	}
}
