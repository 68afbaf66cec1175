// Package sibling finds recall's helper binaries (recall-mcp, the MCP
// server; recall-opencode, the reader of OpenCode's database): each is a
// binary of its own so that recall does not link what only it needs, and
// each is looked for beside the binary that runs it, where the build that
// made one made the other, before PATH.
package sibling

import (
	"os"
	"os/exec"
	"path/filepath"
)

// Find is the executable named name beside the running binary (symbolic
// links resolved), else the one on PATH; "" when there is none.
func Find(name string) string {
	exe, _ := os.Executable() // "" when unknown: PATH only
	return FindFrom(exe, name)
}

// FindFrom is Find for the binary at self.
func FindFrom(self, name string) string {
	if self != "" {
		if real, err := filepath.EvalSymlinks(self); err == nil {
			self = real
		}
		if path := Beside(self, name); path != "" {
			return path
		}
	}
	if path, err := exec.LookPath(name); err == nil {
		return path
	}
	return ""
}

// Beside is the executable named name in the directory of the binary at
// self, "" when there is none.
func Beside(self, name string) string {
	path := filepath.Join(filepath.Dir(self), name)
	if info, err := os.Stat(path); err != nil || !info.Mode().IsRegular() || info.Mode().Perm()&0o111 == 0 {
		return ""
	}
	return path
}
