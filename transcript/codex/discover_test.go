package codex

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/recall-dev/recall/record"
)

func TestDefaultRoot(t *testing.T) {
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	if got := DefaultRoot(getenv, "/home/me"); got != "/home/me/.codex" {
		t.Errorf("DefaultRoot = %q", got)
	}
	if got := DefaultRoot(getenv, ""); got != "" {
		t.Errorf("DefaultRoot without a home = %q", got)
	}
	env["CODEX_HOME"] = "/data/codex"
	if got := DefaultRoot(getenv, "/home/me"); got != "/data/codex" {
		t.Errorf("DefaultRoot with CODEX_HOME = %q", got)
	}
}

func TestCurrentSession(t *testing.T) {
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	if got := CurrentSession(getenv); got != "" {
		t.Errorf("CurrentSession outside Codex = %q", got)
	}
	env["CODEX_THREAD_ID"] = threadPlain + "\n"
	if got := CurrentSession(getenv); got != threadPlain {
		t.Errorf("CurrentSession = %q", got)
	}
}

func TestResumeCommand(t *testing.T) {
	resume := []string{"codex", "resume", threadPlain}
	unarchive := []string{"codex", "unarchive", threadPlain}
	for _, tc := range []struct {
		file string
		want [][]string
	}{
		{"/h/.codex/sessions/2026/05/10/rollout-2026-05-10T10-00-00-" + threadPlain + ".jsonl", [][]string{resume}},
		{"/h/.codex/archived_sessions/rollout-2026-05-10T10-00-00-" + threadPlain + ".jsonl", [][]string{unarchive, resume}},
		{"/h/.codex/archived_sessions/rollout-2026-05-10T10-00-00-" + threadPlain + ".jsonl.zst", [][]string{unarchive, resume}},
		{"/archived_sessions/h/.codex/sessions/2026/05/10/rollout-" + threadPlain + ".jsonl", [][]string{resume}},
		{"", [][]string{resume}},
	} {
		if got := ResumeCommand(threadPlain, tc.file); !slices.EqualFunc(got, tc.want, slices.Equal) {
			t.Errorf("ResumeCommand(%q) = %q, want %q", tc.file, got, tc.want)
		}
	}
}

func TestThreadIDOf(t *testing.T) {
	for name, want := range map[string]string{
		"rollout-2026-03-14T09-12-33-" + threadPlain + ".jsonl":                  threadPlain,
		"rollout-2026-03-14T09-12-33-" + threadPlain + ".jsonl.zst":              threadPlain,
		"rollout-2026-03-14T09-12-33-0199B6F2-1C3A-7D41-9E0A-5B7C2D9E1F01.jsonl": threadPlain,
		"rollout-2026-03-14T09-12-33.jsonl":                                      "",
		"rollout-x-0199b6f2_1c3a-7d41-9e0a-5b7c2d9e1f01.jsonl":                   "",
		"rollout-x-0199b6f2-1c3a-7d41-9e0a-5b7c2d9e1fzz.jsonl":                   "",
	} {
		if got := threadIDOf(name); got != want {
			t.Errorf("threadIDOf(%q) = %q, want %q", name, got, want)
		}
	}
}

// home lays out a Codex home: rollouts in date folders, a flat one of
// the oldest versions, archived ones plain and compressed, and the side
// files and folders Codex keeps that are no rollouts.
func home(t *testing.T) (string, []string) {
	t.Helper()
	dir := t.TempDir()
	rollouts := []string{
		"sessions/2026/03/14/rollout-2026-03-14T09-12-33-" + threadPlain + ".jsonl",
		"sessions/2026/03/14/rollout-2026-03-14T11-00-00-" + threadResumed + ".jsonl",
		"sessions/2026/03/15/rollout-2026-03-15T10-00-00-" + threadFork + ".jsonl",
		"sessions/rollout-2025-05-07T17-24-21-" + threadLegacy + ".jsonl",
		"archived_sessions/rollout-2025-09-20T08-00-00-" + threadEvents + ".jsonl",
		"archived_sessions/rollout-2025-09-21T08-00-00-" + threadExec + ".jsonl.zst",
	}
	for _, p := range rollouts {
		writeFile(t, filepath.Join(dir, p), []byte(metaLine(threadPlain, "/a", "cli")+"\n"))
	}
	for _, p := range []string{"history.jsonl", "session_index.jsonl", "config.toml", "state_5.sqlite",
		"sessions/2026/03/14/notes.jsonl", "sessions/2026/03/14/rollout-draft.json", "log/codex-tui.log"} {
		writeFile(t, filepath.Join(dir, p), []byte("{}\n"))
	}
	var want []string
	for _, p := range rollouts {
		want = append(want, filepath.Join(dir, p))
	}
	slices.Sort(want)
	return dir, want
}

func TestDiscover(t *testing.T) {
	root, want := home(t)
	// A link loop and a FIFO named like a rollout.
	if err := os.Symlink(filepath.Join(root, sessionsDir), filepath.Join(root, sessionsDir, "2026", "loop")); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(root, sessionsDir, "2026", "03", "15", "rollout-2026-03-15T11-00-00-"+threadSubagent+".jsonl")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	var warnings []string
	env := map[string]string{"CODEX_HOME": root}
	got := Discover(DefaultRoot(func(k string) string { return env[k] }, "/nowhere"), func(s string) { warnings = append(warnings, s) })
	var paths []string
	for _, tr := range got {
		paths = append(paths, tr.Path)
		if tr.Kind != record.KindOf(record.AgentCodex, false) || tr.Session != threadIDOf(filepath.Base(tr.Path)) ||
			tr.Session == "" || tr.Agent != "" || tr.Stat.Size == 0 || tr.Stat.Ino == 0 {
			t.Errorf("transcript %+v", tr)
		}
	}
	if !slices.Equal(paths, want) {
		t.Errorf("Discover found\n%s\nwant\n%s", strings.Join(paths, "\n"), strings.Join(want, "\n"))
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], fifo) || !strings.Contains(warnings[0], "not a regular file") {
		t.Errorf("warnings %q", warnings)
	}
}

// TestDiscoverFolderGiven: a folder of rollouts given with --source
// codex:PATH (sessions/, a date folder) is read itself.
func TestDiscoverFolderGiven(t *testing.T) {
	root, want := home(t)
	for _, c := range []struct {
		dir  string
		want int
	}{{filepath.Join(root, sessionsDir), 4}, {filepath.Join(root, sessionsDir, "2026", "03", "14"), 2}, {filepath.Join(root, archivedDir), 2}} {
		got := Discover(c.dir, func(s string) { t.Error(s) })
		if len(got) != c.want {
			t.Errorf("Discover(%s) found %d, want %d", c.dir, len(got), c.want)
		}
		for _, tr := range got {
			if !slices.Contains(want, tr.Path) {
				t.Errorf("Discover(%s) found %s", c.dir, tr.Path)
			}
		}
	}
	if got := Discover(want[0], func(s string) { t.Error(s) }); len(got) != 1 || got[0].Path != want[0] {
		t.Errorf("Discover(a rollout) = %+v", got)
	}
	if got := Discover(filepath.Join(root, "missing"), func(s string) { t.Error(s) }); len(got) != 0 {
		t.Errorf("a missing root: %d files", len(got))
	}
}

// TestDiscoverNestedHomes: a folder holding the Codex homes of several
// people or repositories a level or more down is looked through for them
// (not into .git or dependencies), each read as a home, and the no-change
// check watches each home's paths.
func TestDiscoverNestedHomes(t *testing.T) {
	data := t.TempDir()
	var want []string
	for _, at := range []string{"alice/.codex", "team/bob/repo/.codex"} {
		home, rollouts := home(t)
		dst := filepath.Join(data, at)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(home, dst); err != nil {
			t.Fatal(err)
		}
		for _, r := range rollouts {
			rel, _ := filepath.Rel(home, r)
			want = append(want, filepath.Join(dst, rel))
		}
	}
	for _, hidden := range []string{".git/x/.codex", "web/node_modules/m/.codex", "a/b/c/d/.codex"} { // the last past maxHomeDepth
		writeFile(t, filepath.Join(data, hidden, sessionsDir, "rollout-2026-03-14T09-12-33-"+threadPlain+".jsonl"), []byte(metaLine(threadPlain, "/a", "cli")+"\n"))
	}
	slices.Sort(want)
	var got []string
	for _, tr := range Discover(data, func(s string) { t.Error(s) }) {
		got = append(got, tr.Path)
	}
	if !slices.Equal(got, want) {
		t.Errorf("Discover found\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	watched := WatchPaths(data)
	for _, p := range []string{"alice/.codex/sessions", "alice/.codex/session_index.jsonl", "team/bob/repo/.codex/archived_sessions", "team/bob/repo/.codex/history.jsonl"} {
		if !slices.Contains(watched, filepath.Join(data, p)) {
			t.Errorf("%s not watched: %q", p, watched)
		}
	}
}

func TestDiscoverUnreadableFolder(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads any folder")
	}
	root, _ := home(t)
	locked := filepath.Join(root, sessionsDir, "2026", "03", "14")
	if err := os.Chmod(locked, 0); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(locked, 0o755)
	var warnings []string
	got := Discover(root, func(s string) { warnings = append(warnings, s) })
	if len(got) != 4 || len(warnings) != 1 || !strings.Contains(warnings[0], locked) {
		t.Errorf("%d files, warnings %q", len(got), warnings)
	}
}

// TestWatchPaths: a handful of paths, the same however many rollouts
// there are: the folders a new rollout appears in (today's, which may not
// exist yet, and the newest there is), the newest rollout, and Codex's
// history and thread index.
func TestWatchPaths(t *testing.T) {
	root, _ := home(t)
	got := WatchPaths(root)
	now := time.Now()
	today := filepath.Join(root, sessionsDir, now.Format("2006"), now.Format("01"), now.Format("02"))
	for _, p := range []string{
		filepath.Join(root, sessionsDir), filepath.Join(root, archivedDir), today,
		filepath.Join(root, "history.jsonl"), filepath.Join(root, "session_index.jsonl"),
		filepath.Join(root, sessionsDir, "2026", "03", "15"),
		filepath.Join(root, sessionsDir, "2026", "03", "15", "rollout-2026-03-15T10-00-00-"+threadFork+".jsonl"),
	} {
		if !slices.Contains(got, p) {
			t.Errorf("WatchPaths lacks %s:\n%s", p, strings.Join(got, "\n"))
		}
	}
	if len(got) > 12 {
		t.Errorf("%d watched paths", len(got))
	}
	for i := range 200 {
		writeFile(t, filepath.Join(root, sessionsDir, "2026", "03", "14", fmt.Sprintf("rollout-2026-03-14T12-00-%03d-%s.jsonl", i, threadPlain)), []byte("{}\n"))
	}
	if again := WatchPaths(root); !slices.Equal(again, got) {
		t.Errorf("more rollouts in an older folder changed the watched paths:\n%s", strings.Join(again, "\n"))
	}
	direct := WatchPaths(filepath.Join(root, sessionsDir, "2026"))
	if !slices.Contains(direct, filepath.Join(root, sessionsDir, "2026")) || len(direct) > 5 {
		t.Errorf("WatchPaths of a folder given: %q", direct)
	}
}
