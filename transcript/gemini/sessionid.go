package gemini

import (
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/recall-dev/recall/record"
)

// maxLogsBytes bounds the logs.json read to name a session whose file
// does not: the prompts of a project's sessions, kept whole by Gemini
// CLI; one larger is not read.
const maxLogsBytes = 16 << 20

// fileSessionID is what a session file's name tells of its session: the
// name is session-<time>-<id8>, id8 being the first 8 characters of the
// session's id (ok is false for a name of another form). suffix is id8 when it is 8 hexadecimal digits (a UUID's
// start), "" otherwise; ok reports whether the name is of that form at
// all (a Cloud Shell session's is session-<time>-a2a-serv).
func fileSessionID(stem string) (suffix string, ok bool) {
	rest, ok := strings.CutPrefix(stem, sessionPrefix)
	if !ok {
		return "", false
	}
	// <time> is 2006-01-02T15-04 (chatRecordingService.ts).
	if len(rest) <= 17 || rest[10] != 'T' || rest[16] != '-' {
		return "", false
	}
	id := rest[17:]
	if len(id) != 8 {
		return "", false
	}
	if isHex(id) {
		return strings.ToLower(id), true
	}
	return "", true
}

// isHex reports whether s is hexadecimal digits only.
func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i] | 0x20; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return s != ""
}

// isUUID reports whether id looks like a UUID (8-4-4-4-12 hexadecimal
// digits), as Gemini CLI's session ids are.
func isUUID(id string) bool { return record.IsUUID(id) }

// idFromLogs is the one session id in logs.json (the project's prompt
// log, beside its chats folder) that starts with prefix, "" when there
// is none, or several, or no log to read.
func idFromLogs(slugDir, prefix string) string {
	if slugDir == "" || prefix == "" {
		return ""
	}
	data, err := readSmall(filepath.Join(slugDir, "logs.json"), maxLogsBytes)
	if err != nil {
		return ""
	}
	var entries []struct {
		SessionID json.RawMessage `json:"sessionId"`
	}
	if json.Unmarshal(data, &entries) != nil {
		return ""
	}
	found := ""
	for _, e := range entries {
		id := str(e.SessionID)
		if len(id) <= len(prefix) || !strings.HasPrefix(strings.ToLower(id), prefix) {
			continue
		}
		if found != "" && found != id {
			return ""
		}
		found = id
	}
	return found
}
