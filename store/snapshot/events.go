package snapshot

import (
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"strconv"
	"strings"
	"time"

	"github.com/recall-dev/recall/store/manifest"

	"github.com/recall-dev/recall/filter"
	"github.com/recall-dev/recall/internal/problem"
	"github.com/recall-dev/recall/internal/tsvfield"
	"github.com/recall-dev/recall/record"
	"github.com/recall-dev/recall/textrules"
)

// Recall events (rows that ran or quoted recall) are found at index time
// and listed in events-v2-NNNNNN.tsv, so a search applies the recall cutoff
// from this short list instead of re-reading the rows. One line an event:
// session, timestamp, source, line, ordinal, gen, recalled words (space
// separated), each escaped like the rows.

// Event is one recall event as stored.
type Event struct {
	Session string
	filter.RecallEvent
	Gen uint32
}

// AppendEventLine appends the events-file line of row r, a recall event
// that recalled words.
func AppendEventLine(b []byte, r *record.Row, words []string) []byte {
	for i, f := range []string{r.Session, r.Timestamp, r.Source, strconv.Itoa(r.Line), strconv.Itoa(r.Ordinal),
		strconv.FormatUint(uint64(r.Gen), 10), strings.Join(words, " ")} {
		if i > 0 {
			b = append(b, '\t')
		}
		b = tsvfield.Append(b, f)
	}
	return append(b, '\n')
}

// Events returns the committed recall events of live generations, by
// session, in index order.
func (s *Snapshot) Events() (map[string][]Event, error) {
	return s.EventsOf(nil)
}

// EventsOf is Events for the given sessions (all if sessions is nil).
// Only their lines are parsed, and the file is read once per snapshot: a
// search that shows a few sessions need not parse the events of
// thousands, nor read them again for every batch it confirms.
func (s *Snapshot) EventsOf(sessions map[string]bool) (map[string][]Event, error) {
	out := map[string][]Event{}
	if s.stale == "" && (s.events == nil || s.M.EventsBytes == 0) {
		return out, nil
	}
	s.eventsOnce.Do(s.loadEvents)
	if s.eventsErr != nil {
		return nil, s.eventsErr
	}
	data := s.eventsData
	for len(data) > 0 {
		var line []byte
		line, data, _ = bytes.Cut(data, []byte{'\n'})
		if sessions != nil && !wantedSession(sessions, line) {
			continue
		}
		e, ok := parseEvent(line)
		if ok && !s.Dead(e.Gen) {
			out[e.Session] = append(out[e.Session], e)
		}
	}
	return out, nil
}

// SessionEvents returns the committed recall events of live generations
// of one session, in index order: EventsOf for a single session, for a
// caller that asks session by session. The file's lines are indexed by
// session in one pass on the first call (sessionLines), so each later
// call parses only its session's lines (EventsOf scans every line each
// call).
// Safe for concurrent use.
func (s *Snapshot) SessionEvents(id string) ([]Event, error) {
	if s.stale == "" && (s.events == nil || s.M.EventsBytes == 0) {
		return nil, nil
	}
	s.eventsOnce.Do(s.loadEvents)
	if s.eventsErr != nil {
		return nil, s.eventsErr
	}
	s.eventLinesOnce.Do(s.indexEventLines)
	var out []Event
	s.eventLines.each(id, func(line []byte) {
		if e, ok := parseEvent(line); ok && !s.Dead(e.Gen) && e.Session == id {
			out = append(out, e)
		}
	})
	return out, nil
}

func (s *Snapshot) indexEventLines() { s.eventLines = newSessionLines(s.eventsData) }

// loadEvents reads the committed events file once, past its header. When
// the derived data is stale the file's events were detected by other
// rules, so they are found again in the rows, with these rules.
func (s *Snapshot) loadEvents() {
	if s.stale != "" {
		s.eventsData, s.eventsErr = s.eventsFromRows()
		return
	}
	data, err := s.readEventsFile()
	if err != nil {
		// The rows are the truth: find the events in them again.
		s.noteProblem(problem.NeedsRepair(fmt.Errorf("events file unreadable (%w), recall events found in the rows instead", err), "rebuilds it"))
		s.eventsData, s.eventsErr = s.eventsFromRows()
		return
	}
	s.eventsData = data
}

// readEventsFile reads the committed events file and checks it: its
// checksum, and its header, which it returns without (format 2 on).
func (s *Snapshot) readEventsFile() ([]byte, error) {
	data := make([]byte, s.M.EventsBytes)
	if _, err := s.events.ReadAt(data, 0); err != nil {
		return nil, err
	}
	if s.M.Format < 2 {
		return data, nil
	}
	if crc32.Checksum(data, crcTable) != s.M.EventsCRC {
		return nil, errors.New("checksum mismatch")
	}
	header, rest, _ := bytes.Cut(data, []byte{'\n'})
	if string(header)+"\n" != manifest.EventsHeader() {
		return nil, fmt.Errorf("header %q, want %q", header, strings.TrimSpace(manifest.EventsHeader()))
	}
	return rest, nil
}

// eventsFromRows detects the recall events of every row, as the writer
// does, and returns them as events-file lines.
func (s *Snapshot) eventsFromRows() ([]byte, error) {
	var b []byte
	err := s.EachRow(func(r *record.Row) error {
		if r.Type == record.TypeTitle {
			return nil
		}
		if words, ok := textrules.DetectRecallEvent(r.Role, r.Text); ok {
			b = AppendEventLine(b, r, words)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("find recall events in the rows: %w", err)
	}
	return b, nil
}

// wantedSession reports whether an event line's session is in sessions,
// without allocating for ids that need no unescaping (all real ones).
func wantedSession(sessions map[string]bool, line []byte) bool {
	field := sessionField(line)
	if bytes.IndexByte(field, '\\') < 0 {
		return sessions[string(field)]
	}
	return sessions[record.Unescape(field)]
}

func parseEvent(line []byte) (Event, bool) {
	f := bytes.Split(line, []byte{'\t'})
	if len(f) != 7 {
		return Event{}, false
	}
	lineNo, err1 := strconv.Atoi(string(f[3]))
	ordinal, err2 := strconv.Atoi(string(f[4]))
	gen, err3 := strconv.ParseUint(string(f[5]), 10, 32)
	if err1 != nil || err2 != nil || err3 != nil {
		return Event{}, false
	}
	t, _ := time.Parse(time.RFC3339Nano, record.Unescape(f[1]))
	e := Event{Session: record.Unescape(f[0]), Gen: uint32(gen)}
	e.Time, e.Source, e.Line, e.Ordinal = t, record.Unescape(f[2]), lineNo, ordinal
	if words := record.Unescape(f[6]); words != "" {
		e.Words = strings.Fields(words)
	}
	return e, true
}
