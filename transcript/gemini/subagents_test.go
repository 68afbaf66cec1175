package gemini

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/recall-dev/recall/filter"
	"github.com/recall-dev/recall/record"
)

// A subagent's file in a folder named after no session (Gemini CLI's
// background agents, such as skill extraction, write
// chats/<agent>-<n>/<id>.json) is a run Gemini CLI makes for itself: its
// prompts are the harness's and its replies its findings, left out as
// Claude Code's compaction agent and Codex's approval reviewer are; nor
// is it a session named after the folder, which no `gemini --resume`
// knows.
func TestBackgroundAgentIsNoise(t *testing.T) {
	gemini, chats := project(t, "vault", "/work/vault")
	dir := filepath.Join(chats, "skill-extraction-67084600")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	doc := `{"sessionId":"mrp1k5","projectHash":"f1995df9","startTime":"2026-04-16T22:38:21.079Z","kind":"subagent","messages":[` +
		`{"id":"m1","timestamp":"2026-04-16T22:38:21.081Z","type":"user","content":[{"text":"# Existing Skills\nExtract the skills of these sessions."}]},` +
		`{"id":"m2","timestamp":"2026-04-16T22:38:30.000Z","type":"gemini","content":"No new skill worth extracting."}]}`
	if err := os.WriteFile(filepath.Join(dir, "mrp1k5.json"), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	found := Discover(gemini, func(w string) { t.Error(w) })
	if len(found) != 1 {
		t.Fatalf("found %d files, want 1", len(found))
	}
	res := read(t, found[0], record.FileState{})
	if res.Err != nil || len(res.Rows) != 0 || res.Counts[filter.Noise] != 2 {
		t.Fatalf("read: %v, rows %+v, noise %d; want none, 2 noise", res.Err, res.Rows, res.Counts[filter.Noise])
	}
}

// A subagent's file under its parent session's folder keeps its rows in
// the parent's session, as an interactive run's.
func TestSubagentUnderItsSession(t *testing.T) {
	gemini, chats := project(t, "app", "/work/app")
	parent := "1f2e3d4c-5b6a-4789-9abc-def012345678"
	dir := filepath.Join(chats, parent)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	writeLines(t, filepath.Join(dir, "a1b2c3.jsonl"),
		`{"sessionId":"a1b2c3","projectHash":"h","startTime":"2026-03-01T10:00:00.000Z","kind":"subagent"}`,
		`{"id":"m1","timestamp":"2026-03-01T10:00:01.000Z","type":"user","content":"Find where the retry loop lives."}`)
	found := Discover(gemini, func(w string) { t.Error(w) })
	if len(found) != 1 {
		t.Fatalf("found %d files, want 1", len(found))
	}
	res := read(t, found[0], record.FileState{})
	if len(res.Rows) != 1 || res.Rows[0].Session != parent || res.Rows[0].AgentID != "a1b2c3" || res.Rows[0].Entrypoint != entrypoint {
		t.Fatalf("rows %+v: want one row of session %s, agent a1b2c3, entrypoint %s", res.Rows, parent, entrypoint)
	}
}

// Versions before subagents had folders wrote the cli_help and
// codebase_investigator agents' chats beside their parent's, a session file under the parent's id: its prompt
// is the harness's, so its rows are the subagent's in the parent's
// session, not the person's.
func TestCLIHelpChatBesideItsParent(t *testing.T) {
	_, chats := project(t, "app", "/work/app")
	id := "5b6234f8-0315-4733-a3be-ee67d6712014"
	path := filepath.Join(chats, "session-2026-03-29T01-22-5b6234f8.json")
	for _, task := range []string{
		cliHelpTask + `\n<question>\nWhat data is sent?\n</question>`, // JSON's escapes
		investigatorTask + ` to find all relevant files, code locations, architectural mental map and insights to solve  for the following user objective:\n<objective>\nFind where the player loads videos\n</objective>`,
	} {
		doc := `{"sessionId":"` + id + `","projectHash":"h","startTime":"2026-03-29T01:22:55.780Z","lastUpdated":"2026-03-29T01:23:03.054Z","messages":[` +
			`{"id":"m1","timestamp":"2026-03-29T01:22:55.780Z","type":"user","content":[{"text":"` + task + `"}]},` +
			`{"id":"m2","timestamp":"2026-03-29T01:23:03.000Z","type":"gemini","content":"Usage statistics, unless turned off."}]}`
		if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		res := read(t, mainFile(path), record.FileState{})
		if len(res.Rows) != 2 {
			t.Fatalf("%d rows, want 2", len(res.Rows))
		}
		for _, r := range res.Rows {
			if r.Session != id || r.Type != record.TypeAgent || r.AgentID == "" {
				t.Errorf("row %q: session %q, type %q, agent %q; want the subagent's in session %s", r.Text, r.Session, r.Type, r.AgentID, id)
			}
		}
	}
	// The same prompt later in a session is the person's, quoting it.
	doc := `{"sessionId":"` + id + `","projectHash":"h","startTime":"2026-03-29T01:22:55.780Z","messages":[` +
		`{"id":"m1","timestamp":"2026-03-29T01:22:55.780Z","type":"user","content":"What does the help agent get asked?"},` +
		`{"id":"m2","timestamp":"2026-03-29T01:22:56.780Z","type":"user","content":[{"text":"` + cliHelpTask + ` is what it says"}]}]}`
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, r := range read(t, mainFile(path), record.FileState{}).Rows {
		if r.Type != record.TypeUser || r.AgentID != "" {
			t.Errorf("row %q: type %q, agent %q; want the person's", r.Text, r.Type, r.AgentID)
		}
	}
}

// TestReopens: a chat named by its session's id is reopened by gemini
// --resume; a prompt log's session, and a Cloud Shell agent server's
// chat (no id of its own), are not.
func TestReopens(t *testing.T) {
	for path, ok := range map[string]bool{
		"/h/.gemini/tmp/app/chats/session-2026-03-29T01-22-5b6234f8.jsonl": true,
		"/h/.gemini/tmp/app/chats/session-2026-03-29T01-22-5b6234f8.json":  true,
		"/h/.gemini/tmp/app/logs.json":                                     false,
		"/h/.gemini/tmp/app/chats/session-2026-07-22T00-41-a2a-serv.jsonl": false,
	} {
		if err := Reopens(path); (err == nil) != ok {
			t.Errorf("Reopens(%s) = %v, want reopenable %v", path, err, ok)
		}
	}
}
