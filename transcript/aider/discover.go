package aider

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"syscall"

	"github.com/recall-dev/recall/record"
	"github.com/recall-dev/recall/transcript"
)

// Discover lists the chat histories under root: root itself when it is
// a file (a history a user names, whatever its name: --chat-history-file
// takes any), else root/.aider.chat.history.md (a project folder) and
// <folder>/.aider.chat.history.md for each folder in root (a folder of
// projects). It never looks deeper: a project's history is in its root,
// and walking a tree of source folders for one would cost more than all
// the other agents' discovery. Sorted by path; a history reached by two
// paths (a linked project folder) is listed once, by its own.
func Discover(root string, warn func(string)) []transcript.Transcript {
	return discover(root, warn, true)
}

// discover is Discover; resolve says whether a history's path is
// resolved to the one with no link in it (the sessions' ids need it; a
// watch does not, and resolving cost the no-change check seven lstat
// calls a history, two thirds of its stat calls on a tree of 25
// projects).
func discover(root string, warn func(string), resolve bool) []transcript.Transcript {
	if abs, err := filepath.Abs(root); err == nil {
		root = abs
	}
	fi, err := os.Stat(root)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			warn(fmt.Sprintf("read source: %v", err))
		}
		return nil
	}
	if !fi.IsDir() {
		return appendHistory(nil, root, warn, resolve)
	}
	out := appendHistory(nil, filepath.Join(root, historyName), warn, resolve)
	entries, err := os.ReadDir(root)
	if err != nil {
		warn(fmt.Sprintf("read source: %v", err))
		return out
	}
	for _, e := range entries {
		// A link may name a project folder: the stat below follows it
		// (one to a file fails with ENOTDIR, silently).
		if e.IsDir() || e.Type()&fs.ModeSymlink != 0 {
			out = appendHistory(out, filepath.Join(root, e.Name(), historyName), warn, resolve)
		}
	}
	return sorted(out)
}

// FindInProjects lists the chat histories in the project folders dirs
// (the working directories of other agents' sessions: Aider keeps its
// history in a project's root, where no agent home points): one stat
// per folder. Sorted by path.
func FindInProjects(dirs []string) []transcript.Transcript {
	var out []transcript.Transcript
	for _, dir := range dirs {
		if dir == "" {
			continue
		}
		if abs, err := filepath.Abs(dir); err == nil {
			dir = abs
		}
		out = appendHistory(out, filepath.Join(dir, historyName), func(string) {}, true)
	}
	return sorted(out)
}

// WatchPaths are the paths whose mtime moves when a session is added to
// a history under root or one grows: the history files themselves (Aider
// appends to them, and to nothing else), the history a project folder
// would hold even before it exists (its appearing is a change), and
// root (a project folder added to a folder of projects). Each folder's
// history path is watched whether it is there or not, so a history
// started in a project folder that had none is a change too (watching
// the folders themselves would wake for every file saved in one), and
// none is stat'ed here: the check stats each path once. Their number is
// that of the projects, never of the sessions.
func WatchPaths(root string) []string {
	if abs, err := filepath.Abs(root); err == nil {
		root = abs
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		return []string{root} // a history file, or nothing yet
	}
	paths := []string{root, filepath.Join(root, historyName)}
	for _, e := range entries {
		// A link may name a project folder (one to a file names a
		// path that is never there).
		if e.IsDir() || e.Type()&fs.ModeSymlink != 0 {
			paths = append(paths, filepath.Join(root, e.Name(), historyName))
		}
	}
	return paths
}

// appendHistory appends the history at path, if there is one: a path
// with nothing there is no history and no warning; something there that
// is not a regular file (a FIFO, a folder) or cannot be stat'ed is
// skipped with one. A history is listed by its path with no link in it:
// its sessions' ids are derived from its path (identity.go), so a
// history reached through a linked folder, or from a project folder
// another agent names by a link, has the ids it has when reached
// directly (when resolve is set).
func appendHistory(out []transcript.Transcript, path string, warn func(string), resolve bool) []transcript.Transcript {
	st, err := transcript.StatFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
		return out
	case errors.Is(err, transcript.ErrNotRegular):
		warn(fmt.Sprintf("skipped %v", err))
		return out
	case err != nil:
		warn(err.Error()) // "stat PATH: …"
		return out
	}
	if resolve {
		if real, err := filepath.EvalSymlinks(path); err == nil {
			path = real
		}
	}
	return append(out, transcript.Transcript{
		Path: path,
		Kind: record.KindOf(record.AgentAider, false),
		Stat: st,
	})
}

// sorted sorts histories by path and lists a history found twice (by
// two links, or in two folders given) once.
func sorted(out []transcript.Transcript) []transcript.Transcript {
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return slices.CompactFunc(out, func(a, b transcript.Transcript) bool { return a.Path == b.Path })
}
