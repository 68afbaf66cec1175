package aider

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/recall-dev/recall/record"
	"github.com/recall-dev/recall/transcript"
)

// Discover lists the chat histories under root: root itself when it is
// a file (a history a user names, whatever its name: --chat-history-file
// takes any), else those historyPaths lists that are there (a project
// folder, a folder of projects, or folders of those a few levels deep).
// Sorted by path; a history reached by two paths (a linked project
// folder) is listed once, by its own. A tree too large to look through
// whole is said once.
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
	paths, truncated, err := historyPaths(root, warn)
	if err != nil {
		warn(fmt.Sprintf("read source: %v", err))
	}
	if truncated {
		warn(fmt.Sprintf("aider: looked for chat histories in the first %d folders under %s and no further; name the folder that holds them with --source aider:PATH", maxFolders, root))
	}
	var out []transcript.Transcript
	for _, p := range paths {
		out = appendHistory(out, p, warn, resolve)
	}
	return sorted(out)
}

// maxLevel is how many folders deep under a folder given a history is
// looked for: root/a/b/c/.aider.chat.history.md at most. A folder of
// projects holds each project's history one level down; histories
// copied from many people's projects are kept a level or two deeper
// (owner/project), and a project Aider ran in a subfolder of (a
// history outside a git repository is in the folder Aider ran in) has
// it deeper still.
const maxLevel = 3

// maxFolders bounds the folders listed below root on the way: a folder
// of source trees that holds no history is listed this far and no
// further (the no-change check lists them at every run).
const maxFolders = 512

// historyPaths lists where root's histories can be: root's own, each
// subfolder's, and, under a subfolder that has none, its subfolders'
// (to maxLevel; folders whose names start with a dot and dependency
// folders are not entered), whether or not one is there yet (a history
// started in a project folder that had none is a change the no-change
// check must see); and the files of any folder listed named
// NAME.aider.chat.history.md (a history kept under a name of its own).
// A folder with a history is not looked into: a project's history is in
// its root. truncated reports that maxFolders stopped the walk; err,
// that root could not be listed (its own history path is listed still);
// warn hears of a folder below it that could not be.
func historyPaths(root string, warn func(string)) (paths []string, truncated bool, err error) {
	paths = []string{filepath.Join(root, historyName)}
	listed := 0
	var walk func(dir string, level int) error
	walk = func(dir string, level int) error {
		entries, err := os.ReadDir(dir)
		if err != nil {
			return err
		}
		for _, e := range entries {
			name := e.Name()
			// A link may name a project folder: the stat below follows
			// it (one to a file fails with ENOTDIR, silently).
			if !e.IsDir() && e.Type()&fs.ModeSymlink == 0 {
				if name != historyName && strings.HasSuffix(name, historyName) {
					paths = append(paths, filepath.Join(dir, name))
				}
				continue
			}
			if level > 1 && !worthEntering(name) {
				continue
			}
			folder := filepath.Join(dir, name)
			history := filepath.Join(folder, historyName)
			paths = append(paths, history)
			if level == maxLevel || !worthEntering(name) || exists(history) {
				continue
			}
			if listed == maxFolders {
				truncated = true
				continue
			}
			listed++
			if err := walk(folder, level+1); err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
				warn(fmt.Sprintf("read source: %v", err)) // a folder below root that could not be listed
			}
		}
		return nil
	}
	err = walk(root, 1)
	return paths, truncated, err
}

// worthEntering reports whether a folder named name may hold a project:
// not a hidden one (.git, .venv, Aider's own caches) nor a dependency
// tree.
func worthEntering(name string) bool {
	return !strings.HasPrefix(name, ".") && !transcript.SkippedFolder(name)
}

// exists reports whether something is at path (a stat of its own, no
// os.FileInfo).
func exists(path string) bool {
	var st unix.Stat_t
	return unix.Stat(path, &st) == nil
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
// appends to them, and to nothing else), the histories project folders
// would hold even before they exist (historyPaths: their appearing is a
// change), and root (a project folder added to a folder of projects; a
// project folder added deeper lists a new path). Each folder's history
// path is watched whether it is there or not, so a history started in a
// project folder that had none is a change too (watching the folders
// themselves would wake for every file saved in one). Their number is
// that of the project folders (at most maxFolders below the first
// level), never of the sessions.
func WatchPaths(root string) []string {
	if abs, err := filepath.Abs(root); err == nil {
		root = abs
	}
	paths, _, err := historyPaths(root, func(string) {})
	if err != nil {
		return []string{root} // a history file, or nothing yet
	}
	return append([]string{root}, paths...)
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
