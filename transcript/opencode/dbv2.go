package opencode

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// OpenCode 2.x keeps its messages in a second generation of tables
// beside 1.x's, which it leaves frozen at the upgrade (packages/core/src/
// session/sql.ts, message.ts): its sessions in session_v2 (in some
// builds session, with the same columns), each message one row of
// session_message, its kind in the type column, ordered by seq, all of
// it in data: a prompt's text, a reply's content (text, reasoning and
// tool items), a shell command the user ran. The other kinds (synthetic,
// system, compaction, agent-switched, model-switched, …) are OpenCode's
// own and make no row.
const (
	sessionsV2 = "session_v2"
	messagesV2 = "session_message"
)

// secondGenerationNeeds are the columns the second generation's
// messages are read from.
var secondGenerationNeeds = [][2]string{{messagesV2, "id"}, {messagesV2, "session_id"},
	{messagesV2, "type"}, {messagesV2, "data"}}

// backfillPrefix starts the ids OpenCode gives the copies of a 1.x
// session's messages it writes into session_message
// (message-backfill.ts): the 1.x tables still hold the originals.
const backfillPrefix = "evt_legacy_backfill_"

// secondGeneration reads session id's messages of session_message, with
// whether each changed after the cursor. first is the session's messages
// of the 1.x tables: where it has some, the copies OpenCode made of them
// (a backfilled id, or a message made no later than the last of them)
// are left out as copies.
func (r *dbReader) secondGeneration(id string, first []message) ([]message, []bool, error) {
	if !r.v2 {
		return nil, nil, nil
	}
	var lastFirst int64
	for i := range first {
		lastFirst = max(lastFirst, madeAt(&first[i]))
	}
	q := `SELECT ` + r.line(messagesV2) + `, ` + r.text(messagesV2, "id") + `, ` + r.text(messagesV2, "type") + `, ` +
		r.integer(messagesV2, "time_created") + `, ` + r.integer(messagesV2, "time_updated") + `, ` +
		r.sessionMessageData() + ` FROM ` + messagesV2 + ` WHERE session_id = ? ORDER BY `
	if r.cols[messagesV2]["seq"] {
		q += r.integer(messagesV2, "seq") + `, `
	}
	q += `id`
	rows, err := r.query(q, id)
	if err != nil {
		return nil, nil, fmt.Errorf("messages: %w", err)
	}
	var msgs []message
	var changed []bool
	var data sql.RawBytes // decodeSessionMessage keeps none of it
	for rows.Next() {
		var m message
		var kind string
		if err := rows.Scan(&m.line, &m.id, &kind, &m.created, &m.updated, &data); err != nil {
			rows.Close()
			return nil, nil, fmt.Errorf("messages: %w", err)
		}
		decodeSessionMessage(&m, kind, data)
		r.note(max(m.created, m.updated))
		if len(first) > 0 && (strings.HasPrefix(m.id, backfillPrefix) || madeAt(&m) <= lastFirst) {
			m.copied = true
		}
		msgs = append(msgs, m)
		changed = append(changed, r.since == 0 || max(m.created, m.updated) > r.since)
	}
	return msgs, changed, closeRows(rows)
}

// madeAt is when m says it was made, else when its row was: a copy
// keeps its original's time in its data, whenever its row was written.
func madeAt(m *message) int64 {
	if t := int64(m.info.Time.Created); t > 0 {
		return t
	}
	return m.created
}

// sessionData is what rows need of a session_message row's data.
// Members of an unexpected type read as empty, as in partData.
type sessionData struct {
	Time    span          `json:"time"`    // created; completed once a reply is whole
	Text    string        `json:"text"`    // a prompt's
	Command string        `json:"command"` // a shell command's
	Content []contentItem `json:"content"` // a reply's
}

// contentItem is one item of a reply: text, reasoning or a tool call.
type contentItem struct {
	Type      string    `json:"type"`
	ID        string    `json:"id"`
	Text      string    `json:"text"`
	Synthetic jsonBool  `json:"synthetic"`
	Ignored   jsonBool  `json:"ignored"`
	Name      string    `json:"name"` // a tool's
	State     toolState `json:"state"`
}

// decodeSessionMessage fills m, a session_message row of the given kind
// whose id, line and times are set, from its data: a prompt is a text
// part, a reply's content items its parts, a shell command a bash call;
// a message of another kind is OpenCode's (noise), data that is not an
// object a bad message.
func decodeSessionMessage(m *message, kind string, data []byte) {
	var d sessionData
	if err := decodeObject(data, &d); err != nil {
		m.bad = true
		return
	}
	m.info.Role, m.info.Time = kind, d.Time
	switch kind {
	case "user":
		m.parts = []part{{id: m.id, line: m.line, data: partData{Type: "text", Text: d.Text, Time: d.Time}}}
	case "assistant":
		seen := map[string]bool{}
		for i, c := range d.Content {
			id := contentID(m.id, c.ID, i, seen)
			m.parts = append(m.parts, part{id: id, line: m.line, data: partData{
				Type: c.Type, Text: c.Text, Synthetic: c.Synthetic, Ignored: c.Ignored, Tool: c.Name, State: c.State}})
		}
	case "shell":
		input, _ := json.Marshal(map[string]string{"command": d.Command})
		m.parts = []part{{id: m.id, line: m.line, data: partData{Type: "tool", Tool: "bash",
			State: toolState{Status: "completed", Input: input}, Time: d.Time}}}
	default:
		m.noise = true
	}
}

// contentID is the row UUID of a reply's item i: its message's id
// (unique in the database) and its own, which is only unique in its
// message (a provider's call id), or its place when it has none or one
// an item before it had (seen holds those given so far).
func contentID(message, item string, i int, seen map[string]bool) string {
	id := message + "/" + item
	if item == "" || seen[id] {
		id += "#" + strconv.Itoa(i)
	}
	seen[id] = true
	return id
}

// sessionMessageData is a session_message row's data, or, past
// lim.partBytes, the members rows need, each text cut at lim.textBytes
// (a reply holds its tool calls' output, which can be megabytes).
func (r *dbReader) sessionMessageData() string {
	items := `(SELECT json_group_array(json_object('type', value ->> '$.type', 'id', value ->> '$.id',
		'text', ` + r.cut("value", "$.text") + `, 'synthetic', value -> '$.synthetic', 'ignored', value -> '$.ignored',
		'name', value ->> '$.name', 'state', json_object('status', value ->> '$.state.status', 'input', ` + r.toolInput("value") + `)))
		FROM json_each(data, '$.content'))`
	return r.asBytes(fmt.Sprintf(`CASE WHEN octet_length(data) <= %d THEN data WHEN json_valid(data) THEN json_object(
		'time', data -> '$.time', 'text', %s, 'command', %s, 'content', json(%s)) END`,
		r.lim.partBytes, r.cut("data", "$.text"), r.cut("data", "$.command"), items))
}
