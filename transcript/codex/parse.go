package codex

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/recall-dev/recall/filter"
	"github.com/recall-dev/recall/record"
	"github.com/recall-dev/recall/transcript"
	"github.com/recall-dev/recall/transcript/jsonscan"
)

// parser reads the lines of one read of a rollout (transcript.LineParser).
type parser struct {
	path  string
	state record.FileState // where the read starts: the file's state after the reads before
	// b is the read's Builder; nil while the lines read before are
	// replayed (catchUp): then no row is made and no drop counted, but
	// what the lines set is noted, their messages' occurrences too.
	b     *transcript.Builder
	ready bool // the lines read before are replayed

	fileID  string // the thread id the file's name ends with
	owner   string // the thread whose rollout this is
	parent  string // the thread that spawned this one, for a subagent's
	cwd     string // the thread's working directory
	project string // cwd redacted: what rows and Where carry
	entry   string // how the thread ran (sessionMeta.entrypoint)
	// ownRun: a thread Codex ran for itself (sessionMeta.ownRun): the
	// approval reviewer's, whose prompts are the history it assesses and
	// whose replies are verdicts, or a compaction's. Every message of it
	// is the harness's, left out as Claude Code's compaction agent is.
	ownRun bool
	// metaSeen: the thread's own session_meta was read.
	metaSeen bool
	titled   bool // titleOnce looked the thread's name up
	// created is when the thread began (its own session_meta's timestamp).
	created string
	// origin is the thread the lines being read are of: "" for the
	// file's own, another's id from its session_meta on (a fork's or
	// a subagent's copy of its parent's history) until the file's own
	// turn starts (originOf).
	origin string
	// itemMessages: the file has had a user or assistant message response
	// item, so its event_msg messages are copies of those.
	itemMessages bool
	// lastTS is the timestamp of the last line read that had one that
	// reads: a line whose own does not read takes it (the response items
	// of an old rollout have none: they take its first line's).
	lastTS string
	seen   occurrences
	// keyed, when set (by tests), is told each message's and tool
	// call's line and UUID, rows made or not.
	keyed func(line int, uuid string)
}

// newParser starts the parser of one read of w's rollout: from its
// first line, or continuing the reads before when w.State.Offset is not
// 0 (catchUp).
func newParser(w transcript.Work) transcript.LineParser {
	p := &parser{path: w.T.Path, state: w.State, fileID: threadIDOf(filepath.Base(w.T.Path)), seen: newOccurrences()}
	if w.State.Offset > 0 {
		p.project = w.State.Project
	} else {
		p.state.Session, p.state.Project = "", ""
	}
	return p
}

// Line reads line n of the file into rows.
func (p *parser) Line(b *transcript.Builder, line []byte, n int) error {
	if !p.ready {
		p.catchUp() // with no Builder: the lines before make no rows
		p.b = b
		p.nameGivenSince(n)
	}
	p.b = b
	return p.line(line, n)
}

// Where is the session the file's rows belong to (a subagent's rows are
// its parent's) and the thread's project.
func (p *parser) Where() (session, project string) {
	if !p.ready {
		return p.state.Session, p.state.Project
	}
	return p.session(), p.project
}

// session is the session of the file's rows.
func (p *parser) session() string {
	switch {
	case p.parent != "":
		return p.parent
	case p.owner != "":
		return p.owner
	case p.state.Session != "":
		return p.state.Session
	}
	return p.fileID
}

// thread is the thread the line being read is of (origin): the file's
// own, or the one whose history it copied.
func (p *parser) thread() string {
	if p.origin != "" {
		return p.origin
	}
	return p.ownID()
}

// turnStarted reads a task_started (turn_started) event. In a copy of
// another thread's history it is that thread's turn (a fork copies its
// parent's task_started too) unless it started after this thread began:
// then the file's own lines start. A turn id is a UUIDv7, which sorts by
// time, as the thread id does; else started_at (seconds) is compared to
// the thread's creation time. A turn that says neither is taken as the
// file's own.
func (p *parser) turnStarted(payload json.RawMessage) {
	if p.origin == "" {
		return
	}
	var ev struct {
		TurnID    string          `json:"turn_id"`
		StartedAt json.RawMessage `json:"started_at"`
	}
	_ = json.Unmarshal(payload, &ev)
	own := strings.ToLower(p.ownID())
	turn := strings.ToLower(ev.TurnID)
	switch {
	case isUUIDv7(turn) && isUUIDv7(own):
		if turn < own {
			return
		}
	case len(ev.StartedAt) > 0 && p.created != "":
		var secs float64
		created, err := time.Parse(time.RFC3339Nano, p.created)
		if json.Unmarshal(ev.StartedAt, &secs) == nil && err == nil && secs < float64(created.Unix()) {
			return
		}
	}
	p.origin = ""
}

// isUUIDv7 reports whether s, lowercased, is a UUID of version 7.
func isUUIDv7(s string) bool { return record.IsUUID(s) && s[14] == '7' }

// ownID is the thread's own id.
func (p *parser) ownID() string {
	if p.owner != "" {
		return p.owner
	}
	return p.fileID
}

// utf8BOM is the byte order mark an editor may put at a file's start.
var utf8BOM = []byte("\ufeff")

// catchUp replays the lines read before this read (the file's first
// state.Offset bytes) without emitting anything: what they set (the
// thread, its project and entrypoint, whether the file has message
// items, the occurrence counts of identity.go) is what a read of the
// whole file would have when it reaches this read's first line. Lines
// are split as the framework splits them (over-long ones skipped). If
// the file cannot be opened the read goes on from the state alone (the
// read itself then fails the same way, or the file came back).
func (p *parser) catchUp() {
	p.ready = true
	if p.state.Offset <= 0 {
		return
	}
	f, err := transcript.OpenRegular(p.path)
	if err != nil {
		return
	}
	defer f.Close()
	n := 0
	_ = transcript.ScanLines(bufio.NewReaderSize(io.LimitReader(f, p.state.Offset), 64<<10), transcript.MaxLineBytes, func(line []byte, tooLong int64) bool {
		n++
		if tooLong > 0 {
			return true
		}
		if n == 1 {
			line = bytes.TrimPrefix(line, utf8BOM)
		}
		_ = p.line(line, n) // a bad line was reported when first read
		return true
	})
}

// rolloutLine is a rollout line's envelope.
type rolloutLine struct {
	Timestamp json.RawMessage `json:"timestamp"`
	Type      string          `json:"type"`
	Payload   json.RawMessage `json:"payload"`
	// Metadata is what Codex keeps with a response item (CodexHarnessMetadata).
	Metadata json.RawMessage `json:"metadata"`
	// RecordType and ID are of the lines of rollouts written before the
	// envelope: {"record_type":"state"} and the session's first line.
	RecordType string          `json:"record_type"`
	ID         json.RawMessage `json:"id"`
}

var (
	errNotJSON  = errors.New("not JSON")
	errNoType   = errors.New("a JSON value that is no rollout record")
	errNoObject = errors.New("payload is not a JSON object")
)

// line reads one line: emitting rows when p.b is set, only noting what
// the line sets when replaying.
func (p *parser) line(line []byte, n int) error {
	if quiet(line) {
		if p.b != nil && !jsonscan.Valid(line) {
			return errNotJSON
		}
		return nil
	}
	var rec rolloutLine
	// A line that is not JSON, or reads an unusual way, is decoded by
	// encoding/json (its error is the line's); see jsonfast.go.
	if !jsonscan.Valid(line) || !decodeEnvelope(line, &rec) {
		if err := json.Unmarshal(line, &rec); err != nil {
			return err
		}
	}
	ts, ok := normTimestamp(rec.Timestamp)
	if !ok {
		ts = p.lastTS
	}
	err := p.record(&rec, line, n, ts)
	if ok && err == nil {
		p.lastTS = ts
	}
	return err
}

// record reads a line's record, the time of its rows ts.
func (p *parser) record(rec *rolloutLine, line []byte, n int, ts string) error {
	switch rec.Type {
	case "session_meta":
		err := p.sessionMeta(rec.Payload)
		p.titleOnce(n, ts)
		return err
	case "response_item":
		return p.item(rec.Payload, n, ts, inherited(rec.Metadata))
	case "event_msg":
		return p.event(rec.Payload, n, ts)
	case "compacted":
		// The summary Codex makes of a conversation it compacts.
		p.drop(filter.Noise)
		return nil
	case "":
		switch {
		case rec.RecordType != "":
			return nil // an old rollout's state line
		case rec.ID != nil && rec.Payload == nil:
			return p.sessionMeta(line) // an old rollout's first line
		}
		return errNoType
	}
	if rec.Payload == nil && isItemType(rec.Type) {
		return p.item(line, n, ts, false) // an old rollout's response item, unwrapped
	}
	return nil // a record that makes no row, or one this reader does not know
}

// isItemType reports whether an old rollout's line of type t is a
// response item that makes a row.
func isItemType(t string) bool {
	switch t {
	case "message", "function_call", "custom_tool_call", "local_shell_call", "web_search_call", "tool_search_call":
		return true
	}
	return false
}

// inherited reports whether a response item's metadata says it is a copy
// of the parent thread's context, which Codex gives a subagent it spawns.
func inherited(metadata json.RawMessage) bool {
	var m struct {
		InheritedUserMessage bool `json:"inherited_user_message"`
	}
	return isObject(metadata) && json.Unmarshal(metadata, &m) == nil && m.InheritedUserMessage
}

// normTimestamp reads a timestamp as UTC in the rows' form,
// 2006-01-02T15:04:05.000Z (which Codex writes).
func normTimestamp(raw json.RawMessage) (string, bool) {
	if len(raw) == 0 || raw[0] != '"' {
		return "", false // null, or no string
	}
	s, ok := jsonscan.DecodeString(raw)
	if !ok || s == "" {
		return "", false
	}
	if _, ok := record.CanonicalTimestamp([]byte(s)); ok {
		return s, true
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return "", false
	}
	return t.UTC().Format("2006-01-02T15:04:05.000Z"), true
}

// sessionMeta reads a session_meta payload. The first one of the file's
// own thread says whether it is a subagent's; its working directory is
// the project; each one of its says how the thread ran from then on (a
// thread run by `codex exec` and resumed in the terminal). One of
// another thread is a fork's copy of its parent's, and left alone.
func (p *parser) sessionMeta(payload json.RawMessage) error {
	if !isObject(payload) {
		return errNoObject
	}
	var m sessionMeta
	if err := json.Unmarshal(payload, &m); err != nil {
		return fmt.Errorf("session_meta: %w", err)
	}
	if p.owner == "" {
		p.owner = p.fileID
		if p.owner == "" {
			p.owner = m.ID
		}
	}
	if m.ID != "" && !strings.EqualFold(m.ID, p.owner) {
		p.origin = m.ID
		return nil
	}
	p.origin = ""
	if p.created == "" {
		p.created = jsonString(m.Timestamp)
	}
	if !p.metaSeen {
		p.metaSeen = true
		if parent := m.parent(); parent != "" && !strings.EqualFold(parent, p.owner) {
			p.parent = parent
		}
	}
	if p.cwd == "" && m.Cwd != "" {
		p.cwd = m.Cwd
		if p.b != nil {
			p.project = p.b.Redact(m.Cwd)
		}
	}
	if e := m.entrypoint(); e != "" {
		p.entry = e
	}
	if m.ownRun() != "" {
		p.ownRun = true
	}
	return nil
}

// responseItem is the part of a response item the reader uses
// (codex-rs/protocol/src/models.rs, ResponseItem).
type responseItem struct {
	Type      string          `json:"type"`
	ID        json.RawMessage `json:"id"`
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	Name      string          `json:"name"`
	Namespace string          `json:"namespace"`
	Arguments json.RawMessage `json:"arguments"`
	Input     json.RawMessage `json:"input"`
	CallID    json.RawMessage `json:"call_id"`
	Action    json.RawMessage `json:"action"`
}

// item reads a response item: a message or a tool call makes a row.
func (p *parser) item(payload json.RawMessage, n int, ts string, inherited bool) error {
	if !isObject(payload) {
		return errNoObject
	}
	var it responseItem
	if !decodeItem(payload, &it) {
		if err := json.Unmarshal(payload, &it); err != nil {
			return fmt.Errorf("response_item: %w", err)
		}
	}
	switch it.Type {
	case "message":
		return p.message(&it, n, ts, inherited)
	case "function_call", "custom_tool_call", "local_shell_call", "web_search_call", "tool_search_call":
		p.toolItem(&it, payload, n, ts, inherited)
	case "agent_message":
		// A message one agent thread sends another: the harness's
		// delivery, like a subagent's result.
		p.drop(filter.Noise)
	}
	return nil
}

// message reads a message response item: a prompt, a reply, or what the
// harness injected (developer and system messages, and the user messages
// of injectedMarkers).
func (p *parser) message(it *responseItem, n int, ts string, inherited bool) error {
	texts, err := contentTexts(it.Content)
	if err != nil {
		return err
	}
	if it.Role == "user" || it.Role == "assistant" {
		p.itemMessages = true
	}
	if it.Role == "user" && p.cwd == "" && p.origin == "" {
		p.envCwd(texts)
	}
	var key string
	if id := jsonString(it.ID); id != "" {
		key = idKey(id)
	} else {
		key = messageKey(p.thread(), it.Role, strings.Join(texts, "\n"))
	}
	m := p.meta(n, ts, classItem, key)
	agentMessage, isAgentMessage := interAgentContent(texts)
	switch {
	case inherited || p.origin != "":
		p.drop(filter.Copy)
	case isAgentMessage && strings.TrimSpace(agentMessage) == "":
		p.drop(filter.Noise) // an encrypted one: nothing to read
	case isAgentMessage:
		p.text(m, it.Role, agentMessage)
	case it.Role == "user":
		p.userText(m, texts)
	case it.Role == "assistant":
		p.text(m, "assistant", strings.Join(texts, "\n"))
	case it.Role == "developer" || it.Role == "system":
		p.drop(filter.Noise)
	}
	return nil
}

// envCwd takes the thread's working directory from an
// <environment_context> message, for a rollout whose first line names
// none (those of August 2025: {"id", "timestamp", "instructions",
// "git"}).
func (p *parser) envCwd(texts []string) {
	for _, t := range texts {
		t = strings.TrimLeft(t, " \t\r\n")
		if !strings.HasPrefix(t, "<environment_context>") {
			continue
		}
		cwd := envContextCwd(t)
		if cwd == "" {
			continue
		}
		p.cwd = cwd
		if p.b != nil {
			p.project = p.b.Redact(cwd)
		}
		return
	}
}

// envContextCwd is the working directory an <environment_context> text
// names ("" none): its <cwd> element, or the "Current working
// directory: …" line the versions of August 2025 wrote in its place
// (beside "Approval policy: …" and "Sandbox mode: …").
func envContextCwd(t string) string {
	cwd, found := "", false
	if _, rest, ok := strings.Cut(t, "<cwd>"); ok {
		cwd, _, found = strings.Cut(rest, "</cwd>")
	} else {
		for line := range strings.Lines(t) {
			if v, ok := strings.CutPrefix(strings.TrimSpace(line), "Current working directory:"); ok {
				cwd, found = v, true
				break
			}
		}
	}
	if cwd = strings.TrimSpace(cwd); !found || cwd == "" || strings.ContainsAny(cwd, "<>\n") {
		return ""
	}
	return cwd
}

// contentPart is one part of a message's content.
type contentPart struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// contentTexts are the text parts of a message's content (input_text,
// output_text): images are no text.
func contentTexts(content json.RawMessage) ([]string, error) {
	content = bytes.TrimSpace(content)
	if len(content) == 0 || string(content) == "null" {
		return nil, nil
	}
	if content[0] == '"' {
		if s, ok := jsonscan.DecodeString(content); ok {
			return []string{s}, nil
		}
		var s string
		if err := json.Unmarshal(content, &s); err != nil {
			return nil, err
		}
		return []string{s}, nil
	}
	var buf [4]contentPart
	parts, ok := decodeParts(content, buf[:0])
	if !ok {
		parts = nil
		if err := json.Unmarshal(content, &parts); err != nil {
			return nil, fmt.Errorf("message content: %w", err)
		}
	}
	var texts []string
	for _, part := range parts {
		switch part.Type {
		case "input_text", "output_text", "text":
			texts = append(texts, part.Text)
		}
	}
	return texts, nil
}

// eventMsg is the part of an event_msg payload the reader uses.
type eventMsg struct {
	Type    string          `json:"type"`
	Message json.RawMessage `json:"message"`
	// Kind is how some versions marked a user_message the harness made
	// ("plain" for a typed one).
	Kind json.RawMessage `json:"kind"`
}

// event reads an event: user_message and agent_message repeat the
// messages' response items, and make rows only in a file that has no
// message items (see itemMessages). Other events make none.
func (p *parser) event(payload json.RawMessage, n int, ts string) error {
	if !isObject(payload) {
		return errNoObject
	}
	var ev eventMsg
	if !decodeEvent(payload, &ev) {
		if err := json.Unmarshal(payload, &ev); err != nil {
			return fmt.Errorf("event_msg: %w", err)
		}
	}
	role := "user"
	switch ev.Type {
	case "task_started", "turn_started":
		p.turnStarted(payload)
		return nil
	case "user_message":
	case "agent_message":
		role = "assistant"
	default:
		return nil
	}
	var text string
	if len(ev.Message) > 0 {
		var ok bool
		if text, ok = jsonscan.DecodeString(ev.Message); !ok && string(ev.Message) != "null" {
			if err := json.Unmarshal(ev.Message, &text); err != nil {
				return fmt.Errorf("event_msg %s: %w", ev.Type, err)
			}
		}
	}
	m := p.meta(n, ts, classEvent, messageKey(p.thread(), role, text))
	switch kind := jsonString(ev.Kind); {
	case p.itemMessages || p.origin != "":
		p.drop(filter.Copy)
	case role == "assistant":
		p.text(m, role, text)
	case kind != "" && kind != "plain":
		p.drop(filter.Noise)
	default:
		p.userText(m, []string{text})
	}
	return nil
}

// toolItem reads a tool call response item into a tool row.
func (p *parser) toolItem(it *responseItem, payload json.RawMessage, n int, ts string, inherited bool) {
	var key string
	if id := jsonString(it.ID); id != "" {
		key = idKey(id)
	} else if call := jsonString(it.CallID); call != "" {
		key = callKey(it.Type, call)
	} else {
		key = rawKey("response_item", payload)
	}
	m := p.meta(n, ts, classItem, key)
	if inherited || p.origin != "" {
		p.drop(filter.Copy)
		return
	}
	if p.b == nil {
		return
	}
	name := it.Name
	if name == "" {
		name = it.Namespace
	}
	var input []byte
	switch it.Type {
	case "function_call":
		name, input = toolCall(name, it.Arguments)
	case "custom_tool_call":
		name, input = customToolCall(name, jsonString(it.Input))
	case "local_shell_call":
		var action struct {
			Command []string `json:"command"`
		}
		_ = json.Unmarshal(it.Action, &action) // an action of another shape names no command
		name, input = "local_shell", shellCall(action.Command)
	case "web_search_call":
		var action webSearchAction
		_ = json.Unmarshal(it.Action, &action)
		name, input = "web_search", action.input()
	case "tool_search_call":
		name, input = toolCall("tool_search", it.Arguments)
	}
	switch {
	case name != "" && p.ownRun:
		p.drop(filter.Noise)
	case name != "":
		p.b.Tool(m, name, input)
	}
}

// userText keeps a prompt: the text parts that are not the harness's
// (injectedMarkers, reviewPrompts; the image tags around an attached
// image), each cut to the request when an editor put its context before
// it, or to its arguments when it is a spec-kit prompt's expansion. A
// message of the harness's only is noise.
func (p *parser) userText(m transcript.Meta, texts []string) {
	var kept []string
	injected := false
	for _, t := range texts {
		switch {
		case isInjected(t) || isReviewRequest(t):
			injected = true
		case isImageTag(t):
		default:
			if args, ok := specKitArguments(t); ok {
				if args == "" {
					injected = true
				} else {
					kept = append(kept, args)
				}
				continue
			}
			kept = append(kept, requestOf(t))
		}
	}
	text := strings.Join(kept, "\n")
	if strings.TrimSpace(text) == "" {
		if injected {
			p.drop(filter.Noise)
		}
		return
	}
	p.text(m, "user", text)
}

// text keeps a prompt or a reply through the Builder's hygiene.
func (p *parser) text(m transcript.Meta, role, text string) {
	switch {
	case p.b == nil || strings.TrimSpace(text) == "":
	case p.ownRun:
		p.b.Drop(filter.Noise)
	default:
		p.b.Text(m, role, text)
	}
}

func (p *parser) drop(r filter.Reason) {
	if p.b != nil {
		p.b.Drop(r)
	}
}

// meta is a row's Meta, its UUID the n-th occurrence of key in class
// (identity.go). Every message and tool call counts, kept or not.
func (p *parser) meta(n int, ts string, class byte, key string) transcript.Meta {
	k := p.seen.next(class, key)
	if p.keyed != nil {
		p.keyed(n, uuidOf(key, k))
	}
	if p.b == nil {
		return transcript.Meta{}
	}
	m := transcript.Meta{
		Session:    p.session(),
		Project:    p.project,
		Timestamp:  ts,
		Line:       n,
		Entrypoint: p.entry,
		UUID:       uuidOf(key, k),
	}
	if p.parent != "" {
		m.Subagent = p.ownID()
	}
	return m
}

// jsonString is raw decoded when it is a JSON string, else "".
func jsonString(raw json.RawMessage) string {
	if len(raw) == 0 || raw[0] != '"' {
		return ""
	}
	s, _ := jsonscan.DecodeString(raw)
	return s
}

func isObject(raw json.RawMessage) bool {
	raw = bytes.TrimLeft(raw, " \t\r\n")
	return len(raw) > 0 && raw[0] == '{'
}
