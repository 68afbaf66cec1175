package opencode

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/recall-dev/recall/transcript/jsonscan"
)

// partData is what rows need of a part (the data column of the part
// table, or a part file of the JSON storage: MessageV2.Part). Members of
// an unexpected type read as empty: formats drift, and one odd member
// costs that member, never the part.
type partData struct {
	// ID, MessageID and SessionID are in the JSON storage's files only:
	// the database keeps them in columns.
	ID        string    `json:"id"`
	MessageID string    `json:"messageID"`
	SessionID string    `json:"sessionID"`
	Type      string    `json:"type"`
	Text      string    `json:"text"`      // text, reasoning
	Synthetic jsonBool  `json:"synthetic"` // text OpenCode wrote into a prompt
	Ignored   jsonBool  `json:"ignored"`   // text left out of what the model sees
	Tool      string    `json:"tool"`
	State     toolState `json:"state"`
	Time      span      `json:"time"`
}

// toolState is a tool part's state: its status, pending, running,
// completed or error, and the call's input (its output is not a row).
type toolState struct {
	Status string          `json:"status"`
	Input  json.RawMessage `json:"input"`
	Time   span            `json:"time"`
}

// messageInfo is what rows need of a message (the data column of the
// message table, or a message file: MessageV2.Info).
type messageInfo struct {
	ID        string `json:"id"`
	SessionID string `json:"sessionID"`
	Role      string `json:"role"`
	Time      span   `json:"time"` // created; completed once an assistant message is whole
	Path      struct {
		Cwd string `json:"cwd"`
	} `json:"path"`
	// Summary is true on the assistant message that holds a
	// compaction's summary of the conversation (a user message's
	// summary is an object: false here).
	Summary jsonBool `json:"summary"`
}

// sessionInfo is a session file of the JSON storage (Session.Info); the
// database keeps the same in the session table's columns.
type sessionInfo struct {
	ID        string `json:"id"`
	ProjectID string `json:"projectID"`
	ParentID  string `json:"parentID"`
	Directory string `json:"directory"`
	Title     string `json:"title"`
	Time      span   `json:"time"`
}

// projectInfo is a project file of the JSON storage.
type projectInfo struct {
	Worktree string `json:"worktree"`
}

// span is the times OpenCode puts on a message, part or tool state;
// each kind uses some of them.
type span struct {
	Start     millis `json:"start"`
	End       millis `json:"end"`
	Created   millis `json:"created"`
	Updated   millis `json:"updated"`
	Completed millis `json:"completed"`
}

// millis is a time in milliseconds since 1970, as OpenCode writes them
// (Date.now()). Anything but a number in range reads as 0, never as an
// error.
type millis int64

// maxMillis bounds a time: later than the year 5000 is not one.
const maxMillis = 1e14

func (m *millis) UnmarshalJSON(b []byte) error {
	*m = 0
	if f, err := strconv.ParseFloat(string(b), 64); err == nil && f > 0 && f < maxMillis {
		*m = millis(f)
	}
	return nil
}

// jsonBool is a boolean member: true only for JSON true.
type jsonBool bool

func (f *jsonBool) UnmarshalJSON(b []byte) error {
	*f = string(b) == "true"
	return nil
}

// errNotObject is the error for data that is not a JSON object.
var errNotObject = errors.New("not a JSON object")

// decodeObject decodes the JSON object data into v. Members of a type v
// does not expect are left empty (encoding/json goes on past them); data
// that is not an object, or not JSON, is an error.
func decodeObject(data []byte, v any) error {
	if t := bytes.TrimLeft(data, " \t\r\n"); len(t) == 0 || t[0] != '{' {
		return errNotObject
	}
	err := json.Unmarshal(data, v)
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("decode: %w", err)
	}
	return nil
}

// decodePart decodes a part's data: by the fast decoder (fastjson.go),
// or by encoding/json what that leaves to it.
func decodePart(data []byte) (partData, error) {
	var p partData
	if fastPart(data, &p) {
		return p, nil
	}
	p = partData{}
	err := decodeObject(data, &p)
	return p, err
}

// decodeMessage decodes a message's data, as decodePart.
func decodeMessage(data []byte) (messageInfo, error) {
	var m messageInfo
	if fastMessage(data, &m) {
		return m, nil
	}
	m = messageInfo{}
	err := decodeObject(data, &m)
	return m, err
}

// stamp is ms as a row's timestamp, "" for no time.
func stamp(ms int64) string {
	if ms <= 0 || ms >= maxMillis {
		return ""
	}
	return time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000Z")
}

// isDefaultTitle reports whether title is the placeholder OpenCode gives
// a session until it names it: "New session - " or "Child session - "
// and the time it was made, as JavaScript's toISOString writes it
// (Session.isDefaultTitle).
func isDefaultTitle(title string) bool {
	rest, ok := strings.CutPrefix(title, "New session - ")
	if !ok {
		rest, ok = strings.CutPrefix(title, "Child session - ")
	}
	if !ok || len(rest) != len("2006-01-02T15:04:05.000Z") {
		return false
	}
	_, err := time.Parse("2006-01-02T15:04:05.000Z", rest)
	return err == nil
}

// toolInput is a tool call's input for the Builder, which names a call
// by the first of command, file_path, pattern, url, … its input holds:
// OpenCode's file tools (read, write, edit) name the file filePath, so
// that member is given again as file_path.
func toolInput(input json.RawMessage) []byte {
	t := bytes.TrimSpace(input)
	if len(t) < 2 || t[0] != '{' || !bytes.Contains(t, []byte(`"filePath"`)) {
		return t
	}
	path, ok, has, known := filePathMember(t)
	if !known {
		var members map[string]json.RawMessage
		if json.Unmarshal(t, &members) != nil {
			return t
		}
		path, ok = members["filePath"]
		_, has = members["file_path"]
	}
	if !ok || has {
		return t
	}
	out := make([]byte, 0, len(t)+len(path)+16)
	out = append(out, `{"file_path":`...)
	out = append(out, path...)
	if rest := bytes.TrimSpace(t[1:]); len(rest) > 0 && rest[0] != '}' {
		out = append(out, ',')
	}
	return append(out, t[1:]...)
}

// filePathMember finds, as json.Unmarshal into a map would, the last
// filePath member of the object t (path, ok) and whether it has a
// file_path member, without decoding the rest; known is false when it
// cannot tell (t is not a valid object, a key has an escape).
func filePathMember(t []byte) (path []byte, ok, has, known bool) {
	end, valid := walkObject(t, 0, 0, func(key []byte, i, depth int) (int, bool) {
		if bytes.IndexByte(key, '\\') >= 0 {
			return 0, false
		}
		e, valid := jsonscan.ValidValue(t, i, depth)
		if !valid {
			return 0, false
		}
		switch string(key) {
		case "filePath":
			path, ok = t[i:e], true
		case "file_path":
			has = true
		}
		return e, true
	})
	if !valid || jsonscan.SkipSpace(t, end) != len(t) {
		return nil, false, false, false
	}
	return path, ok, has, true
}
