package gemini

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/recall-dev/recall/record"
	"github.com/recall-dev/recall/transcript"
)

// sessionPrefix starts the name of every session file of a project
// (SESSION_FILE_PREFIX); a subagent's file is named by its id alone.
const sessionPrefix = "session-"

// isLegacy reports whether path is a session of the older whole-file
// format, read whole.
func isLegacy(path string) bool { return strings.HasSuffix(path, ".json") }

// isSessionName reports whether name is a session file's: .jsonl or the
// older .json. A temporary file Gemini CLI writes beside one
// (<name>.jsonl.tmp-<pid>) or keeps after a failed read
// (<name>.jsonl.unreadable-<time>) ends otherwise.
func isSessionName(name string) bool {
	return strings.HasSuffix(name, ".jsonl") || strings.HasSuffix(name, ".json")
}

// trimExt is name without its .jsonl or .json.
func trimExt(name string) string {
	if s, ok := strings.CutSuffix(name, ".jsonl"); ok {
		return s
	}
	return strings.TrimSuffix(name, ".json")
}

// layout is where the session files under a root are: the tmp folder
// holding the projects' folders and those folders, or ("" and none when
// the root is below tmp) the one chats folder.
type layout struct {
	tmp      string
	projects []string
	chats    []string
	// homes are the folders holding the projects found below a root
	// that is no Gemini CLI folder (nestedProjects), watched for a
	// project added.
	homes []string
}

// layoutOf reads where root's sessions are. A root is Gemini CLI's
// folder (~/.gemini, holding tmp/), its tmp folder, one project's folder
// (holding chats/), or a chats folder itself. A folder of tmp is listed
// whatever it holds: chatFolders and logFolders say which of them hold
// what.
func layoutOf(root string, warn func(string)) layout {
	switch {
	case isDir(filepath.Join(root, "tmp")):
		tmp := filepath.Join(root, "tmp")
		return layout{tmp: tmp, projects: projectFolders(tmp, warn)}
	case isDir(filepath.Join(root, "chats")):
		return layout{chats: []string{filepath.Join(root, "chats")}}
	case filepath.Base(root) == "chats" || holdsSessions(root):
		return layout{chats: []string{root}}
	}
	projects := projectFolders(root, warn)
	if !slices.ContainsFunc(projects, isProject) {
		if nested, homes := nestedProjects(root, warn); len(nested) > 0 {
			return layout{tmp: root, projects: nested, homes: homes}
		}
	}
	return layout{tmp: root, projects: projects}
}

// isProject reports whether dir is a project's folder of Gemini CLI's
// (holdsProject).
func isProject(dir string) bool {
	entries, err := os.ReadDir(dir)
	return err == nil && holdsProject(dir, entries)
}

// maxNestedDepth and maxNestedFolders bound the look below a root that
// is none of Gemini CLI's folders: sessions copied from several people
// or repositories keep their .gemini folder a level or two down
// (<repo>/.gemini/tmp/<project>/chats is five).
const (
	maxNestedDepth   = 6
	maxNestedFolders = 512
)

// nestedProjects lists the project folders (a chats folder or a prompt
// log in them) below root, to maxNestedDepth and through
// maxNestedFolders folders, not looking into a project's folder, a
// repository's .git or a dependency tree; and the folders holding them.
func nestedProjects(root string, warn func(string)) (projects, homes []string) {
	projects = transcript.NestedFolders(root, maxNestedDepth, maxNestedFolders, func(string) bool { return true }, holdsProject, warn)
	for _, p := range projects {
		homes = append(homes, filepath.Dir(p))
	}
	slices.Sort(homes)
	return projects, slices.Compact(homes)
}

// holdsProject reports whether entries, dir's, make it a project's folder
// of Gemini CLI's: a chats folder or a prompt log.
func holdsProject(dir string, entries []os.DirEntry) bool {
	for _, e := range entries {
		switch name := e.Name(); {
		case name == "chats" && (e.IsDir() || e.Type()&fs.ModeSymlink != 0) && isDir(filepath.Join(dir, name)):
			return true
		case name == logsName && !e.IsDir():
			return true
		}
	}
	return false
}

// projectFolders lists the folders in tmp (and the links, which may
// name one), one per project.
func projectFolders(tmp string, warn func(string)) []string {
	entries, err := os.ReadDir(tmp)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			warn(fmt.Sprintf("read source: %v", err))
		}
		return nil
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() || e.Type()&fs.ModeSymlink != 0 {
			out = append(out, filepath.Join(tmp, e.Name()))
		}
	}
	return out
}

// chatFolders are the chats folders there are: each project's that is
// there, or the one chats folder.
func (l layout) chatFolders() []string {
	if l.tmp == "" {
		return l.chats
	}
	var out []string
	for _, p := range l.projects {
		if chats := filepath.Join(p, "chats"); isDir(chats) {
			out = append(out, chats)
		}
	}
	return out
}

// logFolders are the folders a project's prompt log (logs.json) is in:
// every project's (one whose sessions have no chat at all has a log and
// no chats folder), or the one chats folder's.
func (l layout) logFolders() []string {
	if l.tmp != "" {
		return l.projects
	}
	var out []string
	for _, chats := range l.chats {
		if filepath.Base(chats) == "chats" {
			out = append(out, filepath.Dir(chats))
		}
	}
	return out
}

// holdsSessions reports whether dir holds a main session file directly.
func holdsSessions(dir string) bool {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), sessionPrefix) && isSessionName(e.Name()) {
			return true
		}
	}
	return false
}

// isDir reports whether path is a folder (a link to one included).
func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// Discover lists the session files under root (see layoutOf), sorted by
// path: each project's sessions, each subagent's under its parent
// session's folder, and each project's prompt log (logs.go). warn reports a folder that cannot be read and a
// session file that is not a regular file.
func Discover(root string, warn func(string)) []transcript.Transcript {
	var out []transcript.Transcript
	l := layoutOf(root, warn)
	for _, chats := range l.chatFolders() {
		out = discoverChats(out, chats, warn)
	}
	out = appendLogs(out, l.logFolders(), warn)
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// discoverChats appends the sessions of one chats folder: its
// session-*.jsonl and .json files, and the files in each of its folders,
// which are the subagents' sessions of the parent session the folder is
// named after.
func discoverChats(out []transcript.Transcript, chats string, warn func(string)) []transcript.Transcript {
	entries, err := os.ReadDir(chats)
	if err != nil {
		warnUnread(err, warn)
		return out
	}
	for _, e := range entries {
		name, path := e.Name(), filepath.Join(chats, e.Name())
		if isDir(path) {
			out = discoverSubagents(out, path, warn)
			continue
		}
		if strings.HasPrefix(name, sessionPrefix) && isSessionName(name) {
			out = appendFile(out, transcript.Transcript{Path: path, Kind: record.KindOf(record.AgentGemini, false)}, warn)
		}
	}
	return out
}

// discoverSubagents appends the subagents' sessions in dir, a parent
// session's folder: <sessionId>.jsonl (or .json) each.
func discoverSubagents(out []transcript.Transcript, dir string, warn func(string)) []transcript.Transcript {
	entries, err := os.ReadDir(dir)
	if err != nil {
		warnUnread(err, warn)
		return out
	}
	parent := record.SessionIDOf(filepath.Base(dir))
	if !isUUID(parent) {
		parent = "" // a background agent's folder (skill extraction): its sessions are their own (newParser)
	}
	for _, e := range entries {
		if !isSessionName(e.Name()) {
			continue
		}
		out = appendFile(out, transcript.Transcript{
			Path:    filepath.Join(dir, e.Name()),
			Kind:    record.KindOf(record.AgentGemini, true),
			Session: parent,
			Agent:   record.SessionIDOf(trimExt(e.Name())),
		}, warn)
	}
	return out
}

// appendFile stats t's file and appends it: one that vanished is left
// out, one that is not a regular file (a FIFO, a folder named like a
// session) is left out with a warning.
func appendFile(out []transcript.Transcript, t transcript.Transcript, warn func(string)) []transcript.Transcript {
	st, err := transcript.StatFile(t.Path)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			warn(fmt.Sprintf("skipped %s: %v", t.Path, err))
		}
		return out
	}
	t.Stat = st
	return append(out, t)
}

// warnUnread reports a folder that could not be read, unless it is gone.
func warnUnread(err error, warn func(string)) {
	if !errors.Is(err, fs.ErrNotExist) {
		warn(fmt.Sprintf("read source: %v", err)) // a *fs.PathError: it names the folder
	}
}

// WatchPaths are the paths whose mtime moves when a session under root
// is added or grows: the tmp folder (a project's folder added), each
// project's chats folder (a session file added; fsnotify also reports
// writes to the files in it) and logs.json beside it (rewritten with
// each prompt, so it moves as a session grows, where the folder's mtime
// does not), and projects.json (a project registered). A subagent's file
// is written in its parent session's folder, while that session's own
// file grows with the tool call that ran it. Their number grows with the
// projects, never with the sessions.
func WatchPaths(root string) []string {
	l := layoutOf(root, func(string) {})
	var out []string
	if l.tmp != "" {
		out = append(out, l.tmp)
		if filepath.Base(l.tmp) == "tmp" {
			out = append(out, filepath.Join(filepath.Dir(l.tmp), "projects.json"))
		}
	}
	for _, home := range l.homes {
		out = append(out, home)
		if filepath.Base(home) == "tmp" {
			out = append(out, filepath.Join(filepath.Dir(home), "projects.json"))
		}
	}
	// A project's chats folder is watched whether it is there or not:
	// its coming is a change, and the check stats each path anyway.
	for _, p := range l.projects {
		out = append(out, filepath.Join(p, "chats"), filepath.Join(p, logsName))
	}
	for _, chats := range l.chats {
		out = append(out, chats, filepath.Join(filepath.Dir(chats), logsName))
	}
	return out
}
