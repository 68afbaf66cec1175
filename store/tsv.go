package store

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"

	"github.com/recall-dev/recall/internal/tsvfield"
)

// Columns is the TSV header of the rows file, in order. The first five are
// the classic layout (session_id, timestamp, type, text, project_path) so
// pipelines written for the classic tool keep working; the rest are what
// recall needs for evidence and bookkeeping. docs/index-format.md describes
// each one.
var columns = [...]string{
	"session_id", "timestamp", "type", "text", "project_path",
	"source", "line", "uuid", "agent_id", "role", "gen", "ordinal",
}

// NumColumns is the number of TSV columns in a v1 row.
const NumColumns = len(columns)

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
// user, assistant or tool.
const (
	TypeUser      = "user"
	TypeAssistant = "assistant"
	TypeTool      = "tool"
	TypeAgent     = "agent"
)

// Row is one indexed message.
type Row struct {
	Session   string
	Timestamp string // ISO 8601 as written in the transcript
	Type      string // user, assistant, tool or agent
	Text      string
	Project   string // the session's working directory
	Source    string // absolute transcript path
	Line      int    // 1-based line in Source
	UUID      string // message uuid ("" for none)
	AgentID   string // subagent id for agent rows
	Role      string // user, assistant or tool
	Gen       uint32 // generation of Source this row came from
	Ordinal   int    // 1-based position among the rows of this generation of Source
}

// AppendTSV appends r as one escaped TSV line ending in '\n'.
func (r *Row) AppendTSV(dst []byte) []byte { return r.appendTSV(dst, nil) }

// plainFields holds the last session, project and source a block's rows
// wrote that hold no byte to escape. A transcript's rows repeat them
// (about 170 of a row's 580 bytes at 1 GB), and comparing with the
// last one is cheaper than searching it for escapes again.
type plainFields struct{ session, project, source string }

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
func (r *Row) appendTSV(dst []byte, plain *plainFields) []byte {
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
		Session:   Unescape(f[ColSession]),
		Timestamp: Unescape(f[ColTimestamp]),
		Type:      Unescape(f[ColType]),
		Text:      Unescape(f[ColText]),
		Project:   Unescape(f[ColProject]),
		Source:    Unescape(f[ColSource]),
		Line:      lineNo,
		UUID:      Unescape(f[ColUUID]),
		AgentID:   Unescape(f[ColAgent]),
		Role:      Unescape(f[ColRole]),
		Gen:       uint32(gen),
		Ordinal:   ordinal,
	}, nil
}

// SplitRow splits a TSV line into its columns without copying. It reports
// false unless the line has exactly NumColumns columns.
func SplitRow(line []byte, f *[NumColumns][]byte) bool {
	for i := 0; i < NumColumns-1; i++ {
		j := bytes.IndexByte(line, '\t')
		if j < 0 {
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
