package transcript

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func writeFile(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
}

// TestDiscoverFollowsSymlinks: linked project folders, session folders
// and transcripts are indexed where they point (issue 23: they were
// skipped without a word); an alias of what a root holds directly, a loop
// and a link to nothing are not, the last two with a warning; each real
// file is found once.
func TestDiscoverFollowsSymlinks(t *testing.T) {
	tmp := t.TempDir()
	root := filepath.Join(tmp, "claude", "projects")
	elsewhere := filepath.Join(tmp, "otherdisk")
	writeFile(t, filepath.Join(root, "-p-home", "s1.jsonl"))
	writeFile(t, filepath.Join(elsewhere, "-p-moved", "s2.jsonl"))
	writeFile(t, filepath.Join(elsewhere, "-p-moved", "s2", "subagents", "agent-a1.jsonl"))
	writeFile(t, filepath.Join(elsewhere, "loose", "s3.jsonl"))
	writeFile(t, filepath.Join(elsewhere, "subs", "agent-a2.jsonl"))

	symlink(t, filepath.Join(elsewhere, "-p-moved"), filepath.Join(root, "-p-moved"))                                                    // a project folder on another disk
	symlink(t, filepath.Join(elsewhere, "-p-moved"), filepath.Join(root, "-p-moved-again"))                                              // the same folder twice
	symlink(t, filepath.Join(root, "-p-home"), filepath.Join(root, "-p-alias"))                                                          // an alias inside the root
	symlink(t, filepath.Join(elsewhere, "loose", "s3.jsonl"), filepath.Join(root, "-p-home", "s3.jsonl"))                                // a transcript
	symlink(t, filepath.Join(tmp, "nothing.jsonl"), filepath.Join(root, "-p-home", "s4.jsonl"))                                          // a link to nothing
	symlink(t, filepath.Join(elsewhere, "-p-moved", "s2", "subagents"), filepath.Join(elsewhere, "-p-moved", "s2", "subagents", "loop")) // a loop
	symlink(t, filepath.Join(elsewhere, "subs"), filepath.Join(elsewhere, "-p-moved", "s2", "subagents", "deeper"))                      // a linked subagent folder

	var warnings []string
	found := Discover([]string{root}, func(s string) { warnings = append(warnings, s) })
	var paths []string
	for _, f := range found {
		rel, _ := filepath.Rel(root, f.Path)
		paths = append(paths, rel+" "+f.Session)
	}
	want := []string{
		"-p-home/s1.jsonl s1",
		"-p-home/s3.jsonl s3",
		// The folder linked twice is read once, under the first path.
		"-p-moved-again/s2.jsonl s2",
		"-p-moved-again/s2/subagents/agent-a1.jsonl s2",
		"-p-moved-again/s2/subagents/deeper/agent-a2.jsonl s2",
	}
	if !slices.Equal(paths, want) {
		t.Errorf("found\n  %s\nwant\n  %s", strings.Join(paths, "\n  "), strings.Join(want, "\n  "))
	}
	joined := strings.Join(warnings, "\n")
	for _, w := range []string{"s4.jsonl: a symbolic link to nothing", "a symbolic link loop"} {
		if !strings.Contains(joined, w) {
			t.Errorf("no warning %q in %q", w, joined)
		}
	}

	// The root itself may be a link (~/.claude in a dotfiles folder).
	linkedRoot := filepath.Join(tmp, "linked-projects")
	symlink(t, root, linkedRoot)
	again := Discover([]string{linkedRoot}, func(string) {})
	if len(again) != len(want) {
		t.Errorf("under a linked root: %d transcripts, want %d", len(again), len(want))
	}

	// The quick check's listings see what a sweep sees.
	entries, err := ListProject([]string{root}, filepath.Join(root, "-p-home"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name)
	}
	slices.Sort(names)
	if !slices.Equal(names, []string{"s1.jsonl", "s3.jsonl"}) {
		t.Errorf("ListProject = %v", names)
	}
	dirs := ProjectDirs([]string{root}, root, func(string) {})
	for i := range dirs {
		dirs[i] = filepath.Base(dirs[i])
	}
	if !slices.Equal(dirs, []string{"-p-home", "-p-moved", "-p-moved-again"}) {
		t.Errorf("ProjectDirs = %v", dirs)
	}
}
