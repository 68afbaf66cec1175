package snapshot

import (
	"bytes"
	"fmt"
	"strconv"

	"github.com/recall-dev/recall/internal/tsvfield"
	"github.com/recall-dev/recall/record"
)

// Session titles are rows of type title (the transcript's custom-title,
// ai-title and summary records); the writer also lists each in the
// events file, as a line of eight fields (a recall event's seven, the
// title in place of the recalled words, and its kind), so that a search
// names the sessions it shows without reading their rows. Event readers
// take only seven-field lines.

// titleFields is the field count of a title line of the events file.
const titleFields = 8

// AppendTitleLine appends the events-file line of title row r.
func AppendTitleLine(b []byte, r *record.Row) []byte {
	for i, f := range []string{r.Session, r.Timestamp, r.Source, strconv.Itoa(r.Line), strconv.Itoa(r.Ordinal),
		strconv.FormatUint(uint64(r.Gen), 10), r.Text, r.Role} {
		if i > 0 {
			b = append(b, '\t')
		}
		b = tsvfield.Append(b, f)
	}
	return append(b, '\n')
}

// titleOf reads a title line: its session, kind, text and generation.
func titleOf(line []byte) (session, kind, text string, gen uint32, ok bool) {
	f := bytes.Split(line, []byte{'\t'})
	if len(f) != titleFields {
		return "", "", "", 0, false
	}
	g, err := strconv.ParseUint(string(f[5]), 10, 32)
	if err != nil {
		return "", "", "", 0, false
	}
	return record.Unescape(f[0]), record.Unescape(f[7]), record.Unescape(f[6]), uint32(g), true
}

// betterTitle keeps, per session, the latest title of the highest rank:
// lines come in index order, so a later one of the same rank wins.
type betterTitle map[string]struct {
	rank int
	text string
}

func (t betterTitle) note(session, kind, text string) {
	r := record.TitleRank(kind)
	if r == 0 || text == "" {
		return
	}
	if cur, ok := t[session]; ok && cur.rank > r {
		return
	}
	t[session] = struct {
		rank int
		text string
	}{r, text}
}

// Titles returns the title of each of sessions that has one (all sessions
// if sessions is nil), from the events file; when the derived data is
// stale, from the rows.
func (s *Snapshot) Titles(sessions map[string]bool) (map[string]string, error) {
	best := betterTitle{}
	if s.stale != "" {
		err := s.EachRow(func(r *record.Row) error {
			if r.Type == record.TypeTitle && (sessions == nil || sessions[r.Session]) {
				best.note(r.Session, r.Role, r.Text)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("find session titles in the rows: %w", err)
		}
		return best.texts(), nil
	}
	if s.events == nil || s.M.EventsBytes == 0 {
		return map[string]string{}, nil
	}
	s.eventsOnce.Do(s.loadEvents)
	if s.eventsErr != nil {
		return nil, s.eventsErr
	}
	note := func(line []byte) {
		if session, kind, text, gen, ok := titleOf(line); ok && !s.Dead(gen) {
			best.note(session, kind, text)
		}
	}
	if sessions == nil {
		for data := s.eventsData; len(data) > 0; {
			var line []byte
			line, data, _ = bytes.Cut(data, []byte{'\n'})
			note(line)
		}
		return best.texts(), nil
	}
	s.eventLinesOnce.Do(s.indexEventLines)
	for id := range sessions {
		s.eventLines.each(id, note)
	}
	return best.texts(), nil
}

func (t betterTitle) texts() map[string]string {
	out := make(map[string]string, len(t))
	for session, v := range t {
		out[session] = v.text
	}
	return out
}
