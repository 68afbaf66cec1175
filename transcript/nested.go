package transcript

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// NestedFolders lists the folders below root that holds takes, given
// each folder's entries: a folder taken is not looked into. It looks
// maxDepth levels down at most (root's folders are the first), lists
// maxFolders folders at most, follows links to folders, and enters no
// folder enter refuses nor a dependency tree or repository history
// (SkippedFolder). It is how a source given as a folder of several
// people's or repositories' copies of an agent's folders finds them
// (a Codex home, a Gemini CLI project, an OpenCode data folder), in the
// order of the walk. warn hears of a folder below root that could not be
// listed and of a walk maxFolders stopped, once each.
func NestedFolders(root string, maxDepth, maxFolders int, enter func(name string) bool, holds func(dir string, entries []os.DirEntry) bool, warn func(string)) []string {
	var out []string
	listed := 0
	var walk func(dir string, depth int)
	walk = func(dir string, depth int) {
		entries, err := os.ReadDir(dir)
		if err != nil {
			if depth > 0 && !errors.Is(err, fs.ErrNotExist) {
				warn(fmt.Sprintf("read source: %v", err)) // a *fs.PathError: it names dir
			}
			return
		}
		if depth > 0 && holds(dir, entries) {
			out = append(out, dir)
			return
		}
		if depth == maxDepth {
			return
		}
		for _, e := range entries {
			name := e.Name()
			if !(e.IsDir() || e.Type()&fs.ModeSymlink != 0) || SkippedFolder(name) || !enter(name) {
				continue
			}
			if listed == maxFolders {
				warn(fmt.Sprintf("looked in the first %d folders under %s and no further; name the folder that holds the sessions with --source AGENT:PATH", maxFolders, root))
				listed++ // said once
			}
			if listed > maxFolders {
				continue
			}
			listed++
			walk(filepath.Join(dir, name), depth+1)
		}
	}
	walk(root, 0)
	return out
}

// SkippedFolder reports whether a folder named name is one no agent's
// sessions are in: a repository's history or a dependency tree.
func SkippedFolder(name string) bool {
	switch name {
	case ".git", "node_modules", "__pycache__", ".venv", "venv", "site-packages", "vendor":
		return true
	}
	return false
}
