package codex

import (
	"encoding/json"
	"strings"

	"github.com/recall-dev/recall/transcript"
)

// The TypeScript Codex CLI (npm @openai/codex of April to June 2025, before
// the Rust one) kept each session as one JSON document, written whole
// again on every change: sessions/rollout-<date>-<id>.json holding
// {"session": {"timestamp", "id", "instructions"}, "items": [...]}. Its
// items are Responses API items, as a rollout line's response_item
// payload is; forks of it (open-codex and others) write the same
// document with chat messages for items ({"role", "content",
// "tool_calls"}). Items carry no time: their rows take the session's.
// No working directory is kept, but for one an <environment_context>
// message names.

// maxDocumentBytes bounds a rollout document: a long session is
// megabytes; one larger is not a session Codex wrote.
const maxDocumentBytes = 256 << 20

// isDocument reports whether the rollout at path is a JSON document.
func isDocument(path string) bool { return strings.HasSuffix(path, ".json") }

// readDocument reads a rollout document whole (transcript.Format's
// ReadAll). It is read again whole whenever it changes (cursor 0): the
// rows read before are left out as copies by their keys.
func readDocument(w transcript.Work, b *transcript.Builder) (session, project string, cursor int64, err error) {
	doc, err := transcript.OpenDocument(w.T.Path, maxDocumentBytes)
	if err != nil {
		return "", "", 0, err
	}
	defer doc.Close()
	w.State.Offset = 0 // a document is read from its start
	p := newParser(w).(*parser)
	p.ready, p.b = true, b
	if err := p.document(doc); err != nil {
		return "", "", 0, err
	}
	session, project = p.Where()
	return session, project, 0, nil
}

// document reads the members of a rollout document in the order they
// come (the CLI writes session before items); an item that does not
// read is counted and skipped.
func (p *parser) document(doc *transcript.Document) error {
	return doc.ReadObject("items", func(key string, raw json.RawMessage) {
		if key == "session" && isObject(raw) {
			p.documentSession(raw)
		}
	}, func(raw json.RawMessage, line int) {
		if err := p.documentItem(raw, line); err != nil {
			p.b.BadPart(line, err)
		}
	})
}

// documentSession reads the document's session: its id and time, as
// an old rollout's first line gives them.
func (p *parser) documentSession(raw json.RawMessage) {
	if err := p.sessionMeta(raw); err != nil {
		p.b.BadPart(1, err) // the items are still the session's
	}
	var s struct {
		Timestamp json.RawMessage `json:"timestamp"`
	}
	if json.Unmarshal(raw, &s) == nil {
		if ts, ok := normTimestamp(s.Timestamp); ok {
			p.lastTS = ts
		}
	}
}

// chatMessage is an item of a fork's document: a chat message.
type chatMessage struct {
	Type      string          `json:"type"`
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	ToolCalls []struct {
		ID       json.RawMessage `json:"id"`
		Function struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
}

// documentItem reads an item at line n: a Responses API item as a
// rollout line's payload, or a fork's chat message as the message and
// function calls it is. A tool's output ("role": "tool") makes no row,
// as a function_call_output does not.
func (p *parser) documentItem(raw json.RawMessage, n int) error {
	if !isObject(raw) {
		return errNoObject
	}
	var m chatMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return err
	}
	if m.Type != "" || m.Role == "" {
		return p.item(raw, n, p.lastTS, false)
	}
	if err := p.message(&responseItem{Type: "message", Role: m.Role, Content: m.Content}, n, p.lastTS, false); err != nil {
		return err
	}
	for _, c := range m.ToolCalls {
		call := responseItem{Type: "function_call", Name: c.Function.Name, Arguments: c.Function.Arguments, CallID: c.ID}
		p.toolItem(&call, raw, n, p.lastTS, false)
	}
	return nil
}
