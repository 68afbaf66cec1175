package aider

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/recall-dev/recall/filter"
	"github.com/recall-dev/recall/transcript"
)

// The parser reads the history's lines as Aider writes them (aider.go).
// Between messages it is in a neutral state that needs nothing but the
// session (the id holds its start) and the project: every message is
// held back until a line of the next shows it is whole, so a read ends
// either between messages or before the first line of the one held, and
// the next read, started from Where(), reads on exactly as one read of
// the whole file would.
//
// When a message ends:
//
//   - a prompt at the first line that is not a "####" line;
//   - a reply at a session header; outside a fence, at an output line,
//     or at a "####" line after a blank line that Aider wrote (it ends in
//     the two spaces of Aider's line break, or follows two blank lines:
//     a reply ends in one and a prompt starts with one), not a heading
//     of the model's ("#### Step 1"); inside a fence, at a "####" or
//     output line after a blank line that ends in Aider's line break, or
//     at the token report that follows every reply (a fence that a reply
//     cut short, or a model listing fences' openers, left open does not
//     swallow what follows);
//   - output at the next output line or header, at a blank line or a
//     "####" line once its last line ended in Aider's line break (a
//     message of several lines written at once is quoted on its first
//     line only and runs until that break: bare lines, blank ones among
//     them, are its own), or at a "####" line after a blank line.
//
// A line of a prompt starts with "####"; output with ">"; a blank line
// between messages is nothing; any other line starts a reply.
type parser struct {
	path    string
	loc     *time.Location // where session headers' times are read
	session string         // "" before the file's first header
	start   time.Time      // the session's start (UTC)
	stamp   string         // its rows' timestamp
	project string
	// entry is the session's rows' entrypoint; atStart holds until the
	// session's first message, which may be the command line Aider ran
	// as (messageRun).
	entry   string
	atStart bool
	last    int // number of the last line read (0: none yet)
	blanks  int // blank lines just before the one read
	msg     message
	// lastReply is the text of the session's last reply:
	// in architect mode Aider hands the architect's reply to its editor
	// as a prompt, which it writes again as one (architect_coder.py
	// reply_completed, editor_coder.run(with_message=…)), a copy of the
	// reply.
	lastReply string
	// dry makes the parser read without making rows: only to find a
	// session's last reply again (lastReplyOf).
	dry bool
}

// The parser holds back the message it is reading.
var _ transcript.Holder = (*parser)(nil)

type msgKind uint8

const (
	noMessage msgKind = iota
	promptMsg
	replyMsg
	outputMsg
)

// message is the message being read, held back until it ends.
type message struct {
	kind  msgKind
	line  int   // its first line's number
	lines int   // lines read since it started, its first included
	bytes int64 // their bytes, each '\n' counted
	text  capped
	// A reply's fence open, if any.
	fence    fence
	inFence  bool
	reason   string // a reply: the closing tag of the model's reasoning being read, "" outside it
	first    string // output: its first line's text, if it may record an action (recordsAction)
	closed   bool   // output: its last line ended in Aider's line break
	answer   string // output: instructions typed to a question in it
	answerAt int    // their line
}

// maxFirst bounds the first line of output kept (it names a file or a
// command: a tool row is capped at 400 characters).
const maxFirst = 4 << 10

// newParser starts a read of w's history, continuing the session and
// project of the last read when w starts after the file's beginning.
func newParser(w transcript.Work) transcript.LineParser {
	p := &parser{path: w.T.Path, loc: time.Local, entry: entrypoint}
	if w.State.Offset > 0 {
		p.project = w.State.Project
		if start, ok := sessionStart(w.State.Session); ok {
			p.setSession(w.State.Session, start)
			p.entry, p.atStart, p.lastReply = continuedRun(w.T.Path, w.State.Offset)
		}
	}
	return p
}

// Where is the session and project the read is in.
func (p *parser) Where() (session, project string) { return p.session, p.project }

// Held is the lines of the message not known to be whole yet.
func (p *parser) Held() (lines int, bytes int64) {
	if p.msg.kind == noMessage {
		return 0, 0
	}
	return p.msg.lines, p.msg.bytes
}

// Line reads line n of the history.
func (p *parser) Line(b *transcript.Builder, raw []byte, n int) (err error) {
	if p.project == "" {
		p.project = b.Redact(filepath.Dir(p.path))
	}
	if p.last != 0 && n != p.last+1 {
		p.flush(b) // a line too long to read was skipped: what it was in ends before it
	}
	p.last = n
	// line is a view of raw, valid only during this call: what the
	// parser keeps of it is copied (capped.add, keep).
	line := strings.TrimSuffix(unsafe.String(unsafe.SliceData(raw), len(raw)), "\r") // line_endings=crlf
	if ts, ok := headerTime(line); ok {
		p.flush(b)
		err = p.header(ts, n)
	} else {
		p.add(b, line, n)
	}
	if p.msg.kind != noMessage {
		p.msg.lines++
		p.msg.bytes += int64(len(raw)) + 1
	}
	if isBlank(line) {
		p.blanks++
	} else {
		p.blanks = 0
	}
	return err
}

// header starts the session whose header (its time ts) is line n.
func (p *parser) header(ts string, n int) error {
	t, err := parseHeaderTime(ts, p.loc)
	if err != nil {
		_, err = parseHeaderTime(strings.Clone(ts), p.loc) // the error keeps the text: not a view of the line
		return fmt.Errorf("session header: %w", err)
	}
	start := t.UTC()
	if y := start.Year(); y < 1 || y > 9999 {
		// A session id holds its start as four digits of year, which
		// a later read parses back (sessionStart); no Aider wrote
		// such a header (year 0000 in a zone east of UTC is year -1).
		return fmt.Errorf("session header: %s is year %d in UTC, outside 0001-9999", strings.Clone(ts), y)
	}
	clash := p.session != "" && start.Equal(p.start)
	p.setSession(sessionID(p.path, start, n, clash), start)
	return nil
}

func (p *parser) setSession(id string, start time.Time) {
	p.session, p.start, p.stamp = id, start, start.Format(rowTimeLayout)
	p.entry, p.atStart, p.lastReply = entrypoint, true, ""
}

// add reads a line that is not a session header.
func (p *parser) add(b *transcript.Builder, line string, n int) {
	switch p.msg.kind {
	case promptMsg:
		if isPromptLine(line) {
			p.msg.text.add(promptText(line))
			return
		}
	case replyMsg:
		if !p.endsReply(line) {
			p.addReply(line)
			return
		}
	case outputMsg:
		if p.addOutput(line, n) {
			return
		}
	}
	p.flush(b)
	p.begin(line, n)
}

// begin reads a line between messages: a blank one is nothing, any
// other starts a message.
func (p *parser) begin(line string, n int) {
	if isBlank(line) {
		return
	}
	if p.atStart {
		p.atStart = false
		p.entry = runEntrypoint(line)
	}
	switch {
	case isPromptLine(line):
		p.msg.kind, p.msg.line = promptMsg, n
		p.msg.text.add(promptText(line))
	case isOutputLine(line):
		p.msg.kind, p.msg.line = outputMsg, n
		if text := outputText(line); recordsAction(text) {
			p.msg.first = keep(text, maxFirst)
		}
		p.msg.closed = endsEntry(line)
	default:
		p.msg.kind, p.msg.line = replyMsg, n
		p.addReply(line)
	}
}

// endsReply reports whether line ends the reply being read (parser).
func (p *parser) endsReply(line string) bool {
	if p.msg.inFence {
		return p.blanks > 0 && ((isPromptLine(line) || isOutputLine(line)) && endsEntry(line) || isUsageReport(line))
	}
	if isOutputLine(line) {
		return true
	}
	return isPromptLine(line) && p.blanks > 0 && (endsEntry(line) || p.blanks >= 2)
}

// addReply adds a line to the reply being read.
func (p *parser) addReply(line string) {
	m := &p.msg
	switch {
	case m.inFence && m.fence.closedBy(line):
		m.inFence = false
	case !m.inFence:
		m.fence, m.inFence = openFence(line)
	}
	if line, ok := m.answerPart(line); ok {
		m.text.add(line)
	}
}

// addOutput adds line to the output being read; false when the line is
// not part of it.
func (p *parser) addOutput(line string, n int) bool {
	m := &p.msg
	switch {
	case isOutputLine(line):
		return false // the next output
	case isBlank(line):
		return !m.closed
	case isPromptLine(line) && (m.closed || p.blanks > 0):
		return false
	}
	m.closed = endsEntry(line)
	if s, ok := instructions(line); ok && m.answer == "" {
		m.answer, m.answerAt = keep(s, maxFirst), n
	}
	return true
}

// flush makes the rows of the message read, now whole, and starts
// none.
func (p *parser) flush(b *transcript.Builder) {
	m := &p.msg
	switch {
	case m.kind == noMessage:
		return
	case p.dry:
		if m.kind == replyMsg && m.text.lines > 0 {
			p.lastReply = m.text.String()
		}
	case p.session == "":
		b.Drop(filter.Noise) // before the first session header: no session to be in
	case m.kind == promptMsg:
		p.prompt(b, m.text.String(), m.line)
	case m.kind == replyMsg && m.text.lines == 0:
		b.Drop(filter.Noise) // the model's reasoning only
	case m.kind == replyMsg:
		p.lastReply = m.text.String()
		b.Text(p.meta(m.line, "assistant"), "assistant", p.lastReply)
	case m.kind == outputMsg:
		p.output(b, m)
	}
	m.text.reset()
	*m = message{text: m.text}
}

// prompt makes the row of a prompt starting on line.
func (p *parser) prompt(b *transcript.Builder, text string, line int) {
	text = strings.TrimSpace(text)
	if text == "<blank>" || isConfirmEcho(text) || machinePrompt(text) {
		b.Drop(filter.Noise)
		return
	}
	if comments, ok := watchComments(text); ok { // never a command: "// ai? …"
		if comments == "" {
			b.Drop(filter.Noise)
			return
		}
		b.Text(p.meta(line, "user"), "user", comments)
		return
	}
	name, kind, args := parseCommand(text)
	switch {
	case kind == notCommand && sameText(text, p.lastReply):
		b.Drop(filter.Copy) // the architect's reply handed to the editor
	case kind == notCommand:
		b.Text(p.meta(line, "user"), "user", text)
	case kind == chatCmd && args != "":
		b.Drop(filter.Copy)
	case kind == helpCmd && args != "":
		b.Text(p.meta(line, "user"), "user", args)
	case kind == shellCmd && args != "":
		b.Tool(p.meta(line, "tool"), strings.ToUpper(name[:1])+name[1:], toolInput("command", args))
	default:
		b.Drop(filter.Noise)
	}
}

// output makes the rows of output m.
func (p *parser) output(b *transcript.Builder, m *message) {
	name, input := outputTool(m.first)
	if name != "" {
		b.Tool(p.meta(m.line, "tool"), name, input)
	}
	if m.answer != "" {
		b.Text(p.meta(m.answerAt, "user"), "user", m.answer)
	}
	if name == "" && m.answer == "" {
		b.Drop(filter.Noise)
	}
}

// sameText reports whether prompt and reply are the same text as Aider
// writes each: line by line, each without the spaces that end it (a
// prompt's lines end in Aider's line break), blank lines around left
// out. It compares in place: every reply is kept for the prompt after it.
func sameText(prompt, reply string) bool {
	a, b := strings.TrimSpace(prompt), strings.TrimSpace(reply)
	if a == "" || b == "" {
		return false
	}
	for a != "" || b != "" {
		la, ra, _ := strings.Cut(a, "\n")
		lb, rb, _ := strings.Cut(b, "\n")
		if strings.TrimRight(la, " \t\r") != strings.TrimRight(lb, " \t\r") {
			return false
		}
		a, b = ra, rb
	}
	return true
}

// meta is the Meta of a row of role made of the message starting on
// line.
func (p *parser) meta(line int, role string) transcript.Meta {
	return transcript.Meta{
		Session:    p.session,
		Project:    p.project,
		Timestamp:  p.stamp,
		UUID:       messageUUID(p.session, line, role),
		Line:       line,
		Entrypoint: p.entry,
	}
}

// capped is a message's text, kept up to maxText bytes (with a note of
// how much was left out): a message's lines are held in memory until it
// ends, and a row keeps no more than transcript.MaxRowText anyway. Its
// buffer is reused from message to message.
type capped struct {
	buf   []byte
	size  int  // bytes of the whole text
	full  bool // bytes were left out
	lines int
}

// maxText leaves room for the note within transcript.MaxRowText.
const maxText = transcript.MaxRowText - 128

func (c *capped) add(line string) {
	if c.lines > 0 {
		c.size++
		if !c.full {
			c.buf = append(c.buf, '\n')
		}
	}
	c.lines++
	c.size += len(line)
	if c.full {
		return
	}
	if !utf8.ValidString(line) {
		line = strings.ToValidUTF8(line, "\uFFFD")
	}
	if room := maxText - len(c.buf); len(line) > room {
		c.buf = append(c.buf, cutRunes(line, max(room, 0))...)
		c.full = true
		return
	}
	c.buf = append(c.buf, line...)
}

func (c *capped) String() string {
	s := strings.TrimRight(string(c.buf), " \t\n")
	if c.full {
		s += fmt.Sprintf("\n[… recall kept the first %d KiB of this %d-byte message]", maxText>>10, c.size)
	}
	return s
}

func (c *capped) reset() {
	c.buf = c.buf[:0]
	c.size, c.full, c.lines = 0, false, 0
}

// cutRunes is s cut to at most n bytes at a character boundary.
func cutRunes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// truncate is cutRunes for text that may not be UTF-8.
func truncate(s string, n int) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	return cutRunes(s, n)
}

// keep is truncate for text of a line being read, copied: a line is a
// view of the reader's buffer (parser.Line).
func keep(s string, n int) string {
	return strings.Clone(truncate(s, n))
}
