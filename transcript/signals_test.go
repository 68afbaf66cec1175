package transcript

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestProjectSlug(t *testing.T) {
	long := "/home/user/" + strings.Repeat("segment-", 30)
	cases := []struct{ cwd, want string }{
		{"/home/user/My Project.v2_test", "-home-user-My-Project-v2-test"}, // LAB, byte for byte
		{"/home/box/git/github/ai", "-home-box-git-github-ai"},             // RA's META.txt
		{"/tmp/é", "-tmp--"},
	}
	for _, c := range cases {
		if got := ProjectSlug(c.cwd); got != c.want {
			t.Errorf("ProjectSlug(%q) = %q, want %q", c.cwd, got, c.want)
		}
	}
	got := ProjectSlug(long)
	if len(got) <= 201 || got[200] != '-' || strings.ContainsAny(got[:200], "/_.") {
		t.Errorf("a path over 200 characters gives %q: want 200 characters, '-' and a hash", got)
	}
	if ProjectSlug(long) == ProjectSlug(long+"x") {
		t.Error("two long paths with the same first 200 characters share a folder name")
	}
}

func TestHistorySince(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history.jsonl")
	data := `{"display":"a","project":"/p","sessionId":"s1"}` + "\n" +
		`not json` + "\n" +
		`{"display":"b","project":"/q","sessionId":"../etc"}` + "\n" +
		`{"display":"c","project":"/q","sessionId":"s2"}` + "\n" +
		`{"display":"d","project":"/q","sess`
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	got, mark, err := HistorySince(path, HistoryMark{}, int64(len(data)))
	off := mark.Offset
	if err != nil {
		t.Fatal(err)
	}
	want := []ActiveSession{{ID: "s1", Cwd: "/p"}, {ID: "s2", Cwd: "/q"}}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("sessions %v, want %v", got, want)
	}
	if wantOff := int64(strings.LastIndexByte(data, '\n') + 1); off != wantOff {
		t.Errorf("offset %d, want %d: the partial last line is left for next time", off, wantOff)
	}
	end, err := HistoryEnd(path, int64(len(data)))
	if err != nil || end != mark {
		t.Errorf("HistoryEnd = %+v, %v; want %+v", end, err, mark)
	}
	if _, _, err := HistorySince(path, HistoryMark{}, maxHistoryDelta+1); err == nil {
		t.Error("no error for more history than one check reads")
	}
	// Cut and written again past the mark, same length before it: the
	// fingerprint of the bytes before the mark tells.
	rewritten := strings.Replace(data, `"s1"`, `"s9"`, 1) + "\n"
	if err := os.WriteFile(path, []byte(rewritten), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := HistorySince(path, mark, int64(len(rewritten))); !errors.Is(err, ErrHistoryRewritten) {
		t.Errorf("history rewritten before the mark: %v, want ErrHistoryRewritten", err)
	}
}

func TestRunningSessions(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"1.json": `{"pid":1,"sessionId":"aaa","cwd":"/x"}`,
		"2.json": `{"pid":2,"session_id":"bbb"}`,
		"3.json": `{broken`,
		"4.txt":  `{"sessionId":"ccc"}`,
		"5.json": `{"sessionId":"a/b"}`,
		"6.json": `{"pid":6}`,
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got := RunningSessions(dir)
	if len(got) != 2 || got[0] != (ActiveSession{ID: "aaa", Cwd: "/x"}) || got[1].ID != "bbb" {
		t.Errorf("RunningSessions = %v", got)
	}
	if RunningSessions(filepath.Join(dir, "none")) != nil {
		t.Error("a missing sessions folder names sessions")
	}
}

func TestStatTranscriptSession(t *testing.T) {
	root := t.TempDir()
	sub := filepath.Join(root, "-p", "sess", "subagents", "workflows", "wf_1")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(sub, "agent-a1.jsonl")
	if err := os.WriteFile(path, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tr, err := StatTranscript(path)
	if err != nil || tr.Session != "sess" || tr.Agent != "a1" || tr.Stat.Size != 3 {
		t.Errorf("StatTranscript = %+v, %v", tr, err)
	}
	found := DiscoverSessionDir([]string{root}, filepath.Join(root, "-p", "sess"), func(string) {})
	if len(found) != 1 || found[0].Session != tr.Session || found[0].Kind != tr.Kind {
		t.Errorf("StatTranscript %+v differs from discovery %+v", tr, found)
	}
}
