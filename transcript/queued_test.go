package transcript

import (
	"bufio"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/recall-dev/recall/record"
)

// TestQueuedPromptIsThePersons: a prompt typed while Claude worked is
// written as a queued_command attachment only (VS Code, 2.1.129), and is
// a user row; a task's notification queued the same way, a hook's
// output and a file attachment are not.
func TestQueuedPromptIsThePersons(t *testing.T) {
	lines := `{"type":"user","uuid":"u1","sessionId":"s1","cwd":"/w","timestamp":"2026-05-08T00:09:00.000Z","entrypoint":"claude-vscode","message":{"role":"user","content":"Create a brainstorming skill"}}
{"type":"attachment","uuid":"q1","sessionId":"s1","cwd":"/w","timestamp":"2026-05-08T00:09:30.000Z","entrypoint":"claude-vscode","attachment":{"type":"queued_command","prompt":[{"type":"text","text":"Isn't the main agent the coordinator?"}],"source_uuid":"x","commandMode":"prompt"}}
{"type":"attachment","uuid":"q2","sessionId":"s1","cwd":"/w","timestamp":"2026-05-08T00:09:40.000Z","attachment":{"type":"queued_command","prompt":"also keep the old name","commandMode":"prompt"}}
{"type":"attachment","uuid":"q3","sessionId":"s1","cwd":"/w","timestamp":"2026-05-08T00:10:00.000Z","attachment":{"type":"queued_command","prompt":"<task-notification>\n<task-id>b1</task-id>\n<status>failed</status>\n</task-notification>","commandMode":"task-notification"}}
{"type":"attachment","uuid":"h1","sessionId":"s1","cwd":"/w","timestamp":"2026-05-08T00:10:05.000Z","attachment":{"type":"hook_success","hookName":"SessionStart","content":"Isn't the main agent the coordinator?"}}
{"type":"attachment","uuid":"f1","sessionId":"s1","cwd":"/w","timestamp":"2026-05-08T00:10:06.000Z","attachment":{"commandMode":"prompt","type":"file","prompt":"not a prompt"}}
`
	res := readMainLines(t, lines)
	want := []struct{ uuid, text, ts string }{
		{"u1", "Create a brainstorming skill", "2026-05-08T00:09:00.000Z"},
		{"q1", "Isn't the main agent the coordinator?", "2026-05-08T00:09:30.000Z"},
		{"q2", "also keep the old name", "2026-05-08T00:09:40.000Z"},
	}
	if len(res.Rows) != len(want) {
		t.Fatalf("%d rows %+v, want %d", len(res.Rows), res.Rows, len(want))
	}
	for i, w := range want {
		r := res.Rows[i]
		if r.UUID != w.uuid || r.Text != w.text || r.Type != "user" || r.Timestamp != w.ts || r.Line != i+1 || r.Project != "/w" {
			t.Errorf("row %d: %+v, want %s %q at %s", i, r, w.uuid, w.text, w.ts)
		}
	}
}

// readMainLines reads lines as session s1's main transcript, which must
// read with no bad line.
func readMainLines(t *testing.T, lines string) Result {
	t.Helper()
	path := filepath.Join(t.TempDir(), "s1.jsonl")
	if err := os.WriteFile(path, []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	res := Read(Work{T: Transcript{Path: path, Kind: record.KindMain, Session: "s1"}}, "", bufio.NewReaderSize(nil, ReadBufferSize))
	if res.Err != nil || res.BadLines != 0 {
		t.Fatalf("read: %v, %d bad lines", res.Err, res.BadLines)
	}
	return res
}

// TestScheduledTaskPromptIsThePersons: a scheduled task's run queues the
// prompt the person wrote for it and writes it again as a user record
// marked isMeta (VS Code, 2.1.123): a user row, once. A meta record the
// queue did not just hold (a skill's expansion after its command was
// queued) stays noise, and so does one after a typed prompt.
func TestScheduledTaskPromptIsThePersons(t *testing.T) {
	lines := `{"type":"queue-operation","operation":"enqueue","timestamp":"2026-05-03T00:36:53.289Z","sessionId":"s1","content":"Daily check: run the export script and summarise the new leads."}
{"type":"queue-operation","operation":"dequeue","timestamp":"2026-05-03T00:36:53.295Z","sessionId":"s1"}
{"type":"user","uuid":"m1","sessionId":"s1","cwd":"/w","timestamp":"2026-05-03T00:36:56.365Z","isMeta":true,"entrypoint":"claude-vscode","message":{"role":"user","content":"Daily check: run the export script and summarise the new leads."}}
{"type":"queue-operation","operation":"enqueue","timestamp":"2026-05-03T00:40:00.000Z","sessionId":"s1","content":"/review-leads today"}
{"type":"user","uuid":"m2","sessionId":"s1","cwd":"/w","timestamp":"2026-05-03T00:40:01.000Z","isMeta":true,"message":{"role":"user","content":"Base directory for this skill: /w/.claude/skills/review-leads\n\nReview the leads."}}
{"type":"queue-operation","operation":"enqueue","timestamp":"2026-05-03T00:41:00.000Z","sessionId":"s1","content":"And the weekly totals please"}
{"type":"user","uuid":"u3","sessionId":"s1","cwd":"/w","timestamp":"2026-05-03T00:41:01.000Z","message":{"role":"user","content":"And the weekly totals please"}}
{"type":"user","uuid":"m3","sessionId":"s1","cwd":"/w","timestamp":"2026-05-03T00:41:02.000Z","isMeta":true,"message":{"role":"user","content":"And the weekly totals please"}}
`
	res := readMainLines(t, lines)
	want := []string{"m1 Daily check: run the export script and summarise the new leads.", "u3 And the weekly totals please"}
	var got []string
	for _, r := range res.Rows {
		if r.Type != "user" {
			t.Errorf("row %+v: type %q, want user", r, r.Type)
		}
		got = append(got, r.UUID+" "+r.Text)
	}
	if !slices.Equal(got, want) {
		t.Errorf("rows %q, want %q", got, want)
	}
}

// TestTitleBeforeTheWorkingDirectory: a title record that comes before
// any record naming the working directory gets the session's project.
func TestTitleBeforeTheWorkingDirectory(t *testing.T) {
	lines := `{"type":"custom-title","sessionId":"s1","customTitle":"invoice exporter"}
{"type":"user","uuid":"u1","sessionId":"s1","cwd":"/w/app","timestamp":"2026-05-03T00:36:56.365Z","message":{"role":"user","content":"Export the invoices as CSV please"}}
`
	res := readMainLines(t, lines)
	if len(res.Rows) != 2 {
		t.Fatalf("rows %+v, want a title and a prompt", res.Rows)
	}
	for _, r := range res.Rows {
		if r.Project != "/w/app" {
			t.Errorf("row %q: project %q, want /w/app", r.Text, r.Project)
		}
	}
}
