package gemini

import (
	"encoding/json"

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
	if err := p.document(b, doc); err != nil {
		return "", "", 0, err
	}
	session, project = p.Where()
	return session, project, 0, nil
}

// document reads a legacy session document's members in the order they
// come (Gemini CLI writes sessionId before messages, summary after).
func (p *parser) document(b *transcript.Builder, doc *transcript.Document) error {
	return doc.ReadObject("messages", func(key string, raw json.RawMessage) {
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
	}, func(raw json.RawMessage, line int) { p.messageRaw(b, raw, line) })
}
