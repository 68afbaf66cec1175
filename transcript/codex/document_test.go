package codex

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/recall-dev/recall/record"
	"github.com/recall-dev/recall/transcript"
)

// TestDocumentRewritten: the TypeScript CLI writes its document whole
// again as a session goes on. A read of the longer document gives the
// rows of the shorter one with the same keys (so the indexer leaves them
// out as copies) and then the new items' rows.
func TestDocumentRewritten(t *testing.T) {
	src := filepath.Join(fixtures, "sessions", "rollout-2025-08-23-8e9d0c1b-2a3f-4e5d-8c7b-6a5f4e3d2c1b.json")
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Session json.RawMessage   `json:"session"`
		Items   []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), filepath.Base(src))
	write := func(items []json.RawMessage) []string {
		t.Helper()
		out, err := json.MarshalIndent(map[string]any{"session": doc.Session, "items": items}, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, path, out)
		res := read(t, path, record.FileState{})
		var keys []string
		for _, r := range res.Rows {
			keys = append(keys, fmt.Sprintf("%x %s", r.Key, r.Text))
		}
		return keys
	}
	short := write(doc.Items[:2])
	long := write(doc.Items)
	if len(short) == 0 || len(long) <= len(short) || !slices.Equal(long[:len(short)], short) {
		t.Fatalf("rows of the rewritten document do not start with the first read's:\n first %q\nsecond %q", short, long)
	}
}

// TestDocumentShapes reads documents of every shape the TypeScript CLI
// and its forks wrote, and broken ones: what each keeps, and that a bad
// document is an error and a bad item is counted, never a panic.
func TestDocumentShapes(t *testing.T) {
	const session = `"session":{"timestamp":"2025-05-10T14:02:11Z","id":"3f6c1b2a-7d4e-4f5a-9b8c-1d2e3f4a5b6c"}`
	tests := []struct {
		name, doc string
		texts     []string
		bad       int
		err       bool
	}{
		{"responses items", `{` + session + `,"items":[{"type":"message","role":"user","content":[{"type":"input_text","text":"Why is the queue stuck?"}]},{"type":"message","role":"assistant","content":[{"type":"output_text","text":"A consumer holds the lock."}]}]}`,
			[]string{"Why is the queue stuck?", "A consumer holds the lock."}, 0, false},
		{"chat messages with string content", `{` + session + `,"items":[{"role":"user","content":"Why is the queue stuck?"},{"role":"system","content":"You are Codex."},{"role":"assistant","content":"A consumer holds the lock."}]}`,
			[]string{"Why is the queue stuck?", "A consumer holds the lock."}, 0, false},
		{"a tool call of a chat message", `{` + session + `,"items":[{"role":"assistant","content":null,"tool_calls":[{"id":"c1","function":{"name":"shell","arguments":"{\"command\":[\"make\",\"test\"]}"}}]}]}`,
			[]string{"shell: make test"}, 0, false},
		{"items before the session", `{"items":[{"role":"user","content":"Why is the queue stuck?"}],` + session + `}`,
			[]string{"Why is the queue stuck?"}, 0, false},
		{"bad items counted", `{` + session + `,"items":[42,"x",null,{"role":"user","content":7},{"role":"user","content":"Why is the queue stuck?"}]}`,
			[]string{"Why is the queue stuck?"}, 4, false},
		{"no items", `{` + session + `}`, nil, 0, false},
		{"items not an array", `{` + session + `,"items":{}}`, nil, 0, true},
		{"not an object", `[1,2]`, nil, 0, true},
		{"cut short", `{` + session + `,"items":[{"role":"user","content":"Why`, nil, 0, true},
		{"empty file", ``, nil, 0, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "rollout-2025-05-10-3f6c1b2a-7d4e-4f5a-9b8c-1d2e3f4a5b6c.json")
			writeFile(t, path, []byte(tc.doc))
			res := readResult(t, path)
			if (res.Err != nil) != tc.err {
				t.Fatalf("err = %v, want error %v", res.Err, tc.err)
			}
			if tc.err {
				return
			}
			var texts []string
			for _, r := range res.Rows {
				texts = append(texts, r.Text)
				if r.Session != "3f6c1b2a-7d4e-4f5a-9b8c-1d2e3f4a5b6c" || r.Agent != record.AgentCodex {
					t.Errorf("row %q: session %q agent %q", r.Text, r.Session, r.Agent)
				}
			}
			if !slices.Equal(texts, tc.texts) || res.BadLines != tc.bad {
				t.Errorf("rows %q, %d bad; want %q, %d bad", texts, res.BadLines, tc.texts, tc.bad)
			}
			if tc.bad > 0 && !strings.Contains(res.Warning, "skipped a part") {
				t.Errorf("warning %q names no skipped part", res.Warning)
			}
		})
	}
}

// readResult reads the file at path whole from its start, its error
// kept in the result.
func readResult(t *testing.T, path string) transcript.Result {
	t.Helper()
	return transcript.ReadFormat(Format(), transcript.Work{T: transcriptOf(t, path), State: record.FileState{Path: path, Gen: 1}}, "",
		bufio.NewReaderSize(nil, 1<<16))
}

// FuzzCodexDocument: a rollout document of any bytes reads without a
// panic, as an error or as rows of one session, each row's text
// non-empty, a part that does not read counted.
func FuzzCodexDocument(f *testing.F) {
	for _, s := range []string{
		`{"session":{"timestamp":"2025-05-10T14:02:11Z","id":"3f6c1b2a-7d4e-4f5a-9b8c-1d2e3f4a5b6c"},"items":[{"role":"user","content":"Why is the queue stuck?"}]}`,
		`{"items":[{"type":"message","role":"user","content":[{"type":"input_text","text":"a b c d"}]},{"type":"function_call","name":"shell","arguments":"{\"command\":[\"ls\"]}"}]}`,
		`{"items":[{"role":"assistant","tool_calls":[{"function":{"name":"x","arguments":5}}]}]}`, `{"items":[1,{},[]]}`, `{}`, `[]`, `{"session":7}`,
	} {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, "rollout-2025-05-10-3f6c1b2a-7d4e-4f5a-9b8c-1d2e3f4a5b6c.json")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		res := readResult(t, path)
		if res.Err != nil {
			return
		}
		for _, r := range res.Rows {
			if r.Session != res.Session && r.AgentID == "" || strings.TrimSpace(r.Text) == "" {
				t.Fatalf("row %+v of a read of session %q", r, res.Session)
			}
		}
	})
}
