package snapshot

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"

	"github.com/recall-dev/recall/internal/tsvfield"
	"github.com/recall-dev/recall/record"
	"github.com/recall-dev/recall/store/manifest"
	"github.com/recall-dev/recall/store/terms"
	"github.com/recall-dev/recall/textrules"
)

// Read-only views of whole sessions, for `recall show`, `recall sessions`
// and the MCP server. The index is the archive: these read rows, never
// transcripts, so they work after Claude Code has deleted a transcript.

// SessionRead is every live row of one session, in index order, and what
// could not be read on the way.
type SessionRead struct {
	Rows          []record.Row
	BlocksRead    int    // blocks decompressed: those the session filters let through
	BadRows       int    // rows that are not rows (skipped)
	Damaged       int    // rows blocks that did not read (skipped)
	DamageExample string // why the first damaged block did not read
}

// ReadSession reads the live rows of session id (a whole id, not a
// prefix). Only the blocks whose session filter may hold the id are read,
// unless the block records were built under other rules (SkipBlocks).
// Damaged blocks are skipped and counted, as searches do.
func (s *Snapshot) ReadSession(id string) (*SessionRead, error) {
	dec, err := NewDecoder()
	if err != nil {
		return nil, err
	}
	defer dec.Close()
	out := &SessionRead{}
	want := tsvfield.Append(nil, id)
	var raw, scratch []byte
	for i := range s.Blocks {
		b := &s.Blocks[i]
		if s.SkipBlocks() && !b.MaySession(id) {
			continue
		}
		raw, scratch, err = s.ReadBlock(dec, b, raw, scratch)
		if errors.Is(err, ErrBlockDamaged) {
			out.noteDamage(err)
			continue
		}
		if err != nil {
			return nil, err
		}
		out.BlocksRead++
		s.sessionRowsOf(raw, want, out)
	}
	return out, nil
}

func (r *SessionRead) noteDamage(err error) {
	if r.Damaged == 0 {
		r.DamageExample = err.Error()
	}
	r.Damaged++
}

// sessionRowsOf appends the live rows of one block whose escaped session
// column is want.
func (s *Snapshot) sessionRowsOf(raw, want []byte, out *SessionRead) {
	var f [record.NumColumns][]byte
	for len(raw) > 0 {
		var line []byte
		line, raw, _ = bytes.Cut(raw, []byte{'\n'})
		if !record.SplitRow(line, &f) {
			out.BadRows++
			continue
		}
		if !bytes.Equal(f[record.ColSession], want) {
			continue
		}
		r, err := record.ParseRow(line)
		if err != nil {
			out.BadRows++
			continue
		}
		if !s.Dead(r.Gen) {
			out.Rows = append(out.Rows, r)
		}
	}
}

// SessionSummary describes one indexed session without its text but for
// its first prompt.
type SessionSummary struct {
	ID      string
	Project string // the project of its first row
	// FirstMs and LastMs are the earliest and latest row times, Unix ms
	// (0: no row had a time).
	FirstMs, LastMs int64
	Messages        int // live rows
	// HeadlessRows counts the rows of headless runs (`claude -p`, the
	// SDKs) among them; a session all of whose rows are is a headless run.
	HeadlessRows int
	// Agent is the coding agent whose session it is (record.Agents
	// names), its first row's.
	Agent string
	// FirstPrompt is the text of its first user row (its first row when it
	// has none), and Source the file that row came from; filled by
	// FillFirstPrompts.
	FirstPrompt string
	Source      string

	first     int // global row number of the first user row (or first row)
	firstUser bool
}

// SessionSummaries summarises every session with live rows, in the order
// they first appear in the index. It ranks from the term index's row
// tables when they cover the index (no text is decompressed), else it
// reads every row. FirstPrompt is left empty: FillFirstPrompts reads it
// for the sessions a caller shows.
func (s *Snapshot) SessionSummaries() ([]SessionSummary, error) {
	if segs, why := s.TermSegments(); segs != nil && why == nil {
		return s.summariesFromTerms(segs), nil
	}
	return s.summariesFromRows()
}

// summaryTable gathers sessions in order of appearance.
type summaryTable struct {
	at  map[string]int
	out []SessionSummary
}

// Headless reports whether every row of the session is from a headless
// run: a session a person typed into at any point is not one.
func (s *SessionSummary) Headless() bool { return s.Messages > 0 && s.HeadlessRows == s.Messages }

func (t *summaryTable) note(session, project, agent string, ms int64, user, headless bool, row int) {
	i, ok := t.at[session]
	if !ok {
		i = len(t.out)
		t.at[session] = i
		t.out = append(t.out, SessionSummary{ID: session, Project: project, Agent: agent, first: row, firstUser: user})
	}
	sum := &t.out[i]
	sum.Messages++
	if headless {
		sum.HeadlessRows++
	}
	if user && !sum.firstUser {
		sum.first, sum.firstUser = row, true
	}
	if ms == 0 || ms == terms.UnknownTime {
		return
	}
	if sum.FirstMs == 0 || ms < sum.FirstMs {
		sum.FirstMs = ms
	}
	sum.LastMs = max(sum.LastMs, ms)
}

// summariesFromTerms reads the row tables of the term segments, which
// cover the blocks from 0 in order: row r of the index is row r of the
// concatenated segments.
func (s *Snapshot) summariesFromTerms(segs []*terms.Segment) []SessionSummary {
	t := summaryTable{at: map[string]int{}}
	row := 0
	for _, seg := range segs {
		for i := 0; i < seg.Rows(); i++ {
			info := seg.Row(i)
			// A line that is not a row keeps its place with no session.
			// Title rows name a session; they are not among its messages.
			if key := seg.Key(info.Key); key.Session != "" && info.Type != terms.TypeOther && info.Type != terms.TypeTitle && !s.Dead(info.Gen) {
				t.note(key.Session, key.Project, record.AgentName(info.Agent), info.TimeMs, info.Type == terms.TypeUser, info.Flags&terms.FlagHeadless != 0, row)
			}
			row++
		}
	}
	return t.out
}

// summariesFromRows reads every block, skipping damaged ones.
func (s *Snapshot) summariesFromRows() ([]SessionSummary, error) {
	dec, err := NewDecoder()
	if err != nil {
		return nil, err
	}
	defer dec.Close()
	t := summaryTable{at: map[string]int{}}
	row := 0
	var raw, scratch []byte
	var f [record.NumColumns][]byte
	for i := range s.Blocks {
		raw, scratch, err = s.ReadBlock(dec, &s.Blocks[i], raw, scratch)
		if errors.Is(err, ErrBlockDamaged) {
			row += s.Blocks[i].Rows
			continue
		}
		if err != nil {
			return nil, err
		}
		for len(raw) > 0 {
			var line []byte
			line, raw, _ = bytes.Cut(raw, []byte{'\n'})
			if record.SplitRow(line, &f) && !s.Dead(parseGen(f[record.ColGen])) && string(f[record.ColType]) != record.TypeTitle {
				ms, _ := record.ParseTimestamp(string(f[record.ColTimestamp]))
				t.note(record.Unescape(f[record.ColSession]), record.Unescape(f[record.ColProject]), record.AgentOf(string(f[record.ColAgentName])), ms, string(f[record.ColType]) == record.TypeUser,
					textrules.IsHeadlessEntrypoint(string(f[record.ColEntrypoint])), row)
			}
			row++
		}
	}
	return t.out, nil
}

func parseGen(b []byte) uint32 {
	gen, _ := strconv.ParseUint(string(b), 10, 32)
	return uint32(gen)
}

// FillFirstPrompts reads the first prompt of each summary: only the
// blocks that hold one are decompressed. A prompt in a damaged block is
// left empty.
func (s *Snapshot) FillFirstPrompts(sums []SessionSummary) error {
	starts := make([]int, len(s.Blocks)+1) // global row number each block starts at
	for i, b := range s.Blocks {
		starts[i+1] = starts[i] + b.Rows
	}
	byBlock := map[int][]int{} // block → summaries whose prompt it holds
	for i := range sums {
		b := sort.SearchInts(starts, sums[i].first+1) - 1
		if b >= 0 && b < len(s.Blocks) {
			byBlock[b] = append(byBlock[b], i)
		}
	}
	dec, err := NewDecoder()
	if err != nil {
		return err
	}
	defer dec.Close()
	var raw, scratch []byte
	for _, b := range sortedInts(byBlock) {
		raw, scratch, err = s.ReadBlock(dec, &s.Blocks[b], raw, scratch)
		if errors.Is(err, ErrBlockDamaged) {
			continue
		}
		if err != nil {
			return err
		}
		lines := bytes.Split(bytes.TrimSuffix(raw, []byte{'\n'}), []byte{'\n'})
		for _, i := range byBlock[b] {
			sums[i].FirstPrompt = promptIn(lines, sums[i].first-starts[b], &sums[i])
		}
	}
	return nil
}

// promptIn is the text of line k of a block when it is a row of the
// session; if it is not (a term index out of step with the rows), the
// block's first user row of the session, else its first row of it. It
// sets sum.Source to that row's file.
func promptIn(lines [][]byte, k int, sum *SessionSummary) string {
	var f [record.NumColumns][]byte
	if k >= 0 && k < len(lines) && record.SplitRow(lines[k], &f) && record.Unescape(f[record.ColSession]) == sum.ID {
		sum.Source = record.Unescape(f[record.ColSource])
		return record.Unescape(f[record.ColText])
	}
	first := ""
	for _, line := range lines {
		if !record.SplitRow(line, &f) || record.Unescape(f[record.ColSession]) != sum.ID {
			continue
		}
		if string(f[record.ColType]) == record.TypeUser {
			sum.Source = record.Unescape(f[record.ColSource])
			return record.Unescape(f[record.ColText])
		}
		if first == "" {
			first, sum.Source = record.Unescape(f[record.ColText]), record.Unescape(f[record.ColSource])
		}
	}
	return first
}

func sortedInts[V any](m map[int]V) []int {
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	return keys
}

// ResolveSession finds the session whose id is prefix, or the one
// session whose id starts with it, among the sessions with live rows
// (manifest.ResolveSession's rules: an exact id wins, several are
// ambiguous).
func (s *Snapshot) ResolveSession(prefix string) (string, error) {
	if prefix == "" {
		return "", fmt.Errorf("%w: empty session id", manifest.ErrNoSession)
	}
	sums, err := s.SessionSummaries()
	if err != nil {
		return "", err
	}
	var found []string
	for i := range sums {
		id := sums[i].ID
		if !record.SessionHasPrefix(id, prefix) {
			continue
		}
		if id == prefix || record.SessionIDOf(id) == prefix {
			return id, nil
		}
		found = append(found, id)
	}
	switch len(found) {
	case 0:
		return "", fmt.Errorf("%w has an id starting with %q", manifest.ErrNoSession, prefix)
	case 1:
		return found[0], nil
	}
	slices.Sort(found)
	const shown = 5
	return "", &manifest.AmbiguousError{Prefix: prefix, Sessions: found[:min(len(found), shown)], Count: len(found)}
}
