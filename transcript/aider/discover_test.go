package aider

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/recall-dev/recall/record"
	"github.com/recall-dev/recall/transcript"
)

// projectsTree makes a folder of projects as a user has them:
//
//	root/.aider.chat.history.md          root is a project itself
//	root/webapp/.aider.chat.history.md
//	root/api/.aider.chat.history.md
//	root/empty/                          a project never run with aider
//	root/mono/pkg/.aider.chat.history.md a subfolder's, its project has none
//	root/gh/alice/cli/.aider.chat.history.md  copied histories: owner/project
//	root/gh/alice/cli/sub/.aider.chat.history.md  in a project that has one: not looked for
//	root/gh/bob/x/y/.aider.chat.history.md    past maxLevel: not looked for
//	root/gh/bob/.git/h/.aider.chat.history.md a hidden folder: not entered
//	root/gh/bob/node_modules/m/.aider.chat.history.md  dependencies: not entered
//	root/chats/api.aider.chat.history.md a history kept under a name of its own
//	root/linked -> webapp                the same file again
//	root/notes.md                        not a folder
func projectsTree(t *testing.T) string {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir()) // its own path: histories are listed by theirs
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{historyName, "webapp/" + historyName, "api/" + historyName, "mono/pkg/" + historyName, "notes.md",
		"gh/alice/cli/" + historyName, "gh/alice/cli/sub/" + historyName, "gh/bob/x/y/" + historyName,
		"gh/bob/.git/h/" + historyName, "gh/bob/node_modules/m/" + historyName, "chats/api" + historyName} {
		path := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(session1), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(root, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "webapp"), filepath.Join(root, "linked")); err != nil {
		t.Fatal(err)
	}
	return root
}

func paths(ts []transcript.Transcript) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Path)
	}
	return out
}

func TestDiscover(t *testing.T) {
	root := projectsTree(t)
	var warnings []string
	warn := func(s string) { warnings = append(warnings, s) }
	got := Discover(root, warn)
	want := []string{filepath.Join(root, historyName), filepath.Join(root, "api", historyName), filepath.Join(root, "chats", "api"+historyName),
		filepath.Join(root, "gh", "alice", "cli", historyName), filepath.Join(root, "mono", "pkg", historyName), filepath.Join(root, "webapp", historyName)}
	if !slices.Equal(paths(got), want) {
		t.Fatalf("Discover:\n%s\nwant:\n%s", strings.Join(paths(got), "\n"), strings.Join(want, "\n"))
	}
	for _, tr := range got {
		if tr.Kind != record.KindOf(record.AgentAider, false) || tr.Kind != "aider" || tr.Session != "" || tr.Agent != "" ||
			tr.Stat.Size != int64(len(session1)) || tr.Stat.Ino == 0 {
			t.Errorf("%+v", tr)
		}
	}
	// A history named directly, by whatever name.
	custom := filepath.Join(root, "api", "chat.md")
	if err := os.WriteFile(custom, []byte(session1), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := paths(Discover(custom, warn)); !slices.Equal(got, []string{custom}) {
		t.Errorf("Discover(file): %v", got)
	}
	// The fixtures are laid out so.
	if got := Discover(filepath.Join(fixtures, "projects"), warn); len(got) != 2 {
		t.Errorf("fixtures: %v", paths(got))
	}
	// A project folder, named relative to the working directory.
	t.Chdir(root)
	if got := paths(Discover("webapp", warn)); !slices.Equal(got, want[5:]) {
		t.Errorf("Discover(project): %v", got)
	}
	if got := Discover(filepath.Join(root, "missing"), warn); got != nil {
		t.Errorf("Discover(missing): %v", got)
	}
	if len(warnings) != 0 {
		t.Errorf("warnings: %v", warnings)
	}
}

// TestDiscoverNotRegular: a FIFO where a history would be is said once
// and never opened.
// TestDiscoverBounded: a folder of source trees with no history is
// looked through to maxFolders folders and no further, and said once; a
// history in the folders looked through is still found.
func TestDiscoverBounded(t *testing.T) {
	root := t.TempDir()
	for i := range maxFolders + 10 {
		if err := os.MkdirAll(filepath.Join(root, "src", fmt.Sprintf("p%04d", i), "lib"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	found := filepath.Join(root, "src", "p0000", "lib", historyName)
	if err := os.WriteFile(found, []byte(session1), 0o644); err != nil {
		t.Fatal(err)
	}
	var warnings []string
	got := paths(Discover(root, func(s string) { warnings = append(warnings, s) }))
	if !slices.Equal(got, []string{found}) {
		t.Errorf("found %v, want %s", got, found)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "--source aider:PATH") {
		t.Errorf("warnings %q, want one naming --source aider:PATH", warnings)
	}
	// The no-change check's paths are bounded alike.
	if n := len(WatchPaths(root)); n > 3*maxFolders {
		t.Errorf("%d watched paths", n)
	}
}

func TestDiscoverNotRegular(t *testing.T) {
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, "p"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(root, "p", historyName), 0o644); err != nil {
		t.Skip(err)
	}
	var warnings []string
	got := Discover(root, func(s string) { warnings = append(warnings, s) })
	if len(got) != 0 || len(warnings) != 1 || !strings.Contains(warnings[0], "not a regular file") {
		t.Errorf("found %v, warnings %q", paths(got), warnings)
	}
}

func TestFindInProjects(t *testing.T) {
	root := projectsTree(t)
	dirs := []string{filepath.Join(root, "webapp"), filepath.Join(root, "empty"), filepath.Join(root, "gone"), "",
		filepath.Join(root, "api"), filepath.Join(root, "linked"), filepath.Join(root, "notes.md")}
	got := paths(FindInProjects(dirs))
	want := []string{filepath.Join(root, "api", historyName), filepath.Join(root, "webapp", historyName)}
	if !slices.Equal(got, want) {
		t.Errorf("FindInProjects:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestDefaultRoot(t *testing.T) {
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	if got := DefaultRoot(getenv, "/home/dev"); got != "" {
		t.Errorf("no env: %q, want none (Aider has no home folder)", got)
	}
	for value, want := range map[string]string{
		"/srv/chats/aider.md":    "/srv/chats/aider.md",
		"~/notes/aider.md":       "/home/dev/notes/aider.md",
		".aider.chat.history.md": "", // one in each project
		"  /srv/a/../b.md ":      "/srv/b.md",
	} {
		env[historyEnv] = value
		if got := DefaultRoot(getenv, "/home/dev"); got != want {
			t.Errorf("%s=%q: %q, want %q", historyEnv, value, got, want)
		}
	}
	// The history the variable names is the one source read.
	root := projectsTree(t)
	env[historyEnv] = filepath.Join(root, "api", historyName)
	if got := paths(Discover(DefaultRoot(getenv, "/home/dev"), func(s string) { t.Error(s) })); !slices.Equal(got, []string{env[historyEnv]}) {
		t.Errorf("Discover(DefaultRoot): %v", got)
	}
}

func TestWatchPaths(t *testing.T) {
	root := projectsTree(t)
	got := WatchPaths(root)
	// The linked project folder is watched through its link: resolving
	// each history's path would cost an lstat per path component on
	// every no-change check. A folder with no history yet is watched
	// for one (empty, mono: its history would be in its root).
	want := []string{root, filepath.Join(root, historyName), filepath.Join(root, "api", historyName),
		filepath.Join(root, "chats", historyName), filepath.Join(root, "chats", "api"+historyName),
		filepath.Join(root, "empty", historyName),
		filepath.Join(root, "gh", historyName), filepath.Join(root, "gh", "alice", historyName), filepath.Join(root, "gh", "alice", "cli", historyName),
		filepath.Join(root, "gh", "bob", historyName), filepath.Join(root, "gh", "bob", "x", historyName),
		filepath.Join(root, "linked", historyName), filepath.Join(root, "mono", historyName), filepath.Join(root, "mono", "pkg", historyName),
		filepath.Join(root, "webapp", historyName)}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("WatchPaths(folder):\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	file := filepath.Join(root, "api", historyName)
	if got := WatchPaths(file); !slices.Equal(got, []string{file}) {
		t.Errorf("WatchPaths(file): %v", got)
	}
	empty := filepath.Join(root, "empty")
	if got := WatchPaths(empty); !slices.Equal(got, []string{empty, filepath.Join(empty, historyName)}) {
		t.Errorf("WatchPaths(a project with no history yet): %v", got)
	}
}

func TestResumeCommand(t *testing.T) {
	for _, tc := range []struct {
		file string
		want []string
	}{
		{"/w/app/.aider.chat.history.md", []string{"aider", "--restore-chat-history"}},
		{"", []string{"aider", "--restore-chat-history"}},
		{"/w/app/notes/my-history.md", []string{"aider", "--restore-chat-history", "--chat-history-file", "/w/app/notes/my-history.md"}},
	} {
		if got := ResumeCommand("aider-20250314T072653Z-0123abcd", tc.file); len(got) != 1 || !slices.Equal(got[0], tc.want) {
			t.Errorf("ResumeCommand(%q) = %q, want %q", tc.file, got, tc.want)
		}
	}
	if f := Format(); f.Agent != record.AgentAider || f.NewParser == nil || f.ReadAll != nil {
		t.Errorf("Format: %+v", f)
	}
}
