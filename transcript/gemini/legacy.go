package gemini

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/recall-dev/recall/transcript"
)

// maxLegacyBytes bounds a legacy session file: such a file is the whole
// conversation in one JSON document, megabytes for a long session; one
// larger is not a session Gemini CLI wrote, and is not read.
const maxLegacyBytes = 256 << 20

// readLegacy reads a session file of the older format whole: one JSON
// document {sessionId, projectHash, startTime, lastUpdated, messages,
// summary, kind}. Its messages are read one at a time as the document
// streams, so memory holds one message, not the file. It is read again
// whole whenever it changes (cursor 0): the rows read before are left out
// as copies by their keys.
func readLegacy(w transcript.Work, b *transcript.Builder) (session, project string, cursor int64, err error) {
	doc, err := transcript.OpenDocument(w.T.Path, maxLegacyBytes)
	if err != nil {
		return "", "", 0, err
	}
	defer doc.Close()
	w.State.Offset = 0 // a document is read from its start
	p := newParser(w)
	p.redactProject(b)
	p.lines = doc.Lines
	if err := p.document(b, doc.Decoder); err != nil {
		return "", "", 0, err
	}
	session, project = p.Where()
	return session, project, 0, nil
}

// errNotDocument is a legacy file that is not one JSON object.
var errNotDocument = errors.New("not a session document (a JSON object)")

// document reads the members of a legacy session document in the order
// they come (Gemini CLI writes sessionId before messages, summary after).
func (p *parser) document(b *transcript.Builder, dec *json.Decoder) error {
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return errNotDocument
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return fmt.Errorf("session document: %w", err)
		}
		key, _ := tok.(string)
		if key == "messages" {
			if err := p.messageArray(b, dec); err != nil {
				return err
			}
			continue
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return fmt.Errorf("session document: %s: %w", key, err)
		}
		switch key {
		case "sessionId":
			p.setSession(str(raw))
		case "projectHash":
			p.projectByHash(b, str(raw))
		case "startTime":
			if p.lastTS == "" {
				p.lastTS = stamp(raw)
			}
		case "summary":
			p.title(b, str(raw), 0)
		}
	}
	return nil
}

// messageArray reads the messages array, each message numbered by the
// line of the file its object starts on (the row's Line, so that sed -n
// lands on it), or by its place in the array when the lines are not
// counted.
func (p *parser) messageArray(b *transcript.Builder, dec *json.Decoder) error {
	tok, err := dec.Token()
	if err != nil {
		return fmt.Errorf("session document: messages: %w", err)
	}
	if tok != json.Delim('[') {
		if d, ok := tok.(json.Delim); ok && d == '{' {
			return fmt.Errorf("session document: messages: an object, not an array")
		}
		return nil // null or another value: no messages
	}
	for n := 1; dec.More(); n++ {
		line := n
		if p.lines != nil {
			line = p.lines.LineAt(dec.InputOffset())
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return fmt.Errorf("session document: message %d: %w", n, err)
		}
		p.messageRaw(b, raw, line)
	}
	if _, err := dec.Token(); err != nil {
		return fmt.Errorf("session document: messages: %w", err)
	}
	return nil
}
