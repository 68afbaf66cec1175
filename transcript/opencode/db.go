package opencode

import (
	"bytes"
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"strings"

	"github.com/recall-dev/recall/transcript"
)

// limits bound what one part or message of a database costs to read.
type limits struct {
	// partBytes, messageBytes: data longer than this is not read whole;
	// SQLite takes from it, as JSON, only the members rows need (a tool
	// part's data holds the call's output, which can be megabytes).
	partBytes, messageBytes int
	// textBytes caps each member taken so (a text part's text).
	textBytes int
}

var defaultLimits = limits{partBytes: 16 << 20, messageBytes: 1 << 20, textBytes: 1 << 20}

// writerMargin is how far before the newest change a read saw its cursor
// stays. OpenCode stamps a row (Date.now()) before it writes it and waits
// up to its busy timeout (5 s) for the lock, so a row of another OpenCode
// process can be committed after a read that saw later ones; reading the
// last few seconds again costs little, as rows read before are left out
// as copies.
const writerMargin = 10_000

// busyTimeoutMs is how long a read waits for a writer's lock: in WAL mode
// readers wait only while a checkpoint resets the log.
const busyTimeoutMs = 2000

// dsn opens the database at path read-only through SQLite's URI form:
// mode=ro never creates nor writes it (nor checkpoints its log), and its
// write-ahead log is read (immutable=1 would skip the log, and with it
// the changes not yet checkpointed). A WAL database's reader needs its
// -wal and -shm files: where OpenCode's last close removed them, SQLite
// creates them empty, as for any reader, and OpenCode takes them over
// (statDB leaves an empty log out of the database's stat). query_only and trusted_schema(0)
// guard against a hostile file's schema.
func dsn(path string) string {
	u := url.URL{Scheme: "file", Path: filepath.Clean(path), OmitHost: true}
	return u.String() + "?mode=ro&_pragma=busy_timeout(" + fmt.Sprint(busyTimeoutMs) + ")&_pragma=query_only(1)&_pragma=trusted_schema(0)"
}

// readDB reads the sessions, messages and parts of the database at
// w.T.Path changed since the cursor w.State.Offset, in one read
// transaction (a snapshot: a writer goes on meanwhile). It returns the
// next cursor: the newest change read, held back before a message still
// being written so that the next read takes it whole.
func readDB(w transcript.Work, b rowSink, now int64, lim limits) (string, string, int64, error) {
	if _, err := transcript.StatFile(w.T.Path); err != nil {
		return "", "", 0, err
	}
	db, err := sql.Open(driverName, dsn(w.T.Path))
	if err != nil {
		return "", "", 0, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	ctx := context.Background()
	tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return "", "", 0, err
	}
	defer tx.Rollback() //nolint:errcheck // a read transaction: nothing to keep
	r := &dbReader{ctx: ctx, tx: tx, since: max(w.State.Offset, 0), now: now, lim: lim}
	cursor, err := r.read(b)
	if err != nil {
		return "", "", 0, err
	}
	return "", "", cursor, nil
}

// dbReader is one read of a database.
type dbReader struct {
	ctx   context.Context
	tx    *sql.Tx
	since int64 // the cursor: changes after it are read
	now   int64
	lim   limits
	// cols holds each known table's columns; rowid, the tables that
	// have one (every OpenCode table does; a table WITHOUT ROWID not).
	cols  map[string]map[string]bool
	rowid map[string]bool
	// seen is the newest change read; hold, when not 0, what the cursor
	// stays before (a message still being written).
	seen, hold int64
	// utf8 is whether the database's text is UTF-8, as its data is taken
	// as a BLOB (its bytes as they are: the driver hands text over as a
	// string, which Scan copies again).
	utf8 bool
	// v1, v2: the database has OpenCode 1.x's message and part tables
	// (a 2.x database keeps them, frozen, beside its own), and 2.x's
	// session_message (dbv2.go).
	v1, v2 bool
	// stmts are the queries prepared in this read, by their text: each
	// runs once a session or message, and preparing one (the data
	// columns' expressions are long) cost as much as running it.
	stmts map[string]*sql.Stmt
}

// query runs q, prepared once a read.
func (r *dbReader) query(q string, args ...any) (*sql.Rows, error) {
	st := r.stmts[q]
	if st == nil {
		var err error
		if st, err = r.tx.PrepareContext(r.ctx, q); err != nil {
			return nil, err
		}
		if r.stmts == nil {
			r.stmts = map[string]*sql.Stmt{}
		}
		r.stmts[q] = st
	}
	return st.QueryContext(r.ctx, args...)
}

func (r *dbReader) read(b rowSink) (int64, error) {
	if err := r.inspect(); err != nil {
		return 0, err
	}
	sessions, err := r.sessions()
	if err != nil {
		return 0, err
	}
	worktrees, err := r.worktrees()
	if err != nil {
		return 0, err
	}
	ids, err := r.changedSessions(sessions)
	if err != nil {
		return 0, err
	}
	e := &emitter{b: b, sessions: sessions, worktrees: worktrees}
	for _, id := range ids {
		if err := r.readSession(e, sessions[id]); err != nil {
			return 0, err
		}
	}
	cursor := max(r.since, r.seen-writerMargin)
	if r.hold != 0 {
		cursor = min(cursor, max(r.hold, 0))
	}
	return cursor, nil
}

// inspect learns the columns of the tables rows come from: a schema of
// another version (older, newer) is read for what it shares with the
// one this knows. Messages and their parts are needed; sessions and
// projects add what they can.
func (r *dbReader) inspect() error {
	r.cols, r.rowid = map[string]map[string]bool{}, map[string]bool{}
	for _, t := range []string{"session", "message", "part", "project", sessionsV2, messagesV2} {
		rows, err := r.tx.QueryContext(r.ctx, `SELECT name FROM pragma_table_info(?)`, t)
		if err != nil {
			return err
		}
		cols := map[string]bool{}
		for rows.Next() {
			var name string
			if rows.Scan(&name) == nil {
				cols[name] = true
			}
		}
		if err := closeRows(rows); err != nil {
			return err
		}
		if len(cols) == 0 {
			continue
		}
		r.cols[t] = cols
		if rows, err := r.tx.QueryContext(r.ctx, `SELECT rowid FROM "`+t+`" LIMIT 0`); err == nil {
			r.rowid[t] = closeRows(rows) == nil
		}
	}
	var enc string
	if r.tx.QueryRowContext(r.ctx, `PRAGMA encoding`).Scan(&enc) == nil {
		r.utf8 = enc == "UTF-8"
	}
	missing1, missing2 := r.missing(firstGenerationNeeds), r.missing(secondGenerationNeeds)
	r.v1, r.v2 = len(missing1) == 0, len(missing2) == 0
	if !r.v1 && !r.v2 {
		return fmt.Errorf("not an OpenCode database: no %s (nor %s)", strings.Join(missing1, ", "), strings.Join(missing2, ", "))
	}
	return nil
}

// firstGenerationNeeds are the columns the first generation's messages
// are read from (OpenCode 1.x: a message's parts in a table of their own).
var firstGenerationNeeds = [][2]string{{"message", "id"}, {"message", "session_id"}, {"message", "data"},
	{"part", "message_id"}, {"part", "data"}}

// missing lists the columns of needs the database lacks, as table.column.
func (r *dbReader) missing(needs [][2]string) []string {
	var out []string
	for _, need := range needs {
		if !r.cols[need[0]][need[1]] {
			out = append(out, need[0]+"."+need[1])
		}
	}
	return out
}

func closeRows(rows *sql.Rows) error {
	err := rows.Err()
	return errors.Join(err, rows.Close())
}

// text is column c of table t as text (empty when the table has none).
func (r *dbReader) text(t, c string) string {
	if !r.cols[t][c] {
		return "''"
	}
	return `CAST(coalesce("` + c + `", '') AS TEXT)`
}

// integer is column c of table t as an integer (0 when it has none).
func (r *dbReader) integer(t, c string) string {
	if !r.cols[t][c] {
		return "0"
	}
	return `CAST(coalesce("` + c + `", 0) AS INTEGER)`
}

// line is table t's rowid, a row's number (0 for a table without one).
func (r *dbReader) line(t string) string {
	if !r.rowid[t] {
		return "0"
	}
	return "rowid"
}

// timed reports whether table t has a time column, by which its rows
// changed since the cursor are found.
func (r *dbReader) timed(t string) bool {
	return r.cols[t]["time_created"] || r.cols[t]["time_updated"]
}

// changed is when a row of table t last changed: the later of its time
// columns (OpenCode sets time_updated on every write, and time_created
// once).
func (r *dbReader) changed(t string) string {
	return "max(" + r.integer(t, "time_created") + ", " + r.integer(t, "time_updated") + ")"
}

func (r *dbReader) note(t int64) { r.seen = max(r.seen, t) }

// holdBefore keeps the cursor before t: the next read takes again what
// was written at t.
func (r *dbReader) holdBefore(t int64) {
	t--
	if t <= 0 {
		t = -1 // from the start
	}
	if r.hold == 0 || t < r.hold {
		r.hold = t
	}
}

// sessions reads every session: few rows, and a child's root may be any.
// OpenCode 2.x keeps its sessions in session_v2 (in some builds in
// session, whose columns are the same), beside 1.x's: a session in both
// is the newer's.
func (r *dbReader) sessions() (map[string]*session, error) {
	out := map[string]*session{}
	for _, t := range []string{"session", sessionsV2} {
		if err := r.sessionsOf(t, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// sessionsOf reads the sessions of table t into out.
func (r *dbReader) sessionsOf(t string, out map[string]*session) error {
	if !r.cols[t]["id"] {
		return nil
	}
	q := `SELECT ` + r.text(t, "id") + `, ` + r.text(t, "parent_id") + `, ` +
		r.text(t, "project_id") + `, ` + r.text(t, "directory") + `, ` + r.text(t, "title") + `, ` +
		r.integer(t, "time_created") + `, ` + r.integer(t, "time_updated") + ` FROM "` + t + `"`
	rows, err := r.tx.QueryContext(r.ctx, q)
	if err != nil {
		return fmt.Errorf("sessions: %w", err)
	}
	for rows.Next() {
		s := &session{}
		if err := rows.Scan(&s.id, &s.parent, &s.project, &s.directory, &s.title, &s.created, &s.updated); err != nil {
			rows.Close()
			return fmt.Errorf("sessions: %w", err)
		}
		if s.id != "" {
			out[s.id] = s
		}
	}
	return closeRows(rows)
}

// worktrees reads the projects' folders.
func (r *dbReader) worktrees() (map[string]string, error) {
	out := map[string]string{}
	if !r.cols["project"]["id"] || !r.cols["project"]["worktree"] {
		return out, nil
	}
	rows, err := r.tx.QueryContext(r.ctx, `SELECT `+r.text("project", "id")+`, `+r.text("project", "worktree")+` FROM project`)
	if err != nil {
		return nil, fmt.Errorf("projects: %w", err)
	}
	for rows.Next() {
		var id, wt string
		if rows.Scan(&id, &wt) == nil {
			out[id] = wt
		}
	}
	return out, closeRows(rows)
}

// changedSessions lists the sessions with a change after the cursor: the
// session itself, or a message of it (a session missing from the
// session table is made from its messages' session_id), oldest first.
func (r *dbReader) changedSessions(sessions map[string]*session) ([]string, error) {
	want := map[string]bool{}
	for id, s := range sessions {
		r.note(max(s.created, s.updated))
		if r.since == 0 || max(s.created, s.updated) > r.since {
			want[id] = true
		}
	}
	for _, g := range [...]struct {
		table string
		has   bool
	}{{"message", r.v1}, {messagesV2, r.v2}} {
		if !g.has {
			continue
		}
		if err := r.sessionsChangedIn(g.table, sessions, want); err != nil {
			return nil, err
		}
	}
	ids := make([]string, 0, len(want))
	for id := range want {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, func(a, b string) int {
		return cmp.Or(cmp.Compare(sessions[a].created, sessions[b].created), strings.Compare(a, b))
	})
	return ids, nil
}

// sessionsChangedIn adds to want the sessions with a message of table t
// changed after the cursor (every session with one on a first read); a
// session missing from the session tables is made from its id.
func (r *dbReader) sessionsChangedIn(t string, sessions map[string]*session, want map[string]bool) error {
	q := `SELECT DISTINCT ` + r.text(t, "session_id") + ` FROM "` + t + `"`
	var args []any
	if r.since > 0 && r.timed(t) {
		q += ` WHERE ` + r.changed(t) + ` > ?`
		args = append(args, r.since)
	}
	rows, err := r.tx.QueryContext(r.ctx, q, args...)
	if err != nil {
		return fmt.Errorf("messages: %w", err)
	}
	for rows.Next() {
		var id string
		if rows.Scan(&id) == nil && id != "" {
			want[id] = true
			if sessions[id] == nil {
				sessions[id] = &session{id: id}
			}
		}
	}
	return closeRows(rows)
}

// readSession makes the rows of session s's messages changed after the
// cursor (all of them on a first read), and of its title: those of the
// first generation's tables, then those of the second's (dbv2.go).
func (r *dbReader) readSession(e *emitter, s *session) error {
	msgs, changed, err := r.firstGeneration(s.id)
	if err != nil {
		return fmt.Errorf("session %s: %w", s.id, err)
	}
	more, moreChanged, err := r.secondGeneration(s.id, msgs)
	if err != nil {
		return fmt.Errorf("session %s: %w", s.id, err)
	}
	msgs, changed = append(msgs, more...), append(changed, moreChanged...)
	s.noteCwd(msgs)
	if r.since == 0 || max(s.created, s.updated) > r.since {
		e.title(s)
	}
	for i := range msgs {
		if !changed[i] {
			continue
		}
		m := &msgs[i]
		skip, hold := judge(m, i == len(msgs)-1, r.now)
		if hold {
			r.holdBefore(m.firstTime())
		}
		if !skip {
			e.message(s, m)
		}
	}
	return nil
}

// firstGeneration reads session id's messages of the message and part
// tables, with whether each changed after the cursor (none in a
// database without those tables).
func (r *dbReader) firstGeneration(id string) ([]message, []bool, error) {
	if !r.v1 {
		return nil, nil, nil
	}
	msgs, err := r.messages(id)
	if err != nil {
		return nil, nil, err
	}
	changed := make([]bool, len(msgs))
	all := true
	if r.since > 0 && r.timed("message") {
		newest, err := r.partChanges(id)
		if err != nil {
			return nil, nil, err
		}
		for i := range msgs {
			m := &msgs[i]
			r.note(max(m.created, m.updated, newest[m.id]))
			changed[i] = max(m.created, m.updated, newest[m.id]) > r.since
			all = all && changed[i]
		}
	} else {
		for i := range msgs {
			r.note(max(msgs[i].created, msgs[i].updated))
			changed[i] = true
		}
	}
	if err := r.parts(id, msgs, changed, all); err != nil {
		return nil, nil, err
	}
	return msgs, changed, nil
}

// messages reads the messages of session id, in order.
func (r *dbReader) messages(id string) ([]message, error) {
	q := `SELECT ` + r.line("message") + `, ` + r.text("message", "id") + `, ` + r.integer("message", "time_created") + `, ` +
		r.integer("message", "time_updated") + `, ` + r.messageData() + ` FROM message WHERE session_id = ? ORDER BY `
	if r.cols["message"]["time_created"] {
		q += r.integer("message", "time_created") + `, ` // not 0 when it has none: that orders by a column's number
	}
	q += `id`
	rows, err := r.query(q, id)
	if err != nil {
		return nil, fmt.Errorf("messages: %w", err)
	}
	var out []message
	var data sql.RawBytes // decodeMessage keeps none of it
	for rows.Next() {
		var m message
		if err := rows.Scan(&m.line, &m.id, &m.created, &m.updated, &data); err != nil {
			rows.Close()
			return nil, fmt.Errorf("messages: %w", err)
		}
		info, err := decodeMessage(data)
		m.info, m.bad = info, err != nil
		out = append(out, m)
	}
	return out, closeRows(rows)
}

// partSession selects the parts of one session: by their session_id, or
// through their messages' in a schema whose parts name none.
func (r *dbReader) partSession() string {
	if r.cols["part"]["session_id"] {
		return `session_id = ?`
	}
	return `message_id IN (SELECT id FROM message WHERE session_id = ?)`
}

// partChanges is when the parts of each message of session id last
// changed.
func (r *dbReader) partChanges(id string) (map[string]int64, error) {
	out := map[string]int64{}
	if !r.timed("part") {
		return out, nil
	}
	q := `SELECT ` + r.text("part", "message_id") + `, max(` + r.changed("part") + `) FROM part WHERE ` +
		r.partSession() + ` GROUP BY message_id`
	rows, err := r.query(q, id)
	if err != nil {
		return nil, fmt.Errorf("parts: %w", err)
	}
	for rows.Next() {
		var msg string
		var t int64
		if rows.Scan(&msg, &t) == nil {
			out[msg] = t
		}
	}
	return out, closeRows(rows)
}

// parts reads the parts of the messages changed: those of the whole
// session at once when all are, else message by message.
func (r *dbReader) parts(session string, msgs []message, changed []bool, all bool) error {
	cols := `SELECT ` + r.line("part") + `, ` + r.text("part", "id") + `, ` + r.text("part", "message_id") + `, ` +
		r.integer("part", "time_created") + `, ` + r.integer("part", "time_updated") + `, ` + r.partData() + ` FROM part WHERE `
	byID := map[string]*message{}
	for i := range msgs {
		if changed[i] {
			byID[msgs[i].id] = &msgs[i]
		}
	}
	if all {
		return r.scanParts(byID, cols+r.partSession()+` ORDER BY message_id, id`, session)
	}
	for i := range msgs {
		if changed[i] {
			if err := r.scanParts(byID, cols+`message_id = ? ORDER BY id`, msgs[i].id); err != nil {
				return err
			}
		}
	}
	return nil
}

func (r *dbReader) scanParts(byID map[string]*message, q string, arg string) error {
	rows, err := r.query(q, arg)
	if err != nil {
		return fmt.Errorf("parts: %w", err)
	}
	var data sql.RawBytes // decodePart keeps none of it
	for rows.Next() {
		var p part
		var msg string
		if err := rows.Scan(&p.line, &p.id, &msg, &p.created, &p.updated, &data); err != nil {
			rows.Close()
			return fmt.Errorf("parts: %w", err)
		}
		m := byID[msg]
		if m == nil {
			continue
		}
		r.note(max(p.created, p.updated))
		d, err := decodePart(data)
		p.data, p.bad = d, err != nil
		if p.id == "" {
			p.raw = bytes.Clone([]byte(data))
		}
		m.parts = append(m.parts, p)
	}
	return closeRows(rows)
}

// messageData is a message's data, or, past lim.messageBytes, the
// members rows need (a user message's summary can hold whole files'
// diffs).
func (r *dbReader) messageData() string {
	return r.asBytes(fmt.Sprintf(`CASE WHEN octet_length(data) <= %d THEN data WHEN json_valid(data) THEN json_object(
		'role', data ->> '$.role', 'time', data -> '$.time', 'path', json_object('cwd', data ->> '$.path.cwd'),
		'summary', CASE WHEN json_type(data, '$.summary') = 'true' THEN json('true') END) END`, r.lim.messageBytes))
}

// partData is a part's data, or, past lim.partBytes, the members rows
// need, each cut at lim.textBytes.
func (r *dbReader) partData() string {
	return r.asBytes(fmt.Sprintf(`CASE WHEN octet_length(data) <= %d THEN data WHEN json_valid(data) THEN json_object(
		'type', data ->> '$.type', 'text', %s, 'synthetic', data -> '$.synthetic', 'ignored', data -> '$.ignored',
		'tool', data ->> '$.tool', 'time', data -> '$.time',
		'state', json_object('status', data ->> '$.state.status', 'time', data -> '$.state.time',
			'input', %s)) END`, r.lim.partBytes, r.cut("data", "$.text"), r.toolInput("data")))
}

// cut is the text member path of the JSON value src, cut at
// lim.textBytes.
func (r *dbReader) cut(src, path string) string {
	return fmt.Sprintf(`substr(%s ->> '%s', 1, %d)`, src, path, r.lim.textBytes)
}

// toolInput is, as a JSON object, the members of the tool call input
// of src ($.state.input) that name what the call touched (the
// Builder's), each cut at lim.textBytes: a file's whole content is not
// read to name the file.
func (r *dbReader) toolInput(src string) string {
	input := []string{}
	for _, k := range []string{"command", "path", "pattern", "url", "query", "description", "prompt"} {
		input = append(input, `'`+k+`', `+r.cut(src, "$.state.input."+k))
	}
	input = append(input, `'file_path', coalesce(`+r.cut(src, "$.state.input.filePath")+`, `+r.cut(src, "$.state.input.file_path")+`)`)
	return `json_object(` + strings.Join(input, ", ") + `)`
}

// asBytes is the data expression e as a BLOB when it is text, in a
// UTF-8 database: the same bytes, which the driver hands over without
// the copy a string costs. Any other value (a number, null) is as it
// was.
func (r *dbReader) asBytes(e string) string {
	if !r.utf8 {
		return e
	}
	return `CASE WHEN typeof(data) IN ('text', 'blob') THEN CAST(` + e + ` AS BLOB) ELSE data END`
}
