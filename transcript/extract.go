package transcript

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/recall-dev/recall/filter"
	"github.com/recall-dev/recall/record"
	"github.com/recall-dev/recall/transcript/jsonscan"
)

// record is the part of a transcript line recall reads. Everything else is
// skipped unread, so new fields in newer Claude Code versions cost nothing.
// The string members are kept raw and decoded only when the line makes a
// row (or its file still needs a session or project): most lines make
// none (tool results, progress and queue records), and decoding five
// strings of every line was 13% of what a full index allocated.
type jsonRecord struct {
	Type              string // decoded: decodeType
	uuid              lazyString
	sessionID         lazyString
	timestamp         []byte // raw JSON
	cwd               lazyString
	agentID           lazyString
	entrypoint        []byte // raw JSON: decodeEntrypoint
	IsSidechain       bool
	IsMeta            bool
	IsCompactSummary  bool
	IsAPIErrorMessage bool
	Message           []byte // raw JSON
	// title is the title a custom-title, ai-title or summary record
	// gives its session (raw JSON: customTitle, aiTitle or summary).
	title []byte
	// leafUUID is a summary record's leafUuid: the last message of the
	// conversation it sums up, most often another session's.
	leafUUID lazyString
	// forkedFrom is the raw forkedFrom object a fork's copied records
	// carry (2.1.123): {"sessionId": parent, "messageUuid": …}.
	forkedFrom []byte
	// attachment is an attachment record's object (raw JSON).
	attachment []byte
	// operation and content are a queue-operation record's: "enqueue"
	// and the prompt queued (raw JSON).
	operation lazyString
	content   []byte
}

// lazyString is a raw JSON string value decoded on first use, as
// jsonscan.DecodeString decodes it ("" for a value that is not a
// string). raw points into the line being read: get it before the next
// line.
type lazyString struct {
	raw  []byte
	s    string
	done bool
}

func (l *lazyString) get() string {
	if !l.done {
		l.s, _ = jsonscan.DecodeString(l.raw)
		l.done = true
	}
	return l.s
}

// decodeType is jsonscan.DecodeString for the value of a "type" member:
// the values Claude Code writes come back as constants instead of a new
// string per line.
func decodeType(raw []byte) string {
	if len(raw) >= 2 && raw[0] == '"' {
		switch string(raw[1 : len(raw)-1]) {
		case "user":
			return "user"
		case "assistant":
			return "assistant"
		case "text":
			return "text"
		case "tool_use":
			return "tool_use"
		case "tool_result":
			return "tool_result"
		case "thinking":
			return "thinking"
		case "progress":
			return "progress"
		case "system":
			return "system"
		case "queue-operation":
			return "queue-operation"
		case "attachment":
			return "attachment"
		}
	}
	s, _ := jsonscan.DecodeString(raw)
	return s
}

// decodeEntrypoint is jsonscan.DecodeString for the value of an
// "entrypoint" member: the values Claude Code writes come back as
// constants, so the rows of a transcript share one string instead of a
// new one each.
func decodeEntrypoint(raw []byte) string {
	if len(raw) >= 2 && raw[0] == '"' {
		switch string(raw[1 : len(raw)-1]) {
		case "cli":
			return "cli"
		case "claude-vscode":
			return "claude-vscode"
		case "sdk-cli":
			return "sdk-cli"
		case "sdk-ts":
			return "sdk-ts"
		case "sdk-py":
			return "sdk-py"
		case "claude-desktop":
			return "claude-desktop"
		}
	}
	s, _ := jsonscan.DecodeString(raw)
	return s
}

// isJSONString reports whether jsonscan.DecodeString(raw) is want,
// without a copy when raw has no escape.
func isJSONString(raw []byte, want string) bool {
	if len(raw) < 2 || raw[0] != '"' {
		return want == ""
	}
	if inner := raw[1 : len(raw)-1]; bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return string(inner) == want // what DecodeString returns, uncopied
	}
	s, _ := jsonscan.DecodeString(raw)
	return s == want
}

// parseRecord reads the top-level members recall needs. m, if not nil,
// remembers where the values inside the message end, for the walks into
// it that follow.
//
// rest is what follows the object on the line.
func parseRecord(line []byte, m *skipMemo) (r jsonRecord, rest []byte, err error) {
	if m != nil {
		m.reset()
		m.record = true
		defer func() { m.record = false }()
	}
	w := objectWalk{b: line}
	for {
		key, val, ok := w.next(m)
		if !ok {
			break
		}
		switch string(key) {
		case "type":
			r.Type = decodeType(val)
		case "uuid":
			r.uuid = lazyString{raw: val}
		case "sessionId":
			r.sessionID = lazyString{raw: val}
		case "timestamp":
			r.timestamp = val
		case "cwd":
			r.cwd = lazyString{raw: val}
		case "agentId":
			r.agentID = lazyString{raw: val}
		case "entrypoint":
			r.entrypoint = val
		case "isSidechain":
			r.IsSidechain = decodeBool(val)
		case "isMeta":
			r.IsMeta = decodeBool(val)
		case "isCompactSummary":
			r.IsCompactSummary = decodeBool(val)
		case "isApiErrorMessage":
			r.IsAPIErrorMessage = decodeBool(val)
		case "message":
			r.Message = val
		case "customTitle", "aiTitle", "summary":
			r.title = val
		case "leafUuid":
			r.leafUUID = lazyString{raw: val}
		case "forkedFrom":
			r.forkedFrom = val
		case "attachment":
			r.attachment = val
		case "operation":
			r.operation = lazyString{raw: val}
		case "content":
			r.content = val
		}
	}
	return r, w.rest(), w.err
}

type message struct {
	Model   []byte // raw JSON: only compared (isJSONString)
	Content []byte // raw JSON: a string or an array of blocks
}

func parseMessage(raw []byte, memo *skipMemo) (message, bool) {
	var m message
	err := eachMember(raw, memo, func(key, val []byte) bool {
		switch string(key) {
		case "model":
			m.Model = val
		case "content":
			m.Content = val
		}
		return true
	})
	return m, err == nil
}

// contentBlock is one block of a message's content. Its text and name are
// decoded only by the blocks that use them (text, tool_use).
type contentBlock struct {
	Type    string
	Text    lazyString
	Name    lazyString
	Input   []byte // raw JSON
	Content []byte // raw JSON: a tool result's
}

// eachBlock calls fn for each content block of an array content, read
// into b: the caller's, reused for every block (fn may not keep it), as a
// block of its own escaped to the heap through fn.
func eachBlock(content []byte, memo *skipMemo, b *contentBlock, fn func(i int, b *contentBlock) bool) bool {
	i := 0
	err := eachElement(content, memo, func(val []byte) bool {
		*b = contentBlock{}
		if eachMember(val, memo, func(key, v []byte) bool {
			switch string(key) {
			case "type":
				b.Type = decodeType(v)
			case "text":
				b.Text = lazyString{raw: v}
			case "name":
				b.Name = lazyString{raw: v}
			case "input":
				b.Input = v
			case "content":
				b.Content = v
			}
			return true
		}) != nil {
			return true // a block that is not an object holds no text
		}
		ok := fn(i, b)
		i++
		return ok
	})
	return err == nil
}

// Extracted is one candidate row of a line before the index-wide checks
// (copies) run.
type Extracted struct {
	record.Row
	// Key is the row's identity across files (record.MessageKey of its
	// uuid, block and text), set once its text is final (keyRows).
	Key   uint64
	Block int // the content block of its line the row came from
	// Leaf is a summary title's leafUuid: the message that ends the
	// conversation the title names, whose session the title is given to.
	// LeafHere: that message is in the lines this read saw.
	Leaf     string
	LeafHere bool
	// From is the session a main transcript's record says its message
	// was copied from: its forkedFrom session, or its own sessionId when
	// that is not the transcript's (an old-style resume copied the
	// history with its ids). "" for a message of the transcript's own.
	From string
}

// lineExtractor turns transcript lines into rows and counts what it drops.
// One lives per file being read; it carries the file's running context
// (session, project, last timestamp).
type lineExtractor struct {
	kind    string
	source  string
	session string
	agent   string
	project string
	// harness is the coding agent a Builder makes rows for ("" for
	// Claude Code's reader, whose rows name none).
	harness string
	// lastTS is the last timestamp that read, as a string once a row
	// asked for it (timestamp); tsBuf holds it as the lines pass, most of
	// which make no row, and tsNew says lastTS is behind it.
	lastTS string
	tsBuf  []byte
	tsNew  bool
	gen    uint32
	counts [16]int64 // by filter.Reason
	// entrypoint is the last entrypoint a record of this read named: a
	// title record names none, and takes its run's.
	entrypoint string
	// titlesOnly makes rows of title records alone (ReadTitles).
	titlesOnly bool
	// leaves maps the leaf uuids of summary rows not yet found in this
	// read to those rows (indices into rows).
	leaves map[string][]int
	// enqueued is the prompt the last queue-operation of this read
	// queued, until a user record comes (metaQueuedPrompt).
	enqueued string
	// lastTitle is the last title row this read made, so that a title
	// written again unchanged (every resume may) makes no second row.
	lastTitle string
	rows      []Extracted
	// keepSecrets keeps secrets in the rows (recall index --no-redact);
	// by default they are redacted as rows are built (redact.go).
	keepSecrets bool
	// splitTail is the end of the last message's text, unredacted, and
	// splitRow its row: a secret split across two messages (redact.go).
	splitTail string
	splitRow  int
	// memo holds where the values of the line's message end (skipMemo);
	// noMemo scans them again instead (the differential fuzz test).
	memo   skipMemo
	noMemo bool
	block  contentBlock // eachBlock's
}

func (x *lineExtractor) memoOrNil() *skipMemo {
	if x.noMemo {
		return nil
	}
	return &x.memo
}

// add processes one complete line (without '\n'). It returns an error only
// for a line that is not a JSON object; the caller counts and reports it.
// Only user and assistant records can hold indexable text, and title
// records name their session; the walk that finds the type skips every
// other value without decoding it. A line may hold more than one record:
// copies of transcripts made by other tools have been seen with a record
// glued to the end of the one before, and each is read.
func (x *lineExtractor) add(line []byte, lineNo int) error {
	if len(line) == 0 || line[0] != '{' && len(bytes.TrimSpace(line)) == 0 {
		return nil // blank lines are harmless
	}
	for first := true; ; first = false {
		rec, rest, err := parseRecord(line, x.memoOrNil())
		if err != nil {
			if first {
				return err
			}
			return nil // a glued tail that does not read: the record before it stands
		}
		x.addRecord(&rec, lineNo)
		line = bytes.TrimLeft(rest, " \t\r")
		if len(line) == 0 || line[0] != '{' {
			return nil
		}
	}
}

// addRecord makes the rows of one record.
func (x *lineExtractor) addRecord(rec *jsonRecord, lineNo int) {
	if isTitleRecord(rec.Type) {
		x.addTitle(rec, lineNo)
		return
	}
	var queued string
	switch rec.Type {
	case "user", "assistant":
	case "queue-operation":
		x.noteEnqueued(rec)
		return
	case "attachment":
		var ok bool
		if queued, ok = queuedPrompt(rec.attachment, &x.block); !ok {
			return
		}
	default:
		return
	}
	x.noteTimestamp(rec.timestamp)
	if rec.entrypoint != nil {
		x.entrypoint = decodeEntrypoint(rec.entrypoint)
	}
	if x.project == "" {
		// A working directory can hold a token (a folder named after a
		// key, a clone URL's credentials): it is stored redacted like
		// text, in every row and in the manifest.
		x.project = x.redactHead(rec.cwd.get(), maxPathText)
	}
	if x.session == "" {
		x.session = rec.sessionID.get()
	}
	if len(x.leaves) > 0 {
		x.foundLeaf(rec.uuid.get())
	}
	if x.titlesOnly {
		return
	}
	if x.kind == record.KindSubagent && isHarnessAgent(x.agent) {
		x.counts[filter.Noise]++
		return
	}
	switch rec.Type {
	case "user":
		x.addUser(rec, lineNo)
	case "assistant":
		x.addAssistant(rec, lineNo)
	case "attachment":
		x.addText(rec, lineNo, 0, "user", queued)
	}
}

// queuedPrompt is the prompt of a queued_command attachment that holds
// one the person typed while Claude worked ("commandMode": "prompt"):
// Claude Code hands it to the model inside the turn, as this attachment,
// and writes it nowhere else (real VS Code sessions of 2.1.129: four
// prompts, none in a user record). ok is false for any other
// attachment (a task's notification, a hook's output, a file). The
// walk stops at the attachment's type when it is another's.
func queuedPrompt(raw []byte, block *contentBlock) (string, bool) {
	var typ, mode, prompt []byte
	eachMember(raw, nil, func(key, val []byte) bool {
		switch string(key) {
		case "type":
			typ = val
			return isJSONString(val, "queued_command")
		case "commandMode":
			mode = val
		case "prompt":
			prompt = val
		}
		return true
	})
	if !isJSONString(typ, "queued_command") || !isJSONString(mode, "prompt") || prompt == nil {
		return "", false
	}
	return userText(prompt, nil, block)
}

// isHarnessAgent reports whether a subagent's id is one Claude Code runs
// for itself, whose prompt is its own and whose reply no person asked
// for: the compaction agent (since 2.1 a /compact runs as
// subagents/agent-acompact-<id>.jsonl: "Your task is to create a
// detailed summary of the conversation so far…", its reply the summary,
// a recap as the isCompactSummary record that carries it into the
// session is, and left out as it is), and the prompt suggestion agent
// (agent-aprompt_suggestion-<id>.jsonl: "[SUGGESTION MODE: Suggest what
// the user might naturally type next…]", its reply a guess at the
// person's next prompt). A side question's agent (aside_question-) is
// kept: its prompt is the question the person asked.
func isHarnessAgent(agent string) bool {
	return strings.HasPrefix(agent, "acompact-") || strings.HasPrefix(agent, "aprompt_suggestion-")
}

// noteTimestamp keeps a line's timestamp if it reads. A timestamp that
// does not read is not stored, nor inherited by the lines after it: the
// row keeps the last one that did.
func (x *lineExtractor) noteTimestamp(raw []byte) {
	ts := stringBytes(raw)
	if _, ok := record.ParseTimestampBytes(ts); ok {
		x.tsBuf = append(x.tsBuf[:0], ts...)
		x.tsNew = true
	}
}

// timestamp is the last timestamp that read, for a row.
func (x *lineExtractor) timestamp() string {
	if x.tsNew {
		x.lastTS = string(x.tsBuf)
		x.tsNew = false
	}
	return x.lastTS
}

// stringBytes is jsonscan.DecodeString(raw) as bytes: a view of raw when
// it has no escape, nil for a value that is not a string.
func stringBytes(raw []byte) []byte {
	if len(raw) < 2 || raw[0] != '"' {
		return nil
	}
	if inner := raw[1 : len(raw)-1]; bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return inner
	}
	s, _ := jsonscan.DecodeString(raw)
	return []byte(s)
}

// Title record types, each naming its session: `/rename` writes
// custom-title, Claude Code names sessions with ai-title (what the resume
// picker shows), and versions before 2.1 wrote summary records. A
// session's title is the latest of the strongest kind (record.TitleRank).
const (
	recordCustomTitle = "custom-title"
	recordAITitle     = "ai-title"
	recordSummary     = "summary"
)

func isTitleRecord(typ string) bool {
	return typ == recordCustomTitle || typ == recordAITitle || typ == recordSummary
}

// maxTitleText caps a title row: a title is a line, and a longer value is
// not one.
const maxTitleText = 300

// addTitle keeps a title record as a row of type title, its kind in the
// role column: searchable like a message, and what results, `sessions`
// and `show` name the session by. Subagent transcripts name no session.
// A title equal to the last one this read kept is not kept again.
//
// A summary record sums up the conversation that ends at its leafUuid,
// which is most often another session's (older versions wrote the
// summaries of earlier conversations at the top of a new file): its row
// carries the leaf's uuid, and the committer gives it to the session
// that holds the leaf (Extracted.Leaf), or drops it.
func (x *lineExtractor) addTitle(rec *jsonRecord, lineNo int) {
	if x.kind != record.KindMain {
		return
	}
	x.noteTimestamp(rec.timestamp)
	if x.session == "" {
		x.session = rec.sessionID.get()
	}
	title, _ := jsonscan.DecodeString(rec.title)
	title = strings.Join(strings.Fields(title), " ")
	if title == "" || title == x.lastTitle {
		return
	}
	x.lastTitle = title
	// Redacted before the cap, so that the cap cannot cut a secret into
	// a part no rule recognises (as toolRow does).
	x.addRow(rec, lineNo, 0, record.TypeTitle, truncateRunes(x.redactHead(title, maxTitleText*utf8.UTFMax), maxTitleText))
	r := &x.rows[len(x.rows)-1]
	if rec.Type == recordSummary {
		x.awaitLeaf(len(x.rows)-1, rec.leafUUID.get())
	} else if r.UUID == "" {
		r.UUID = titleUUID(r.Session, rec.Type, r.Text)
	}
}

// titleUUID identifies a session's title of a kind by its text: Claude
// Code writes its title records again at every turn (2.1.12x: the same
// ai-title and custom-title, fifty times in a long session), each read
// meets them anew, and a title the index holds already is then known by
// its key and kept once.
func titleUUID(session, kind, title string) string {
	sum := sha256.Sum256([]byte("title\x00" + session + "\x00" + kind + "\x00" + title))
	return hex.EncodeToString(sum[:16])
}

// awaitLeaf marks summary row i as naming the conversation that ends at
// leaf: found if a row of this read so far is that message, else looked
// for in the lines that follow (older versions wrote summaries at the
// top of the file), else left to the committer (Extracted.Leaf).
func (x *lineExtractor) awaitLeaf(i int, leaf string) {
	r := &x.rows[i]
	r.UUID, r.Leaf = "", leaf
	for j := range x.rows[:i] {
		if x.rows[j].UUID == leaf {
			r.LeafHere = true
			return
		}
	}
	if x.leaves == nil {
		x.leaves = map[string][]int{}
	}
	x.leaves[leaf] = append(x.leaves[leaf], i)
}

// foundLeaf settles the summaries waiting for the message uuid.
func (x *lineExtractor) foundLeaf(uuid string) {
	for _, i := range x.leaves[uuid] {
		x.rows[i].LeafHere = true
	}
	delete(x.leaves, uuid)
}

func (x *lineExtractor) addUser(rec *jsonRecord, lineNo int) {
	msg, ok := parseMessage(rec.Message, x.memoOrNil())
	if !ok {
		return
	}
	text, ok := userText(msg.Content, x.memoOrNil(), &x.block)
	if !ok {
		return // tool results, images: not human text
	}
	queued := x.enqueued
	x.enqueued = ""
	if rec.IsCompactSummary || rec.IsMeta && (queued == "" || strings.TrimSpace(text) != queued) {
		x.counts[filter.Noise]++
		return
	}
	x.addText(rec, lineNo, 0, "user", text)
}

// maxEnqueued bounds the queued prompt kept to compare: a longer one is
// not kept (its meta record stays noise).
const maxEnqueued = 64 << 10

// noteEnqueued keeps the prompt an enqueue queues. A scheduled task's
// run (VS Code, 2.1.123) queues the prompt the person wrote for it and
// then writes it as a user record marked isMeta, which is otherwise
// Claude Code's own text: the same words just queued are the person's.
func (x *lineExtractor) noteEnqueued(rec *jsonRecord) {
	if rec.operation.get() != "enqueue" {
		return // its dequeue comes between
	}
	x.enqueued = ""
	if len(rec.content) > maxEnqueued || len(rec.content) == 0 || rec.content[0] != '"' {
		return
	}
	text, _ := jsonscan.DecodeString(rec.content)
	x.enqueued = strings.TrimSpace(text)
}

// userText returns a prompt's text: the string content, or its text blocks
// joined. ok is false when the record holds no text (tool results), but
// for what the person typed when refusing a tool call, which Claude Code
// hands the model inside the call's result (rejectionFeedback).
func userText(content []byte, memo *skipMemo, block *contentBlock) (string, bool) {
	content = bytes.TrimSpace(content)
	if len(content) == 0 {
		return "", false
	}
	if content[0] == '"' {
		return jsonscan.DecodeString(content)
	}
	var parts, feedback []string
	toolResult := false
	ok := eachBlock(content, memo, block, func(_ int, b *contentBlock) bool {
		switch b.Type {
		case "tool_result":
			if fb, ok := rejectionFeedback(b.Content); ok && !slices.Contains(feedback, fb) {
				feedback = append(feedback, fb)
			}
			toolResult = true
		case "text":
			parts = append(parts, b.Text.get())
		}
		return true
	})
	switch {
	case !ok:
		return "", false
	case len(feedback) > 0:
		return strings.Join(feedback, "\n"), true
	case toolResult:
		return "", false
	}
	return strings.Join(parts, "\n"), len(parts) > 0
}

// rejectPrefix starts the result Claude Code gives a tool call the person
// refused at its prompt, and feedbackMarker what it puts before the words
// they typed to say what to do instead (utils/messages.ts,
// REJECT_MESSAGE_WITH_REASON_PREFIX; "…, the user said:" then a newline,
// or a space in some versions).
const (
	rejectPrefix   = "The user doesn't want to proceed with this tool use."
	feedbackMarker = "To tell you how to proceed, the user said:"
	// rejectWindow is where a text block's text starts, at the latest,
	// in a result of blocks: [{"type":"text","text":"…, members in any
	// order and spaced.
	rejectWindow = 128 + len(rejectPrefix)
)

// rejectionFeedback is what the person typed when refusing a tool call,
// from the call's result content (raw JSON: a string, or text blocks);
// false for any other result. Results are most of a transcript's bytes:
// only one that starts with rejectPrefix (a string's, or its first
// block's, within rejectWindow bytes) is decoded.
func rejectionFeedback(content []byte) (string, bool) {
	content = bytes.TrimSpace(content)
	var text string
	switch {
	case bytes.HasPrefix(content, []byte(`"`+rejectPrefix)):
		text, _ = jsonscan.DecodeString(content)
	case len(content) > 0 && content[0] == '[' && bytes.Contains(content[:min(len(content), rejectWindow)], []byte(rejectPrefix)):
		var blocks []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if json.Unmarshal(content, &blocks) != nil || len(blocks) == 0 || blocks[0].Type != "text" {
			return "", false
		}
		text = blocks[0].Text
	default:
		return "", false
	}
	_, fb, ok := strings.Cut(text, feedbackMarker)
	if !ok || !strings.HasPrefix(text, rejectPrefix) {
		return "", false
	}
	fb = strings.TrimSpace(withoutMemoryNote(fb))
	return fb, fb != "" && !strings.HasPrefix(fb, clarifyPrefix)
}

// memoryNote starts what Claude Code (2.1.14x) puts after the person's
// words in a refused call's result: "Note: The user's next message may
// contain a correction or preference. Pay close attention — if they
// explain what went wrong …, consider saving that to memory for future
// sessions." Its instructions to the model, not anything typed.
const memoryNote = "\nNote: The user's next message may contain a correction or preference."

// withoutMemoryNote is fb without a memoryNote that ends it.
func withoutMemoryNote(fb string) string {
	if i := strings.LastIndex(fb, memoryNote); i >= 0 {
		return fb[:i]
	}
	return fb
}

// clarifyPrefix starts the text Claude Code puts where a person's words
// go when they chose to clarify the questions Claude asked
// (AskUserQuestion): its instructions to the model and the questions,
// not anything typed (a real session of 2.1: "The user wants to clarify
// these questions.\n    This means they may have additional
// information…").
const clarifyPrefix = "The user wants to clarify these questions."

func (x *lineExtractor) addAssistant(rec *jsonRecord, lineNo int) {
	msg, ok := parseMessage(rec.Message, x.memoOrNil())
	if !ok {
		return
	}
	synthetic := isJSONString(msg.Model, "<synthetic>") || rec.IsAPIErrorMessage
	eachBlock(msg.Content, x.memoOrNil(), &x.block, func(i int, b *contentBlock) bool {
		switch b.Type {
		case "text":
			if synthetic {
				x.counts[filter.Noise]++
				return true
			}
			x.addText(rec, lineNo, i, "assistant", b.Text.get())
		case "tool_use":
			if s := x.toolRow(b.Name.get(), b.Input); s != "" {
				x.addRow(rec, lineNo, i, "tool", s)
			}
		}
		return true
	})
}

// addText cleans a prompt or reply and keeps it if it is worth indexing.
func (x *lineExtractor) addText(rec *jsonRecord, lineNo, block int, role, text string) {
	clean, reason := filter.Clean(text)
	if reason != filter.Kept {
		x.counts[reason]++
		return
	}
	x.addRow(rec, lineNo, block, role, x.redactText(clean))
	x.splitRow = len(x.rows) - 1
}

func (x *lineExtractor) addRow(rec *jsonRecord, lineNo, block int, role, text string) {
	typ := role
	if x.kind != record.KindMain || (rec.IsSidechain && rec.agentID.get() != "") {
		typ = record.TypeAgent
	}
	if role == record.TypeTitle {
		role = rec.Type // the title's kind
	}
	agent := x.agent
	if agent == "" && typ == record.TypeAgent {
		agent = rec.agentID.get()
	}
	x.counts[filter.Kept]++
	x.rows = append(x.rows, Extracted{
		Row: record.Row{
			Session:    x.session,
			Timestamp:  x.timestamp(),
			Type:       typ,
			Text:       text,
			Project:    x.project,
			Source:     x.source,
			Line:       lineNo,
			UUID:       rec.uuid.get(),
			AgentID:    agent,
			Role:       role,
			Gen:        x.gen,
			Entrypoint: x.entrypoint,
			Agent:      record.AgentClaude,
		},
		Block: block,
		From:  x.copiedFrom(rec),
	})
}

// copiedFrom is the session a main transcript's record names as its
// message's origin, "" when it names none but the transcript's own.
// Subagent records all carry their parent's sessionId: they name none.
func (x *lineExtractor) copiedFrom(rec *jsonRecord) string {
	if x.kind != record.KindMain {
		return ""
	}
	if rec.forkedFrom != nil {
		var from string
		_ = eachMember(rec.forkedFrom, nil, func(key, val []byte) bool {
			if string(key) == "sessionId" {
				from, _ = jsonscan.DecodeString(val)
				return false
			}
			return true
		})
		if from != "" && from != x.session {
			return from
		}
	}
	if id := rec.sessionID.get(); id != "" && x.session != "" && id != x.session {
		return id
	}
	return ""
}

// maxPathText is more than any path a file system takes (PATH_MAX is
// 4096 bytes): a working directory is redacted whole.
const maxPathText = 4 << 10

// maxToolText caps a tool row: it names what a call touched, it is not a
// copy of the call (a heredoc or a whole file would drown the index).
const maxToolText = 400

// toolArgKeys are the input fields that say what a tool call touched, in
// the order they are tried; the first one present names the call.
var toolArgKeys = [...]string{
	"command", "file_path", "notebook_path", "pattern", "url", "query",
	"description", "prompt", "skill", "subject", "path",
}

// toolArgPath is the index of "path" in toolArgKeys.
const toolArgPath = len(toolArgKeys) - 1

// toolSummary renders one compact row for a tool call: "Bash: go test
// ./...", "Edit: /src/pricing.ts", "Grep: jwtSecret in /src".
func toolSummary(name string, input []byte) string {
	return truncateRunes(toolCall(name, input), maxToolText)
}

// toolCall is a tool call's summary before the cap.
func toolCall(name string, input []byte) string {
	if name == "" {
		return ""
	}
	// The last string value of each of toolArgKeys, by its index there
	// (keys compared raw, as a map of the raw keys would).
	var args [len(toolArgKeys)][]byte
	_ = eachMember(input, nil, func(key, val []byte) bool {
		if val[0] == '"' {
			for i, k := range toolArgKeys {
				if string(key) == k {
					args[i] = val
					break
				}
			}
		}
		return true
	})
	text := name
	for i, k := range toolArgKeys {
		s := jsonString(args[i])
		if s == "" {
			continue
		}
		text += ": " + s
		if path := jsonString(args[toolArgPath]); k == "pattern" && path != "" {
			text += " in " + path
		}
		break
	}
	return text
}

func jsonString(raw []byte) string {
	s, _ := jsonscan.DecodeString(raw)
	return strings.TrimSpace(s)
}

func truncateRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i := 0
	for k := 0; k < n; k++ {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i] + "…"
}

// badLineError describes an unparseable line for the one-per-file report.
func badLineError(path string, lineNo int, err error) string {
	return fmt.Sprintf("%s:%s: skipped line that is not JSON (%s)", path, strconv.Itoa(lineNo), shortError(err))
}

// shortError is err's text, cut at 120 bytes.
func shortError(err error) string {
	msg := err.Error()
	if len(msg) > 120 {
		msg = msg[:120] + "…"
	}
	return msg
}
