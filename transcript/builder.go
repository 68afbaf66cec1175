package transcript

import (
	"fmt"
	"strings"

	"github.com/recall-dev/recall/filter"
	"github.com/recall-dev/recall/record"
)

// Builder makes the rows of another agent's session file (package
// sources) with the hygiene Claude Code's reader applies: noise,
// acknowledgements and recall's own output dropped (filter.Clean),
// secrets redacted (also one split across two messages), tool calls as
// one capped row, and what was dropped counted by filter.Reason. A
// source decides what a record is (a prompt, a reply, a tool call,
// harness-injected text); the Builder decides what of it is kept.
type Builder struct {
	x lineExtractor
	// lastTitleSession is the session of the last title kept.
	lastTitleSession string
	// badParts and firstBad count the parts of a file read whole that
	// do not read (BadPart), as the bad lines of a file of lines are.
	badParts int
	firstBad string
}

// Meta is where a row came from and whose it is.
type Meta struct {
	Session   string
	Project   string // the session's working directory
	Timestamp string // RFC 3339 (record.ParseTimestamp reads it)
	// UUID identifies the message across files: a copy of it (a fork's
	// copied history, the same file read again after a move or its
	// compression) must get the same UUID, and no other message may.
	// "" makes the row keyless: never taken for a copy, so never left
	// out as one either.
	UUID  string
	Line  int // 1-based line (or record number) in the file
	Block int // the part of the record the row came from (0 for one)
	// Subagent is the subagent's id for a subagent's message: the row's
	// type is then agent, its Session the parent's.
	Subagent string
	// Entrypoint says how the session was run ("cli", "vscode", "exec",
	// "sdk-…"); textrules.IsHeadlessEntrypoint tells a headless run.
	Entrypoint string
}

// NewBuilder starts the rows of one read of w's file by agent.
func NewBuilder(w Work, agent string) *Builder {
	return &Builder{x: lineExtractor{kind: w.T.Kind, source: w.T.Path, gen: w.State.Gen,
		keepSecrets: w.KeepSecrets, rows: w.Rows[:0], harness: agent, splitRow: -1}}
}

// Text keeps a prompt (role "user") or a reply ("assistant") if it is
// worth indexing, redacted.
func (b *Builder) Text(m Meta, role, text string) {
	clean, reason := filter.Clean(text)
	if reason != filter.Kept {
		b.x.counts[reason]++
		return
	}
	b.add(m, role, b.x.redactText(clean))
	b.x.splitRow = len(b.x.rows) - 1
}

// Tool keeps one row for a tool call: its name and what it touched, from
// input (a JSON object; the first of command, file_path, path, pattern,
// url, query, … that it holds), redacted and capped.
func (b *Builder) Tool(m Meta, name string, input []byte) {
	if s := b.x.toolRow(name, input); strings.TrimSpace(s) != "" {
		b.add(m, record.TypeTool, s)
	}
}

// Title keeps a name the session file gives its session (role: its kind,
// record.TitleCustom or record.TitleAI), shown by results, sessions and
// show, and searchable.
func (b *Builder) Title(m Meta, kind, title string) {
	// A title written again unchanged makes no second row; the same
	// title of another session (one file can hold many) does.
	if title == "" || title == b.x.lastTitle && m.Session == b.lastTitleSession {
		return
	}
	b.x.lastTitle, b.lastTitleSession = title, m.Session
	b.add(m, kind, truncateRunes(b.x.redactHead(title, maxTitleText*4), maxTitleText))
}

// Drop counts a record left out for reason (filter.Noise for text the
// harness injected, filter.Copy for a duplicate the agent writes twice).
func (b *Builder) Drop(reason filter.Reason) { b.x.counts[reason]++ }

// Redact is text with its secrets redacted (a project path, a title):
// text that is stored but is not a message.
func (b *Builder) Redact(text string) string { return b.x.redactHead(text, maxPathText) }

// add appends a row of role (user, assistant, tool, or a title kind).
func (b *Builder) add(m Meta, role, text string) {
	typ := role
	if record.TitleRank(role) > 0 {
		typ = record.TypeTitle
	}
	if m.Subagent != "" {
		typ = record.TypeAgent
	}
	b.x.counts[filter.Kept]++
	b.x.rows = append(b.x.rows, Extracted{
		Row: record.Row{
			Session:    m.Session,
			Timestamp:  m.Timestamp,
			Type:       typ,
			Text:       text,
			Project:    m.Project,
			Source:     b.x.source,
			Line:       m.Line,
			UUID:       m.UUID,
			AgentID:    m.Subagent,
			Role:       role,
			Gen:        b.x.gen,
			Entrypoint: m.Entrypoint,
			Agent:      b.x.harness,
		},
		Block: m.Block,
	})
}

// Cut leaves out the rows made after the first n of this read (a
// conversation rewound: what was rewound is no longer part of it),
// counting them as noise.
func (b *Builder) Cut(n int) {
	if n < 0 || n >= len(b.x.rows) {
		return
	}
	b.x.counts[filter.Noise] += int64(len(b.x.rows) - n)
	b.x.counts[filter.Kept] -= int64(len(b.x.rows) - n)
	b.x.rows = b.x.rows[:n]
	b.x.splitRow = -1
}

// Rows is what the read made so far.
func (b *Builder) Rows() []Extracted { return b.x.rows }

// BadPart counts a part of a file read whole (an item of a JSON
// document, from line n) that does not read and is skipped; the first is
// reported, once per file, as a file's first bad line is.
func (b *Builder) BadPart(n int, err error) {
	b.badParts++
	if b.firstBad == "" {
		b.firstBad = fmt.Sprintf("%s:%d: skipped a part recall cannot read (%s)", b.x.source, n, shortError(err))
	}
}

// finish caps and keys the rows and hands them and the counts to res.
func (b *Builder) finish(res *Result) {
	capTexts(b.x.rows)
	keyRows(b.x.rows)
	res.Rows, res.Counts = b.x.rows, b.x.counts
	res.BadLines += b.badParts
	if res.Warning == "" {
		res.Warning = b.firstBad
	}
}
