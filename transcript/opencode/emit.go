package opencode

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"

	"github.com/recall-dev/recall/filter"
	"github.com/recall-dev/recall/record"
	"github.com/recall-dev/recall/transcript"
)

// session is what rows need of an OpenCode session.
type session struct {
	id, parent, project, directory, title string
	// cwd is the folder the first of its messages that names one ran
	// in: its project folder when the session names none.
	cwd              string
	created, updated int64
}

// noteCwd sets s.cwd from msgs.
func (s *session) noteCwd(msgs []message) {
	for i := range msgs {
		if c := msgs[i].info.Path.Cwd; c != "" {
			s.cwd = c
			return
		}
	}
}

// message is a message with its parts, in their order (by id: OpenCode's
// ids ascend).
type message struct {
	id               string
	line             int
	created, updated int64 // its row's time columns (0 in the JSON storage)
	info             messageInfo
	bad              bool // its data is not a message: its parts make no row
	// noise: a message of OpenCode's own (2.x: a synthetic or system
	// message, a compaction, a switch of agent or model); copied: a copy
	// 2.x made of a 1.x message its old tables still hold.
	noise, copied bool
	parts         []part
}

// part is one part of a message.
type part struct {
	id               string
	line             int
	created, updated int64 // its row's time columns (0 in the JSON storage)
	data             partData
	raw              []byte // its data, kept only to derive an id it lacks
	bad              bool   // its data is not a part
}

// Windows within which a message without its end is taken for one still
// being written. OpenCode writes a message's parts as they stream and
// marks an assistant message complete (time.completed) once its turn
// ends; a process killed on the way leaves it incomplete for good.
const (
	// staleAfter: an incomplete message unchanged this long was left so
	// and is read as it is (a turn can run for hours with subagents).
	staleAfter = 24 * 60 * 60 * 1000
	// settleAfter: a prompt is written as a message and then its parts,
	// in separate writes; one this fresh may still lack some.
	settleAfter = 60 * 1000
)

// pending reports whether m is still being written: an assistant message
// not yet complete, or a message with a tool call still pending or
// running.
func (m *message) pending() bool {
	if m.info.Role == "assistant" && m.info.Time.Completed == 0 {
		return true
	}
	for i := range m.parts {
		if p := &m.parts[i]; p.data.Type == "tool" && (p.data.State.Status == "pending" || p.data.State.Status == "running") {
			return true
		}
	}
	return false
}

// lastChange is the latest time m or a part of it says it was written.
func (m *message) lastChange() int64 {
	t := max(m.created, m.updated, int64(m.info.Time.Created), int64(m.info.Time.Completed))
	for i := range m.parts {
		p := &m.parts[i]
		t = max(t, p.created, p.updated, int64(p.data.Time.Start), int64(p.data.Time.End),
			int64(p.data.State.Time.Start), int64(p.data.State.Time.End))
	}
	return t
}

// firstTime is when m was made: what a read that must take it again
// starts after.
func (m *message) firstTime() int64 {
	if m.created > 0 {
		return m.created
	}
	return int64(m.info.Time.Created)
}

// judge says what a read does with message m, the last of its session
// when last: skip it (it is still being written: a later read takes it
// whole), and whether the next read must take it again (hold).
func judge(m *message, last bool, now int64) (skip, hold bool) {
	if !last {
		return false, false // a message came after it: it is done, or never will be
	}
	age := now - m.lastChange()
	if m.pending() && age < staleAfter {
		return true, true
	}
	return false, m.info.Role == "user" && age < settleAfter
}

// rowSink is what an emitter makes rows through: a transcript.Builder in
// the process that indexes, or the wire to it (wireWriter) in
// recall-opencode.
type rowSink interface {
	Text(m transcript.Meta, role, text string)
	Tool(m transcript.Meta, name string, input []byte)
	Title(m transcript.Meta, kind, title string)
	Drop(reason filter.Reason)
	Redact(text string) string
}

// emitter makes the rows of sessions through a rowSink.
type emitter struct {
	b        rowSink
	sessions map[string]*session
	// worktrees are the projects' folders by project id: a session's
	// project when it names no folder of its own.
	worktrees map[string]string
	projects  map[string]string // redacted project folder by session id
}

// root is the id of the session s descends from (its own if it has no
// parent): a subagent's rows are its root session's.
func (e *emitter) root(s *session) string {
	id, parent := s.id, s.parent
	for range maxDepth {
		if parent == "" || parent == id {
			return id
		}
		p, ok := e.sessions[parent]
		if !ok {
			return parent // its parent is gone: the parent's id is all there is
		}
		id, parent = p.id, p.parent
	}
	return id
}

// maxDepth bounds a chain of parents (a loop in a hostile database).
const maxDepth = 64

// project is s's project folder, redacted: the session's directory, else
// the folder its messages ran in, else its project's worktree (but the
// global project's, "/").
func (e *emitter) project(s *session) string {
	if p, ok := e.projects[s.id]; ok {
		return p
	}
	dir := s.directory
	if dir == "" {
		dir = s.cwd
	}
	if wt := e.worktrees[s.project]; dir == "" && wt != "/" {
		dir = wt
	}
	if dir != "" {
		dir = e.b.Redact(dir)
	}
	if e.projects == nil {
		e.projects = map[string]string{}
	}
	e.projects[s.id] = dir
	return dir
}

// title keeps the title OpenCode gave root session s. A subagent's
// session is titled by the task it was given (its prompt holds it); its
// rows are another session's, which that title does not name. The row
// has no line: it is no part of a message (a database's lines are its
// parts' rowids).
func (e *emitter) title(s *session) {
	if s.parent != "" || s.title == "" || isDefaultTitle(s.title) {
		return
	}
	e.b.Title(transcript.Meta{Session: s.id, Project: e.project(s), Timestamp: stamp(s.created),
		UUID: s.id, Entrypoint: entrypoint}, record.TitleAI, s.title)
}

// message makes the rows of m, a message of session s.
func (e *emitter) message(s *session, m *message) {
	switch {
	case m.bad:
		e.b.Drop(filter.BadLine)
		return
	case m.copied:
		e.b.Drop(filter.Copy)
		return
	case m.noise:
		e.b.Drop(filter.Noise)
		return
	}
	meta := transcript.Meta{Session: e.root(s), Project: e.project(s), Entrypoint: entrypoint}
	if meta.Session != s.id {
		meta.Subagent = s.id
	}
	role := m.info.Role
	for i := range m.parts {
		p := &m.parts[i]
		if p.bad {
			e.b.Drop(filter.BadLine)
			continue
		}
		meta.UUID, meta.Line = partID(m, p, i), p.line
		meta.Timestamp = stamp(partTime(m, p))
		switch d := &p.data; d.Type {
		case "text":
			switch {
			case bool(d.Synthetic) || bool(d.Ignored):
				e.b.Drop(filter.Noise) // OpenCode's own text in a prompt (a file read for it, a reminder)
			case role == "assistant" && bool(m.info.Summary):
				e.b.Drop(filter.Noise) // a compaction's summary of the conversation
			case role == "user" || role == "assistant":
				e.b.Text(meta, role, d.Text)
			default:
				e.b.Drop(filter.Noise)
			}
		case "tool":
			// A call still pending or running in a message that is done
			// was cut short: nothing ran.
			if d.State.Status == "completed" || d.State.Status == "error" {
				e.b.Tool(meta, d.Tool, toolInput(d.State.Input))
			}
		case "subtask", "compaction":
			// A subagent's task as the user's prompt (the subagent's
			// session holds it as its own), a compaction's request.
			e.b.Drop(filter.Noise)
		}
		// reasoning, file, agent, step-start, step-finish, patch,
		// snapshot, retry and types to come make no row.
	}
}

// partID is p's id, the row's UUID. A part without one (a hostile
// database) gets one derived from its message's id, its place and its
// data, the same in every read of the same content.
func partID(m *message, p *part, i int) string {
	if p.id != "" {
		return p.id
	}
	h := sha256.New()
	h.Write([]byte(m.id))
	h.Write([]byte{0})
	h.Write([]byte(strconv.Itoa(i)))
	h.Write([]byte{0})
	h.Write(p.raw)
	return "prt_recall_" + hex.EncodeToString(h.Sum(nil)[:12])
}

// partTime is when p was written: its own start, else its row's, else
// its message's.
func partTime(m *message, p *part) int64 {
	for _, t := range []int64{int64(p.data.Time.Start), int64(p.data.State.Time.Start), p.created,
		int64(p.data.Time.Created), int64(m.info.Time.Created), m.created} {
		if t > 0 {
			return t
		}
	}
	return 0
}
