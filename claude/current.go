package claude

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/recall-dev/recall/transcript"
)

// A long-running process Claude Code starts, such as `recall mcp`, keeps
// the environment it started with: CLAUDE_CODE_SESSION_ID names the
// session of its start, while /clear starts a new session in the same
// Claude Code process and /resume switches to another. SessionTracker
// finds the session running now, on every call, from what changes:
//
//   - recall's SessionEnd hook notes each /clear as it happens
//     (SuccessionDir: the ended session's id names a file holding the
//     new one, which the hook's environment already names);
//   - sessions/<pid>.json of the parent Claude Code process names the
//     session /resume switched to (Claude Code does not update it on
//     /clear: anthropics/claude-code#36213);
//   - history.jsonl gains a line per prompt typed: its newest line for
//     the project, naming a session whose transcript opens with /clear,
//     is the session a /clear started when no hook noted it.

// SuccessionDir, in the index directory, holds one file per session that
// /clear ended, named by its id and holding the id of the session that
// followed it in the same Claude Code process.
const SuccessionDir = "successions"

// NoteSuccession records that session next followed session prev (a
// /clear); the SessionEnd hook calls it. Failing to note it costs only
// the tracker's history fallback.
func NoteSuccession(indexDir, prev, next string) error {
	if !plausibleSessionID(prev) || !plausibleSessionID(next) || prev == next {
		return nil
	}
	dir := filepath.Join(indexDir, SuccessionDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, prev), []byte(next+"\n"), 0o600)
}

// SessionTracker follows the session a process started by Claude Code
// runs in. Its zero value knows no session.
type SessionTracker struct {
	Start     string // the session at the process's start (CLAUDE_CODE_SESSION_ID)
	IndexDir  string // where the hooks note successions
	ConfigDir string // Claude Code's configuration folder ("" none)
	ParentPID int    // the Claude Code process (0: unknown)
	Project   string // the project directory (CLAUDE_PROJECT_DIR)

	mu   sync.Mutex
	last string
}

// maxSuccessions bounds how many /clear records one call follows.
const maxSuccessions = 64

// historyTail is how much of history.jsonl's end the tracker reads.
const historyTail = 64 << 10

// Current is the session running now: the last one found, followed
// through what changed since.
func (t *SessionTracker) Current() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	cur := t.last
	if cur == "" {
		cur = t.Start
	}
	if id := t.pidFileSession(); id != "" && id != t.Start && cur == t.Start {
		cur = id // a /resume switched the session
	}
	cur = t.follow(cur)
	if next := t.historySuccessor(cur); next != "" {
		cur = t.follow(next)
	}
	t.last = cur
	return cur
}

// follow walks the successions the hooks noted from id.
func (t *SessionTracker) follow(id string) string {
	seen := map[string]bool{}
	for range maxSuccessions {
		if id == "" || seen[id] || !plausibleSessionID(id) {
			return id
		}
		seen[id] = true
		data, err := os.ReadFile(filepath.Join(t.IndexDir, SuccessionDir, id))
		if err != nil {
			return id
		}
		next := strings.TrimSpace(string(data))
		if !plausibleSessionID(next) {
			return id
		}
		id = next
	}
	return id
}

// pidFileSession is the session sessions/<parent pid>.json names.
func (t *SessionTracker) pidFileSession() string {
	if t.ConfigDir == "" || t.ParentPID <= 1 {
		return ""
	}
	data, err := os.ReadFile(filepath.Join(t.ConfigDir, "sessions", strconv.Itoa(t.ParentPID)+".json"))
	if err != nil {
		return ""
	}
	var rec struct {
		SessionID string `json:"sessionId"`
	}
	if json.Unmarshal(data, &rec) != nil || !plausibleSessionID(rec.SessionID) {
		return ""
	}
	return rec.SessionID
}

// historySuccessor is the session a /clear in cur's process started, as
// history.jsonl tells it: the project's newest prompt line, when it names
// another session than cur, typed after cur's last line, and that
// session's transcript opens with the /clear command. "" when none.
func (t *SessionTracker) historySuccessor(cur string) string {
	if t.ConfigDir == "" || t.Project == "" || cur == "" {
		return ""
	}
	path := filepath.Join(t.ConfigDir, "history.jsonl")
	f, err := transcript.OpenRegular(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return ""
	}
	from := max(info.Size()-historyTail, 0)
	buf := make([]byte, info.Size()-from)
	n, _ := f.ReadAt(buf, from)
	buf = buf[:n]
	newest, sawCur := "", false
	for line := range bytes.SplitSeq(buf, []byte{'\n'}) {
		var rec struct {
			Project   string `json:"project"`
			SessionID string `json:"sessionId"`
		}
		if json.Unmarshal(line, &rec) != nil || rec.Project != t.Project || !plausibleSessionID(rec.SessionID) {
			continue
		}
		if rec.SessionID == cur {
			sawCur, newest = true, ""
			continue
		}
		if sawCur {
			newest = rec.SessionID
		}
	}
	if newest == "" || !opensWithClear(filepath.Join(t.ConfigDir, "projects", transcript.ProjectSlug(t.Project), newest+".jsonl")) {
		return ""
	}
	return newest
}

// opensWithClear reports whether a transcript's first lines hold the
// /clear command's echo, as a session /clear started does.
func opensWithClear(path string) bool {
	f, err := transcript.OpenRegular(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 16<<10)
	n, _ := f.ReadAt(head, 0)
	return bytes.Contains(head[:n], []byte(`<command-name>/clear</command-name>`))
}
