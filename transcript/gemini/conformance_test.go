package gemini

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recall-dev/recall/record"
	"github.com/recall-dev/recall/transcript"
)

// meta is the metadata line the conformance cases open with.
const meta = `{"sessionId":"s-1","projectHash":"h","startTime":"2026-03-01T10:00:00.000Z","lastUpdated":"2026-03-01T10:00:00.000Z","kind":"main"}`

// readSession writes lines as a session file of a project of /work/app
// and reads it.
func readSession(t *testing.T, lines ...string) transcript.Result {
	t.Helper()
	_, chats := project(t, "app", "/work/app")
	path := filepath.Join(chats, "session-2026-03-01T10-00-s1.jsonl")
	writeLines(t, path, lines...)
	res := read(t, mainFile(path), record.FileState{})
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	return res
}

// rowsOf renders rows as "type/role block: text" lines.
func rowsOf(rows []transcript.Extracted) string {
	var b strings.Builder
	for _, r := range rows {
		fmt.Fprintf(&b, "%s/%s %d: %s\n", r.Type, r.Role, r.Block, r.Text)
	}
	return b.String()
}

// TestRecordClasses reads each record class on its own: the rows it
// makes, and what the read counted as left out.
func TestRecordClasses(t *testing.T) {
	msg := func(id, typ, rest string) string {
		return `{"id":"` + id + `","timestamp":"2026-03-01T10:00:05.000Z","type":"` + typ + `"` + rest + `}`
	}
	cases := []struct {
		name   string
		lines  []string
		rows   string
		counts string
	}{
		{"metadata only", []string{meta}, "", ""},
		{"user, string content", []string{meta, msg("u1", "user", `,"content":"Add a retry loop around the fetch call."`)},
			"user/user 0: Add a retry loop around the fetch call.\n", ""},
		{"user, parts", []string{meta, msg("u1", "user", `,"content":[{"text":"Add a retry "},{"text":"loop around fetch."}]`)},
			"user/user 0: Add a retry loop around fetch.\n", ""},
		{"user, one part object", []string{meta, msg("u1", "user", `,"content":{"text":"Add a retry loop around fetch."}`)},
			"user/user 0: Add a retry loop around fetch.\n", ""},
		{"user, displayContent is what was typed", []string{meta, msg("u1", "user",
			`,"content":[{"text":"Explain @a.go\n--- Content from referenced files ---\npackage a"}],"displayContent":[{"text":"Explain @a.go please"}]`)},
			"user/user 0: Explain @a.go please\n", ""},
		{"user, hook context left out", []string{meta, msg("u1", "user",
			`,"content":[{"text":"Rename the handler to serveHTTP."},{"text":"<hook_context>git: main</hook_context>"}]`)},
			"user/user 0: Rename the handler to serveHTTP.\n", ""},
		{"user, session context only", []string{meta, msg("u1", "user", `,"content":[{"text":"<session_context>\nThis is the Gemini CLI.</session_context>"}]`)},
			"", " noise=1"},
		{"user, tool result", []string{meta, msg("u1", "user", `,"content":[{"functionResponse":{"id":"c1","name":"read_file","response":{"output":"package a"}}}]`)},
			"", " noise=1"},
		{"user, the CLI's turn after a tool's result", []string{meta, msg("u1", "user",
			`,"content":[{"text":"System: Please continue."}],"displayContent":[{"functionResponse":{"id":"c1","name":"update_topic","response":{"output":"Current topic"}}}]`)},
			"", " noise=1"},
		{"user, the CLI's turn, before displayContent", []string{meta, msg("u1", "user", `,"content":[{"text":"System: Please continue."}]`)},
			"", " noise=1"},
		{"user, a tool's result recorded as text", []string{meta, msg("u1", "user", `,"content":"[Function Response: read_many_files]--- /work/app/a.go ---\n\npackage a"`)},
			"", " noise=1"},
		{"user, a subagent's nudge", []string{meta, msg("u1", "user", `,"content":"You have stopped calling tools without finishing. You have one final chance to complete the task with a short grace period."`)},
			"", " noise=1"},
		{"user, a subagent out of turns", []string{meta, msg("u1", "user", `,"content":"You have exceeded the maximum number of turns. You have one final chance to complete the task with a short grace period."`)},
			"", " noise=1"},
		{"user, a subagent out of time", []string{meta, msg("u1", "user", `,"content":"You have exceeded the time limit. You have one final chance to complete the task with a short grace period."`)},
			"", " noise=1"},
		{"user, the CLI's retry shown as the prompt it retries", []string{meta, msg("u1", "user",
			`,"content":[{"text":"System: Please continue."}],"displayContent":[{"text":"Write a better README for the player"}]`)},
			"", " noise=1"},
		{"user, the CLI's next-speaker turn shown as the prompt", []string{meta, msg("u1", "user",
			`,"content":[{"text":"Please continue."}],"displayContent":[{"text":"Write a better README for the player"}]`)},
			"", " noise=1"},
		{"user, a prompt that goes on after the words", []string{meta, msg("u1", "user", `,"content":"Please continue. Then add the tests for the parser."`)},
			"user/user 0: Please continue. Then add the tests for the parser.\n", ""},
		{"user, the editor's context (0.44+)", []string{meta, msg("u1", "user",
			`,"content":[{"text":"Here is the user's editor context as a JSON object. This is for your information only.\n`+"```"+`json\n{\"activeFile\":{\"path\":\"/work/app/a.go\"}}\n`+"```"+`"}]`)},
			"", " noise=1"},
		{"user, the editor's changes", []string{meta, msg("u1", "user",
			`,"content":[{"text":"Here is a summary of changes in the user's editor context, in JSON format. This is for your information only.\n{}"}]`)},
			"", " noise=1"},
		{"user, Plan Mode left", []string{meta, msg("u1", "user", `,"content":[{"text":"User has manually exited Plan Mode. Switching to Default mode (confirmations)."}]`)},
			"", " noise=1"},
		{"user, a folder added", []string{meta, msg("u1", "user", `,"content":[{"text":"- **Workspace Directories:**\n  - /work/lib\n- **Directory Structure:**\n\n/work/lib/"}]`)},
			"", " noise=1"},
		{"user, a shell-mode command", []string{meta, msg("u1", "user",
			`,"content":[{"text":"I ran the following shell command:\n`+"```"+`sh\nls\n`+"```"+`\n\nThis produced the following result:\n`+"```"+`\na.go\n`+"```"+`"}]`)},
			"", " noise=1"},
		{"user, a steering update", []string{meta, msg("u1", "user",
			`,"content":[{"text":"User steering update:\n<user_input>\nprefer the ocelot api\n</user_input>\nInternal instruction: Re-evaluate the active plan using this user steering update."}]`)},
			"user/user 0: prefer the ocelot api\n", ""},
		{"user, a steering update sent with tool results", []string{meta, msg("u1", "user",
			`,"content":[{"text":"User steering update:\n<user_input>\nuse the walrus library instead\n</user_input>\nClassify it as ADD_TASK"},{"functionResponse":{"id":"c1","name":"read_file","response":{"output":"x"}}}]`)},
			"user/user 0: use the walrus library instead\n", ""},
		{"user, a prompt that only starts like the CLI's", []string{meta, msg("u1", "user", `,"content":"User steering update: is it in the changelog?"`)},
			"user/user 0: User steering update: is it in the changelog?\n", ""},
		{"user, typed text shown beside a tool's result", []string{meta, msg("u1", "user",
			`,"content":[{"text":"Keep going with the report."}],"displayContent":[{"text":"Keep going with the report."},{"functionResponse":{"id":"c1","name":"x","response":{}}}]`)},
			"user/user 0: Keep going with the report.\n", ""},
		{"user, compression snapshot", []string{meta, msg("u1", "user", `,"content":[{"text":"<state_snapshot><overall_goal>x</overall_goal></state_snapshot>"}]`)},
			"", " noise=1"},
		{"gemini, text and tools", []string{meta, msg("g1", "gemini", `,"content":"Reading both files, then running the tests.","toolCalls":[`+
			`{"id":"c1","name":"read_file","args":{"absolute_path":"/work/app/a.go"},"status":"success","timestamp":"2026-03-01T10:00:06Z"},`+
			`{"id":"c2","name":"run_shell_command","args":{"command":"go test ./...","dir_path":"/work/app"},"status":"success","timestamp":"2026-03-01T10:00:07Z"},`+
			`{"id":"c3","name":"glob","args":{"pattern":"**/*.go","dir_path":"/work/app"},"status":"success","timestamp":"2026-03-01T10:00:08Z"}]`)},
			"assistant/assistant 0: Reading both files, then running the tests.\n" +
				"tool/tool 1: read_file: /work/app/a.go\ntool/tool 2: run_shell_command: go test ./...\ntool/tool 3: glob: **/*.go in /work/app\n",
			""},
		{"gemini, thought parts and thoughts make no row", []string{meta, msg("g1", "gemini",
			`,"content":[{"text":"Thinking about retries.","thought":true}],"thoughts":[{"subject":"s","description":"d","timestamp":"2026-03-01T10:00:04Z"}]`)},
			"", ""},
		{"gemini, compression acknowledgement", []string{meta, msg("g1", "gemini", `,"content":"Got it. Thanks for the additional context!"`)},
			"", " noise=1"},
		{"info", []string{meta, msg("i1", "info", `,"content":"Request cancelled."`)}, "", " noise=1"},
		{"error", []string{meta, msg("e1", "error", `,"content":"[API Error: quota]"`)}, "", " noise=1"},
		{"warning", []string{meta, msg("w1", "warning", `,"content":"Context nearly full."`)}, "", " noise=1"},
		{"unknown message type", []string{meta, msg("x1", "compression", `,"content":"compressed 10 to 3"`)}, "", ""},
		{"unknown control line", []string{meta, `{"$unknown":{"a":1}}`}, "", ""},
		{"$set summary is a title", []string{meta, `{"$set":{"summary":"Retry the flaky fetch","lastUpdated":"2026-03-01T10:09:00.000Z"}}`},
			"title/ai-title 0: Retry the flaky fetch\n", ""},
		{"$set messages makes no row", []string{meta, `{"$set":{"messages":[{"id":"env","type":"user","content":[{"text":"Project notes nobody typed."}]}]}}`},
			"", ""},
		{"message written again with the same version", []string{meta,
			msg("g1", "gemini", `,"content":"Fetching with retries now.","tokens":null`),
			msg("g1", "gemini", `,"content":"Fetching with retries now.","tokens":{"input":1,"output":2,"cached":0,"total":3}`)},
			"assistant/assistant 0: Fetching with retries now.\n", " copy=1"},
		{"message written again with a tool call added", []string{meta,
			msg("g1", "gemini", `,"content":"Fetching with retries now."`),
			msg("g1", "gemini", `,"content":"Fetching with retries now.","toolCalls":[{"id":"c1","name":"web_fetch","args":{"url":"https://example.com"},"status":"scheduled"}]`),
			msg("g1", "gemini", `,"content":"Fetching with retries now.","toolCalls":[{"id":"c1","name":"web_fetch","args":{"url":"https://example.com"},"status":"success","result":[{"text":"ok"}]}]`)},
			"assistant/assistant 0: Fetching with retries now.\ntool/tool 1: web_fetch: https://example.com\n", " copy=1"},
		{"message written again with its text changed", []string{meta,
			msg("g1", "gemini", `,"content":"Fetching with ret"`),
			msg("g1", "gemini", `,"content":"Fetching with retries, three at most."`)},
			"assistant/assistant 0: Fetching with retries, three at most.\n", " noise=1"},
		{"an earlier message written again", []string{meta,
			msg("g1", "gemini", `,"content":"First reply, about retries."`),
			msg("u2", "user", `,"content":"And the timeout too, please."`),
			msg("g1", "gemini", `,"content":"First reply, about retries.","toolCalls":[{"id":"c1","name":"read_file","args":{"file_path":"a.go"}}]`)},
			"assistant/assistant 0: First reply, about retries.\nuser/user 0: And the timeout too, please.\ntool/tool 1: read_file: a.go\n", ""},
		{"rewind", []string{meta,
			msg("u1", "user", `,"content":"Add retries to the fetch call."`),
			msg("g1", "gemini", `,"content":"Added three retries with backoff."`),
			msg("u2", "user", `,"content":"Make it five retries instead."`),
			msg("r2", "user", `,"content":[{"functionResponse":{"id":"c","name":"x","response":{}}}]`),
			msg("g2", "gemini", `,"content":"Now five retries with backoff."`),
			`{"$rewindTo":"u2"}`,
			msg("u3", "user", `,"content":"Keep three but add jitter."`)},
			"user/user 0: Add retries to the fetch call.\nassistant/assistant 0: Added three retries with backoff.\nuser/user 0: Keep three but add jitter.\n",
			" noise=3"},
		{"rewind to a message before the read", []string{meta,
			msg("u1", "user", `,"content":"Add retries to the fetch call."`),
			`{"$rewindTo":"earlier"}`,
			msg("u2", "user", `,"content":"Keep three but add jitter."`)},
			"user/user 0: Keep three but add jitter.\n", " noise=1"},
		{"rewind to a checkpoint's message", []string{meta,
			msg("u1", "user", `,"content":"Add retries to the fetch call."`),
			`{"$set":{"messages":[{"id":"u1"},{"id":"env"}]}}`,
			msg("u2", "user", `,"content":"Make it five retries instead."`),
			`{"$rewindTo":"env"}`},
			"user/user 0: Add retries to the fetch call.\n", " noise=1"},
		{"compression replay", []string{meta,
			msg("u1", "user", `,"content":"run the linter again please"`),
			msg("s1", "user", `,"content":[{"text":"<state_snapshot>goal</state_snapshot>"}]`),
			msg("a1", "gemini", `,"content":[{"text":"Got it. Thanks for the additional context!"}]`),
			msg("u1c", "user", `,"content":[{"text":"run the linter again please"}]`),
			`{"$set":{"messages":[{"id":"s1"},{"id":"a1"},{"id":"u1c"}]}}`,
			msg("u2", "user", `,"content":"run the linter again please"`)},
			"user/user 0: run the linter again please\nuser/user 0: run the linter again please\n", " noise=2 copy=1"},
		{"history recorded anew mid-session", []string{meta,
			msg("c1", "user", `,"content":[{"text":"<session_context>\nThis is the Gemini CLI.</session_context>"}]`),
			msg("u1", "user", `,"content":[{"text":"go to the site folder and check for undone work"}]`),
			msg("g1", "gemini", `,"content":"Looking for TODOs.","toolCalls":[{"id":"t1","name":"grep_search","args":{"pattern":"TODO"},"status":"success","timestamp":"2026-03-01T10:00:06Z"}]`),
			msg("c2", "user", `,"content":[{"text":"<session_context>\nThis is the Gemini CLI.</session_context>"}]`),
			msg("u1c", "user", `,"content":[{"text":"go to the site folder and check for undone work"}]`),
			msg("g1c", "gemini", `,"content":"Looking for TODOs.","toolCalls":[{"id":"t1","name":"grep_search","args":{"pattern":"TODO"},"status":"success","timestamp":"2026-03-01T10:00:06Z"}]`),
			`{"$set":{"messages":[{"id":"c2"},{"id":"u1c"},{"id":"g1c"}]}}`,
			msg("u2", "user", `,"content":"now finish the contact form"`)},
			"user/user 0: go to the site folder and check for undone work\nassistant/assistant 0: Looking for TODOs.\ntool/tool 1: grep_search: TODO\nuser/user 0: now finish the contact form\n",
			" noise=2 copy=2"},
		{"compression replay cut short", []string{meta,
			msg("u1", "user", `,"content":"run the linter again please"`),
			msg("s1", "user", `,"content":[{"text":"<state_snapshot>goal</state_snapshot>"}]`),
			msg("u1c", "user", `,"content":[{"text":"run the linter again please"}]`),
			msg("u2", "user", `,"content":"Now fix the first lint error."`),
			msg("u3", "user", `,"content":"run the linter again please"`)},
			"user/user 0: run the linter again please\nuser/user 0: Now fix the first lint error.\nuser/user 0: run the linter again please\n",
			" noise=1 copy=1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := readSession(t, c.lines...)
			if got := rowsOf(res.Rows); got != c.rows {
				t.Errorf("rows:\n%s\nwant:\n%s", got, c.rows)
			}
			if got := counts(res.Counts); got != c.counts {
				t.Errorf("counts %q, want %q", got, c.counts)
			}
			for _, r := range res.Rows {
				if r.Session != "s-1" || r.Project != "/work/app" || r.Agent != record.AgentGemini || r.Entrypoint != entrypoint {
					t.Errorf("row %+v: want session s-1, project /work/app, agent gemini", r.Row)
				}
				if r.UUID == "" {
					t.Errorf("row %q has no UUID", r.Text)
				}
			}
		})
	}
}

// TestBadLines checks that a line that is not a JSON object is an error
// for that line alone, and what is left of the file is read.
func TestBadLines(t *testing.T) {
	res := readSession(t, meta, "not json", "[1]", "null", `{"id":"u1"`, `{"id":"u1","type":"user","content":"Still read after four bad lines."}`)
	if res.BadLines != 4 {
		t.Errorf("bad lines %d, want 4 (%s)", res.BadLines, res.Warning)
	}
	if len(res.Rows) != 1 || res.Rows[0].Text != "Still read after four bad lines." {
		t.Errorf("rows:\n%s", rowsOf(res.Rows))
	}
	if res.Rows[0].Line != 6 {
		t.Errorf("line %d, want 6", res.Rows[0].Line)
	}
}

// TestTimestamps checks that times come out in UTC with milliseconds, and
// that a record with none takes the last one read.
func TestTimestamps(t *testing.T) {
	res := readSession(t, meta,
		`{"id":"u1","timestamp":"2026-03-01T12:30:00.123456+02:00","type":"user","content":"First prompt, in UTC+2."}`,
		`{"id":"u2","timestamp":"yesterday","type":"user","content":"Second prompt, with a bad time."}`,
		`{"id":"u3","type":"user","content":"Third prompt, with no time."}`)
	want := []string{"2026-03-01T10:30:00.123Z", "2026-03-01T10:30:00.123Z", "2026-03-01T10:30:00.123Z"}
	if len(res.Rows) != len(want) {
		t.Fatalf("rows:\n%s", rowsOf(res.Rows))
	}
	for i, r := range res.Rows {
		if r.Timestamp != want[i] {
			t.Errorf("row %d: timestamp %q, want %q", i, r.Timestamp, want[i])
		}
	}
}

// TestSessionFromSet checks that a $set naming another session id moves
// the rows after it to that session.
func TestSessionFromSet(t *testing.T) {
	res := readSession(t, meta,
		`{"id":"u1","type":"user","content":"A prompt of the first id."}`,
		`{"$set":{"sessionId":"s-2"}}`,
		`{"id":"u2","type":"user","content":"A prompt of the second id."}`)
	if len(res.Rows) != 2 || res.Rows[0].Session != "s-1" || res.Rows[1].Session != "s-2" || res.Session != "s-2" {
		t.Errorf("sessions %q then %q, read's %q; want s-1, s-2, s-2", res.Rows[0].Session, res.Rows[1].Session, res.Session)
	}
}

// TestNoMetadata checks that a file with no metadata is the session its
// name's id8 starts (logs.json has no entry for it here: id8 itself).
func TestNoMetadata(t *testing.T) {
	_, chats := project(t, "app", "/work/app")
	path := filepath.Join(chats, "session-2026-03-01T10-00-abcd1234.jsonl")
	writeLines(t, path, `{"id":"u1","type":"user","content":"A prompt with no metadata line."}`)
	res := read(t, mainFile(path), record.FileState{})
	if res.Session != "abcd1234" || len(res.Rows) != 1 || res.Rows[0].Session != res.Session {
		t.Errorf("session %q, rows:\n%s", res.Session, rowsOf(res.Rows))
	}
}

// TestLongID checks that an id longer than maxIDBytes is kept hashed.
func TestLongID(t *testing.T) {
	id := strings.Repeat("y", 300)
	res := readSession(t, meta, `{"id":"`+id+`","type":"user","content":"A prompt with a very long id."}`)
	if len(res.Rows) != 1 || len(res.Rows[0].UUID) > maxIDBytes || !strings.HasPrefix(res.Rows[0].UUID, "sha256:") {
		t.Errorf("rows %+v", res.Rows)
	}
}

// TestProjectResolution checks each way a session's project is found.
func TestProjectResolution(t *testing.T) {
	res := read(t, mainFile(filepath.Join(fixtureGemini, "tmp", "old-tool", "chats", "session-2026-01-05T08-30-77aa88bb.jsonl")), record.FileState{})
	if res.Project != "/home/dev/old-tool" {
		t.Errorf("by projects.json's slug: %q", res.Project)
	}
	res = read(t, mainFile(filepath.Join(fixtureGemini, "tmp", "scratch", "chats", "session-2026-03-05T16-20-3c3c3c3c.jsonl")), record.FileState{})
	if res.Project != "/home/dev/scratch" {
		t.Errorf("by the metadata's projectHash: %q", res.Project)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "session-x.jsonl")
	writeLines(t, path, meta, `{"id":"u1","type":"user","content":"A session outside Gemini CLI's folders."}`)
	if res := read(t, mainFile(path), record.FileState{}); res.Project != "" || len(res.Rows) != 1 {
		t.Errorf("outside the layout: project %q, %d rows", res.Project, len(res.Rows))
	}
}

// TestRedactedProject checks that a secret in the project's path is
// redacted in the rows' project.
func TestRedactedProject(t *testing.T) {
	secret := "ghp_" + strings.Repeat("aB3", 12)
	_, chats := project(t, "leak", "/work/"+secret)
	path := filepath.Join(chats, "session-x.jsonl")
	writeLines(t, path, meta, `{"id":"u1","type":"user","content":"A prompt in a badly named folder."}`)
	res := read(t, mainFile(path), record.FileState{})
	if strings.Contains(res.Project, secret) || len(res.Rows) != 1 || strings.Contains(res.Rows[0].Project, secret) {
		t.Errorf("project %q kept the secret", res.Project)
	}
}

// TestLegacyBounds checks that a legacy file too large, or not a
// session document, is an error of that file.
func TestLegacyBounds(t *testing.T) {
	_, chats := project(t, "app", "/work/app")
	path := filepath.Join(chats, "session-bad.json")
	writeLines(t, path, `[1,2,3]`)
	if res := read(t, mainFile(path), record.FileState{}); res.Err == nil {
		t.Error("a JSON array read as a session document")
	}
	writeLines(t, path, `{"sessionId":"s-9","messages":[{"id":"u1","type":"user","content":"cut short`)
	if res := read(t, mainFile(path), record.FileState{}); res.Err == nil {
		t.Error("a truncated document read without error")
	}
	writeLines(t, path, `{"sessionId":"s-9","messages":{"id":"u1"}}`)
	if res := read(t, mainFile(path), record.FileState{}); res.Err == nil {
		t.Error("messages as an object read without error")
	}
	writeLines(t, path, "\ufeff"+`{"messages":null,"sessionId":"s-9","summary":"A summary with no messages"}`)
	if res := read(t, mainFile(path), record.FileState{}); res.Err != nil || res.Session != "s-9" || len(res.Rows) != 1 {
		t.Errorf("a document with no messages: %v, session %q, %d rows", res.Err, res.Session, len(res.Rows))
	}
	if err := truncateTo(path, maxLegacyBytes+1); err != nil {
		t.Fatal(err)
	}
	res := read(t, mainFile(path), record.FileState{})
	if res.Err == nil || !strings.Contains(res.Err.Error(), "MiB") {
		t.Errorf("a file over the bound: %v", res.Err)
	}
}

// TestHugeMessage checks that a message longer than a row may hold is
// kept by its start, with a marker saying how much was left out.
func TestHugeMessage(t *testing.T) {
	long := strings.Repeat("a pasted build log line\\n", 20000) // 500 KB once decoded
	res := readSession(t, meta, `{"id":"u1","type":"user","content":"`+long+`"}`)
	if len(res.Rows) != 1 {
		t.Fatalf("rows:\n%s", rowsOf(res.Rows))
	}
	text := res.Rows[0].Text
	if len(text) > transcript.MaxRowText+200 || !strings.Contains(text, "recall kept the first") {
		t.Errorf("a %d-byte row, ending %q", len(text), text[len(text)-80:])
	}
}
