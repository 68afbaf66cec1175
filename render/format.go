package render

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/recall-dev/recall/filter"
	"github.com/recall-dev/recall/rank"
	"github.com/recall-dev/recall/record"
	"github.com/recall-dev/recall/search"
)

// Write prints res to w in the chosen format.
func Write(w io.Writer, res *search.Result, out search.Output) error {
	sessions := page(res.Sessions, out)
	switch out.Format {
	case "json":
		return writeJSON(w, res, sessions, out)
	case "markdown":
		return writeMarkdown(w, res, sessions, out)
	case "list":
		for _, s := range sessions {
			if _, err := fmt.Fprintln(w, Safe(s.ID)); err != nil {
				return err
			}
		}
		return nil
	case "count":
		_, err := fmt.Fprintln(w, len(res.Sessions))
		return err
	default:
		return writeHuman(w, res, sessions, out)
	}
}

// JSONSessionHead is what every structured rendering of a ranked session
// says of it: --json (JSONSession) and the MCP search tool.
type JSONSessionHead struct {
	Rank           int      `json:"rank"`
	SessionID      string   `json:"session_id"`
	Title          string   `json:"title,omitempty"`
	Project        string   `json:"project"`
	Score          float64  `json:"score"`
	Matches        int      `json:"matches"`
	FirstTimestamp string   `json:"first_timestamp"`
	LastTimestamp  string   `json:"last_timestamp"`
	Source         string   `json:"source"`
	Agent          string   `json:"agent"`
	Similar        []string `json:"similar"`
	// SimilarWhy says why each of Similar was collapsed into this
	// session, in the same order; absent when none was.
	SimilarWhy []string `json:"similar_why,omitempty"`
}

// JSONSession is one line of --json output. docs/json-output.md documents
// the fields; they are a contract: new fields may be added, none renamed.
type JSONSession struct {
	JSONSessionHead
	Messages []JSONMessage `json:"messages"`
	Explain  []JSONFactor  `json:"explain,omitempty"`
	// SessionsMatched is how many sessions matched, on every line, when
	// the output's ranking holds them all; absent when the limit cut it.
	SessionsMatched *int `json:"sessions_matched,omitempty"`
}

// JSONMessage is one matched message inside a JSONSession.
type JSONMessage struct {
	Type      string       `json:"type"`
	Timestamp string       `json:"timestamp"`
	Source    string       `json:"source"`
	Line      int          `json:"line"`
	Text      string       `json:"text"`
	Snippet   string       `json:"snippet"`
	Score     float64      `json:"score"`
	Explain   []JSONFactor `json:"explain,omitempty"`
}

// JSONFactor is one --explain line.
type JSONFactor struct {
	Name  string  `json:"name"`
	Value float64 `json:"value"`
	Note  string  `json:"note,omitempty"`
}

func writeJSON(w io.Writer, res *search.Result, sessions []rank.Session, out search.Output) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	var matched *int
	if Complete(res, out) {
		n := len(res.Sessions)
		matched = &n
	}
	for i := range sessions {
		js := toJSON(out.Offset+i+1, &sessions[i], out)
		js.SessionsMatched = matched
		if err := enc.Encode(js); err != nil {
			return err
		}
	}
	return nil
}

// JSON is res as the --json lines would print it, one JSONSession per
// shown session: the MCP server returns the same objects.
func JSON(res *search.Result, out search.Output) []JSONSession {
	sessions := page(res.Sessions, out)
	js := make([]JSONSession, len(sessions))
	for i := range sessions {
		js[i] = toJSON(out.Offset+i+1, &sessions[i], out)
	}
	return js
}

// page is the sessions out shows: MaxSessions of them after Offset.
func page(sessions []rank.Session, out search.Output) []rank.Session {
	sessions = sessions[min(out.Offset, len(sessions)):]
	if out.MaxSessions > 0 && len(sessions) > out.MaxSessions {
		sessions = sessions[:out.MaxSessions]
	}
	return sessions
}

// snippetOf cuts a message's snippet; a tool row keeps its tool's name.
func snippetOf(m *rank.ScoredMessage, width int) rank.Snippet {
	if m.Type == "tool" {
		return rank.MakeToolSnippet(m.Text, m.Hits, width)
	}
	return rank.MakeSnippet(m.Text, m.Hits, width)
}

func toJSON(rankNo int, s *rank.Session, out search.Output) JSONSession {
	js := JSONSession{JSONSessionHead: JSONSessionHead{
		Rank: rankNo, SessionID: s.ID, Title: s.Title, Project: s.Project, Score: round3(s.Score), Matches: s.Matches,
		FirstTimestamp: isoTime(s.First), LastTimestamp: isoTime(s.Last), Source: s.Source, Agent: record.AgentOf(s.Agent),
		Similar: s.Similar, SimilarWhy: s.SimilarWhy,
	}, Messages: []JSONMessage{}}
	if js.Similar == nil {
		js.Similar = []string{}
	}
	if out.Explain {
		js.Explain = jsonFactors(s.Factors)
	}
	for _, m := range shownMessages(s, out) {
		sn := snippetOf(&m, out.Context)
		jm := JSONMessage{Type: m.Type, Timestamp: isoTime(m.Timestamp), Source: m.Source, Line: m.Line,
			Text: m.Text, Snippet: sn.String(), Score: round3(m.Score)}
		if out.Explain {
			jm.Explain = jsonFactors(m.Factors)
		}
		js.Messages = append(js.Messages, jm)
	}
	return js
}

func jsonFactors(fs []rank.Factor) []JSONFactor {
	out := make([]JSONFactor, len(fs))
	for i, f := range fs {
		out[i] = JSONFactor{Name: f.Name, Value: round3(f.Value), Note: f.Note}
	}
	return out
}

func shownMessages(s *rank.Session, out search.Output) []rank.ScoredMessage {
	if out.MaxMessages > 0 && len(s.Messages) > out.MaxMessages {
		return s.Messages[:out.MaxMessages]
	}
	return s.Messages
}

func round3(v float64) float64 { return float64(int64(v*1000+0.5)) / 1000 }

func isoTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format("2006-01-02T15:04:05.000Z")
}

// ANSI styles, used only on a terminal and never with NO_COLOR.
const (
	styleBold  = "\x1b[1m"
	styleDim   = "\x1b[2m"
	styleMatch = "\x1b[1;31m"
	styleReset = "\x1b[0m"
)

type painter struct{ on bool }

func (p painter) paint(style, s string) string {
	if !p.on || s == "" {
		return s
	}
	return style + s + styleReset
}

// writeHuman prints, per session, a header in the classic shape
// ("[1/5] 3f2a9c1 • …", recall's output signature) and its best messages.
// Every text from the index goes through Safe or SafeText before recall
// adds its own colours.
func writeHuman(w io.Writer, res *search.Result, sessions []rank.Session, out search.Output) error {
	p := painter{on: out.Color}
	var b strings.Builder
	for i := range sessions {
		s := &sessions[i]
		fmt.Fprintf(&b, "%s %s\n", p.paint(styleBold, fmt.Sprintf("[%s] %s •", position(i, res, out), Safe(shortID(s.ID)))),
			headerFields(s))
		if out.Explain {
			writeFactors(&b, "    ", s.Factors)
		}
		shown := shownMessages(s, out)
		for _, m := range shown {
			writeHumanMessage(&b, &m, out, p)
		}
		if more := s.Matches - len(shown); more > 0 {
			fmt.Fprintf(&b, "  %s\n", p.paint(styleDim, fmt.Sprintf("… and %d more %s", more, plural(more, "match", "matches"))))
		}
		if len(s.Similar) > 0 {
			fmt.Fprintf(&b, "  %s\n", p.paint(styleDim, similarNote(s.Similar)))
		}
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// position is the i-th session's place in the header: "2/3" when the
// result holds every session that matched, "2" when the limit cut it and
// how many matched is not known (Complete).
func position(i int, res *search.Result, out search.Output) string {
	if Complete(res, out) {
		return fmt.Sprintf("%d/%d", out.Offset+i+1, len(res.Sessions))
	}
	return fmt.Sprint(out.Offset + i + 1)
}

// sessionCount says how many sessions a markdown block shows, and of how
// many when that is known.
func sessionCount(res *search.Result, sessions []rank.Session, out search.Output) string {
	first, last := out.Offset+1, out.Offset+len(sessions)
	switch {
	case Complete(res, out) && first == 1 && last == len(res.Sessions):
		return fmt.Sprintf("%d %s", last, plural(last, "session", "sessions"))
	case Complete(res, out):
		return fmt.Sprintf("sessions %d–%d of %d", first, last, len(res.Sessions))
	}
	return fmt.Sprintf("sessions %d–%d; more may match", first, last)
}

// Complete reports whether res holds every session that matched: it was
// ranked without a limit, or found fewer sessions than the limit.
func Complete(res *search.Result, out search.Output) bool {
	return out.Ranked == 0 || len(res.Sessions) < out.Ranked
}

// headerFields follows the short id of the signature: the whole id is in
// every message's evidence (a transcript is named after its session), and
// a prefix is all `recall show` and `recall resume` need.
func headerFields(s *rank.Session) string {
	return fmt.Sprintf("%s%s%s | %d %s | last match %s | score %.2f", titlePrefix(s.Title),
		Safe(displayProject(s.Project)), agentLabel(s.Agent), s.Matches, plural(s.Matches, "match", "matches"), localTime(s.Last), s.Score)
}

// agentLabel names another agent's session after its project: " (codex)".
// Claude Code's sessions, most of any index, go unmarked in text; JSON
// names every session's agent.
func agentLabel(agent string) string {
	if a := record.AgentOf(agent); a != record.AgentClaude {
		return " (" + Safe(a) + ")" // a rows file's column: never raw to a terminal
	}
	return ""
}

// titlePrefix puts a session's title, when it has one, before its project
// in a header: "Fix the flaky login test • ".
func titlePrefix(title string) string {
	if title == "" {
		return ""
	}
	return Safe(title) + " • "
}

func writeHumanMessage(b *strings.Builder, m *rank.ScoredMessage, out search.Output, p painter) {
	sn := snippetOf(m, out.Context)
	fmt.Fprintf(b, "  %s %s %s\n", p.paint(styleBold, typeLabel(m.Type)), p.paint(styleDim, localTime(m.Timestamp)),
		highlight(sn, p))
	fmt.Fprintf(b, "         %s\n", p.paint(styleDim, evidence(m.Source, m.Line)))
	if out.Explain {
		writeFactors(b, "         ", m.Factors)
	}
}

func writeFactors(b *strings.Builder, indent string, fs []rank.Factor) {
	for _, f := range fs {
		// Safe: a "collapsed" factor's note names a session id from the index.
		fmt.Fprintf(b, "%s%-12s %8.3f  %s\n", indent, f.Name, f.Value, Safe(f.Note))
	}
}

// evidence is a message's transcript:line, printable.
func evidence(source string, line int) string { return fmt.Sprintf("%s:%d", Safe(source), line) }

// highlight marks the matched words of a snippet. Each piece is made
// printable on its own, so the highlights' offsets stay those of the text.
func highlight(sn rank.Snippet, p painter) string {
	var b strings.Builder
	if sn.Label != "" {
		b.WriteString(Safe(sn.Label) + " ")
	}
	if sn.ElidedStart {
		b.WriteString("…")
	}
	last := 0
	for _, h := range sn.Highlights {
		if h.Start < last || h.End > len(sn.Text) {
			continue
		}
		b.WriteString(Safe(sn.Text[last:h.Start]))
		b.WriteString(p.paint(styleMatch, Safe(sn.Text[h.Start:h.End])))
		last = h.End
	}
	b.WriteString(Safe(sn.Text[last:]))
	if sn.ElidedEnd {
		b.WriteString("…")
	}
	return b.String()
}

func typeLabel(t string) string {
	switch t {
	case "assistant":
		return "[asst] "
	case "user":
		return "[user] "
	case "tool":
		return "[tool] "
	case "agent":
		return "[agent]"
	case "title":
		return "[title]"
	}
	return "[" + Safe(t) + "]"
}

func similarNote(ids []string) string {
	short := make([]string, len(ids))
	for i, id := range ids {
		short[i] = Safe(shortID(id))
	}
	return fmt.Sprintf("+%d similar %s: %s", len(ids), plural(len(ids), "session", "sessions"), strings.Join(short, ", "))
}

// shortID is the id a result's header shows. Seven characters tell
// Claude Code's random (version 4) uuids apart.
// Other agents' ids are ordered by time (Codex's version 7 uuids,
// OpenCode's "ses_…", Aider's "aider-<time>-…"): sessions of one day
// share their first characters, so those are shown whole.
func shortID(id string) string {
	if len(id) > 7 && randomUUID(id) {
		return id[:7]
	}
	return id
}

// randomUUID reports whether id is a version 4 uuid.
func randomUUID(id string) bool {
	return len(id) == 36 && id[8] == '-' && id[13] == '-' && id[14] == '4'
}

func displayProject(p string) string {
	if p == "" {
		return "(no project)"
	}
	return p
}

func localTime(t time.Time) string {
	if t.IsZero() {
		return "----------------"
	}
	return t.Local().Format("2006-01-02 15:04")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// writeMarkdown prints a block meant to be injected into an agent's
// context. It opens with recall's output marker, so that if it is pasted
// back into a conversation the indexer recognises and skips it.
func writeMarkdown(w io.Writer, res *search.Result, sessions []rank.Session, out search.Output) error {
	if len(sessions) == 0 {
		return nil // nothing matched: no block at all, as with the other formats
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n## recall: %s (%s)\n\n", filter.OutputMarker, Safe(search.QueryTitle(res.Query)), sessionCount(res, sessions, out))
	for i := range sessions {
		s := &sessions[i]
		fmt.Fprintf(&b, "### %d. %s%s%s — session `%s`\n", out.Offset+i+1, markdownTitle(s.Title), Safe(filepath.Base(displayProject(s.Project))), agentLabel(s.Agent), Safe(s.ID))
		fmt.Fprintf(&b, "last match %s, %d %s, score %.2f, transcript `%s`\n\n", localTime(s.Last), s.Matches,
			plural(s.Matches, "match", "matches"), s.Score, Safe(s.Source))
		for _, m := range shownMessages(s, out) {
			sn := snippetOf(&m, out.Context)
			fmt.Fprintf(&b, "- **%s** %s (`%s`): %s\n", Safe(m.Type), localTime(m.Timestamp), evidence(m.Source, m.Line), Safe(sn.String()))
		}
		if len(s.Similar) > 0 {
			fmt.Fprintf(&b, "- %s\n", similarNote(s.Similar))
		}
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// markdownTitle is a session's title before its project in a markdown
// heading, "" if it has none.
func markdownTitle(title string) string {
	if title == "" {
		return ""
	}
	return Safe(title) + " · "
}
