package gemini

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/recall-dev/recall/record"
)

// TestDefaultRoot checks Gemini CLI's folder and its override, which
// names the home holding .gemini.
func TestDefaultRoot(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	if got := DefaultRoot(env(nil), "/home/me"); got != "/home/me/.gemini" {
		t.Errorf("default: %q", got)
	}
	if got := DefaultRoot(env(map[string]string{"GEMINI_CLI_HOME": "/srv/gem"}), "/home/me"); got != "/srv/gem/.gemini" {
		t.Errorf("GEMINI_CLI_HOME: %q", got)
	}
	if got := DefaultRoot(env(nil), ""); got != "" {
		t.Errorf("no home: %q", got)
	}
}

// TestDiscover lists a copy of the fixtures' Gemini CLI folder, found
// through GEMINI_CLI_HOME, and each narrower root a user may give.
func TestDiscover(t *testing.T) {
	gemini := copyTree(t)
	root := DefaultRoot(func(k string) string {
		if k == "GEMINI_CLI_HOME" {
			return filepath.Dir(gemini)
		}
		return ""
	}, "/nonexistent")
	if root != gemini {
		t.Fatalf("root %q, want %q", root, gemini)
	}
	// A session file reached by a link, and a FIFO named like one.
	chats := filepath.Join(gemini, "tmp", "webapp", "chats")
	if err := os.Symlink(filepath.Join(gemini, mainSession), filepath.Join(chats, "session-2026-03-09T09-00-11112222.jsonl")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(chats, "session-fifo.jsonl"), 0o644); err != nil {
		t.Fatal(err)
	}
	var warnings []string
	found := Discover(root, func(s string) { warnings = append(warnings, s) })
	if len(warnings) != 1 || !strings.Contains(warnings[0], "session-fifo.jsonl") {
		t.Errorf("warnings %q, want one for the FIFO", warnings)
	}
	main, sub := record.KindOf(record.AgentGemini, false), record.KindOf(record.AgentGemini, true)
	var got []string
	for _, tr := range found {
		rel, _ := filepath.Rel(gemini, tr.Path)
		got = append(got, rel+" "+tr.Kind+" "+tr.Session+" "+tr.Agent)
		if tr.Stat.Size == 0 || tr.Stat.Ino == 0 {
			t.Errorf("%s: no stat", rel)
		}
	}
	want := []string{
		"tmp/2a6ccb57ba04a55f8c7a40ad86a9635916177c62077e1a0a9d9f9e0308d2dc29/chats/session-2025-11-30T12-00-0badc0de.json " + main + "  ",
		"tmp/old-tool/chats/session-2026-01-05T08-30-77aa88bb.jsonl " + main + "  ",
		// A project whose sessions have no chat: its prompt log.
		"tmp/prelog/logs.json " + main + "  ",
		"tmp/scratch/chats/session-2026-03-05T16-20-3c3c3c3c.jsonl " + main + "  ",
		"tmp/webapp/chats/1f2e3d4c-5b6a-4789-9abc-def012345678/9a8b7c6d-aaaa-4bbb-8ccc-ddddeeeeffff.jsonl " + sub +
			" 1f2e3d4c-5b6a-4789-9abc-def012345678 9a8b7c6d-aaaa-4bbb-8ccc-ddddeeeeffff",
		"tmp/webapp/chats/session-2026-02-20T09-15-5a6b7c8d.json " + main + "  ",
		"tmp/webapp/chats/session-2026-02-20T09-15-5a6b7c8d.jsonl " + main + "  ",
		"tmp/webapp/chats/session-2026-03-01T10-00-1f2e3d4c.jsonl " + main + "  ",
		"tmp/webapp/chats/session-2026-03-09T09-00-11112222.jsonl " + main + "  ",
		"tmp/webapp/logs.json " + main + "  ",
	}
	if !slices.Equal(got, want) {
		t.Errorf("found\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	quiet := func(s string) {}
	for _, r := range []struct {
		root string
		n    int
	}{
		{filepath.Join(gemini, "tmp"), 10},
		{filepath.Join(gemini, "tmp", "webapp"), 6},
		{chats, 6},
		{filepath.Join(gemini, "tmp", "old-tool", "chats"), 1},
		{filepath.Join(gemini, "nowhere"), 0},
	} {
		if n := len(Discover(r.root, quiet)); n != r.n {
			t.Errorf("%s: %d files, want %d", r.root, n, r.n)
		}
	}
}

// TestDiscoverNested: a folder that is none of Gemini CLI's, holding
// the .gemini folders of several people or repositories a level or more
// down, is looked through for them (not into .git or dependencies), and
// the no-change check watches each of their tmp folders.
func TestDiscoverNested(t *testing.T) {
	data := t.TempDir()
	for _, at := range []string{"repoA/.gemini", "people/bob/repoB/.gemini", ".git/x/.gemini", "node_modules/m/.gemini"} {
		dst := filepath.Join(data, at)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(copyTree(t), dst); err != nil {
			t.Fatal(err)
		}
	}
	quiet := func(string) {}
	one := len(Discover(filepath.Join(data, "repoA", ".gemini"), quiet))
	found := Discover(data, quiet)
	if one == 0 || len(found) != 2*one {
		t.Fatalf("found %d files, want %d", len(found), 2*one)
	}
	for _, tr := range found {
		if rel, _ := filepath.Rel(data, tr.Path); !strings.HasPrefix(rel, "repoA/.gemini/tmp/") && !strings.HasPrefix(rel, "people/bob/repoB/.gemini/tmp/") {
			t.Errorf("found %s", rel)
		}
	}
	watched := WatchPaths(data)
	for _, p := range []string{"repoA/.gemini/tmp", "repoA/.gemini/projects.json", "people/bob/repoB/.gemini/tmp", "people/bob/repoB/.gemini/tmp/webapp/chats"} {
		if !slices.Contains(watched, filepath.Join(data, p)) {
			t.Errorf("%s not watched: %q", p, watched)
		}
	}
	// A tmp folder whose projects are there is read as before: no walk.
	if got := len(Discover(filepath.Join(data, "repoA", ".gemini", "tmp"), quiet)); got != one {
		t.Errorf("tmp: %d files, want %d", got, one)
	}
}

// TestDiscoverUnreadable checks that a folder that cannot be read is
// reported and the rest still listed.
func TestDiscoverUnreadable(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads every folder")
	}
	gemini := copyTree(t)
	locked := filepath.Join(gemini, "tmp", "old-tool", "chats")
	if err := os.Chmod(locked, 0); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(locked, 0o755)
	var warnings []string
	found := Discover(gemini, func(s string) { warnings = append(warnings, s) })
	if len(warnings) != 1 || !strings.Contains(warnings[0], locked) {
		t.Errorf("warnings %q", warnings)
	}
	if len(found) != 6 {
		t.Errorf("found %d files, want 6", len(found))
	}
}

// TestWatchPaths checks the paths the no-change check stats: two per
// folder of tmp and the registry, however many sessions there are.
func TestWatchPaths(t *testing.T) {
	gemini := copyTree(t)
	got := WatchPaths(gemini)
	want := []string{
		filepath.Join(gemini, "tmp"),
		filepath.Join(gemini, "projects.json"),
		filepath.Join(gemini, "tmp", "2a6ccb57ba04a55f8c7a40ad86a9635916177c62077e1a0a9d9f9e0308d2dc29", "chats"),
		filepath.Join(gemini, "tmp", "2a6ccb57ba04a55f8c7a40ad86a9635916177c62077e1a0a9d9f9e0308d2dc29", "logs.json"),
		// A folder of tmp with no chats (Gemini CLI's tools) is
		// watched for them all the same: a stat each, none to
		// see whether it holds them.
		filepath.Join(gemini, "tmp", "bin", "chats"),
		filepath.Join(gemini, "tmp", "bin", "logs.json"),
		filepath.Join(gemini, "tmp", "old-tool", "chats"),
		filepath.Join(gemini, "tmp", "old-tool", "logs.json"),
		// A project whose sessions have no chat yet: its prompt log.
		filepath.Join(gemini, "tmp", "prelog", "chats"),
		filepath.Join(gemini, "tmp", "prelog", "logs.json"),
		filepath.Join(gemini, "tmp", "scratch", "chats"),
		filepath.Join(gemini, "tmp", "scratch", "logs.json"),
		filepath.Join(gemini, "tmp", "webapp", "chats"),
		filepath.Join(gemini, "tmp", "webapp", "logs.json"),
	}
	if !slices.Equal(got, want) {
		t.Errorf("watch paths\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// More sessions add no path.
	chats := filepath.Join(gemini, "tmp", "webapp", "chats")
	writeLines(t, filepath.Join(chats, "session-2026-03-10T10-00-99990000.jsonl"), meta)
	if n := len(WatchPaths(gemini)); n != len(want) {
		t.Errorf("%d watch paths after a session was added, want %d", n, len(want))
	}
	if got := WatchPaths(chats); !slices.Equal(got, []string{chats, filepath.Join(gemini, "tmp", "webapp", "logs.json")}) {
		t.Errorf("a chats folder's watch paths: %q", got)
	}
}

// TestResumeAndCurrent checks the resume command and the running
// session's id from a hook's environment.
func TestResumeAndCurrent(t *testing.T) {
	if got := ResumeCommand("1f2e3d4c", ""); len(got) != 1 || !slices.Equal(got[0], []string{"gemini", "--resume", "1f2e3d4c"}) {
		t.Errorf("resume: %q", got)
	}
	getenv := func(k string) string {
		if k == "GEMINI_SESSION_ID" {
			return "1f2e3d4c-5b6a"
		}
		return ""
	}
	if got := CurrentSession(getenv); got != "1f2e3d4c-5b6a" {
		t.Errorf("current session: %q", got)
	}
	if got := CurrentSession(func(string) string { return "" }); got != "" {
		t.Errorf("no session: %q", got)
	}
}
