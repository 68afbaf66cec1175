package transcript

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/recall-dev/recall/internal/errpath"
	"github.com/recall-dev/recall/record"
)

// This file reads what Claude Code says about which transcripts can be
// changing (docs: ../shared/docs/claude-code-format.md), so a freshness
// check can look at a handful of files instead of stat'ing every
// transcript: history.jsonl gains a line per typed prompt, and
// sessions/<pid>.json marks running sessions.

// ActiveSession is a session some signal names: its id and, when the
// signal gives it, its working directory (from which the project folder
// name follows, see ProjectSlug).
type ActiveSession struct {
	ID  string
	Cwd string
}

// ConfigDir is the Claude Code configuration folder a transcript root
// belongs to (the parent of a "projects" folder, followed through
// symlinks), or "" when the root is not one: a --source that points
// elsewhere has no history or sessions folder to read.
func ConfigDir(root string) string {
	if filepath.Base(root) == "projects" {
		return filepath.Dir(root)
	}
	if real, err := filepath.EvalSymlinks(root); err == nil && filepath.Base(real) == "projects" {
		return filepath.Dir(real)
	}
	return ""
}

// HistoryMark is how far history.jsonl was read: the offset after the
// last complete line, and a fingerprint (CRC-32C) of the historyTailBytes
// before it, so that a file cut and written again past the offset (same
// inode, larger) is told from one that grew.
type HistoryMark struct {
	Offset int64
	Tail   uint32
}

// historyTailBytes is how much of history.jsonl before the offset a mark
// fingerprints.
const historyTailBytes = 256

// ErrHistoryRewritten is returned by HistorySince when the bytes before
// the mark are not those it fingerprinted.
var ErrHistoryRewritten = errors.New("history.jsonl was cut and written again")

// markAt is the mark of offset, given buf holding the file from start.
func markAt(buf []byte, start, offset int64) HistoryMark {
	from := max(offset-historyTailBytes, start)
	return HistoryMark{Offset: offset, Tail: crc32.Checksum(buf[from-start:offset-start], castagnoli)}
}

// maxHistoryDelta bounds how much new history.jsonl one check reads; more
// than this since the last check means a full sweep is cheaper and safer.
const maxHistoryDelta = 4 << 20

// ErrHistoryTooLong is returned by HistorySince when more was appended
// than one check reads.
var ErrHistoryTooLong = fmt.Errorf("more than %d bytes of new history", maxHistoryDelta)

// HistorySince reads the complete lines of the first size bytes of
// history.jsonl after mark, in one read that also checks the bytes before
// the mark (ErrHistoryRewritten), and returns the sessions they name and
// the mark after the last complete line. A line that does not parse names
// nothing (the format is internal to Claude Code); a partial last line is
// left for next time.
func HistorySince(path string, mark HistoryMark, size int64) ([]ActiveSession, HistoryMark, error) {
	offset := mark.Offset
	if size-offset > maxHistoryDelta {
		return nil, mark, ErrHistoryTooLong
	}
	f, err := OpenRegular(path)
	if err != nil {
		return nil, mark, err // it names the path
	}
	defer f.Close()
	start := max(offset-historyTailBytes, 0)
	buf := make([]byte, size-start)
	n, err := f.ReadAt(buf, start)
	if err != nil && err != io.EOF {
		return nil, mark, errpath.Wrap("read", path, err)
	}
	buf = buf[:n]
	if int64(n) < offset-start || markAt(buf, start, offset) != mark {
		return nil, mark, ErrHistoryRewritten
	}
	end := bytes.LastIndexByte(buf[offset-start:], '\n')
	if end < 0 {
		return nil, mark, nil
	}
	var out []ActiveSession
	for line := range bytes.SplitSeq(buf[offset-start:offset-start+int64(end)], []byte{'\n'}) {
		var rec struct {
			SessionID string `json:"sessionId"`
			Project   string `json:"project"`
		}
		if json.Unmarshal(line, &rec) == nil && plausibleID(rec.SessionID) {
			out = append(out, ActiveSession{ID: rec.SessionID, Cwd: rec.Project})
		}
	}
	return out, markAt(buf, start, offset+int64(end)+1), nil
}

// RunningSessions reads sessions/<pid>.json, one per running Claude Code
// process. The file's fields are not documented; a session id is looked
// for under the names Claude Code uses elsewhere.
func RunningSessions(dir string) []ActiveSession {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []ActiveSession
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		data, err := readRegular(filepath.Join(dir, e.Name()), 64<<10) // never a FIFO: it would wait for a writer
		if err != nil {
			continue
		}
		var rec struct {
			SessionID  string `json:"sessionId"`
			SessionID2 string `json:"session_id"`
			Cwd        string `json:"cwd"`
		}
		if json.Unmarshal(data, &rec) != nil {
			continue
		}
		id := rec.SessionID
		if id == "" {
			id = rec.SessionID2
		}
		if plausibleID(id) {
			out = append(out, ActiveSession{ID: id, Cwd: rec.Cwd})
		}
	}
	return out
}

// plausibleID keeps a session id that can be a file name: no separators,
// no dots, not empty, not absurdly long.
func plausibleID(id string) bool {
	return id != "" && len(id) <= 128 && !strings.ContainsAny(id, "/\\.\x00")
}

// ProjectSlug is the project folder name Claude Code derives from a
// working directory: every character outside [A-Za-z0-9] becomes '-'; a
// name longer than 200 is cut to 200 and followed by '-' and a base-36
// hash of the whole path (a JS 32-bit h = h*31 + code unit, absolute).
func ProjectSlug(cwd string) string {
	b := []byte(cwd)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			b[i] = '-'
		}
	}
	// Non-ASCII bytes each became '-'; JS replaces per UTF-16 code unit,
	// so rebuild from runes to match for such paths.
	if !isASCII(cwd) {
		var sb strings.Builder
		for _, r := range cwd {
			if r < 0x80 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
				sb.WriteRune(r)
			} else if r > 0xFFFF {
				sb.WriteString("--")
			} else {
				sb.WriteByte('-')
			}
		}
		b = []byte(sb.String())
	}
	if len(b) <= 200 {
		return string(b)
	}
	return string(b[:200]) + "-" + jsHash36(cwd)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

func jsHash36(s string) string {
	var h int32
	for _, r := range s {
		if r > 0xFFFF { // a surrogate pair in UTF-16
			r -= 0x10000
			h = h*31 + int32(0xD800+(r>>10))
			h = h*31 + int32(0xDC00+(r&0x3FF))
			continue
		}
		h = h*31 + int32(r)
	}
	v := int64(h)
	if v < 0 {
		v = -v
	}
	return strconv.FormatInt(v, 36)
}

// FindSession finds a session's main transcript under a projects root:
// first in the folder its working directory names, then in every project
// folder given (the folder name can be pinned by
// CLAUDE_CODE_PROJECT_DIR_NAME). ok is false if no such file exists yet.
func FindSession(root string, s ActiveSession, projects []string) (Transcript, bool) {
	if s.Cwd != "" {
		if t, err := StatTranscript(filepath.Join(root, ProjectSlug(s.Cwd), s.ID+".jsonl")); err == nil {
			return t, true
		}
	}
	for _, p := range projects {
		if t, err := StatTranscript(filepath.Join(p, s.ID+".jsonl")); err == nil {
			return t, true
		}
	}
	return Transcript{}, false
}

// StatTranscript classifies and stats one transcript by path. A path that
// is not a regular file is an error.
func StatTranscript(path string) (Transcript, error) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return Transcript{}, &os.PathError{Op: "stat", Path: path, Err: err}
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return Transcript{}, fmt.Errorf("stat %s: not a regular file", path)
	}
	t := classify(path)
	if t.Kind != "main" {
		t.Session = sessionOfSubagent(path)
	}
	t.Stat = fileStatOf(&st)
	return t, nil
}

// sessionOfSubagent is the <session> folder of
// <project>/<session>/subagents/…/agent-<id>.jsonl, "" for the older
// project-level layout.
func sessionOfSubagent(path string) string {
	slash := filepath.ToSlash(path)
	i := strings.Index(slash, "/subagents/")
	if i < 0 {
		return ""
	}
	return record.SessionIDOf(filepath.Base(slash[:i]))
}

// DirMtime is a folder's modification time in nanoseconds: it changes
// whenever an entry is created, removed or renamed in it.
func DirMtime(dir string) (int64, error) {
	var st unix.Stat_t
	if err := unix.Stat(dir, &st); err != nil {
		return 0, &os.PathError{Op: "stat", Path: dir, Err: err}
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		return 0, fmt.Errorf("stat %s: not a folder", dir)
	}
	return st.Mtim.Nano(), nil
}

// ProjectDirs lists the project folders of a root: its sub-folders, or
// the root itself if it holds transcripts directly.
// Links are followed as Discover follows them (roots are every source).
func ProjectDirs(roots []string, root string, warn func(string)) []string {
	return projectDirs(root, judgeOf(roots), warn)
}

// DiscoverProject finds every transcript of one project folder, as
// Discover does for each.
func DiscoverProject(roots []string, dir string, warn func(string)) []Transcript {
	return discoverProject(dir, judgeOf(roots), warn)
}

// DiscoverSessionDir finds the subagent transcripts of one session folder
// (<project>/<session>/subagents/**).
func DiscoverSessionDir(roots []string, dir string, warn func(string)) []Transcript {
	return discoverSubagents(filepath.Join(dir, "subagents"), record.SessionIDOf(filepath.Base(dir)), judgeOf(roots), map[folderID]bool{}, warn)
}

// DirEntry is one entry of a project folder, as ListProject gives it.
type DirEntry struct {
	Name string
	Dir  bool
}

// ListProject lists a project folder's transcript files and sub-folders
// without stat'ing anything (the memory folder is left out).
func ListProject(roots []string, dir string) ([]DirEntry, error) {
	var out []DirEntry
	j := judgeOf(roots)
	err := eachEntry(dir, func(_ int, name string, typ entryType) {
		if typ == entryLink {
			typ = j.follow(dir, name, false, func(string) {}) // the sweep says what a link to nothing is
		}
		switch {
		case typ == entryFile && strings.HasSuffix(name, ".jsonl"):
			out = append(out, DirEntry{Name: name})
		case typ == entryDir && name != "memory":
			out = append(out, DirEntry{Name: name, Dir: true})
		}
	})
	return out, err
}

// HistoryEnd is the mark just after the last complete line of the first
// size bytes of history.jsonl: where the next check starts reading.
func HistoryEnd(path string, size int64) (HistoryMark, error) {
	f, err := OpenRegular(path)
	if err != nil {
		return HistoryMark{}, err // it names the path
	}
	defer f.Close()
	offset, err := lastLineEnd(f, size)
	if err != nil {
		return HistoryMark{}, errpath.Wrap("read", path, err)
	}
	start := max(offset-historyTailBytes, 0)
	tail := make([]byte, offset-start)
	if _, err := f.ReadAt(tail, start); err != nil {
		return HistoryMark{}, errpath.Wrap("read", path, err)
	}
	return markAt(tail, start, offset), nil
}

// lastLineEnd is the offset just after the last '\n' in f's first size
// bytes, 0 for none.
func lastLineEnd(f *os.File, size int64) (int64, error) {
	buf := make([]byte, 64<<10)
	for end := size; end > 0; {
		start := max(end-int64(len(buf)), 0)
		n, err := f.ReadAt(buf[:end-start], start)
		if err != nil && err != io.EOF {
			return 0, err
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			return start + int64(i) + 1, nil
		}
		end = start
	}
	return 0, nil
}
