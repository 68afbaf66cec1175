package codex

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
	"time"

	"github.com/recall-dev/recall/record"
	"github.com/recall-dev/recall/transcript"
)

// maxDepth bounds how deep Discover looks below a folder it scans:
// sessions/YYYY/MM/DD is three levels, and a folder a user gives may be
// one level up.
const maxDepth = 5

// Discover lists the rollouts under root, sorted by path. root is Codex's
// home (its sessions/ and archived_sessions/ are scanned) or, when it has
// neither, a folder holding rollouts itself or in folders below it
// (sessions/ or a date folder given with --source codex:PATH), or one
// rollout. A rollout
// is a file named rollout-*.jsonl or rollout-*.jsonl.zst, or
// rollout-<date>-<id>.json (the TypeScript CLI's); Codex's side
// files (history.jsonl, session_index.jsonl) are not. Folders linked
// into the tree are followed, each once. A folder that cannot be read is
// reported once by warn.
func Discover(root string, warn func(string)) []transcript.Transcript {
	if abs, err := filepath.Abs(root); err == nil {
		root = abs
	}
	d := discoverer{warn: warn, walked: map[dirID]bool{}}
	if fi, err := os.Stat(root); err == nil && !fi.IsDir() && isRollout(fi.Name()) {
		d.add(root)
		return d.out
	}
	for _, dir := range scanDirs(root, warn) {
		d.walk(dir, 0)
	}
	sort.Slice(d.out, func(i, j int) bool { return d.out[i].Path < d.out[j].Path })
	return d.out
}

// scanDirs are the folders of root that hold rollouts: a home's
// sessions/ and archived_sessions/; with none, those of the homes below
// root (nestedHomes); with none either, root.
func scanDirs(root string, warn func(string)) []string {
	if dirs := homeDirs(root); len(dirs) > 0 {
		return dirs
	}
	var dirs []string
	for _, home := range nestedHomes(root, warn) {
		dirs = append(dirs, homeDirs(home)...)
	}
	if len(dirs) == 0 {
		return []string{root}
	}
	return dirs
}

// homeDirs are the sessions/ and archived_sessions/ folders of root,
// none when it is no Codex home.
func homeDirs(root string) []string {
	var dirs []string
	for _, name := range []string{sessionsDir, archivedDir} {
		p := filepath.Join(root, name)
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			dirs = append(dirs, p)
		}
	}
	return dirs
}

// maxHomeDepth and maxHomeFolders bound the look for Codex homes below a
// root that is none: the homes of several people or repositories copied
// into one folder are a level or two down (<who>/<repo>/.codex is three).
const (
	maxHomeDepth   = 4
	maxHomeFolders = 512
)

// nestedHomes lists the Codex homes (a sessions/ or archived_sessions/
// folder in them) below root, to maxHomeDepth and through
// maxHomeFolders folders. It does not look into a home, a date folder
// (a folder of rollouts given: its own are walked), a home's own
// folders, a repository's .git or a dependency tree.
func nestedHomes(root string, warn func(string)) []string {
	enter := func(name string) bool { return !isDigits(name) && name != sessionsDir && name != archivedDir }
	return transcript.NestedFolders(root, maxHomeDepth, maxHomeFolders, enter, func(dir string, _ []os.DirEntry) bool {
		return len(homeDirs(dir)) > 0
	}, warn)
}

type dirID struct{ dev, ino uint64 }

type discoverer struct {
	warn   func(string)
	walked map[dirID]bool // folders entered, so that a link loop is walked once
	out    []transcript.Transcript
}

func (d *discoverer) walk(dir string, depth int) {
	if id, ok := idOf(dir); ok {
		if d.walked[id] {
			return
		}
		d.walked[id] = true
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			d.warn(fmt.Sprintf("read source: %v", err)) // a *fs.PathError: it names dir
		}
		return
	}
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		isDir := e.IsDir()
		if e.Type()&fs.ModeSymlink != 0 {
			fi, err := os.Stat(path)
			isDir = err == nil && fi.IsDir()
		}
		switch {
		case isDir:
			if depth < maxDepth {
				d.walk(path, depth+1)
			}
		case isRollout(e.Name()):
			d.add(path)
		}
	}
}

// add stats one rollout: a file gone since the folder was read is
// skipped, and anything but a regular file (a FIFO, a socket) is
// reported and skipped, never opened.
func (d *discoverer) add(path string) {
	st, err := transcript.StatFile(path)
	if err != nil {
		if errors.Is(err, transcript.ErrNotRegular) {
			d.warn(fmt.Sprintf("skipped %v", err))
		}
		return
	}
	d.out = append(d.out, transcript.Transcript{
		Path:    path,
		Kind:    record.KindOf(record.AgentCodex, false),
		Session: threadIDOf(filepath.Base(path)),
		Stat:    st,
	})
}

// idOf is a folder's device and inode.
func idOf(dir string) (dirID, bool) {
	fi, err := os.Stat(dir)
	if err != nil {
		return dirID{}, false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return dirID{}, false
	}
	return dirID{uint64(st.Dev), uint64(st.Ino)}, true
}

// isRollout reports whether a file name is a rollout's, plain or
// compressed.
func isRollout(name string) bool {
	if !strings.HasPrefix(name, "rollout-") {
		return false
	}
	if strings.HasSuffix(name, ".json") {
		return threadIDOf(name) != "" // the TypeScript CLI's document (document.go)
	}
	return strings.HasSuffix(name, ".jsonl") || strings.HasSuffix(name, ".jsonl.zst")
}

// threadIDOf is the thread id a rollout's name ends with
// (rollout-2025-05-07T17-24-21-<uuid>.jsonl), "" when it ends with none.
func threadIDOf(name string) string {
	return strings.ToLower(record.TrailingUUID(name))
}

// WatchPaths are the few paths whose stat changes when a rollout under
// root is added or grows: the folders Discover scans; under sessions/,
// the folders of today's date (Codex names them by local time; they may
// not exist yet) and those of the newest date there is (a clock or time
// zone apart from Codex's), and the newest rollout in that newest
// folder (the thread most likely being written: a rollout growing does
// not change its folder); and Codex's history.jsonl (a line per prompt,
// whichever thread it went to) and session_index.jsonl (thread names).
// A rollout of an older thread growing without a prompt (a long reply)
// is seen at the next prompt or the next full sweep. The list does not
// grow with the number of rollouts: it reads at most three folders.
func WatchPaths(root string) []string {
	dirs := homeDirs(root)
	if len(dirs) == 0 {
		if homes := nestedHomes(root, func(string) {}); len(homes) > 0 {
			var paths []string
			for _, home := range homes {
				paths = append(paths, WatchPaths(home)...)
			}
			return paths
		}
		return append([]string{root}, newestChain(root)...)
	}
	paths := slices.Clone(dirs)
	sessions := filepath.Join(root, sessionsDir)
	now := time.Now()
	day := filepath.Join(sessions, now.Format("2006"), now.Format("01"), now.Format("02"))
	paths = append(paths, sessions, filepath.Dir(filepath.Dir(day)), filepath.Dir(day), day)
	paths = append(paths, newestChain(sessions)...)
	paths = append(paths, filepath.Join(root, archivedDir),
		filepath.Join(root, "history.jsonl"), filepath.Join(root, "session_index.jsonl"))
	return dedupe(paths)
}

// newestChain is the newest year, month and day folders under dir (by
// name: they are numbers of fixed width) and the newest rollout in the
// deepest of them (by name: names start with the time they were made).
func newestChain(dir string) []string {
	var out []string
	for range 3 {
		next := newestEntry(dir, func(e os.DirEntry) bool { return e.IsDir() && isDigits(e.Name()) })
		if next == "" {
			break
		}
		dir = next
		out = append(out, dir)
	}
	if f := newestEntry(dir, func(e os.DirEntry) bool { return !e.IsDir() && isRollout(e.Name()) }); f != "" {
		out = append(out, f)
	}
	return out
}

// newestEntry is the path of the last entry of dir, by name, that keep
// takes ("" for none).
func newestEntry(dir string, keep func(os.DirEntry) bool) string {
	entries, err := os.ReadDir(dir) // sorted by name
	if err != nil {
		return ""
	}
	for i := len(entries) - 1; i >= 0; i-- {
		if keep(entries[i]) {
			return filepath.Join(dir, entries[i].Name())
		}
	}
	return ""
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// dedupe drops repeated paths, keeping the first of each.
func dedupe(paths []string) []string {
	seen := make(map[string]bool, len(paths))
	out := paths[:0]
	for _, p := range paths {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}
