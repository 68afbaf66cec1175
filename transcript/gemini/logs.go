package gemini

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/recall-dev/recall/filter"
	"github.com/recall-dev/recall/record"
	"github.com/recall-dev/recall/transcript"
)

// Gemini CLI logs every prompt typed in a project, in every session, to
// the project's logs.json (Logger, packages/core/src/core/logger.ts): a
// JSON array of {sessionId, messageId, type: "user", message,
// timestamp}. A session's chat file holds the same prompts with the
// rest of the conversation, but a session can have none: one run before
// Gemini CLI recorded chats, or whose chat was removed. Trees from the
// wild hold them (21 of the 126 sessions in seven real logs.json files
// had no chat anywhere under their Gemini folder, with 350 prompts): for
// those the log is all there is of them. recall reads a logs.json for
// the sessions with no chat file under the same tmp folder only, one
// user row per prompt; a session with one is its file's.

// logsName is a project's prompt log, beside its chats folder.
const logsName = "logs.json"

// isLogs reports whether path is a project's prompt log.
func isLogs(path string) bool { return filepath.Base(path) == logsName }

// logEntry is one prompt of a logs.json.
type logEntry struct {
	SessionID string          `json:"sessionId"`
	MessageID json.RawMessage `json:"messageId"`
	Type      string          `json:"type"`
	Message   string          `json:"message"`
	Timestamp json.RawMessage `json:"timestamp"`
}

// errLogEntry is an element of a logs.json that is no prompt entry.
var errLogEntry = errors.New("not a prompt entry {sessionId, messageId, type, message, timestamp}")

// readLogs reads a project's logs.json whole: the prompts of the
// sessions that have no chat file, as their user rows (see above). It is
// read again whole when it changes (cursor 0): the rows read before are
// left out as copies by their keys.
func readLogs(w transcript.Work, b *transcript.Builder) (session, project string, cursor int64, err error) {
	// Streamed an entry at a time, so a long log costs no more memory
	// than a short one: the bound is a legacy chat's, not the 16 MiB a
	// log read whole to name one session may take.
	doc, err := transcript.OpenDocument(w.T.Path, maxLegacyBytes)
	if err != nil {
		return "", "", 0, err
	}
	defer doc.Close()
	slugDir := filepath.Dir(w.T.Path)
	if root := projectsOfFolder(w.T.Path, slugDir).fromPath(); root != "" {
		project = b.Redact(root)
	}
	chats := newRecorded(slugDir)
	err = doc.ReadArray(func(raw json.RawMessage, line int) {
		var e logEntry
		if json.Unmarshal(raw, &e) != nil || !isUUID(e.SessionID) {
			b.BadPart(line, errLogEntry)
			return
		}
		if e.Type != "user" || chats.has(strings.ToLower(e.SessionID[:8])) {
			return // not a prompt, or one its session's chat holds
		}
		if text := strings.TrimSpace(e.Message); text == "" || isCommand(text) || harnessPrompt(text) {
			b.Drop(filter.Noise)
			return
		}
		m := transcript.Meta{Session: e.SessionID, Project: project, Timestamp: stamp(e.Timestamp), Line: line,
			UUID: e.SessionID + "#prompt-" + string(e.MessageID), Entrypoint: entrypoint}
		b.Text(m, "user", e.Message)
	})
	if err != nil {
		return "", "", 0, fmt.Errorf("read %s: %w", w.T.Path, err)
	}
	return "", project, 0, nil
}

// isCommand reports whether a prompt is one of Gemini CLI's own
// commands (/chat save, /quit, …: one line starting with a slash and a
// letter), which the CLI runs and never sends, and a chat never records.
func isCommand(text string) bool {
	return len(text) > 1 && text[0] == '/' && (text[1]|0x20 >= 'a' && text[1]|0x20 <= 'z') && !strings.Contains(text, "\n")
}

// recorded knows which sessions have a chat file beside a log in
// slugDir, or under another project folder of the tmp folder it is in
// (one project's sessions may sit in the folder named by its path's
// hash and in the one named by its slug), by the first eight characters
// of their ids, lowercase, which a chat file's name ends with (or the
// folder of a session's subagents is named by). The other folders are
// listed only for a session the log's own folder has no chat of.
type recorded struct {
	slugDir string
	ids     map[string]bool
	all     bool // every folder of tmp listed
}

func newRecorded(slugDir string) *recorded {
	r := &recorded{slugDir: slugDir, ids: map[string]bool{}}
	r.list(slugDir)
	return r
}

// has reports whether the session whose id starts with id8 has a chat.
func (r *recorded) has(id8 string) bool {
	if !r.ids[id8] && !r.all {
		r.all = true
		if tmp := filepath.Dir(r.slugDir); filepath.Base(tmp) == "tmp" {
			entries, _ := os.ReadDir(tmp)
			for _, e := range entries {
				if folder := filepath.Join(tmp, e.Name()); folder != r.slugDir {
					r.list(folder)
				}
			}
		}
	}
	return r.ids[id8]
}

// list notes the sessions with a chat in folder's chats folder.
func (r *recorded) list(folder string) {
	entries, err := os.ReadDir(filepath.Join(folder, "chats"))
	if err != nil {
		return
	}
	for _, e := range entries {
		name := e.Name()
		if id, ok := fileSessionID(trimExt(name)); ok && id != "" && isSessionName(name) {
			r.ids[id] = true
		} else if e.IsDir() && isUUID(name) {
			r.ids[strings.ToLower(name[:8])] = true
		}
	}
}

// appendLogs appends the logs.json in each of folders (layout.logFolders).
func appendLogs(out []transcript.Transcript, folders []string, warn func(string)) []transcript.Transcript {
	for _, folder := range folders {
		out = appendFile(out, transcript.Transcript{Path: filepath.Join(folder, logsName), Kind: record.KindOf(record.AgentGemini, false)}, warn)
	}
	return out
}
