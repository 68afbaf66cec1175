// Package opencode reads the sessions of OpenCode (sst/opencode): the
// SQLite database it keeps in its data folder, and the JSON files its
// versions before the database kept under storage/ there.
//
// The data folder is `${XDG_DATA_HOME:-~/.local/share}/opencode`
// (OpenCode's Global.Path.data, from xdg-basedir). The database is
// opencode.db there, or opencode-<channel>.db for a build of another
// release channel; OPENCODE_DB names another database: an absolute path
// as it is, a relative one under the data folder (OpenCode's
// Database.Path).
//
// A database holds every session, so it is one Transcript, read whole
// (Format.ReadAll) with a cursor: the newest change it read, in
// milliseconds, so that the next read takes only the sessions, messages
// and parts written since. Each session of the old JSON storage
// (storage/session/<projectID>/<sessionID>.json, with its messages under
// storage/message/<sessionID>/ and their parts under
// storage/part/<messageID>/) is one Transcript, read whole when it
// changes.
//
// OpenCode 2.x keeps the 1.x tables frozen and writes to its own:
// session_v2 and session_message, a message a row (dbv2.go); a database
// is read in both.
//
// Rows are made of a message's parts: text parts are prompts and
// replies, tool parts are tool calls; a subagent's session (a child
// session, parent_id set) gives rows of its root session, marked with its
// own id as the subagent's. A part's id is the row's UUID, the same in
// the database and in the JSON storage it was migrated from.
package opencode

import (
	"path/filepath"
	"strings"
	"time"

	"github.com/recall-dev/recall/record"
	"github.com/recall-dev/recall/transcript"
)

// entrypoint is every row's: OpenCode writes nothing that tells an
// interactive session from a scripted one (`opencode run`).
const entrypoint = "opencode"

// Format is how OpenCode's session stores are read: each whole, a
// database from the cursor its last read returned.
func Format() transcript.Format { return newFormat(wallClock) }

// newFormat is Format with the clock that judges whether a message
// without its end is still being written (tests pass a fixed one).
func newFormat(now func() int64) transcript.Format {
	return transcript.Format{
		Agent: record.AgentOpenCode,
		ReadAll: func(w transcript.Work, b *transcript.Builder) (string, string, int64, error) {
			if isSessionFile(w.T.Path) {
				return readLegacy(w, b, now())
			}
			return readDatabase(w, b, now())
		},
	}
}

// wallClock is the time now in milliseconds, the unit of OpenCode's times.
func wallClock() int64 { return time.Now().UnixMilli() }

// isSessionFile reports whether path is a session of the JSON storage
// (the database never ends in .json).
func isSessionFile(path string) bool { return strings.HasSuffix(path, ".json") }

// DefaultRoot is OpenCode's data folder for the user whose home is home,
// or the database OPENCODE_DB names (":memory:" is none on disk).
func DefaultRoot(getenv func(string) string, home string) string {
	base := getenv("XDG_DATA_HOME")
	if base == "" {
		base = filepath.Join(home, ".local", "share")
	}
	data := filepath.Join(base, "opencode")
	switch db := getenv("OPENCODE_DB"); {
	case db == "" || db == ":memory:":
		return data
	case filepath.IsAbs(db):
		return db
	default:
		return filepath.Join(data, db)
	}
}

// ResumeCommand reopens session in OpenCode, run in its project folder.
func ResumeCommand(session, _ string) [][]string { return [][]string{{"opencode", "-s", session}} }
