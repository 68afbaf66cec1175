package main

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"errors"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
	_ "modernc.org/sqlite" // the tests build OpenCode databases, and recall in process reads them so
)

// Other agents' sessions, end to end through the CLI: found under their
// sources, searched and ranked with Claude Code's, named by agent,
// reopened by each agent's own command.

const codexFixtures = "../../testdata/transcripts/codex"

// copyTree copies the fixture tree src to dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		out := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(out, 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(out, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// statsRows is `recall stats --json`'s rows and its agents' rows.
func statsRows(t *testing.T, idx string, sources ...string) (int64, map[string]int64) {
	t.Helper()
	args := []string{"stats", "--json", "--no-verify", "--index-dir", idx}
	for _, s := range sources {
		args = append(args, "--source", s)
	}
	r := runCLI(t, args...)
	if r.code != 0 {
		t.Fatalf("stats: %d %s", r.code, r.stderr)
	}
	var st struct {
		Rows   int64 `json:"rows"`
		Agents map[string]struct {
			Rows int64 `json:"rows"`
		} `json:"agents"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &st); err != nil {
		t.Fatalf("stats json: %v\n%s", err, r.stdout)
	}
	by := map[string]int64{}
	for a, s := range st.Agents {
		by[a] = s.Rows
	}
	return st.Rows, by
}

// agentSearch runs a search and decodes its --json lines.
func agentSearch(t *testing.T, args ...string) []map[string]any {
	t.Helper()
	r := runCLI(t, append([]string{"search", "--json", "--no-update"}, args...)...)
	if r.code > 1 {
		t.Fatalf("search %v: %d %s", args, r.code, r.stderr)
	}
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("json line %q: %v", line, err)
		}
		out = append(out, m)
	}
	return out
}

// TestCodexRolloutKeepsItsRowsWhenArchivedAndCompressed follows a rollout
// as Codex moves it: found in sessions/, moved by `codex archive` to
// archived_sessions/, then compressed there to .jsonl.zst. The index
// holds exactly its rows through every step: none read twice, none lost.
func TestCodexRolloutKeepsItsRowsWhenArchivedAndCompressed(t *testing.T) {
	home := filepath.Join(t.TempDir(), "codex")
	copyTree(t, codexFixtures, home)
	idx := filepath.Join(t.TempDir(), "index")
	src := "codex:" + home
	index := func(step string) {
		t.Helper()
		if r := runCLI(t, "index", "--source", src, "--index-dir", idx); r.code != 0 {
			t.Fatalf("%s: index: %d %s", step, r.code, r.stderr)
		}
	}
	index("first read")
	rows, by := statsRows(t, idx, src)
	if rows == 0 || by["codex"] != rows {
		t.Fatalf("first read: %d rows, by agent %v", rows, by)
	}
	const id = "0199b6f2-1c3a-7d41-9e0a-5b7c2d9e1f05"
	before := codexShown(t, idx, id)
	if before == 0 {
		t.Fatalf("show %s: no messages", id)
	}
	live := mustGlob(t, filepath.Join(home, "sessions", "*", "*", "*", "*"+id+".jsonl"))[0]
	archived := filepath.Join(home, "archived_sessions", filepath.Base(live))
	if err := os.Rename(live, archived); err != nil {
		t.Fatal(err)
	}
	index("archived")
	if got, _ := statsRows(t, idx, src); got != rows {
		t.Errorf("archived: %d rows, want %d", got, rows)
	}
	codexStillOnDisk(t, idx, id, archived)
	// Codex resumes no archived thread: it is unarchived first.
	if r := runCLI(t, "resume", id, "--index-dir", idx); !strings.Contains(r.stdout, "codex unarchive "+id+" && codex resume "+id) {
		t.Errorf("resume of the archived thread: %q %q", r.stdout, r.stderr)
	}
	data, err := os.ReadFile(archived)
	if err != nil {
		t.Fatal(err)
	}
	enc, _ := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault))
	if err := os.WriteFile(archived+".zst", enc.EncodeAll(data, nil), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(archived); err != nil {
		t.Fatal(err)
	}
	index("compressed")
	if got, _ := statsRows(t, idx, src); got != rows {
		t.Errorf("compressed: %d rows, want %d", got, rows)
	}
	if got := codexShown(t, idx, id); got != before {
		t.Errorf("show %s after compression: %d messages, want %d", id, got, before)
	}
	codexStillOnDisk(t, idx, id, archived+".zst")
	// The compressed rollout alone, read into a new index, gives the
	// same messages: it was read, not merely skipped.
	idx = filepath.Join(t.TempDir(), "fresh")
	index("compressed, new index")
	if got := codexShown(t, idx, id); got != before {
		t.Errorf("show %s from the .zst alone: %d messages, want %d", id, got, before)
	}
}

// codexStillOnDisk checks that a moved rollout's session is shown as on
// disk, at its new place, and that stats counts no session gone.
func codexStillOnDisk(t *testing.T, idx, id, path string) {
	t.Helper()
	r := runCLI(t, "show", id, "--json", "--index-dir", idx, "--no-update")
	var sh struct {
		Source string `json:"source"`
		Exists bool   `json:"transcript_exists"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &sh); err != nil || !sh.Exists || sh.Source != path {
		t.Errorf("show %s: transcript %q, on disk %v (%v); want %s on disk", id, sh.Source, sh.Exists, err, path)
	}
	r = runCLI(t, "stats", "--json", "--no-verify", "--index-dir", idx)
	var st struct {
		Archived int `json:"archived_sessions"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &st); err != nil || st.Archived != 0 {
		t.Errorf("stats: %d sessions gone from disk (%v), want 0", st.Archived, err)
	}
}

// codexShown is how many messages `recall show` holds for session id.
func codexShown(t *testing.T, idx, id string) int {
	t.Helper()
	r := runCLI(t, "show", id, "--json", "--index-dir", idx, "--no-update")
	if r.code != 0 {
		t.Fatalf("show %s: %d %s", id, r.code, r.stderr)
	}
	var sh struct {
		Total int    `json:"messages_total"`
		Agent string `json:"agent"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &sh); err != nil {
		t.Fatal(err)
	}
	if sh.Agent != "codex" {
		t.Errorf("show %s: agent %q, want codex", id, sh.Agent)
	}
	return sh.Total
}

const (
	geminiFixtures   = "../../testdata/transcripts/gemini/home/.gemini"
	openCodeFixtures = "../../testdata/transcripts/opencode"
	aiderFixtures    = "../../testdata/transcripts/aider/projects"
)

// mixedSources lays out Claude Code's, Codex's, Gemini CLI's and
// OpenCode's fixtures in a temporary tree (OpenCode's database built from
// its SQL text) and returns the --source values that read them.
func mixedSources(t *testing.T) []string {
	t.Helper()
	root := t.TempDir()
	claudeDir, codexDir, geminiDir, openCodeDir := filepath.Join(root, "claude"), filepath.Join(root, "codex"), filepath.Join(root, "gemini"), filepath.Join(root, "opencode")
	aiderDir := filepath.Join(root, "aider")
	copyTree(t, aiderFixtures, aiderDir)
	copyTree(t, fixtures, claudeDir)
	copyTree(t, codexFixtures, codexDir)
	copyTree(t, geminiFixtures, geminiDir)
	if err := os.MkdirAll(openCodeDir, 0o755); err != nil {
		t.Fatal(err)
	}
	script, err := os.ReadFile(filepath.Join(openCodeFixtures, "opencode.sql"))
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", "file:"+filepath.Join(openCodeDir, "opencode.db")+"?_pragma=journal_mode(WAL)")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(string(script)); err != nil {
		t.Fatalf("build the OpenCode database: %v", err)
	}
	db.Close()
	return []string{claudeDir, "codex:" + codexDir, "gemini:" + geminiDir, "opencode:" + openCodeDir, "aider:" + aiderDir}
}

// withSources is args with one --source for each of sources.
func withSources(sources []string, args ...string) []string {
	for _, s := range sources {
		args = append(args, "--source", s)
	}
	return args
}

// TestAgentsSearchedAsOneSet indexes four agents' sessions together: each
// agent's rows are counted, a search ranks them as one set (the answer in
// a Codex session comes first), --agent keeps one agent's, and sessions,
// show and resume name each session's agent, project and command.
func TestAgentsSearchedAsOneSet(t *testing.T) {
	sources := mixedSources(t)
	idx := filepath.Join(t.TempDir(), "index")
	if r := runCLI(t, withSources(sources, "index", "--index-dir", idx)...); r.code != 0 {
		t.Fatalf("index: %d %s", r.code, r.stderr)
	}
	_, by := statsRows(t, idx, sources...)
	for _, a := range []string{"claude", "codex", "gemini", "opencode", "aider"} {
		if by[a] == 0 {
			t.Errorf("stats: no rows of %s (%v)", a, by)
		}
	}

	// What the harnesses inject never reaches the index, and is counted
	// as the agent's noise.
	for _, injected := range []string{"environment_context", "user_instructions", "AGENTS.md instructions"} {
		if got := agentSearch(t, withSources(sources, "--index-dir", idx, "--include-headless", "-n", "0", "--recall-window", "0", injected)...); len(got) > 0 {
			t.Errorf("%q is in the index: %v", injected, agentsOf(got))
		}
	}
	r := runCLI(t, withSources(sources, "stats", "--json", "--no-verify", "--index-dir", idx)...)
	var st struct {
		Agents map[string]struct {
			Excluded map[string]int64 `json:"excluded"`
		} `json:"agents"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &st); err != nil || st.Agents["codex"].Excluded["noise"] == 0 {
		t.Errorf("stats: Codex's noise left out is not counted: %v %s", err, r.stdout)
	}

	res := agentSearch(t, withSources(sources, "--index-dir", idx, "discount", "tax", "rounding", "pricing")...)
	if len(res) < 2 || res[0]["agent"] != "codex" {
		t.Fatalf("discount tax rounding pricing: want a Codex session first among several agents', got %v", agentsOf(res))
	}
	if agents := agentsOf(res); !slices.Contains(agents, "claude") {
		t.Errorf("the Claude Code session that edits pricing.ts is not among the results: %v", agents)
	}
	only := agentSearch(t, withSources(sources, "--index-dir", idx, "--agent", "claude", "discount", "tax", "rounding", "pricing")...)
	if got := agentsOf(only); len(got) == 0 || slices.ContainsFunc(got, func(a string) bool { return a != "claude" }) {
		t.Errorf("--agent claude: got sessions of %v", got)
	}
	if r := runCLI(t, withSources(sources, "search", "--no-update", "--index-dir", idx, "--agent", "codx", "discount")...); r.code != 2 || !strings.Contains(r.stderr, "codex") {
		t.Errorf("--agent codx: exit %d, stderr %q: want 2 naming the agents", r.code, r.stderr)
	}

	r = runCLI(t, withSources(sources, "sessions", "--json", "--no-update", "-n", "0", "--index-dir", idx)...)
	seen := map[string]bool{}
	aiderSession := ""
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var s struct {
			Agent, Project string
			ID             string `json:"session_id"`
			Exists         bool   `json:"transcript_exists"`
		}
		if err := json.Unmarshal([]byte(line), &s); err != nil {
			t.Fatalf("sessions line %q: %v", line, err)
		}
		seen[s.Agent] = true
		if (s.Agent == "opencode" || s.Agent == "aider") && !s.Exists {
			// One file holds many sessions: each is on disk while it is.
			t.Errorf("sessions: %s session %s listed as gone", s.Agent, s.ID)
		}
		if s.Agent == "aider" {
			aiderSession = s.ID
		}
	}
	var counts struct {
		Sessions int `json:"sessions"`
	}
	if r := runCLI(t, withSources(sources, "stats", "--json", "--no-verify", "--index-dir", idx)...); json.Unmarshal([]byte(r.stdout), &counts) != nil ||
		counts.Sessions < strings.Count(strings.TrimSpace(runCLI(t, withSources(sources, "sessions", "--json", "--no-update", "-n", "0", "--include-headless", "--index-dir", idx)...).stdout), "\n")+1 {
		t.Errorf("stats counts %d sessions, fewer than sessions lists", counts.Sessions)
	}
	for _, a := range []string{"claude", "codex", "gemini", "opencode", "aider"} {
		if !seen[a] {
			t.Errorf("sessions --json lists no %s session: %v", a, seen)
		}
	}

	for _, c := range []struct{ id, command string }{
		{"0199b6f2-1c3a-7d41-9e0a-5b7c2d9e1f01", "codex resume 0199b6f2-1c3a-7d41-9e0a-5b7c2d9e1f01"},
		{"ses_alpha", "opencode -s ses_alpha"},
		{aiderSession, "aider --restore-chat-history"},
	} {
		r := runCLI(t, withSources(sources, "resume", c.id, "--index-dir", idx)...)
		if r.code != 0 || !strings.HasPrefix(r.stdout, "cd ") || !strings.Contains(r.stdout, "&& "+c.command+"\n") {
			t.Errorf("resume %s: exit %d, stdout %q, stderr %q; want cd PROJECT && %s", c.id, r.code, r.stdout, r.stderr, c.command)
		}
	}
}

// agentsOf lists the agent of each search result.
func agentsOf(res []map[string]any) []string {
	var out []string
	for _, s := range res {
		a, _ := s["agent"].(string)
		out = append(out, a)
	}
	return out
}

// TestAiderHistoriesInKnownProjects: with no source given, the Aider chat
// history of a project another agent's session worked in is read.
func TestAiderHistoriesInKnownProjects(t *testing.T) {
	root := t.TempDir()
	project := filepath.Join(root, "webapp")
	copyTree(t, filepath.Join(aiderFixtures, "webapp"), project)
	config := filepath.Join(root, "claude")
	folder := filepath.Join(config, "projects", "-webapp")
	if err := os.MkdirAll(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	line, _ := json.Marshal(map[string]any{"type": "user", "uuid": "aaaaaaaa-0000-4000-8000-000000000001", "cwd": project,
		"sessionId": "11111111-1111-4111-8111-111111111111", "timestamp": "2026-03-01T10:00:00.000Z",
		"message": map[string]any{"role": "user", "content": "Add a dark mode toggle to the settings page"}})
	if err := os.WriteFile(filepath.Join(folder, "11111111-1111-4111-8111-111111111111.jsonl"), append(line, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CLAUDE_CONFIG_DIR", config)
	idx := filepath.Join(root, "index")
	if r := runCLI(t, "index", "--index-dir", idx); r.code != 0 {
		t.Fatalf("index: %d %s", r.code, r.stderr)
	}
	// A second run (a sweep reads the manifest's projects) finds it.
	if r := runCLI(t, "index", "--sweep", "--index-dir", idx); r.code != 0 {
		t.Fatalf("index --sweep: %d %s", r.code, r.stderr)
	}
	if _, by := statsRows(t, idx); by["aider"] == 0 || by["claude"] == 0 {
		t.Errorf("rows by agent %v: want Claude Code's and the project's Aider history", by)
	}
}

// TestResumeWithNoProject: a session whose file names no working
// directory gets its agent's command alone, and why, never `cd ”`.
func TestResumeWithNoProject(t *testing.T) {
	home := t.TempDir()
	day := filepath.Join(home, "sessions", "2026", "03", "14")
	if err := os.MkdirAll(day, 0o755); err != nil {
		t.Fatal(err)
	}
	const id = "0199b6f2-1c3a-7d41-9e0a-5b7c2d9e1f99"
	lines := `{"timestamp":"2026-03-14T09:12:33.000Z","type":"session_meta","payload":{"id":"` + id + `","source":"cli"}}` + "\n" +
		`{"timestamp":"2026-03-14T09:13:00.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"Where did the flaky retry test come from?"}]}}` + "\n"
	if err := os.WriteFile(filepath.Join(day, "rollout-2026-03-14T09-12-33-"+id+".jsonl"), []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	idx := filepath.Join(t.TempDir(), "index")
	src := "codex:" + home
	if r := runCLI(t, "index", "--source", src, "--index-dir", idx); r.code != 0 {
		t.Fatalf("index: %d %s", r.code, r.stderr)
	}
	r := runCLI(t, "resume", id, "--source", src, "--index-dir", idx)
	if r.code != 0 || r.stdout != "codex resume "+id+"\n" || !strings.Contains(r.stderr, "names no project directory") {
		t.Errorf("resume: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}

// TestResumeTypeScriptCodexSession: a session the TypeScript Codex CLI
// wrote (a JSON document) is not given a `codex resume` that cannot
// reopen it: resume says why, and how to read it instead.
func TestResumeTypeScriptCodexSession(t *testing.T) {
	home := t.TempDir()
	sessions := filepath.Join(home, "sessions")
	if err := os.MkdirAll(sessions, 0o755); err != nil {
		t.Fatal(err)
	}
	const id = "3f6c1b2a-7d4e-4f5a-9b8c-1d2e3f4a5b6c"
	doc := `{"session":{"timestamp":"2025-05-10T14:02:11.318Z","id":"` + id + `","instructions":""},` +
		`"items":[{"type":"message","role":"user","content":[{"type":"input_text","text":"Why does the rate limiter forget its buckets on restart?"}]}]}`
	if err := os.WriteFile(filepath.Join(sessions, "rollout-2025-05-10-"+id+".json"), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	idx := filepath.Join(t.TempDir(), "index")
	src := "codex:" + home
	if r := runCLI(t, "index", "--source", src, "--index-dir", idx); r.code != 0 {
		t.Fatalf("index: %d %s", r.code, r.stderr)
	}
	if r := runCLI(t, "rate limiter buckets", "--source", src, "--index-dir", idx, "--no-update"); r.code != 0 || !strings.Contains(r.stdout, id[:8]) {
		t.Fatalf("search: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	r := runCLI(t, "resume", id, "--source", src, "--index-dir", idx)
	if r.code == 0 || r.stdout != "" || !strings.Contains(r.stderr, "TypeScript Codex CLI") || !strings.Contains(r.stderr, "recall show "+id) {
		t.Errorf("resume: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}

// TestGeminiSessionOnlyInItsPromptLog: a Gemini CLI session whose chat
// is gone (or was never written) is found by the prompts its project's
// logs.json keeps, shown and listed, and resume says gemini --resume
// cannot reopen it; a session with a chat gets its prompts from the
// chat alone, and its command.
func TestGeminiSessionOnlyInItsPromptLog(t *testing.T) {
	home := t.TempDir()
	project := filepath.Join(home, "tmp", "shop")
	if err := os.MkdirAll(filepath.Join(project, "chats"), 0o755); err != nil {
		t.Fatal(err)
	}
	const logged, chatted = "5e4d3c2b-1a09-4f8e-8d7c-6b5a49382716", "7a6b5c4d-3e2f-4a1b-9c8d-7e6f5a4b3c2d"
	logs := `[{"sessionId":"` + chatted + `","messageId":0,"type":"user","message":"Why is the cart total off by a cent?","timestamp":"2026-03-02T10:00:00.000Z"},` +
		`{"sessionId":"` + logged + `","messageId":0,"type":"user","message":"Sketch a migration for the coupons table","timestamp":"2026-02-11T08:30:00.000Z"}]`
	chat := `{"sessionId":"` + chatted + `","projectHash":"","startTime":"2026-03-02T10:00:00.000Z","lastUpdated":"2026-03-02T10:00:09.000Z","kind":"main"}` + "\n" +
		`{"id":"m1","timestamp":"2026-03-02T10:00:00.000Z","type":"user","content":[{"text":"Why is the cart total off by a cent?"}]}` + "\n"
	for name, data := range map[string]string{
		filepath.Join(project, ".project_root"):                                    home + "\n",
		filepath.Join(project, "logs.json"):                                        logs,
		filepath.Join(project, "chats", "session-2026-03-02T10-00-7a6b5c4d.jsonl"): chat,
	} {
		if err := os.WriteFile(name, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	idx := filepath.Join(t.TempDir(), "index")
	src := "gemini:" + home
	if r := runCLI(t, "index", "--source", src, "--index-dir", idx); r.code != 0 {
		t.Fatalf("index: %d %s", r.code, r.stderr)
	}
	r := runCLI(t, "coupons migration", "--source", src, "--index-dir", idx, "--no-update")
	if r.code != 0 || !strings.Contains(r.stdout, logged[:7]) {
		t.Fatalf("search: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	r = runCLI(t, "cart total cent", "--source", src, "--index-dir", idx, "--no-update", "-c")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "1" {
		t.Errorf("the chat's prompt, also in the log: counted %q (want 1: the chat's), stderr %q", r.stdout, r.stderr)
	}
	r = runCLI(t, "resume", logged, "--source", src, "--index-dir", idx)
	if r.code == 0 || r.stdout != "" || !strings.Contains(r.stderr, "kept no chat") || !strings.Contains(r.stderr, "recall show "+logged) {
		t.Errorf("resume of the logged session: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	r = runCLI(t, "resume", chatted, "--source", src, "--index-dir", idx)
	if r.code != 0 || !strings.Contains(r.stdout, "gemini --resume "+chatted) {
		t.Errorf("resume of the chatted session: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}

// TestOpenCodeDatabaseThroughTheHelper: the built recall, which links no
// SQLite, reads OpenCode's database through the recall-opencode beside
// it, and indexes the sessions recall in process does (the tests link
// the driver, so runCLI reads in process); without the helper it says
// where to get it and indexes the other agents' sessions.
func TestOpenCodeDatabaseThroughTheHelper(t *testing.T) {
	sources := mixedSources(t)
	bin := recallBinary(t)
	run := func(bin string, env []string, args ...string) runResult {
		cmd := exec.Command(bin, args...)
		cmd.Env = env
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		var exit *exec.ExitError
		if err != nil && !errors.As(err, &exit) {
			t.Fatalf("run %s: %v", bin, err)
		}
		return runResult{stdout.String(), stderr.String(), cmd.ProcessState.ExitCode()}
	}
	sessions := func(idx string) string {
		r := runCLI(t, withSources(sources, "sessions", "--json", "--agent", "opencode", "--index-dir", idx)...)
		if r.code != 0 || !strings.Contains(r.stdout, "ses_alpha") {
			t.Fatalf("sessions: %d %s %s", r.code, r.stdout, r.stderr)
		}
		return r.stdout
	}

	inProcess := filepath.Join(t.TempDir(), "index")
	if r := runCLI(t, withSources(sources, "index", "--index-dir", inProcess)...); r.code != 0 {
		t.Fatalf("index in process: %d %s", r.code, r.stderr)
	}
	built := filepath.Join(t.TempDir(), "index")
	if r := run(bin, hermeticEnv(t), withSources(sources, "index", "--index-dir", built)...); r.code != 0 || strings.Contains(r.stderr, "opencode.db") {
		t.Fatalf("index by the built recall: %d %s", r.code, r.stderr)
	}
	if got, want := sessions(built), sessions(inProcess); got != want {
		t.Errorf("OpenCode's sessions indexed through the helper:\n%s\nin process:\n%s", got, want)
	}
	_, byBuilt := statsRows(t, built, sources...)
	_, byInProcess := statsRows(t, inProcess, sources...)
	if !maps.Equal(byBuilt, byInProcess) {
		t.Errorf("rows by agent: %v through the helper, %v in process", byBuilt, byInProcess)
	}

	alone := binaryAlone(t, bin)
	without := filepath.Join(t.TempDir(), "index")
	r := run(alone, append(hermeticEnv(t), "PATH="+t.TempDir()), withSources(sources, "index", "--index-dir", without)...)
	if !strings.Contains(r.stderr, "go install github.com/recall-dev/recall/cmd/recall-opencode@latest") {
		t.Errorf("index without the helper: exit %d, stderr %q", r.code, r.stderr)
	}
	_, by := statsRows(t, without, sources...)
	if by["opencode"] != 0 || by["claude"] != byInProcess["claude"] || by["codex"] != byInProcess["codex"] {
		t.Errorf("rows by agent without the helper: %v (with it: %v)", by, byInProcess)
	}
	t.Logf("without the helper: exit %d, %s", r.code, r.stderr)
	st := run(alone, append(hermeticEnv(t), "PATH="+t.TempDir()), withSources(sources, "stats", "--no-verify", "--index-dir", without)...)
	if !strings.Contains(st.stdout+st.stderr, "is read by recall-opencode, and there is none beside recall nor on PATH") {
		t.Errorf("stats without the helper names no problem: %s %s", st.stdout, st.stderr)
	}
	settings := filepath.Join(t.TempDir(), "settings.json")
	in := run(alone, append(hermeticEnv(t), "PATH="+t.TempDir()), withSources(sources, "install", "--dry-run", "--settings", settings, "--index-dir", without)...)
	if !strings.Contains(in.stderr, "no recall-opencode beside") || !strings.Contains(in.stderr, "go install github.com/recall-dev/recall/cmd/recall-opencode@latest") {
		t.Errorf("install without the helper does not say so: exit %d, %s", in.code, in.stderr)
	}
	if in := run(bin, hermeticEnv(t), withSources(sources, "install", "--dry-run", "--settings", settings, "--index-dir", built)...); strings.Contains(in.stderr, "recall-opencode") {
		t.Errorf("install with the helper beside recall names it: %s", in.stderr)
	}
	st = run(bin, hermeticEnv(t), withSources(sources, "stats", "--no-verify", "--index-dir", built)...)
	if strings.Contains(st.stdout+st.stderr, "recall-opencode") {
		t.Errorf("stats with the helper beside recall names it: %s %s", st.stdout, st.stderr)
	}
}

// TestStatsWithOnlyOtherAgents: with only other agents' sources, stats
// names no empty Claude Code folder and warns of none.
func TestStatsWithOnlyOtherAgents(t *testing.T) {
	codexDir := filepath.Join(t.TempDir(), "codex")
	copyTree(t, codexFixtures, codexDir)
	sources := []string{"codex:" + codexDir}
	idx := t.TempDir()
	if r := runCLI(t, withSources(sources, "index", "-q", "--index-dir", idx)...); r.code != 0 {
		t.Fatalf("index: %d %s", r.code, r.stderr)
	}
	r := runCLI(t, withSources(sources, "stats", "--no-verify", "--index-dir", idx)...)
	if r.code != 0 || !strings.Contains(r.stdout, "no Claude Code source given") || strings.Contains(r.stdout, "no transcripts under") ||
		strings.Contains(r.stdout, "on disk under \n") {
		t.Errorf("stats with only a Codex source: %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// TestResumeTitleOnlyTranscript: a Claude Code transcript of title
// records alone names no working directory: resume prints the command
// alone and why, never `cd ”`; --exec refuses.
func TestResumeTitleOnlyTranscript(t *testing.T) {
	projects := filepath.Join(t.TempDir(), "projects")
	dir := filepath.Join(projects, "-home-dev-src-notes")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	const id = "4713dbc4-0000-4000-8000-000000000001"
	line := `{"type":"ai-title","sessionId":"` + id + `","aiTitle":"Quarterly notes cleanup"}` + "\n"
	if err := os.WriteFile(filepath.Join(dir, id+".jsonl"), []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	idx := filepath.Join(t.TempDir(), "index")
	if r := runCLI(t, "index", "--source", projects, "--index-dir", idx); r.code != 0 {
		t.Fatalf("index: %d %s", r.code, r.stderr)
	}
	r := runCLI(t, "resume", id, "--source", projects, "--index-dir", idx)
	if r.code != 0 || r.stdout != "claude --resume "+id+"\n" || !strings.Contains(r.stderr, "names no project directory") {
		t.Errorf("resume: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if r := runCLI(t, "resume", "--exec", id, "--source", projects, "--index-dir", idx); r.code != 2 || r.stdout != "" {
		t.Errorf("resume --exec: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	// stats counts the sessions `recall sessions` lists: one with a title
	// and no message has nothing to list.
	r = runCLI(t, "stats", "--json", "--no-verify", "--source", projects, "--index-dir", idx)
	var st struct {
		Sessions int `json:"sessions"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &st); err != nil || st.Sessions != 0 {
		t.Errorf("stats: %d sessions (%v), want the 0 sessions lists", st.Sessions, err)
	}
	if r := runCLI(t, "sessions", "--source", projects, "--index-dir", idx, "--no-update"); r.stdout != "" {
		t.Errorf("sessions lists %q", r.stdout)
	}
}

// TestCodexSubagentThreadByItsID: a Codex subagent thread's rows are its
// parent's session, and its own thread id (which Codex shows for it)
// finds that session in show and resume; a prefix that names several
// sessions is still ambiguous.
func TestCodexSubagentThreadByItsID(t *testing.T) {
	home := filepath.Join(t.TempDir(), "codex")
	copyTree(t, codexFixtures, home)
	idx := filepath.Join(t.TempDir(), "index")
	src := "codex:" + home
	if r := runCLI(t, "index", "-q", "--source", src, "--index-dir", idx); r.code != 0 {
		t.Fatalf("index: %d %s", r.code, r.stderr)
	}
	const parent, sub = "0199b6f2-1c3a-7d41-9e0a-5b7c2d9e1f01", "0199b6f2-1c3a-7d41-9e0a-5b7c2d9e1f04"
	r := runCLI(t, "show", sub, "--json", "--index-dir", idx, "--no-update")
	var sh struct {
		Session string `json:"session_id"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &sh); err != nil || sh.Session != parent {
		t.Errorf("show %s: session %q (%v, exit %d %s), want %s", sub, sh.Session, err, r.code, r.stderr, parent)
	}
	if r := runCLI(t, "resume", sub, "--source", src, "--index-dir", idx); !strings.HasSuffix(r.stdout, "codex resume "+parent+"\n") {
		t.Errorf("resume %s: exit %d, stdout %q, stderr %q", sub, r.code, r.stdout, r.stderr)
	}
	if r := runCLI(t, "show", sub[:8], "--index-dir", idx, "--no-update"); r.code == 0 || !strings.Contains(r.stderr, "names") {
		t.Errorf("show %s: exit %d, stderr %q; want ambiguous", sub[:8], r.code, r.stderr)
	}
}

// TestOpenCodeChildSessionByItsID: an OpenCode subagent's session is read
// into its parent's (its rows the parent's, its id their agent), and its
// own id, which OpenCode shows for it, finds the parent in show and
// resume; an id no session and no child has is still not found.
func TestOpenCodeChildSessionByItsID(t *testing.T) {
	sources := mixedSources(t)
	idx := filepath.Join(t.TempDir(), "index")
	if r := runCLI(t, withSources(sources, "index", "-q", "--index-dir", idx)...); r.code != 0 {
		t.Fatalf("index: %d %s", r.code, r.stderr)
	}
	for _, child := range []string{"ses_alpha_explore", "ses_alpha_jitter", "ses_alpha_expl"} {
		r := runCLI(t, "show", child, "--json", "--index-dir", idx, "--no-update")
		var sh struct {
			Session string `json:"session_id"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &sh); err != nil || sh.Session != "ses_alpha" {
			t.Errorf("show %s: session %q (%v, exit %d %s), want ses_alpha", child, sh.Session, err, r.code, r.stderr)
		}
		if r := runCLI(t, withSources(sources, "resume", child, "--index-dir", idx)...); !strings.HasSuffix(r.stdout, "opencode -s ses_alpha\n") {
			t.Errorf("resume %s: exit %d, stdout %q, stderr %q", child, r.code, r.stdout, r.stderr)
		}
	}
	if r := runCLI(t, "show", "ses_nobody_at_all", "--index-dir", idx, "--no-update"); r.code == 0 {
		t.Errorf("show ses_nobody_at_all: exit 0, stdout %q", r.stdout)
	}
}
