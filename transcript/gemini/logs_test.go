package gemini

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/recall-dev/recall/record"
	"github.com/recall-dev/recall/transcript"
)

// TestLogsLeaveChattedSessionsToTheirChats: a prompt log's session with
// a chat file, in the log's own folder or in another project folder of
// tmp (the same project under its hash's folder and its slug's), makes
// no row from the log; one with none makes a user row per prompt, and
// a command typed at the prompt none.
func TestLogsLeaveChattedSessionsToTheirChats(t *testing.T) {
	tmp := filepath.Join(t.TempDir(), ".gemini", "tmp")
	const own, other, none = "aaaa1111-2222-4333-8444-555566667777", "bbbb1111-2222-4333-8444-555566667777", "cccc1111-2222-4333-8444-555566667777"
	files := map[string]string{
		"named/chats/session-2026-01-02T03-04-aaaa1111.jsonl":           "",
		"0123456789abcdef/chats/session-2026-01-01T03-04-bbbb1111.json": "",
		"named/logs.json": `[
{"sessionId":"` + own + `","messageId":0,"type":"user","message":"own chat","timestamp":"2026-01-02T03:04:05.000Z"},
{"sessionId":"` + other + `","messageId":0,"type":"user","message":"chat under the hash","timestamp":"2026-01-01T03:04:05.000Z"},
{"sessionId":"` + none + `","messageId":0,"type":"user","message":"no chat anywhere","timestamp":"2026-01-03T03:04:05.000Z"},
{"sessionId":"` + none + `","messageId":1,"type":"user","message":"/quit","timestamp":"2026-01-03T03:05:05.000Z"}
]`,
	}
	for name, data := range files {
		path := filepath.Join(tmp, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	w := transcript.Work{T: transcript.Transcript{Path: filepath.Join(tmp, "named", logsName), Kind: record.KindOf(record.AgentGemini, false)},
		State: record.FileState{Gen: 1}}
	b := transcript.NewBuilder(w, record.AgentGemini)
	if _, _, _, err := readLogs(w, b); err != nil {
		t.Fatal(err)
	}
	rows := b.Rows()
	if len(rows) != 1 || rows[0].Session != none || rows[0].Text != "no chat anywhere" || rows[0].Line != 4 {
		t.Errorf("rows %+v, want only %s's prompt, of line 4", rows, none)
	}
}
