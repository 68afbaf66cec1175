package show

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/recall-dev/recall/search"

	"github.com/recall-dev/recall/internal/problem"
	"github.com/recall-dev/recall/store/snapshot"

	"github.com/recall-dev/recall/store/manifest"

	"github.com/recall-dev/recall/query"
	"github.com/recall-dev/recall/rank"
	"github.com/recall-dev/recall/record"
)

// DefaultContext is how many messages `recall show` prints before and
// after the one it is asked for (-C).
const DefaultContext = 5

// Params is a `recall show` as a caller states it: the CLI from its
// arguments, the MCP server from a tool call. Request checks it and
// applies the defaults, so both get the same.
type Params struct {
	// Session is a session id, a unique prefix of one, or a transcript
	// path (the evidence a search prints); any of them may end in :LINE.
	Session string
	// Line is the transcript line to centre on; 0 takes the :LINE of
	// Session, if any.
	Line int
	// Context is the messages shown before and after: nil
	// DefaultContext.
	Context *int
	// Full shows the whole session.
	Full bool
	// Query holds the words of the search the session came from: they are
	// highlighted, and without a line the first message that matches them
	// is the one shown.
	Query string
}

// Request is a checked ShowParams.
type Request struct {
	Target  string // session id or prefix, or a transcript path (Path)
	Path    bool
	Line    int // 0: none
	Context int
	Full    bool
	Query   *query.Query // nil: none
}

// Request checks p and applies the defaults.
func (p Params) Request() (Request, error) {
	target, line := splitLine(strings.TrimSpace(p.Session))
	if p.Line != 0 {
		line = p.Line
	}
	if target == "" {
		return Request{}, errors.New("show: give a session id (a prefix is enough) or a transcript path, optionally with :LINE")
	}
	if line < 0 {
		return Request{}, fmt.Errorf("show: line %d: lines count from 1", line)
	}
	context := DefaultContext
	if p.Context != nil {
		if *p.Context < 0 {
			return Request{}, fmt.Errorf("-C/--context %d: must not be negative", *p.Context)
		}
		if *p.Context > search.MaxShowContext {
			return Request{}, fmt.Errorf("-C/--context %d: at most %d messages before and after (--full shows the whole session)", *p.Context, search.MaxShowContext)
		}
		context = *p.Context
	}
	req := Request{Target: target, Path: isPath(target), Line: line, Context: context, Full: p.Full}
	if strings.TrimSpace(p.Query) != "" {
		q, err := query.ParseQuery([]string{p.Query}, nil, nil, query.MatchOptions{})
		if err != nil {
			return Request{}, fmt.Errorf("--query: %w", err)
		}
		req.Query = q
	}
	return req, nil
}

// splitLine splits "TARGET:LINE"; a suffix that is not a number is part
// of the target.
func splitLine(s string) (string, int) {
	i := strings.LastIndexByte(s, ':')
	if i < 0 {
		return s, 0
	}
	n, err := strconv.Atoi(s[i+1:])
	if err != nil || n <= 0 {
		return s, 0
	}
	return s[:i], n
}

func isPath(s string) bool {
	return strings.ContainsRune(s, filepath.Separator) || strings.HasSuffix(s, ".jsonl")
}

// Shown is the part of a session `recall show` prints.
type Shown struct {
	Session string
	Project string
	// Source is the session's main transcript (its first transcript if it
	// has no main one); TranscriptExists says whether it is still on
	// disk. Either way the messages come from the index.
	Source           string
	TranscriptExists bool
	// Title is the name the session was given, "" if none; Headless says
	// every message of it is from a headless run (`claude -p`, an SDK).
	Title       string
	Headless    bool
	Agent       string // the coding agent whose session it is (record.Agents names)
	First, Last time.Time
	Total       int // messages in the session
	Start       int // 0-based position of Messages[0] in the session
	Messages    []Message
	// Query is the search whose words are highlighted, nil for none.
	Query *query.Query
	// Notes say how the request was read (a line that holds no message,
	// a query nothing matched); Warnings what could not be read, each a
	// problem.Problem the front end words (Say).
	Notes    []string
	Warnings []error
}

// Message is one message of a Shown session.
type Message struct {
	record.Row
	Time       time.Time   // zero when the row's time does not parse
	Hit        bool        // the message asked for (by line or query)
	Highlights []rank.Span // byte ranges of Text matching the query
}

// Session reads a session from the index, never from its transcript, so it
// works after Claude Code deleted the transcript. m is the committed
// manifest (store.Index.Manifest): it resolves prefixes and paths and says
// whether transcripts are gone.
func Session(snap *snapshot.Snapshot, m *manifest.Manifest, req Request) (*Shown, error) {
	id, source, err := resolveTarget(m, snap, req)
	if err != nil {
		return nil, err
	}
	read, err := snap.ReadSession(id)
	if err != nil {
		return nil, fmt.Errorf("read session %s: %w", id, err)
	}
	rows, title := splitTitles(sessionOrder(read.Rows))
	if len(rows) == 0 {
		return nil, fmt.Errorf("%w: %s has no readable rows", manifest.ErrNoSession, id)
	}
	sh := &Shown{Session: id, Total: len(rows), Query: req.Query, Warnings: readWarnings(read), Title: title, Headless: allHeadless(rows), Agent: agentOfRows(rows)}
	sh.Project = rows[0].Project
	sh.Source, sh.TranscriptExists = mainTranscript(m, id, rows)
	msgs := make([]Message, len(rows))
	for i := range rows {
		msgs[i] = Message{Row: rows[i]}
		msgs[i].Time, _ = time.Parse(time.RFC3339Nano, rows[i].Timestamp)
		sh.noteTime(msgs[i].Time)
		if req.Query != nil {
			msgs[i].Highlights = queryHighlights(req.Query, rows[i].Text)
		}
	}
	hit := sh.pickHit(msgs, req, source)
	from, to := 0, len(msgs)
	if !req.Full {
		from, to = window(hit, len(msgs), req.Context)
	}
	if hit >= 0 {
		msgs[hit].Hit = true
	}
	sh.Start, sh.Messages = from, msgs[from:to]
	return sh, nil
}

// splitTitles takes a session's title rows out of its messages and
// returns the title they name: the latest of the strongest kind
// (record.TitleRank), "" if none.
func splitTitles(rows []record.Row) ([]record.Row, string) {
	msgs := rows[:0:0]
	title, best := "", 0
	for _, r := range rows {
		if r.Type != record.TypeTitle {
			msgs = append(msgs, r)
			continue
		}
		if rank := record.TitleRank(r.Role); rank >= best && rank > 0 {
			title, best = r.Text, rank
		}
	}
	return msgs, title
}

// agentOfRows is the agent of a session's rows: its first's.
func agentOfRows(rows []record.Row) string {
	if len(rows) == 0 {
		return record.AgentClaude
	}
	return record.AgentOf(rows[0].Agent)
}

// allHeadless reports whether every row is from a headless run.
func allHeadless(rows []record.Row) bool {
	for i := range rows {
		if !rows[i].Headless() {
			return false
		}
	}
	return len(rows) > 0
}

func (sh *Shown) noteTime(t time.Time) {
	if t.IsZero() {
		return
	}
	if sh.First.IsZero() || t.Before(sh.First) {
		sh.First = t
	}
	if t.After(sh.Last) {
		sh.Last = t
	}
}

// SessionOf resolves a session argument as Show reads it (an id, a unique
// prefix, or a transcript path, optionally with :LINE) to a session id.
// snap, when not nil, also knows the sessions of files that hold many
// (resolveTarget).
func SessionOf(m *manifest.Manifest, snap *snapshot.Snapshot, arg string) (string, error) {
	target, _ := splitLine(strings.TrimSpace(arg))
	id, _, err := resolveTarget(m, snap, Request{Target: target, Path: isPath(target)})
	return id, err
}

// resolveTarget finds the session a request names, and the transcript
// when it names one by path. The manifest knows each session file's
// session; a file that holds many (an OpenCode database, an Aider chat
// history) names only the last it read, so an id the manifest does not
// know whole is looked up among the sessions the rows hold (snap).
func resolveTarget(m *manifest.Manifest, snap *snapshot.Snapshot, req Request) (id, source string, err error) {
	if !req.Path {
		id, err = m.ResolveSession(req.Target)
		if snap != nil && (err != nil || id != req.Target) {
			if rid, rerr := snap.ResolveSession(req.Target); rerr == nil || !errors.Is(rerr, manifest.ErrNoSession) {
				return rid, "", rerr
			}
		}
		if errors.Is(err, manifest.ErrNoSession) {
			if fid, ok := byFileID(m, req.Target); ok {
				return fid, "", nil
			}
			if snap != nil {
				if cid, ok := byChildSession(snap, req.Target); ok {
					return cid, "", nil
				}
			}
		}
		return id, "", err
	}
	path := req.Target
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	f := m.File(path)
	if (f == nil || f.Rows == 0) && !strings.ContainsRune(req.Target, filepath.Separator) {
		return byBaseName(m, req.Target)
	}
	if f == nil || f.Rows == 0 {
		return "", "", fmt.Errorf("%w: no indexed transcript %s", manifest.ErrNoSession, req.Target)
	}
	return f.Session, path, nil
}

// byBaseName finds the indexed transcript a bare file name names (the
// name of a session's transcript is its id): the one whose name it is,
// wherever it lies.
func byBaseName(m *manifest.Manifest, name string) (id, source string, err error) {
	var found []*record.FileState
	for path, f := range m.Files() {
		if f.Rows > 0 && filepath.Base(path) == name {
			found = append(found, f)
		}
	}
	switch len(found) {
	case 0:
		return "", "", fmt.Errorf("%w: no indexed transcript %s", manifest.ErrNoSession, name)
	case 1:
		return found[0].Session, found[0].Path, nil
	}
	paths := make([]string, len(found))
	for i, f := range found {
		paths[i] = f.Path
	}
	sort.Strings(paths)
	return "", "", fmt.Errorf("%d indexed transcripts are named %s: give its path (%s)", len(found), name, strings.Join(paths, ", "))
}

// byFileID finds the session of the one transcript whose name ends with
// an id that starts with prefix, when that is not its session's id: a
// Codex subagent thread's rollout (rollout-<time>-<thread id>.jsonl),
// whose rows are its parent's session, as a Claude Code subagent's are.
// Its thread id is what Codex shows for it.
func byFileID(m *manifest.Manifest, prefix string) (string, bool) {
	if len(prefix) < minFileIDPrefix {
		return "", false
	}
	found := ""
	for path, f := range m.Files() {
		id := record.TrailingUUID(filepath.Base(path))
		if f.Rows == 0 || id == "" || id == f.Session || !strings.HasPrefix(id, prefix) {
			continue
		}
		if found != "" && found != f.Session {
			return "", false // several: ResolveSession's error stands
		}
		found = f.Session
	}
	return found, found != ""
}

// byChildSession finds the session whose rows hold those of the one
// child session whose id starts with prefix: an OpenCode subagent's
// session (a child of its parent's, which OpenCode shows and opens by
// its own id) is read into its parent's, its id the rows' agent. Only an
// id the sessions do not know is looked for, and only in OpenCode's
// sessions, each read whole.
func byChildSession(snap *snapshot.Snapshot, prefix string) (string, bool) {
	if len(prefix) < minFileIDPrefix {
		return "", false
	}
	sums, err := snap.SessionSummaries()
	if err != nil {
		return "", false
	}
	found := ""
	for i := range sums {
		if sums[i].Agent != record.AgentOpenCode {
			continue
		}
		read, err := snap.ReadSession(sums[i].ID)
		if err != nil {
			return "", false
		}
		for _, r := range read.Rows {
			if !strings.HasPrefix(r.AgentID, prefix) {
				continue
			}
			if found != "" && found != sums[i].ID {
				return "", false // children of several sessions: the error stands
			}
			found = sums[i].ID
			break
		}
	}
	return found, found != ""
}

// minFileIDPrefix is the shortest prefix byFileID takes: a few
// characters would name a file by chance.
const minFileIDPrefix = 8

func readWarnings(r *snapshot.SessionRead) []error {
	var out []error
	if r.Damaged > 0 {
		out = append(out, problem.RowsSkipped(fmt.Errorf("%d damaged rows blocks were skipped, the session may miss messages (%s)", r.Damaged, r.DamageExample)))
	}
	if r.BadRows > 0 {
		out = append(out, problem.BadRows(r.BadRows))
	}
	return out
}

// sessionOrder puts a session's rows in conversation order: each
// transcript's rows stay in file order (timestamps can go backwards
// inside a transcript), and the transcripts (the main one, subagents) are
// merged by time, so a subagent's messages sit where they happened.
func sessionOrder(rows []record.Row) []record.Row {
	var groups [][]record.Row
	at := map[string]int{}
	for _, r := range rows {
		g, ok := at[r.Source]
		if !ok {
			g = len(groups)
			at[r.Source] = g
			groups = append(groups, nil)
		}
		groups[g] = append(groups[g], r)
	}
	out := make([]record.Row, 0, len(rows))
	next := make([]int, len(groups))
	for len(out) < len(rows) {
		best := -1
		for g := range groups {
			if next[g] == len(groups[g]) {
				continue
			}
			if best < 0 || groups[g][next[g]].Timestamp < groups[best][next[best]].Timestamp {
				best = g
			}
		}
		out = append(out, groups[best][next[best]])
		next[best]++
	}
	return out
}

// mainTranscript names the session's main transcript and whether it is
// still on disk (the manifest says whether it was gone at the last index
// run; a stat says whether it is gone now).
func mainTranscript(m *manifest.Manifest, id string, rows []record.Row) (string, bool) {
	if files := m.SessionFiles()[id]; len(files) > 0 {
		return files[0].Path, !files[0].Gone && onDisk(files[0].Path)
	}
	return rows[0].Source, onDisk(rows[0].Source)
}

// pickHit is the position of the message asked for, -1 for none: the row
// at the line (in the named transcript, else the main one, else any), the
// nearest row after it when the line holds none, or the first message
// matching the query.
func (sh *Shown) pickHit(msgs []Message, req Request, source string) int {
	if req.Line > 0 {
		if source == "" {
			source = lineSource(msgs, req.Line, sh.Source)
		}
		return sh.atLine(msgs, source, req.Line)
	}
	if req.Query == nil {
		return -1
	}
	for i := range msgs {
		if len(msgs[i].Highlights) > 0 && req.Query.MatchMessage([]byte(msgs[i].Text)) {
			return i
		}
	}
	sh.Notes = append(sh.Notes, fmt.Sprintf("no message of the session matches %s; showing its start", search.QueryTitle(req.Query)))
	return -1
}

// lineSource picks the transcript a bare :LINE refers to: the main one
// when a row of it is at that line, else the first that has one.
func lineSource(msgs []Message, line int, main string) string {
	first := ""
	for i := range msgs {
		if msgs[i].Line != line {
			continue
		}
		if msgs[i].Source == main {
			return main
		}
		if first == "" {
			first = msgs[i].Source
		}
	}
	if first == "" {
		return main
	}
	return first
}

// atLine finds the row of source at line, else the first row of source
// after it, else its last row before it.
func (sh *Shown) atLine(msgs []Message, source string, line int) int {
	best, last := -1, -1
	for i := range msgs {
		m := &msgs[i]
		if m.Source != source {
			continue
		}
		if m.Line == line {
			return i
		}
		if m.Line > line && (best < 0 || m.Line < msgs[best].Line) {
			best = i
		}
		if m.Line < line && (last < 0 || m.Line > msgs[last].Line) {
			last = i
		}
	}
	if best < 0 {
		best = last
	}
	switch {
	case best < 0:
		sh.Notes = append(sh.Notes, fmt.Sprintf("no indexed message comes from %s; showing the start of the session", source))
	default:
		sh.Notes = append(sh.Notes, fmt.Sprintf("line %d holds no indexed message (tool output and noise are not indexed); showing the nearest, line %d", line, msgs[best].Line))
	}
	return best
}

// window is the range of context messages around hit (the start of the
// session when there is no hit), clipped to n.
func window(hit, n, context int) (int, int) {
	if hit < 0 {
		return 0, min(n, 2*context+1)
	}
	return max(hit-context, 0), min(hit+context+1, n)
}

// queryHighlights lists where the query's positive terms match text.
func queryHighlights(q *query.Query, text string) []rank.Span {
	var spans []rank.Span
	var found []query.Span
	for _, t := range q.Positive() {
		found = t.FindAll([]byte(text), found[:0])
		for _, sp := range found {
			if sp.End > sp.Start {
				spans = append(spans, rank.Span{Start: sp.Start, End: sp.End})
			}
		}
	}
	return mergeSpans(spans)
}

// mergeSpans sorts spans and merges those that overlap.
func mergeSpans(spans []rank.Span) []rank.Span {
	if len(spans) < 2 {
		return spans
	}
	for i := 1; i < len(spans); i++ { // insertion sort: a message has few hits
		for j := i; j > 0 && spans[j].Start < spans[j-1].Start; j-- {
			spans[j], spans[j-1] = spans[j-1], spans[j]
		}
	}
	out := spans[:1]
	for _, s := range spans[1:] {
		if last := &out[len(out)-1]; s.Start <= last.End {
			last.End = max(last.End, s.End)
			continue
		}
		out = append(out, s)
	}
	return out
}

// onDisk reports whether a transcript is still where it was indexed from.
func onDisk(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
