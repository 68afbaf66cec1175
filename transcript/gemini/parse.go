package gemini

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"time"

	"github.com/recall-dev/recall/filter"
	"github.com/recall-dev/recall/record"
	"github.com/recall-dev/recall/transcript"
)

// rawRecord is every member of a session record that recall reads, each
// kept raw and decoded by what the record turns out to be: a line may be
// a message, metadata, or a control line, and formats drift.
type rawRecord struct {
	ID             json.RawMessage `json:"id"`
	Type           json.RawMessage `json:"type"`
	Timestamp      json.RawMessage `json:"timestamp"`
	Content        json.RawMessage `json:"content"`
	DisplayContent json.RawMessage `json:"displayContent"`
	ToolCalls      json.RawMessage `json:"toolCalls"`
	SessionID      json.RawMessage `json:"sessionId"`
	ProjectHash    json.RawMessage `json:"projectHash"`
	StartTime      json.RawMessage `json:"startTime"`
	Summary        json.RawMessage `json:"summary"`
	Messages       json.RawMessage `json:"messages"`
	Set            json.RawMessage `json:"$set"`
	RewindTo       json.RawMessage `json:"$rewindTo"`
}

// errNotObject is a line that is not a JSON object.
var errNotObject = errors.New("not a JSON object")

// parser reads the records of one read of a session file into rows. It
// follows the session's metadata as it changes and, within the read, the
// messages it has seen, so that a message written again replaces its
// earlier rows and a rewind takes back the rows of what it rewound.
type parser struct {
	subagent bool
	// background: a subagent's file in a folder that names no session (a
	// background agent's, such as skill extraction's, which Gemini CLI
	// runs on its own): its session is its own id, and its messages are
	// the harness's, left out as noise.
	background bool
	// opening: no message read yet in a read from the file's start, whose
	// first prompt may show it is a subagent's (taskOf).
	opening  bool
	parent   string // a subagent's file: its parent session's id, its rows' session
	agentID  string // a subagent's file: its own session's id
	session  string // a session's file: its id, from the metadata
	stem     string // the file's name without its extension
	fallback string // the session's id when the file names none (see sessionID), "" until needed

	proj       *projects
	rawProject string // the project's path as found, "" when unknown
	project    string // rawProject redacted (Meta.Project)
	redacted   bool   // project is set from rawProject

	lastTS string // the last timestamp read, for a record without one

	msgs   tracker
	tail   *msgState           // the newest message of the read (its latest first seen), nil after a rewind
	replay bool                // after a compression's state snapshot, while its copies come (replayed)
	texts  map[uint64]struct{} // the texts of the messages read (sig[0])
}

// newParser starts a read of w's file, continuing from its state when
// the read does not start at the file's beginning.
func newParser(w transcript.Work) *parser {
	sub := w.T.Kind == record.KindOf(record.AgentGemini, true)
	name := record.SessionIDOf(trimExt(filepath.Base(w.T.Path)))
	p := &parser{subagent: sub, parent: w.T.Session, agentID: w.T.Agent, stem: name,
		proj: projectsOf(w.T.Path, sub)}
	if sub && p.agentID == "" {
		p.agentID = name
	}
	if sub && p.parent == "" {
		if folder := record.SessionIDOf(filepath.Base(filepath.Dir(w.T.Path))); isUUID(folder) {
			p.parent = folder
		} else {
			p.background = true
		}
	}
	p.opening = !sub && w.State.Offset == 0
	if w.State.Offset > 0 {
		p.session, p.project = w.State.Session, w.State.Project
		p.redacted = p.project != ""
		if p.background {
			p.parent = w.State.Session
		}
	}
	if !p.redacted {
		p.rawProject = p.proj.fromPath()
	}
	p.msgs.init()
	p.texts = map[uint64]struct{}{}
	return p
}

// Where is the session and project the read is in: a subagent's file is
// its parent session's.
func (p *parser) Where() (session, project string) {
	if p.subagent {
		return p.parent, p.project
	}
	return p.session, p.project
}

// Line reads one line of a session file.
func (p *parser) Line(b *transcript.Builder, line []byte, n int) error {
	p.redactProject(b)
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return nil // Gemini CLI skips a blank line too
	}
	r, err := parseRecord(line)
	if err != nil {
		return err
	}
	p.record(b, &r, n)
	return nil
}

// parseRecord decodes one record (a line, or a message of a document).
func parseRecord(raw []byte) (rawRecord, error) {
	var r rawRecord
	if raw = bytes.TrimSpace(raw); len(raw) == 0 || raw[0] != '{' {
		return r, errNotObject
	}
	if valid, plain := scanRecord(raw, &r); valid && plain {
		return r, nil
	}
	// Not valid JSON (encoding/json says why), or a key it matches to a
	// field by Unicode case folding.
	return parseRecordJSON(raw)
}

// parseRecordJSON is parseRecord by encoding/json.
func parseRecordJSON(raw []byte) (rawRecord, error) {
	var r rawRecord
	if err := json.Unmarshal(raw, &r); err != nil {
		return r, fmt.Errorf("not a JSON record: %w", err)
	}
	return r, nil
}

// record reads one record, told apart as Gemini CLI's loader tells them
// (loadConversationRecord): a rewind, a message (a string id), a
// metadata patch, the metadata (a sessionId and a projectHash). Any other
// object is of a kind recall does not know, and is skipped.
func (p *parser) record(b *transcript.Builder, r *rawRecord, n int) {
	switch {
	case isString(r.RewindTo):
		p.rewind(b, str(r.RewindTo))
	case isString(r.ID):
		p.message(b, r, n)
	case isObject(r.Set):
		p.set(b, r.Set, n)
	case isString(r.SessionID) && isString(r.ProjectHash):
		p.metadata(b, r, n)
	}
}

// metadata reads the metadata record that opens a file. A legacy record
// written on one line also holds its messages.
func (p *parser) metadata(b *transcript.Builder, r *rawRecord, n int) {
	p.setSession(str(r.SessionID))
	p.projectByHash(b, str(r.ProjectHash))
	if p.lastTS == "" {
		p.lastTS = stamp(r.StartTime)
	}
	p.messages(b, r.Messages, n)
	p.title(b, str(r.Summary), n)
}

// messages reads a messages array held in a record.
func (p *parser) messages(b *transcript.Builder, raw json.RawMessage, n int) {
	if !isArray(raw) {
		return
	}
	elements(raw, func(m []byte) { p.messageRaw(b, m, n) })
}

// messageRaw reads one message of a messages array; what is not a
// message (no string id) is a bad record, counted.
func (p *parser) messageRaw(b *transcript.Builder, raw json.RawMessage, n int) {
	r, err := parseRecord(raw)
	if err != nil || !isString(r.ID) {
		b.Drop(filter.BadLine)
		return
	}
	p.message(b, &r, n)
}

// set reads a metadata patch: a new session id (written on resume), a
// project hash, a summary. Its messages member (a checkpoint Gemini CLI
// writes when it syncs its history: at a session's start, after an
// aborted turn, after a compression) makes no rows: each message a person
// or the model wrote is in the file as a line of its own, and the ones
// only a checkpoint holds are the harness's (the environment context it
// opens a chat with, a compression's state snapshot). Nor does it take
// rows back: what a compression or an aborted turn drops from the
// model's history was still said. The messages it holds that the read
// has not seen take their place there, for a rewind to one of them.
func (p *parser) set(b *transcript.Builder, raw json.RawMessage, n int) {
	type setRecord struct {
		SessionID   json.RawMessage `json:"sessionId"`
		ProjectHash json.RawMessage `json:"projectHash"`
		Summary     json.RawMessage `json:"summary"`
		LastUpdated json.RawMessage `json:"lastUpdated"`
		Messages    json.RawMessage `json:"messages"`
	}
	var s setRecord
	var out [5][]byte
	if fieldsOf(raw, setFields, out[:]) {
		s = setRecord{SessionID: out[0], ProjectHash: out[1], Summary: out[2], LastUpdated: out[3], Messages: out[4]}
	} else if !unmarshal(raw, &s) {
		return
	}
	p.setSession(str(s.SessionID))
	p.projectByHash(b, str(s.ProjectHash))
	if isArray(s.Messages) {
		p.checkpoint(b, s.Messages)
		p.replay = false
	}
	if ts := stamp(s.LastUpdated); ts != "" {
		p.lastTS = ts
	}
	p.title(b, str(s.Summary), n)
}

// checkpoint tracks the ids of a checkpoint's messages the read has not
// seen, at the place the checkpoint is.
func (p *parser) checkpoint(b *transcript.Builder, raw json.RawMessage) {
	if !isArray(raw) {
		return
	}
	ids, ok := checkpointIDs(raw)
	if !ok {
		return
	}
	for _, raw := range ids {
		if id := str(raw); isString(raw) && p.msgs.get(id) == nil {
			p.tail = p.msgs.add(id, len(b.Rows()))
			p.tail.sig = []uint64{0} // a version no record signs: its first record makes its rows
		}
	}
}

// checkpointIDs is the id member of each message of a checkpoint's
// (validated) messages array, as json.Unmarshal decodes it into a slice
// of structs: ok is false when it fails (a message that is not an
// object).
func checkpointIDs(raw []byte) (ids [][]byte, ok bool) {
	if ids, ok := scanCheckpointIDs(raw); ok {
		return ids, true
	}
	var msgs []struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(raw, &msgs) != nil {
		return nil, false
	}
	ids = nil
	for _, m := range msgs {
		ids = append(ids, m.ID)
	}
	return ids, true
}

// scanCheckpointIDs is checkpointIDs by the scanner; ok is false when a
// message needs encoding/json (one not an object, whose error leaves the
// checkpoint out; a key it matches by Unicode case folding).
func scanCheckpointIDs(raw []byte) (ids [][]byte, ok bool) {
	ok = true
	var out [1][]byte
	walked := elements(raw, func(m []byte) {
		out[0] = nil
		switch {
		case !ok:
		case string(m) == "null":
			ids = append(ids, nil)
		case isObject(m) && fieldsOf(m, idField, out[:]):
			ids = append(ids, out[0])
		default:
			ok = false
		}
	})
	return ids, ok && walked
}

// setFields and idField are the members set and checkpoint read.
var (
	setFields = []string{"sessionId", "projectHash", "summary", "lastUpdated", "messages"}
	idField   = []string{"id"}
)

// setSession takes id as the session's (a subagent's file keeps its
// parent's, from its path). An id that is not a UUID, in a file named as
// Gemini CLI names a session's (session-<time>-<id8>), is not taken: it
// may be shared by many sessions (Cloud Shell's agent server writes
// "a2a-server" in every session it records), which would merge into
// one. The session is then the file's (see fileID).
func (p *parser) setSession(id string) {
	if p.background && p.parent == "" && id != "" {
		p.parent = id
	}
	if id == "" || p.subagent {
		return
	}
	if !isUUID(id) {
		if _, ok := fileSessionID(p.stem); ok {
			p.session = p.fileID()
			return
		}
	}
	p.session = id
}

// sessionID is the session of the rows: a subagent's parent, else the
// session's own id, or, if no metadata named it, the file's (fileID).
func (p *parser) sessionID() string {
	if p.subagent {
		if p.parent == "" { // a background agent's file that has not named its id (yet)
			p.parent = p.stem
		}
		return p.parent
	}
	if p.session == "" {
		p.session = p.fileID()
	}
	return p.session
}

// fileID is the session's id as its file tells it: for a file named
// session-<time>-<id8>, id8 hexadecimal, the one id in the project's
// logs.json that starts with id8, else id8 itself, so that gemini
// --resume takes it; otherwise the file's name.
func (p *parser) fileID() string {
	if p.fallback != "" {
		return p.fallback
	}
	p.fallback = p.stem
	if suffix, _ := fileSessionID(p.stem); suffix != "" {
		p.fallback = suffix
		if id := idFromLogs(p.proj.slugDir, suffix); id != "" {
			p.fallback = record.SessionIDOf(id)
		}
	}
	return p.fallback
}

// redactProject sets the project of the rows from the path found, once
// a Builder is there to redact it.
func (p *parser) redactProject(b *transcript.Builder) {
	if p.redacted {
		return
	}
	p.redacted = true
	if p.rawProject != "" {
		p.project = b.Redact(p.rawProject)
	}
}

// projectByHash finds the project by the metadata's hash of its path,
// when the file's place told none.
func (p *parser) projectByHash(b *transcript.Builder, hash string) {
	if p.project != "" || hash == "" {
		return
	}
	if root := p.proj.byHash(hash); root != "" {
		p.rawProject, p.project = root, b.Redact(root)
	}
}

// title keeps a session's summary as its title. A subagent's summary is
// its result, and its rows are its parent's session, which it does not
// name.
func (p *parser) title(b *transcript.Builder, summary string, n int) {
	if summary == "" || p.subagent {
		return
	}
	id := p.sessionID()
	b.Title(transcript.Meta{Session: id, Project: p.project, Timestamp: p.lastTS, UUID: id, Line: n,
		Entrypoint: entrypoint}, record.TitleAI, summary)
}

// meta is the Meta of a message's rows.
func (p *parser) meta(uuid, ts string, n int) transcript.Meta {
	m := transcript.Meta{Session: p.sessionID(), Project: p.project, Timestamp: ts, UUID: uuid, Line: n,
		Entrypoint: entrypoint}
	if p.subagent {
		m.Subagent = p.agentID
	}
	return m
}

// maxIDBytes bounds a message id kept as a row's UUID; a longer one (no
// id Gemini CLI makes, which are UUIDs) is kept as its hash.
const maxIDBytes = 128

// messageUUID is the UUID of the rows of the message whose id is id:
// the id itself, the same in every file the message is copied to. A
// message with an empty id (none Gemini CLI writes) is told by its
// session and line instead.
func (p *parser) messageUUID(id string, n int) string {
	switch {
	case id == "":
		return p.sessionID() + "#line-" + strconv.Itoa(n)
	case len(id) > maxIDBytes:
		sum := sha256.Sum256([]byte(id))
		return "sha256:" + hex.EncodeToString(sum[:16])
	}
	return id
}

// isString, isObject and isArray report the kind of a raw JSON value
// (absent: none).
func isString(raw json.RawMessage) bool { return len(raw) > 0 && raw[0] == '"' }
func isObject(raw json.RawMessage) bool { return len(raw) > 0 && raw[0] == '{' }
func isArray(raw json.RawMessage) bool  { return len(raw) > 0 && raw[0] == '[' }

// str is a raw JSON string's value, "" for any other value.
func str(raw json.RawMessage) string {
	if !isString(raw) {
		return ""
	}
	return decodeString(raw)
}

// rowTime is the form of a row's timestamp.
const rowTime = "2006-01-02T15:04:05.000Z"

// stamp is a raw JSON timestamp in the rows' form (UTC, milliseconds),
// "" when it is not an RFC 3339 time.
func stamp(raw json.RawMessage) string {
	if len(raw) == len(rowTime)+2 && raw[0] == '"' && raw[len(raw)-1] == '"' && isRowTime(raw[1:len(raw)-1]) {
		return string(raw[1 : len(raw)-1]) // as Gemini CLI writes them: already the rows' form
	}
	s := str(raw)
	if s == "" {
		return ""
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil || t.Year() < 0 || t.UTC().Year() > 9999 {
		return ""
	}
	return t.UTC().Format(rowTime)
}

// isRowTime reports whether s is a valid time in the rows' form, one
// time.Parse takes and Format writes back unchanged.
func isRowTime(s []byte) bool {
	num := func(i, n int) int {
		v := 0
		for _, c := range s[i : i+n] {
			if c < '0' || c > '9' {
				return -1
			}
			v = v*10 + int(c-'0')
		}
		return v
	}
	if s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' || s[19] != '.' || s[23] != 'Z' {
		return false
	}
	year, month, day := num(0, 4), num(5, 2), num(8, 2)
	hour, minute, sec, ms := num(11, 2), num(14, 2), num(17, 2), num(20, 3)
	if year < 0 || month < 1 || month > 12 || day < 1 || hour < 0 || hour > 23 || minute < 0 || minute > 59 ||
		sec < 0 || sec > 59 || ms < 0 {
		return false
	}
	days := [...]int{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}[month-1]
	if month == 2 && year%4 == 0 && (year%100 != 0 || year%400 == 0) {
		days = 29
	}
	return day <= days
}
