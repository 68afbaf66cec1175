package codex

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/recall-dev/recall/record"
	"github.com/recall-dev/recall/transcript"
)

func TestHomeOf(t *testing.T) {
	tests := []struct{ path, want string }{
		{"/h/.codex/sessions/2026/03/14/rollout-a.jsonl", "/h/.codex"},
		{"/h/.codex/sessions/rollout-2025-05-10-a.json", "/h/.codex"},
		{"/h/.codex/archived_sessions/rollout-a.jsonl.zst", "/h/.codex"},
		{"/h/rollouts/rollout-a.jsonl", ""},
		{"/rollout-a.jsonl", ""},
		{"rollout-a.jsonl", ""},
	}
	for _, tc := range tests {
		if got := homeOf(filepath.FromSlash(tc.path)); got != filepath.FromSlash(tc.want) {
			t.Errorf("homeOf(%q) = %q, want %q", tc.path, got, tc.want)
		}
	}
}

// TestThreadName: a thread's last name wins, ids match in any case, and
// lines that are not JSON, or name another thread, are passed over.
func TestThreadName(t *testing.T) {
	home := t.TempDir()
	const id = "0199b6f2-1c3a-7d41-9e0a-5b7c2d9e1f01"
	if got := threadName(home, id); got != "" {
		t.Fatalf("no index: name %q", got)
	}
	index := `{"id":"` + id + `","thread_name":"first"}
not json ` + id + `
{"id":"0199b6f2-1c3a-7d41-9e0a-5b7c2d9e1f02","thread_name":"other ` + id + `"}
{"id":"` + "0199B6F2-1C3A-7D41-9E0A-5B7C2D9E1F01" + `","thread_name":"  last  "}
{"id":"` + id + `","thread_name":7}
`
	if err := os.WriteFile(filepath.Join(home, sessionIndexFile), []byte(index), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := threadName(home, id); got != "last" {
		t.Errorf("name %q, want %q", got, "last")
	}
	if got := threadName(home, "0199b6f2-1c3a-7d41-9e0a-5b7c2d9e1f09"); got != "" {
		t.Errorf("unnamed thread: name %q", got)
	}
}

// TestThreadNameReadsTheEnd: of an index larger than the bound, its end
// is read (the newest names), from the first whole line there.
func TestThreadNameReadsTheEnd(t *testing.T) {
	home := t.TempDir()
	const id = "0199b6f2-1c3a-7d41-9e0a-5b7c2d9e1f01"
	var b strings.Builder
	b.WriteString(`{"id":"0199b6f2-1c3a-7d41-9e0a-5b7c2d9e1f07","thread_name":"only in the head"}` + "\n")
	for b.Len() < maxSessionIndexBytes+1000 {
		b.WriteString(`{"id":"0199b6f2-1c3a-7d41-9e0a-5b7c2d9e1f02","thread_name":"filler"}` + "\n")
	}
	b.WriteString(`{"id":"` + id + `","thread_name":"newest"}` + "\n")
	if err := os.WriteFile(filepath.Join(home, sessionIndexFile), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := threadName(home, id); got != "newest" {
		t.Errorf("name %q, want newest", got)
	}
	if got := threadName(home, "0199b6f2-1c3a-7d41-9e0a-5b7c2d9e1f07"); got != "" {
		t.Errorf("a name only before the end read: %q", got)
	}
	if got := threadName(home, "0199b6f2-1c3a-7d41-9e0a-5b7c2d9e1f02"); got != "filler" {
		t.Errorf("name %q, want filler", got)
	}
}

func TestReopens(t *testing.T) {
	for path, ok := range map[string]bool{
		"/h/.codex/sessions/2026/03/14/rollout-2026-03-14T09-12-33-0199b6f2-1c3a-7d41-9e0a-5b7c2d9e1f01.jsonl":   true,
		"/h/.codex/archived_sessions/rollout-2026-03-14T09-12-33-0199b6f2-1c3a-7d41-9e0a-5b7c2d9e1f01.jsonl.zst": true,
		"/h/.codex/sessions/rollout-2025-05-10-3f6c1b2a-7d4e-4f5a-9b8c-1d2e3f4a5b6c.json":                        false,
	} {
		if err := Reopens(path); (err == nil) != ok {
			t.Errorf("Reopens(%s) = %v, want reopenable %v", path, err, ok)
		}
	}
}

// TestNameGivenAfterTheRead: a thread named after its rollout was read
// (the name in session_index.jsonl, changed since) gets its title at the
// next read of the rollout's new lines; a read when the names did not
// change since looks nothing up.
func TestNameGivenAfterTheRead(t *testing.T) {
	home := t.TempDir()
	path := filepath.Join(home, "sessions", "2026", "01", "01", "rollout-2026-01-01T00-00-00-"+threadPlain+".jsonl")
	writeFile(t, path, []byte(metaLine(threadPlain, "/home/dev/app", "vscode")+"\n"+
		itemLine("message", `"role":"user","content":[{"type":"input_text","text":"First prompt of the thread here"}]`)+"\n"))
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
	titles := func(res transcript.Result) []string {
		var out []string
		for _, r := range res.Rows {
			if r.Type == record.TypeTitle {
				out = append(out, r.Text)
			}
		}
		return out
	}
	first := read(t, path, record.FileState{})
	if got := titles(first); len(got) != 0 {
		t.Fatalf("first read, no names yet: titles %q", got)
	}
	st := next(first)
	st.MtimeNs = old.UnixNano() // as the indexer notes the file's stat
	writeFile(t, filepath.Join(home, sessionIndexFile), []byte(`{"id":"`+threadPlain+`","thread_name":"Fix the flaky upload test"}`+"\n"))
	appendFile(t, path, []byte(itemLine("message", `"role":"assistant","content":[{"type":"output_text","text":"A reply to the first prompt"}]`)+"\n"))
	second := read(t, path, st)
	if got := titles(second); len(got) != 1 || got[0] != "Fix the flaky upload test" {
		t.Fatalf("read after the naming: titles %q, want the name", got)
	}
	if second.Rows[0].Session != threadPlain {
		t.Errorf("title of session %q, want %q", second.Rows[0].Session, threadPlain)
	}
	st = next(second)
	st.MtimeNs = time.Now().Add(time.Hour).UnixNano() // read after the names last changed
	appendFile(t, path, []byte(itemLine("message", `"role":"user","content":[{"type":"input_text","text":"And the download test too"}]`)+"\n"))
	if got := titles(read(t, path, st)); len(got) != 0 {
		t.Errorf("read with no naming since: titles %q", got)
	}
}
