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
	}{
		{4, 100, []string{".hidden", "a", "b/c"}},
		{4, 1, []string{".hidden"}},
		{1, 100, []string{".hidden", "a"}},
		{5, 100, []string{".hidden", "a", "b/c"}}, // b/c holds one: b/c/d/e is not looked for
	} {
		if got := rel(NestedFolders(root, tt.depth, tt.folders, enter, holds)); !slices.Equal(got, tt.want) {
			t.Errorf("depth %d, folders %d: %q, want %q", tt.depth, tt.folders, got, tt.want)
		}
	}
}
