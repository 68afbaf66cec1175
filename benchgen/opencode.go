package benchgen

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/recall-dev/recall/internal/errpath"

	_ "modernc.org/sqlite" // OpenCode's store is SQLite; pure Go, no cgo
)

// OpenCode keeps every session in one SQLite database, opencode.db in
// its data folder (packages/opencode/src/session/session.sql.ts): a
// session row per conversation (a subagent's with parent_id), a message
// row per prompt and per model step (data: JSON of role, times, model,
// tokens), and a part row per piece of a message (data: JSON text,
// reasoning, tool {callID, tool, state{status, input, output}},
// step-start, step-finish, patch …).

const (
	openCodeMedianBytes   = 40 << 10
	openCodeSubagentShare = 0.05
	openCodeDBName        = "opencode.db"
	// The event log entries of a row, as in the real 1.17 database
	// (3.5 message.updated events a message, 1.95 message.part.updated
	// a part, 1.1 session.updated a message).
	openCodeMessageEvents = 3
	openCodePartEvents    = 2
	openCodeVersion       = "1.1.13"
)

// openCodeSchema is the tables OpenCode's migrations leave (the part of
// them recall reads, as in testdata/transcripts/opencode/opencode.sql).
const openCodeSchema = "CREATE TABLE `project` (\n" +
	"\t`id` text PRIMARY KEY NOT NULL,\n\t`worktree` text NOT NULL,\n\t`vcs` text,\n\t`name` text,\n\t`icon_url` text,\n\t`icon_color` text,\n" +
	"\t`time_created` integer NOT NULL,\n\t`time_updated` integer NOT NULL,\n\t`time_initialized` integer,\n\t`sandboxes` text NOT NULL,\n\t`commands` text\n);\n" +
	"CREATE TABLE `session` (\n" +
	"\t`id` text PRIMARY KEY NOT NULL,\n\t`project_id` text NOT NULL,\n\t`parent_id` text,\n\t`slug` text NOT NULL,\n\t`directory` text NOT NULL,\n" +
	"\t`title` text NOT NULL,\n\t`version` text NOT NULL,\n\t`share_url` text,\n\t`summary_additions` integer,\n\t`summary_deletions` integer,\n" +
	"\t`summary_files` integer,\n\t`summary_diffs` text,\n\t`revert` text,\n\t`permission` text,\n\t`time_created` integer NOT NULL,\n" +
	"\t`time_updated` integer NOT NULL,\n\t`time_compacting` integer,\n\t`time_archived` integer,\n\t`workspace_id` text,\n" +
	"\tFOREIGN KEY (`project_id`) REFERENCES `project`(`id`) ON UPDATE no action ON DELETE cascade\n);\n" +
	"CREATE INDEX `session_project_idx` ON `session` (`project_id`);\n" +
	"CREATE INDEX `session_parent_idx` ON `session` (`parent_id`);\n" +
	"CREATE INDEX `session_workspace_idx` ON `session` (`workspace_id`);\n" +
	"CREATE TABLE `message` (\n" +
	"\t`id` text PRIMARY KEY NOT NULL,\n\t`session_id` text NOT NULL,\n\t`time_created` integer NOT NULL,\n\t`time_updated` integer NOT NULL,\n\t`data` text NOT NULL,\n" +
	"\tFOREIGN KEY (`session_id`) REFERENCES `session`(`id`) ON UPDATE no action ON DELETE cascade\n);\n" +
	"CREATE INDEX `message_session_time_created_id_idx` ON `message` (`session_id`,`time_created`,`id`);\n" +
	"CREATE TABLE `part` (\n" +
	"\t`id` text PRIMARY KEY NOT NULL,\n\t`message_id` text NOT NULL,\n\t`session_id` text NOT NULL,\n\t`time_created` integer NOT NULL,\n" +
	"\t`time_updated` integer NOT NULL,\n\t`data` text NOT NULL,\n" +
	"\tFOREIGN KEY (`message_id`) REFERENCES `message`(`id`) ON UPDATE no action ON DELETE cascade\n);\n" +
	"CREATE INDEX `part_message_id_id_idx` ON `part` (`message_id`,`id`);\n" +
	"CREATE INDEX `part_session_idx` ON `part` (`session_id`);\n" +
	"CREATE TABLE `todo` (\n" +
	"\t`session_id` text NOT NULL,\n\t`content` text NOT NULL,\n\t`status` text NOT NULL,\n\t`priority` text NOT NULL,\n\t`position` integer NOT NULL,\n" +
	"\t`time_created` integer NOT NULL,\n\t`time_updated` integer NOT NULL,\n\tPRIMARY KEY(`session_id`, `position`),\n" +
	"\tFOREIGN KEY (`session_id`) REFERENCES `session`(`id`) ON UPDATE no action ON DELETE cascade\n);\n" +
	"CREATE INDEX `todo_session_idx` ON `todo` (`session_id`);\n" +
	"CREATE TABLE `permission` (\n" +
	"\t`project_id` text PRIMARY KEY NOT NULL,\n\t`time_created` integer NOT NULL,\n\t`time_updated` integer NOT NULL,\n\t`data` text NOT NULL,\n" +
	"\tFOREIGN KEY (`project_id`) REFERENCES `project`(`id`) ON UPDATE no action ON DELETE cascade\n);\n" +
	"CREATE TABLE `session_share` (\n" +
	"\t`session_id` text PRIMARY KEY NOT NULL,\n\t`id` text NOT NULL,\n\t`secret` text NOT NULL,\n\t`url` text NOT NULL,\n" +
	"\t`time_created` integer NOT NULL,\n\t`time_updated` integer NOT NULL,\n" +
	"\tFOREIGN KEY (`session_id`) REFERENCES `session`(`id`) ON UPDATE no action ON DELETE cascade\n);\n" +
	// OpenCode 1.17 also keeps an event log that repeats every message
	// and part as it is updated (a real 1.17.3 database: 2.5 events a
	// row, 2.3 times the parts' bytes); recall does not read it.
	"CREATE TABLE `event_sequence` (\n\t`aggregate_id` text PRIMARY KEY,\n\t`seq` integer NOT NULL,\n\t`owner_id` text\n);\n" +
	"CREATE TABLE `event` (\n\t`id` text PRIMARY KEY,\n\t`aggregate_id` text NOT NULL,\n\t`seq` integer NOT NULL,\n\t`type` text NOT NULL,\n\t`data` text NOT NULL,\n" +
	"\tCONSTRAINT `fk_event_aggregate_id_event_sequence_aggregate_id_fk` FOREIGN KEY (`aggregate_id`) REFERENCES `event_sequence`(`aggregate_id`) ON DELETE CASCADE\n);\n"

// ocSession, ocMessage and ocPart are rows to insert.
type ocSession struct {
	id, parent, project, slug, dir, title string
	created, updated                      int64
}

type ocMessage struct {
	id, session      string
	created, updated int64
	data             []byte
}

type ocPart struct {
	id, message, session string
	created, updated     int64
	data                 []byte
}

// ocRows is what one planned session writes: its session rows (a
// subagent's too), messages and parts.
type ocRows struct {
	sessions []ocSession
	messages []ocMessage
	parts    []ocPart
	bytes    int64
}

func openCodeProjectID(cwd string) string {
	sum := sha256.Sum256([]byte("opencode project " + cwd))
	return hex.EncodeToString(sum[:20])
}

func writeOpenCode(c *agentContext, dir string, budget int64) (AgentSummary, error) {
	specs := planAgentSessions(c, agentShape{salt: saltOpenCode, median: openCodeMedianBytes, written: 1.6, least: 32 << 10}, budget)
	rows := make([]ocRows, len(specs))
	err := forEachIndex(len(specs), c.workers, func(i int) error {
		rows[i] = openCodeSession(c, &specs[i])
		return nil
	})
	if err != nil {
		return AgentSummary{}, err
	}
	path := filepath.Join(dir, openCodeDBName)
	s := AgentSummary{Projects: distinctProjects(specs)}
	if err := writeOpenCodeDB(path, c, specs, rows); err != nil {
		return s, err
	}
	for i := range rows {
		s.Sessions += len(rows[i].sessions)
		s.Subagents += len(rows[i].sessions) - 1
	}
	st, err := os.Stat(path)
	if err != nil {
		return s, errpath.Wrap("stat", path, err)
	}
	s.Files, s.Bytes = 1, st.Size()
	return s, nil
}

func writeOpenCodeDB(path string, c *agentContext, specs []agentSession, rows []ocRows) (err error) {
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		return errpath.Wrap("open", path, err)
	}
	defer func() {
		if cerr := db.Close(); err == nil && cerr != nil {
			err = errpath.Wrap("close", path, cerr)
		}
	}()
	db.SetMaxOpenConns(1)
	ctx := context.Background()
	for _, stmt := range []string{"PRAGMA journal_mode=DELETE", "PRAGMA synchronous=OFF", openCodeSchema} {
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	defer func() {
		if err != nil {
			tx.Rollback()
		}
	}()
	// A project row for each project with sessions, in project order.
	used := make([]bool, len(c.projects))
	first := make([]int64, len(c.projects))
	for i := range specs {
		p := specs[i].project
		ms := specs[i].start.UnixMilli()
		if !used[p] || ms < first[p] {
			first[p] = ms
		}
		used[p] = true
	}
	for p := range c.projects {
		if !used[p] {
			continue
		}
		if _, err = tx.ExecContext(ctx, "INSERT INTO project VALUES (?, ?, 'git', NULL, NULL, NULL, ?, ?, ?, '[]', NULL)",
			openCodeProjectID(c.projects[p].cwd), c.projects[p].cwd, first[p], first[p], first[p]); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	insSession, err := tx.PrepareContext(ctx, "INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, time_created, time_updated) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")
	if err != nil {
		return err
	}
	insMessage, err := tx.PrepareContext(ctx, "INSERT INTO message VALUES (?, ?, ?, ?, ?)")
	if err != nil {
		return err
	}
	insPart, err := tx.PrepareContext(ctx, "INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)")
	if err != nil {
		return err
	}
	for i := range rows {
		for _, s := range rows[i].sessions {
			var parent any
			if s.parent != "" {
				parent = s.parent
			}
			if _, err = insSession.ExecContext(ctx, s.id, s.project, parent, s.slug, s.dir, s.title, openCodeVersion, s.created, s.updated); err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
		}
		for _, m := range rows[i].messages {
			if _, err = insMessage.ExecContext(ctx, m.id, m.session, m.created, m.updated, string(m.data)); err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
		}
		for _, p := range rows[i].parts {
			if _, err = insPart.ExecContext(ctx, p.id, p.message, p.session, p.created, p.updated, string(p.data)); err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
		}
		if err = insertOpenCodeEvents(ctx, tx, &rows[i]); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	if err = tx.Commit(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// insertOpenCodeEvents writes the event log of one planned session: each
// message updated openCodeMessageEvents times and each part
// openCodePartEvents times (as they stream, then done), with the row's
// JSON as OpenCode's sync events carry it, and the session updated as
// each message is.
func insertOpenCodeEvents(ctx context.Context, tx *sql.Tx, rows *ocRows) error {
	seq := map[string]int64{}
	insert := func(session, typ, key string, data []byte) error {
		n := seq[session]
		seq[session] = n + 1
		body := `{"sessionID":"` + session + `","` + key + `":` + string(data) + `}`
		id := fmt.Sprintf("evt_%s%06d", strings.TrimPrefix(session, "ses_"), n)
		_, err := tx.ExecContext(ctx, "INSERT INTO event VALUES (?, ?, ?, ?, ?)", id, session, n, typ, body)
		return err
	}
	for _, s := range rows.sessions {
		if _, err := tx.ExecContext(ctx, "INSERT INTO event_sequence VALUES (?, 0, NULL)", s.id); err != nil {
			return err
		}
	}
	sessions := map[string]*ocSession{}
	for i := range rows.sessions {
		sessions[rows.sessions[i].id] = &rows.sessions[i]
	}
	for _, m := range rows.messages {
		for range openCodeMessageEvents {
			if err := insert(m.session, "message.updated.1", "info", m.data); err != nil {
				return err
			}
		}
		if err := insert(m.session, "session.updated.1", "info", openCodeSessionInfo(sessions[m.session], m.updated)); err != nil {
			return err
		}
	}
	for _, p := range rows.parts {
		for range openCodePartEvents {
			if err := insert(p.session, "message.part.updated.1", "part", p.data); err != nil {
				return err
			}
		}
	}
	for _, s := range rows.sessions {
		if _, err := tx.ExecContext(ctx, "UPDATE event_sequence SET seq = ? WHERE aggregate_id = ?", seq[s.id], s.id); err != nil {
			return err
		}
	}
	return nil
}

// openCodeSessionInfo is a session as a session.updated event carries
// it, updated at ms.
func openCodeSessionInfo(s *ocSession, ms int64) []byte {
	var w jsonWriter
	w.openObject()
	w.str("id", s.id)
	w.str("slug", s.slug)
	w.str("projectID", s.project)
	w.str("directory", s.dir)
	if s.parent != "" {
		w.str("parentID", s.parent)
	}
	w.str("title", s.title)
	w.str("version", openCodeVersion)
	w.object("summary")
	w.int("additions", 0)
	w.int("deletions", 0)
	w.int("files", 0)
	w.closeObject()
	w.object("time")
	w.int("created", s.created)
	w.int("updated", ms)
	w.closeObject()
	w.closeObject()
	return w.b
}

// openCodeSessionEventBytes is about what a session.updated event adds.
const openCodeSessionEventBytes = 450

// ocWriter builds the rows of one session.
type ocWriter struct {
	*agentBase
	rows      *ocRows
	sessionID string
	counter   int64
	model     string
	provider  string
}

// ascendingID imitates OpenCode's Identifier.ascending: a prefix, 12 hex
// digits of time and a counter, 14 random base62 characters.
func (ow *ocWriter) ascendingID(prefix string) string {
	ow.counter++
	v := uint64(ow.clock.UnixMilli())*0x1000 + uint64(ow.counter&0xfff)
	var b [12]byte
	putHex(b[:], v, 12)
	return prefix + "_" + string(b[:]) + randomFrom(ow.r, base62, 14)
}

// assistantInfo writes the fields every assistant message has, up to its
// cost and finish.
func (ow *ocWriter) assistantInfo(w *jsonWriter, created, completed int64, parent string) {
	w.str("role", "assistant")
	w.object("time")
	w.int("created", created)
	w.int("completed", completed)
	w.closeObject()
	w.str("parentID", parent)
	w.str("modelID", ow.model)
	w.str("providerID", ow.provider)
	w.str("mode", "build")
	w.str("agent", "build")
	w.object("path")
	w.str("cwd", ow.proj.cwd)
	w.str("root", ow.proj.cwd)
	w.closeObject()
}

func (ow *ocWriter) ms() int64 { return ow.clock.UnixMilli() }

func (ow *ocWriter) json(fill func(w *jsonWriter)) []byte {
	var w jsonWriter
	w.openObject()
	fill(&w)
	w.closeObject()
	return w.b
}

func (ow *ocWriter) message(created, updated int64, data []byte) string {
	id := ow.ascendingID("msg")
	ow.addMessage(ocMessage{id: id, session: ow.sessionID, created: created, updated: updated, data: data})
	return id
}

// addMessage adds a message row and counts what it and its events write.
func (ow *ocWriter) addMessage(m ocMessage) {
	ow.rows.messages = append(ow.rows.messages, m)
	ow.rows.bytes += int64(len(m.data) + 2*len(m.id))
	ow.rows.bytes += openCodeMessageEvents*int64(len(m.data)+64) + openCodeSessionEventBytes
}

func (ow *ocWriter) part(msg string, start, end int64, data []byte) {
	id := ow.ascendingID("prt")
	ow.rows.parts = append(ow.rows.parts, ocPart{id: id, message: msg, session: ow.sessionID, created: start, updated: end, data: data})
	ow.rows.bytes += int64(len(data) + 3*len(id))
	ow.rows.bytes += openCodePartEvents * int64(len(data)+64)
}

func (ow *ocWriter) textPart(msg, typ, text string, extra func(w *jsonWriter)) {
	start := ow.ms()
	ow.tick(100*time.Millisecond, 3*time.Second)
	end := ow.ms()
	ow.part(msg, start, end, ow.json(func(w *jsonWriter) {
		w.str("type", typ)
		w.str("text", text)
		w.object("time")
		w.int("start", start)
		w.int("end", end)
		w.closeObject()
		if extra != nil {
			extra(w)
		}
	}))
}

func openCodeSession(c *agentContext, spec *agentSession) ocRows {
	r := spec.rand(c.seed)
	proj := &c.projects[spec.project]
	rows := &ocRows{}
	ow := &ocWriter{agentBase: newAgentBase(c.text, r, proj, spec.start), rows: rows}
	ow.budget = spec.budget
	ow.provider, ow.model = "anthropic", pick(r, []string{"claude-sonnet-4-5", "claude-opus-4-5", "claude-haiku-4-5"})
	if r.IntN(4) == 0 {
		ow.provider, ow.model = "openai", pick(r, []string{"gpt-5", "gpt-5-codex"})
	}
	ow.sessionID = ow.ascendingID("ses")
	idx := len(rows.sessions)
	rows.sessions = append(rows.sessions, ocSession{
		id: ow.sessionID, project: openCodeProjectID(proj.cwd), slug: sessionNickname(r), dir: proj.cwd,
		title: truncateRunes(ow.topic.ident(r)+": "+lowerFirst(ow.topic.sentence(r)), 60), created: ow.ms(),
	})
	spawn := r.Float64() < openCodeSubagentShare || spec.index == 1
	for turns := 0; keepGoing(turns, rows.bytes, 0, spec.budget); turns++ {
		if turns > 0 {
			ow.tick(20*time.Second, 30*time.Minute)
		}
		ow.turn(spawn && turns == 0)
	}
	rows.sessions[idx].updated = ow.ms()
	return *rows
}

func (ow *ocWriter) userMessage(text string) string {
	ow.tick(time.Second, 20*time.Second)
	created := ow.ms()
	id := ow.message(created, created, ow.json(func(w *jsonWriter) {
		w.str("role", "user")
		w.object("time")
		w.int("created", created)
		w.closeObject()
		w.str("agent", "build")
		w.object("model")
		w.str("providerID", ow.provider)
		w.str("modelID", ow.model)
		w.closeObject()
	}))
	ow.textPart(id, "text", text, nil)
	return id
}

func (ow *ocWriter) turn(spawn bool) {
	r := ow.r
	parent := ow.userMessage(ow.topic.typedPrompt(r, ow.proj))
	if spawn {
		parent = ow.subtask(parent)
	}
	for range ow.toolRounds() {
		if ow.spent(ow.rows.bytes) {
			break
		}
		acts := make([]action, 1+r.IntN(2))
		for i := range acts {
			acts[i] = ow.nextOpenCodeAction()
		}
		lead := ""
		if r.IntN(2) == 0 {
			lead = ow.topic.assistantLeadIn(r)
		}
		ow.step(parent, lead, acts, "tool-calls")
	}
	ow.step(parent, ow.topic.assistantAnswer(r), nil, "stop")
}

// step writes one assistant message: one model call, its text and its
// tool calls, between step-start and step-finish parts.
func (ow *ocWriter) step(parent, text string, acts []action, finish string) {
	r := ow.r
	ow.tick(time.Second, 8*time.Second)
	created := ow.ms()
	snapshot := randomHex(r, 40)
	var parts []func(msg string)
	parts = append(parts, func(msg string) {
		ow.part(msg, ow.ms(), ow.ms(), ow.json(func(w *jsonWriter) {
			w.str("type", "step-start")
			w.str("snapshot", snapshot)
		}))
	})
	// Real steps reason first, nine in ten of them, 800 bytes on average.
	if r.IntN(10) < 9 {
		thought := ow.reasoningText()
		parts = append(parts, func(msg string) { ow.textPart(msg, "reasoning", thought, nil) })
	}
	if text != "" {
		parts = append(parts, func(msg string) { ow.textPart(msg, "text", text, nil) })
	}
	var edited []string
	for _, act := range acts {
		parts = append(parts, func(msg string) { ow.toolPart(msg, act) })
		if act.kind == "edit" || act.kind == "write" {
			edited = append(edited, act.path)
		}
	}
	in, out := int64(2000+r.IntN(80000)), int64(20+r.IntN(2000))
	cost := float64(in)*3e-6 + float64(out)*15e-6
	tokens := func(w *jsonWriter) {
		w.object("tokens")
		w.int("input", in)
		w.int("output", out)
		w.int("reasoning", 0)
		w.object("cache")
		w.int("read", in*int64(r.IntN(90))/100)
		w.int("write", 0)
		w.closeObject()
		w.closeObject()
	}
	if len(edited) > 0 {
		parts = append(parts, func(msg string) {
			ow.part(msg, ow.ms(), ow.ms(), ow.json(func(w *jsonWriter) {
				w.str("type", "patch")
				w.str("hash", randomHex(r, 40))
				w.strings("files", edited)
			}))
		})
	}
	parts = append(parts, func(msg string) {
		ow.part(msg, ow.ms(), ow.ms(), ow.json(func(w *jsonWriter) {
			w.str("type", "step-finish")
			w.str("reason", finish)
			w.str("snapshot", snapshot)
			w.float("cost", float64(int64(cost*1e6))/1e6)
			tokens(w)
		}))
	})
	// The message row is written when the step ends; its parts refer to
	// its id, so the id is drawn first.
	msg := ow.ascendingID("msg")
	for _, p := range parts {
		p(msg)
	}
	completed := ow.ms()
	data := ow.json(func(w *jsonWriter) {
		ow.assistantInfo(w, created, completed, parent)
		w.float("cost", float64(int64(cost*1e6))/1e6)
		tokens(w)
		w.str("finish", finish)
	})
	ow.addMessage(ocMessage{id: msg, session: ow.sessionID, created: created, updated: completed, data: data})
}

// reasoningText is a step's reasoning: a thought or a few.
func (ow *ocWriter) reasoningText() string {
	var b strings.Builder
	for i := range 1 + ow.r.IntN(3) {
		if i > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(ow.topic.thinkingText(ow.r))
	}
	return b.String()
}

// nextOpenCodeAction draws a tool call the size OpenCode's are in a
// real database: reads of whole screens of a file (its read tool takes
// up to 2000 lines), edits of a block with its context, new files of a
// few KB.
func (ow *ocWriter) nextOpenCodeAction() action {
	act := ow.nextAction()
	switch act.kind {
	case "read":
		ow.windowRead(&act, 40, 300)
	case "edit":
		ow.blockEdit(&act, 3, 50)
	case "write":
		act.content = ow.fileText(2<<10 + ow.r.IntN(12<<10))
	}
	return act
}

func (ow *ocWriter) toolPart(msg string, act action) {
	r := ow.r
	start := ow.ms()
	ow.tick(200*time.Millisecond, 10*time.Second)
	end := ow.ms()
	var tool, title string
	var input, metadata func(w *jsonWriter)
	output := act.output
	switch act.kind {
	case "read":
		tool, title = "read", ow.rel(act.path)
		input = func(w *jsonWriter) {
			w.str("filePath", act.path)
			if act.n > 0 {
				w.int("offset", int64(act.from-1))
				w.int("limit", int64(act.n))
			}
		}
		var b strings.Builder
		b.WriteString("<file>\n")
		n := max(act.from, 1)
		for line := range strings.Lines(act.output) {
			b.WriteString(fmt.Sprintf("%05d| ", n) + line)
			n++
		}
		b.WriteString("\n</file>")
		output = b.String()
		metadata = func(w *jsonWriter) {
			w.str("preview", firstLines(act.output, 20))
			w.bool("truncated", false)
		}
	case "shell":
		tool, title = "bash", act.command
		input = func(w *jsonWriter) {
			w.str("command", act.command)
			w.str("description", act.description)
		}
		output = openCodeBashOutput(act.output)
		metadata = func(w *jsonWriter) {
			w.str("output", output)
			w.int("exit", int64(act.exitCode))
			w.str("description", act.description)
		}
	case "grep":
		tool, title = "grep", act.pattern
		input = func(w *jsonWriter) { w.str("pattern", act.pattern) }
		metadata = func(w *jsonWriter) { w.int("matches", int64(strings.Count(act.output, "\n"))) }
	case "glob":
		tool, title = "glob", act.pattern
		input = func(w *jsonWriter) { w.str("pattern", act.pattern) }
		metadata = func(w *jsonWriter) { w.int("count", int64(strings.Count(act.output, "\n")+1)) }
	case "edit", "write":
		tool, title = act.kind, ow.rel(act.path)
		if act.kind == "edit" {
			input = func(w *jsonWriter) {
				w.str("filePath", act.path)
				w.str("oldString", act.oldText)
				w.str("newString", act.newText)
			}
			output = "Edit applied successfully."
		} else {
			input = func(w *jsonWriter) {
				w.str("filePath", act.path)
				w.str("content", act.content)
			}
			output = "Wrote file successfully."
		}
		diff := ow.patchText(&act)
		metadata = func(w *jsonWriter) {
			w.object("diagnostics")
			w.closeObject()
			if act.kind == "write" { // real ones hold no diff of a new file
				w.str("filepath", act.path)
				w.bool("exists", false)
				w.bool("truncated", false)
				return
			}
			w.str("diff", diff)
			w.object("filediff")
			w.str("file", act.path)
			w.str("patch", diff)
			w.int("additions", int64(strings.Count(diff, "\n+")))
			w.int("deletions", int64(strings.Count(diff, "\n-")))
			w.closeObject()
			w.bool("truncated", false)
		}
	default:
		tool, title = "todowrite", strconv.Itoa(len(act.todos))+" todos"
		todos := func(w *jsonWriter, k string) {
			w.array(k)
			for i, t := range act.todos {
				w.openObject()
				w.str("content", t)
				w.str("status", []string{"completed", "in_progress", "pending"}[min(i, 2)])
				w.str("priority", "medium")
				w.str("id", strconv.Itoa(i+1))
				w.closeObject()
			}
			w.closeArray()
		}
		input = func(w *jsonWriter) { todos(w, "todos") }
		metadata = func(w *jsonWriter) { todos(w, "todos") }
		output = "Todo list updated."
	}
	ow.part(msg, start, end, ow.json(func(w *jsonWriter) {
		w.str("type", "tool")
		w.str("callID", newToolUseID(r))
		w.str("tool", tool)
		w.object("state")
		w.str("status", "completed")
		w.object("input")
		input(w)
		w.closeObject()
		w.str("output", output)
		w.str("title", title)
		w.object("metadata")
		metadata(w)
		w.closeObject()
		w.object("time")
		w.int("start", start)
		w.int("end", end)
		w.closeObject()
		w.closeObject()
	}))
}

// openCodeBashMax is where OpenCode's bash tool cuts a command's output.
const openCodeBashMax = 30000

// openCodeBashOutput is a command's output as OpenCode keeps it: cut at
// openCodeBashMax characters (at a line's end), with a note.
func openCodeBashOutput(out string) string {
	if len(out) <= openCodeBashMax {
		return out
	}
	return out[:strings.LastIndexByte(out[:openCodeBashMax], '\n')+1] + "\n\n<bash_metadata>\nbash tool truncated output as it exceeded 30000 char limit\n</bash_metadata>"
}

// subtask writes a task tool call that ran a subagent in a child
// session, and the child session's rows; it returns the id of the
// message the rest of the turn answers.
func (ow *ocWriter) subtask(parent string) string {
	r := ow.r
	prompt := "Find where " + ow.topic.ident(r) + " is handled and summarize the relevant code. " + ow.topic.sentence(r)
	description := truncateRunes("Explore "+ow.topic.ident(r), 40)
	child := &ocWriter{agentBase: &agentBase{r: r, topic: ow.topic, proj: ow.proj, clock: ow.clock.Add(time.Second), tools: ow.tools}, rows: ow.rows, model: ow.model, provider: ow.provider}
	child.counter = ow.counter
	child.sessionID = child.ascendingID("ses")
	idx := len(ow.rows.sessions)
	ow.rows.sessions = append(ow.rows.sessions, ocSession{
		id: child.sessionID, parent: ow.sessionID, project: openCodeProjectID(ow.proj.cwd), slug: sessionNickname(r), dir: ow.proj.cwd,
		title: description + " (@general subagent)", created: child.ms(),
	})
	childParent := child.userMessage(prompt)
	for range 1 + r.IntN(4) {
		child.step(childParent, "", []action{child.nextOpenCodeAction()}, "tool-calls")
	}
	report := child.topic.assistantAnswer(r)
	child.step(childParent, report, nil, "stop")
	ow.rows.sessions[idx].updated = child.ms()
	ow.counter = child.counter
	// The parent's step holding the task call, which ends when the child does.
	start := ow.ms()
	ow.clock = child.clock.Add(500 * time.Millisecond)
	msg := ow.ascendingID("msg")
	ow.part(msg, start, ow.ms(), ow.json(func(w *jsonWriter) {
		w.str("type", "tool")
		w.str("callID", newToolUseID(r))
		w.str("tool", "task")
		w.object("state")
		w.str("status", "completed")
		w.object("input")
		w.str("description", description)
		w.str("prompt", prompt)
		w.str("subagent_type", "general")
		w.closeObject()
		w.str("output", report)
		w.str("title", description)
		w.object("metadata")
		w.str("sessionId", child.sessionID)
		w.closeObject()
		w.object("time")
		w.int("start", start)
		w.int("end", ow.ms())
		w.closeObject()
		w.closeObject()
	}))
	data := ow.json(func(w *jsonWriter) {
		ow.assistantInfo(w, start, ow.ms(), parent)
		w.str("finish", "tool-calls")
	})
	ow.addMessage(ocMessage{id: msg, session: ow.sessionID, created: start, updated: ow.ms(), data: data})
	return parent
}
