package indexer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/recall-dev/recall/filter"
)

// record is the part of a transcript line recall reads. Everything else is
// ignored, so new fields in newer Claude Code versions cost nothing.
type record struct {
	Type              string          `json:"type"`
	UUID              string          `json:"uuid"`
	SessionID         string          `json:"sessionId"`
	Timestamp         string          `json:"timestamp"`
	Cwd               string          `json:"cwd"`
	AgentID           string          `json:"agentId"`
	IsSidechain       bool            `json:"isSidechain"`
	IsMeta            bool            `json:"isMeta"`
	IsCompactSummary  bool            `json:"isCompactSummary"`
	IsAPIErrorMessage bool            `json:"isApiErrorMessage"`
	Message           json.RawMessage `json:"message"`
}

type message struct {
	Role    string          `json:"role"`
	Model   string          `json:"model"`
	Content json.RawMessage `json:"content"`
}

type contentBlock struct {
	Type  string          `json:"type"`
	Text  string          `json:"text"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

// extracted is one candidate row of a line before the index-wide checks
// (copies) run.
type extracted struct {
	Row
	Key uint64 // identity across files: hash of uuid and block position
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
	lastTS  string
	gen     uint32
	counts  [16]int64 // by filter.Reason
	rows    []extracted
}

// Cheap byte tests that rule lines out before a JSON parse. The patterns
// cannot occur inside a JSON string (its quotes would be escaped), so a
// match is structural. A line that passes is parsed in full.
var (
	patUser       = []byte(`"type":"user"`)
	patAssistant  = []byte(`"type":"assistant"`)
	patToolResult = []byte(`"type":"tool_result"`)
	patText       = []byte(`"type":"text"`)
	patToolUse    = []byte(`"type":"tool_use"`)
)

// worthParsing reports whether a line may hold indexable text.
func worthParsing(line []byte) bool {
	if bytes.Contains(line, patAssistant) {
		return bytes.Contains(line, patText) || bytes.Contains(line, patToolUse)
	}
	if bytes.Contains(line, patUser) {
		// A user record carries at most one tool_result and then no prompt.
		return !bytes.Contains(line, patToolResult)
	}
	return false
}

// add processes one complete line (without '\n'). It returns an error only
// for a line that is not JSON; the caller counts and reports it.
func (x *lineExtractor) add(line []byte, lineNo int) error {
	if !worthParsing(line) {
		return checkObjectShape(line)
	}
	var rec record
	if err := json.Unmarshal(line, &rec); err != nil {
		return err
	}
	if rec.Timestamp != "" {
		x.lastTS = rec.Timestamp
	}
	if x.project == "" && rec.Cwd != "" {
		x.project = rec.Cwd
	}
	if x.session == "" {
		x.session = rec.SessionID
	}
	switch rec.Type {
	case "user":
		x.addUser(&rec, lineNo)
	case "assistant":
		x.addAssistant(&rec, lineNo)
	}
	return nil
}

func (x *lineExtractor) addUser(rec *record, lineNo int) {
	var msg message
	if json.Unmarshal(rec.Message, &msg) != nil {
		return
	}
	text, ok := userText(msg.Content)
	if !ok {
		return // tool results, images: not human text
	}
	if rec.IsMeta || rec.IsCompactSummary {
		x.counts[filter.Noise]++
		return
	}
	x.addText(rec, lineNo, 0, "user", text)
}

// userText returns a prompt's text: the string content, or its text blocks
// joined. ok is false when the record holds no text (tool results).
func userText(content json.RawMessage) (string, bool) {
	content = bytes.TrimSpace(content)
	if len(content) == 0 {
		return "", false
	}
	if content[0] == '"' {
		var s string
		if json.Unmarshal(content, &s) != nil {
			return "", false
		}
		return s, true
	}
	var blocks []contentBlock
	if json.Unmarshal(content, &blocks) != nil {
		return "", false
	}
	var parts []string
	for _, b := range blocks {
		if b.Type == "tool_result" {
			return "", false
		}
		if b.Type == "text" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n"), len(parts) > 0
}

func (x *lineExtractor) addAssistant(rec *record, lineNo int) {
	var msg message
	if json.Unmarshal(rec.Message, &msg) != nil {
		return
	}
	var blocks []contentBlock
	if json.Unmarshal(msg.Content, &blocks) != nil {
		return
	}
	synthetic := msg.Model == "<synthetic>" || rec.IsAPIErrorMessage
	for i, b := range blocks {
		switch b.Type {
		case "text":
			if synthetic {
				x.counts[filter.Noise]++
				continue
			}
			x.addText(rec, lineNo, i, "assistant", b.Text)
		case "tool_use":
			if s := toolSummary(b.Name, b.Input); s != "" {
				x.addRow(rec, lineNo, i, "tool", s)
			}
		}
	}
}

// addText cleans a prompt or reply and keeps it if it is worth indexing.
func (x *lineExtractor) addText(rec *record, lineNo, block int, role, text string) {
	clean, reason := filter.Clean(text)
	if reason != filter.Kept {
		x.counts[reason]++
		return
	}
	x.addRow(rec, lineNo, block, role, clean)
}

func (x *lineExtractor) addRow(rec *record, lineNo, block int, role, text string) {
	typ := role
	if x.kind != KindMain || (rec.IsSidechain && rec.AgentID != "") {
		typ = TypeAgent
	}
	agent := x.agent
	if agent == "" && typ == TypeAgent {
		agent = rec.AgentID
	}
	x.counts[filter.Kept]++
	x.rows = append(x.rows, extracted{
		Row: Row{
			Session:   x.session,
			Timestamp: x.lastTS,
			Type:      typ,
			Text:      text,
			Project:   x.project,
			Source:    x.source,
			Line:      lineNo,
			UUID:      rec.UUID,
			AgentID:   agent,
			Role:      role,
			Gen:       x.gen,
		},
		Key: rowKey(rec.UUID, block),
	})
}

// rowKey identifies a row across transcripts: forks copy their parent's
// lines with the original uuid, so equal keys are the same message. Rows
// without a uuid get no key (0) and are never treated as copies.
func rowKey(uuid string, block int) uint64 {
	if uuid == "" {
		return 0
	}
	h := fnv.New64a()
	h.Write([]byte(uuid))
	h.Write([]byte{'#', byte(block)})
	k := h.Sum64()
	if k == 0 {
		k = 1
	}
	return k
}

// maxToolText caps a tool row: it names what a call touched, it is not a
// copy of the call (a heredoc or a whole file would drown the index).
const maxToolText = 400

// toolArgKeys are the input fields that say what a tool call touched, in
// the order they are tried; the first one present names the call.
var toolArgKeys = []string{
	"command", "file_path", "notebook_path", "pattern", "url", "query",
	"description", "prompt", "skill", "subject", "path",
}

// toolSummary renders one compact row for a tool call: "Bash: go test
// ./...", "Edit: /src/pricing.ts", "Grep: jwtSecret in /src".
func toolSummary(name string, input json.RawMessage) string {
	if name == "" {
		return ""
	}
	var args map[string]json.RawMessage
	_ = json.Unmarshal(input, &args)
	text := name
	for _, k := range toolArgKeys {
		s := jsonString(args[k])
		if s == "" {
			continue
		}
		text += ": " + s
		if path := jsonString(args["path"]); k == "pattern" && path != "" {
			text += " in " + path
		}
		break
	}
	return truncateRunes(text, maxToolText)
}

func jsonString(raw json.RawMessage) string {
	if len(raw) == 0 || raw[0] != '"' {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
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

var errNotObject = errors.New("not a JSON object")

// checkObjectShape is the cheap validity check for lines recall does not
// parse: a transcript line is one JSON object, so it starts with '{' and
// ends with '}'. A torn or foreign line fails it and is counted as bad
// without the cost of parsing every tool result in full.
func checkObjectShape(line []byte) error {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return nil // blank lines are harmless
	}
	if line[0] != '{' || line[len(line)-1] != '}' {
		return errNotObject
	}
	return nil
}

// firstType returns the "type" of a line for fork detection. It parses
// only as much as it needs.
func firstType(line []byte) (string, error) {
	var head struct {
		Type      string `json:"type"`
		SessionID string `json:"sessionId"`
	}
	if err := json.Unmarshal(line, &head); err != nil {
		return "", err
	}
	return head.Type, nil
}

// badLineError describes an unparseable line for the one-per-file report.
func badLineError(path string, lineNo int, err error) string {
	msg := err.Error()
	if len(msg) > 120 {
		msg = msg[:120] + "…"
	}
	return fmt.Sprintf("%s:%s: skipped line that is not JSON (%s)", path, strconv.Itoa(lineNo), msg)
}
