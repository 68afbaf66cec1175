package transcript

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestNestedFolders: the folders taken are found to maxDepth levels down,
// not looked into, not under a dependency tree or a folder enter refuses,
// and the walk stops after maxFolders folders.
func TestNestedFolders(t *testing.T) {
	root := t.TempDir()
	for _, p := range []string{"a/HOME/x/HOME", "b/c/HOME", "b/c/d/e/HOME", "node_modules/HOME", "skip/HOME", ".hidden/HOME"} {
		if err := os.MkdirAll(filepath.Join(root, p), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	holds := func(_ string, entries []os.DirEntry) bool {
		return slices.ContainsFunc(entries, func(e os.DirEntry) bool { return e.Name() == "HOME" })
	}
	enter := func(name string) bool { return name != "skip" }
	rel := func(paths []string) []string {
		var out []string
		for _, p := range paths {
			r, _ := filepath.Rel(root, p)
			out = append(out, r)
		}
		return out
	}
	for _, tt := range []struct {
		depth, folders int
		want           []string
		warnings       int
	}{
		{4, 100, []string{".hidden", "a", "b/c"}, 0},
		{4, 1, []string{".hidden"}, 1}, // stopped: said once
		{1, 100, []string{".hidden", "a"}, 0},
		{5, 100, []string{".hidden", "a", "b/c"}, 0}, // b/c holds one: b/c/d/e is not looked for
	} {
		var warnings []string
		got := rel(NestedFolders(root, tt.depth, tt.folders, enter, holds, func(s string) { warnings = append(warnings, s) }))
		if !slices.Equal(got, tt.want) || len(warnings) != tt.warnings {
			t.Errorf("depth %d, folders %d: %q, warnings %q; want %q and %d", tt.depth, tt.folders, got, warnings, tt.want, tt.warnings)
		}
	}
	// A folder that cannot be listed is said, and the rest still found.
	if os.Geteuid() == 0 {
		return // root lists every folder
	}
	locked := filepath.Join(root, "locked")
	if err := os.MkdirAll(filepath.Join(locked, "HOME"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(locked, 0); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(locked, 0o755)
	var warnings []string
	got := rel(NestedFolders(root, 4, 100, enter, holds, func(s string) { warnings = append(warnings, s) }))
	if !slices.Equal(got, []string{".hidden", "a", "b/c"}) || len(warnings) != 1 {
		t.Errorf("with a locked folder: %q, warnings %q", got, warnings)
	}
}
