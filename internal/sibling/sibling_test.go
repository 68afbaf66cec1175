package sibling

import (
	"os"
	"path/filepath"
	"testing"
)

// TestFindFrom: a helper beside the binary wins, found through a
// symbolic link to the binary too; a file there that is not executable
// is none; PATH is looked at last; nothing found is "".
func TestFindFrom(t *testing.T) {
	binDir, pathDir, linkDir := t.TempDir(), t.TempDir(), t.TempDir()
	write := func(path string, mode os.FileMode) {
		if err := os.WriteFile(path, []byte("#!/bin/sh\n"), mode); err != nil {
			t.Fatal(err)
		}
	}
	self := filepath.Join(binDir, "recall")
	write(self, 0o755)
	write(filepath.Join(binDir, "recall-mcp"), 0o755)
	write(filepath.Join(binDir, "recall-hint"), 0o644) // not executable
	write(filepath.Join(pathDir, "recall-hint"), 0o755)
	link := filepath.Join(linkDir, "recall")
	if err := os.Symlink(self, link); err != nil {
		t.Skip("no symbolic links:", err)
	}
	t.Setenv("PATH", pathDir)

	tests := []struct {
		self, name, want string
	}{
		{self, "recall-mcp", filepath.Join(binDir, "recall-mcp")},
		{link, "recall-mcp", filepath.Join(binDir, "recall-mcp")},
		{self, "recall-hint", filepath.Join(pathDir, "recall-hint")},
		{"", "recall-hint", filepath.Join(pathDir, "recall-hint")},
		{self, "recall-opencode", ""},
	}
	for _, tt := range tests {
		if got := FindFrom(tt.self, tt.name); got != tt.want {
			t.Errorf("FindFrom(%q, %q) = %q, want %q", tt.self, tt.name, got, tt.want)
		}
	}
}
