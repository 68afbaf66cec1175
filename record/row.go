package record

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"

	"github.com/recall-dev/recall/internal/tsvfield"
	"github.com/recall-dev/recall/textrules"
)

// Columns is the TSV header of the rows file, in order. The first five are
// the classic layout (session_id, timestamp, type, text, project_path) so
// pipelines written for the classic tool keep working; the rest are what
// recall needs for evidence and bookkeeping. docs/index-format.md describes
// each one.
var columns = [...]string{
	"session_id", "timestamp", "type", "text", "project_path",
	"source", "line", "uuid", "agent_id", "role", "gen", "ordinal",
	"entrypoint", "agent",
}

// NumColumns is the number of TSV columns in a row.
const NumColumns = len(columns)

// legacyColumns is the number of columns of a row written before the
// entrypoint column (feature version 2 and earlier). Such a row still
// reads, with no entrypoint: the runs of those versions read no
// transcript they took for headless, and the first run of this one
// rewrites every row with the column (a feature change rederives).
const legacyColumns = NumColumns - 2

// claudeOnlyColumns is the number of columns of a row written before the
// agent column, when recall read Claude Code's transcripts alone: such a
// row reads with an empty agent, which is Claude Code (AgentOf), so no
// row needs rewriting.
const claudeOnlyColumns = NumColumns - 1

// Column positions, for readers that split rows themselves.
const (
	ColSession = iota
	ColTimestamp
	ColType
	ColText
	ColProject
	ColSource
	ColLine
	ColUUID
	ColAgent
	ColRole
	ColGen
	ColOrdinal
	ColEntrypoint
	ColAgentName
)

// Header is the first line of the rows file.
func Header() string {
	var b bytes.Buffer
	for i, c := range columns {
		if i > 0 {
			b.WriteByte('\t')
		}
		b.WriteString(c)
	}
	b.WriteByte('\n')
	return b.String()
}

// Row types. Subagent rows all have type "agent"; their role column keeps
// user, assistant or tool. A title row holds a title the transcript gives
// its session; its role column says which kind (custom-title, ai-title or
// summary).
const (
	TypeUser      = "user"
	TypeAssistant = "assistant"
	TypeTool      = "tool"
	TypeAgent     = "agent"
	TypeTitle     = "title"
)

// Row is one indexed message.
type Row struct {
	Session   string
	Timestamp string // ISO 8601 as written in the transcript
	Type      string // user, assistant, tool, agent or title
	Text      string
	Project   string // the session's working directory
	Source    string // absolute transcript path
	Line      int    // 1-based line in Source
	UUID      string // message uuid ("" for none)
	AgentID   string // subagent id for agent rows
	Role      string // user, assistant or tool
	Gen       uint32 // generation of Source this row came from
	Ordinal   int    // 1-based position among the rows of this generation of Source
	// Entrypoint is the entrypoint of the record the row came from
	// ("cli", "claude-vscode", "sdk-cli", …; "" when it names none), by
	// which textrules.IsHeadlessEntrypoint tells a headless run.
	Entrypoint string
	// Agent is the coding agent whose session file the row came from
	// (AgentCodex, …); "" in rows written before the column, which are
	// Claude Code's (AgentOf). AgentID is a subagent's id, not this.
	Agent string
}

// Headless reports whether the row came from a run no person typed into
// (`claude -p`, an SDK): kept in the index, left out of searches unless
// asked for.
func (r *Row) Headless() bool { return textrules.IsHeadlessEntrypoint(r.Entrypoint) }

// AppendTSV appends r as one escaped TSV line ending in '\n'.
func (r *Row) AppendTSV(dst []byte) []byte { return r.appendTSV(dst, nil) }

// AppendTSVAfter is AppendTSV for a writer that appends rows one after
// another: last remembers the fields the previous rows wrote (Repeats).
func (r *Row) AppendTSVAfter(dst []byte, last *Repeats) []byte { return r.appendTSV(dst, last) }

// Repeats holds the last session, project and source a block's rows
// wrote that hold no byte to escape. A transcript's rows repeat them
// (about 170 of a row's 580 bytes at 1 GB), and comparing with the
// last one is cheaper than searching it for escapes again.
type Repeats struct{ session, project, source string }

// appendRepeated appends s escaped, remembering it in *last when it holds
// no byte to escape; last is nil when nothing is remembered.
func appendRepeated(dst []byte, s string, last *string) []byte {
	if last == nil {
		return appendEscaped(dst, s)
	}
	if s != *last {
		if !tsvfield.Plain(s) {
			return appendEscaped(dst, s)
		}
		*last = s
	}
	return append(dst, s...)
}

// appendTSV is AppendTSV with the plain fields of the rows before (nil:
// none known).
func (r *Row) appendTSV(dst []byte, plain *Repeats) []byte {
	var session, project, source *string
	if plain != nil {
		session, project, source = &plain.session, &plain.project, &plain.source
	}
	dst = appendRepeated(dst, r.Session, session)
	dst = append(dst, '\t')
	dst = appendEscaped(dst, r.Timestamp)
	dst = append(dst, '\t')
	dst = appendEscaped(dst, r.Type)
	dst = append(dst, '\t')
	dst = appendEscaped(dst, r.Text)
	dst = append(dst, '\t')
	dst = appendRepeated(dst, r.Project, project)
	dst = append(dst, '\t')
	dst = appendRepeated(dst, r.Source, source)
	dst = append(dst, '\t')
	dst = strconv.AppendInt(dst, int64(r.Line), 10)
	dst = append(dst, '\t')
	dst = appendEscaped(dst, r.UUID)
	dst = append(dst, '\t')
	dst = appendEscaped(dst, r.AgentID)
	dst = append(dst, '\t')
	dst = appendEscaped(dst, r.Role)
	dst = append(dst, '\t')
	dst = strconv.AppendUint(dst, uint64(r.Gen), 10)
	dst = append(dst, '\t')
	dst = strconv.AppendInt(dst, int64(r.Ordinal), 10)
	dst = append(dst, '\t')
	dst = appendEscaped(dst, r.Entrypoint)
	dst = append(dst, '\t')
	dst = appendEscaped(dst, r.Agent)
	return append(dst, '\n')
}

// ErrBadRow is returned for a TSV line that is not a v1 row.
var ErrBadRow = errors.New("malformed row")

// ParseRow decodes one TSV line (without its '\n').
func ParseRow(line []byte) (Row, error) {
	var f [NumColumns][]byte
	if !SplitRow(line, &f) {
		return Row{}, fmt.Errorf("%w: want %d columns", ErrBadRow, NumColumns)
	}
	lineNo, err := strconv.Atoi(string(f[ColLine]))
	if err != nil {
		return Row{}, fmt.Errorf("%w: line column: %v", ErrBadRow, err)
	}
	gen, err := strconv.ParseUint(string(f[ColGen]), 10, 32)
	if err != nil {
		return Row{}, fmt.Errorf("%w: gen column: %v", ErrBadRow, err)
	}
	ordinal, err := strconv.Atoi(string(f[ColOrdinal]))
	if err != nil {
		return Row{}, fmt.Errorf("%w: ordinal column: %v", ErrBadRow, err)
	}
	return Row{
		Session:    Unescape(f[ColSession]),
		Timestamp:  Unescape(f[ColTimestamp]),
		Type:       Unescape(f[ColType]),
		Text:       Unescape(f[ColText]),
		Project:    Unescape(f[ColProject]),
		Source:     Unescape(f[ColSource]),
		Line:       lineNo,
		UUID:       Unescape(f[ColUUID]),
		AgentID:    Unescape(f[ColAgent]),
		Role:       Unescape(f[ColRole]),
		Gen:        uint32(gen),
		Ordinal:    ordinal,
		Entrypoint: Unescape(f[ColEntrypoint]),
		Agent:      Unescape(f[ColAgentName]),
	}, nil
}

// SplitRow splits a TSV line into its columns without copying. It reports
// false unless the line has NumColumns columns, or the claudeOnlyColumns
// or legacyColumns of a row written before the last ones were added
// (those columns are then empty).
func SplitRow(line []byte, f *[NumColumns][]byte) bool {
	for i := 0; i < NumColumns-1; i++ {
		j := bytes.IndexByte(line, '\t')
		if j < 0 {
			if i == legacyColumns-1 || i == claudeOnlyColumns-1 {
				f[i] = line
				clear(f[i+1:])
				return true
			}
			return false
		}
		f[i] = line[:j]
		line = line[j+1:]
	}
	if bytes.IndexByte(line, '\t') >= 0 {
		return false
	}
	f[NumColumns-1] = line
	return true
}

// appendEscaped writes s with '\\', '\t', '\n' and '\r' escaped so that a
// row is always one line with a fixed number of columns (tsvfield).
func appendEscaped(dst []byte, s string) []byte { return tsvfield.Append(dst, s) }

// Unescape reverses appendEscaped. An unknown escape keeps both bytes, so
// any input decodes without error.
func Unescape(b []byte) string { return tsvfield.Unescape(b) }

// UnescapeAppend appends the unescaped form of b to dst.
func UnescapeAppend(dst, b []byte) []byte { return tsvfield.UnescapeAppend(dst, b) }
