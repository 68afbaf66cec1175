package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recall-dev/recall/claude"
	"github.com/recall-dev/recall/lineage"
	"github.com/recall-dev/recall/mcpserver"
	"github.com/recall-dev/recall/mcpserver/stdio"
	"github.com/recall-dev/recall/store"
)

// Sessions of the hint tests, in Claude Code's shapes: a parent that
// solved a problem, an unrelated session, and a fork of the parent
// (`--resume --fork-session`: the parent's records copied with their
// uuids under the fork's id, no forkedFrom, as 2.1.330 writes them).
const (
	hintParent = "aaaaaaaa-1111-4111-8111-111111111111"
	hintOther  = "bbbbbbbb-2222-4222-8222-222222222222"
	hintFork   = "cccccccc-3333-4333-8333-333333333333"
	hintNew    = "dddddddd-4444-4444-8444-444444444444"
	hintCwd    = "/home/dev/src/shop"
)

type turn struct{ uuid, role, text string }

var parentTurns = []turn{
	{"u-0001", "user", "The stripe webhook signature verification keeps failing in production behind the nginx proxy"},
	{"a-0002", "assistant", "The proxy rewrites the request body, so the stripe signature no longer matches: verify the webhook against the raw bytes before any JSON parsing, and turn off nginx body buffering for that route."},
	{"u-0003", "user", "That fixed the webhook signature verification, thanks. Add a test for the raw body path."},
	{"a-0004", "assistant", "Added TestWebhookRawBody that signs a payload with the test secret and checks verification passes through the proxy handler."},
}

var otherTurns = []turn{
	{"u-0101", "user", "Set up the grafana dashboard for queue latency and alert when p99 goes over two seconds"},
	{"a-0102", "assistant", "I added a grafana dashboard with the queue latency panel and an alert rule on the p99 over two seconds."},
}

func transcriptLines(session string, turns []turn, day int) string {
	var b strings.Builder
	parent := any(nil)
	for i, tr := range turns {
		rec := map[string]any{"type": tr.role, "uuid": tr.uuid, "parentUuid": parent, "sessionId": session, "cwd": hintCwd,
			"timestamp": fmt.Sprintf("2026-03-%02dT10:%02d:00.000Z", day, i), "isSidechain": false, "entrypoint": "cli", "version": "2.1.330"}
		if tr.role == "user" {
			rec["message"] = map[string]any{"role": "user", "content": tr.text}
		} else {
			rec["message"] = map[string]any{"role": "assistant", "id": "msg_" + tr.uuid, "content": []any{map[string]any{"type": "text", "text": tr.text}}}
		}
		line, _ := json.Marshal(rec)
		b.Write(line)
		b.WriteByte('\n')
		parent = tr.uuid
	}
	return b.String()
}

// hintFixture writes the parent and the other session, indexes them,
// then writes the running fork (not indexed: it is the current session).
func hintFixture(t *testing.T) (src, idx, forkPath string) {
	t.Helper()
	root := t.TempDir()
	src, idx = filepath.Join(root, "projects"), filepath.Join(root, "index")
	dir := filepath.Join(src, "-home-dev-src-shop")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	write := func(id, text string) string {
		p := filepath.Join(dir, id+".jsonl")
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write(hintParent, transcriptLines(hintParent, parentTurns, 1))
	write(hintOther, transcriptLines(hintOther, otherTurns, 2))
	if r := runCLI(t, "index", "--source", src, "--index-dir", idx, "--current-session", hintFork); r.code != 0 {
		t.Fatalf("index: %d %s", r.code, r.stderr)
	}
	fork := transcriptLines(hintFork, parentTurns, 1) + transcriptLines(hintFork, []turn{{"u-0301", "user", "Now make the webhook retries idempotent"}}, 5)
	forkPath = write(hintFork, fork)
	return src, idx, forkPath
}

func hookPayload(event, session, transcript, prompt string) string {
	p, _ := json.Marshal(map[string]string{"session_id": session, "transcript_path": transcript, "cwd": hintCwd,
		"hook_event_name": event, "prompt": prompt, "permission_mode": "default"})
	return string(p)
}

func TestHookPromptHint(t *testing.T) {
	src, idx, forkPath := hintFixture(t)
	common := []string{"hook", "--source", src, "--index-dir", idx}
	const prompt = "stripe webhook signature verification fails behind the nginx proxy again"
	for _, tc := range []struct {
		name, payload string
		want          string // in stdout; "" for no output at all
	}{
		{"a prompt another session answers", hookPayload("UserPromptSubmit", hintNew, "", prompt), hintParent},
		{"the fork's parent is its lineage", hookPayload("UserPromptSubmit", hintFork, forkPath, prompt), ""},
		{"a prompt no session answers", hookPayload("UserPromptSubmit", hintNew, "", "add a dark mode toggle to the settings page"), ""},
		{"a slash command", hookPayload("UserPromptSubmit", hintNew, "", "/compact "+prompt), ""},
		{"a task notification", hookPayload("UserPromptSubmit", hintNew, "", "<task-notification><summary>"+prompt+"</summary></task-notification>"), ""},
		{"a teammate message", hookPayload("UserPromptSubmit", hintNew, "", "<teammate-message>"+prompt+"</teammate-message>"), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runCLIWith(t, "", tc.payload, common...)
			if r.code != 0 {
				t.Fatalf("hook exit %d, stderr %q", r.code, r.stderr)
			}
			if tc.want == "" {
				if r.stdout != "" {
					t.Fatalf("hook printed %q, want nothing", r.stdout)
				}
				return
			}
			for _, want := range []string{"<recall-hint>", tc.want, hintParent + ".jsonl:", "recall show "} {
				if !strings.Contains(r.stdout, want) {
					t.Errorf("hint lacks %q:\n%s", want, r.stdout)
				}
			}
			if len(r.stdout) > 2000 {
				t.Errorf("hint of %d bytes, want a few hundred tokens", len(r.stdout))
			}
		})
	}
	log, _ := os.ReadFile(filepath.Join(idx, claude.HookLogFileName))
	if !strings.Contains(string(log), "UserPromptSubmit") || !strings.Contains(string(log), "hint shown") {
		t.Errorf("hook.log does not say what the hint did:\n%s", log)
	}
}

func TestHintCommandExplain(t *testing.T) {
	src, idx, _ := hintFixture(t)
	r := runCLI(t, "hint", "--explain", "--source", src, "--index-dir", idx, "stripe", "webhook", "signature", "verification", "nginx", "proxy")
	if r.code != 0 || !strings.Contains(r.stdout, hintParent) || !strings.Contains(r.stderr, "shown:") {
		t.Fatalf("hint: code %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	r = runCLI(t, "hint", "--explain", "--source", src, "--index-dir", idx, "add", "a", "dark", "mode", "toggle")
	if r.code != 1 || r.stdout != "" || !strings.Contains(r.stderr, "silent") {
		t.Fatalf("silent hint: code %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}

// A forked session's parent is left out of searches while the fork runs.
func TestSearchLeavesOutTheRunningForksParent(t *testing.T) {
	src, idx, _ := hintFixture(t)
	common := []string{"--source", src, "--index-dir", idx, "--no-update", "-l", "stripe webhook signature"}
	if r := runCLI(t, common...); r.code != 0 || !strings.Contains(r.stdout, hintParent) {
		t.Fatalf("without a running fork: code %d, stdout %q", r.code, r.stdout)
	}
	r := runCLI(t, append([]string{"--current-session", hintFork}, common...)...)
	if strings.Contains(r.stdout, hintParent) {
		t.Fatalf("the running fork's parent was shown: %q", r.stdout)
	}
	snap, err := store.Open(idx).Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	st := lineage.Load(idx, hintFork)
	if st == nil || len(st.Sessions) != 1 || st.Sessions[0] != hintParent {
		t.Fatalf("cached lineage %+v, want the parent", st)
	}
}

// The hook keeps its other events' behaviour: nothing on stdout.
func TestHookStopPrintsNothing(t *testing.T) {
	src, idx, forkPath := hintFixture(t)
	r := runCLIWith(t, "", hookPayload("Stop", hintFork, forkPath, ""), "hook", "--source", src, "--index-dir", idx)
	if r.code != 0 || r.stdout != "" {
		t.Fatalf("Stop hook: code %d, stdout %q", r.code, r.stdout)
	}
}

// After /clear in a running `recall mcp`, the new session is left out at
// once: the SessionEnd hook notes the succession, and the server asks its
// tracker on every call.
func TestMCPFollowsClear(t *testing.T) {
	src, idx, _ := hintFixture(t)
	env := stdio.Env{Cwd: hintCwd, Getenv: func(name string) string {
		if name == "CLAUDE_PROJECT_DIR" {
			return ""
		}
		return os.Getenv(name)
	}, ParentPID: os.Getppid()}
	srv, err := stdio.ServerConfig(stdio.Flags{Sources: []string{src}, IndexDir: idx, CurrentSession: hintOther, NoUpdate: true}, "test", env, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs := connectMCP(t, srv)
	if got := mcpSearchText(t, cs, "grafana dashboard latency"); strings.Contains(got, hintOther) {
		t.Fatalf("the session the server started in was shown:\n%s", got)
	}
	if got := mcpSearchText(t, cs, "stripe webhook signature"); !strings.Contains(got, hintParent) {
		t.Fatalf("before /clear: the parent was not shown:\n%s", got)
	}
	// /clear: SessionEnd for the old session, the environment already
	// naming the new one.
	t.Setenv("CLAUDE_CODE_SESSION_ID", hintParent)
	if r := runCLIWith(t, "", `{"session_id":"`+hintOther+`","hook_event_name":"SessionEnd","reason":"clear"}`, "hook", "--source", src, "--index-dir", idx); r.code != 0 {
		t.Fatalf("hook: %d %s", r.code, r.stderr)
	}
	if got := mcpSearchText(t, cs, "stripe webhook signature"); strings.Contains(got, hintParent) {
		t.Fatalf("after /clear the new session was shown:\n%s", got)
	}
	if got := mcpSearchText(t, cs, "grafana dashboard latency"); !strings.Contains(got, hintOther) {
		t.Fatalf("after /clear the session it ended was not shown:\n%s", got)
	}
}

func connectMCP(t *testing.T, cfg mcpserver.Config) *mcp.ClientSession {
	t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	if _, err := mcpserver.New(cfg).Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func mcpSearchText(t *testing.T, cs *mcp.ClientSession, query string) string {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "search", Arguments: map[string]any{"query": query}})
	if err != nil {
		t.Fatal(err)
	}
	data, _ := json.Marshal(res.StructuredContent)
	return string(data)
}
