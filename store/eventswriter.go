package store

import (
	"fmt"
	"hash/crc32"

	"github.com/recall-dev/recall/store/snapshot"

	"github.com/recall-dev/recall/record"
	"github.com/recall-dev/recall/textrules"
)

// noteEvent appends r to the events file if it is a recall event, or a
// session title (snapshot.AppendTitleLine).
func (w *RowsWriter) noteEvent(r *record.Row) error {
	if r.Type == record.TypeTitle {
		return w.appendEvents(snapshot.AppendTitleLine(nil, r))
	}
	words, ok := textrules.DetectRecallEvent(r.Role, r.Text)
	if !ok {
		return nil
	}
	return w.appendEvents(snapshot.AppendEventLine(nil, r, words))
}

// appendEvents appends to the events file, keeping its length and
// checksum in the manifest.
func (w *RowsWriter) appendEvents(b []byte) error {
	if _, err := w.events.Write(b); err != nil {
		return fmt.Errorf("write events: %w", err)
	}
	w.m.EventsBytes += int64(len(b))
	w.m.EventsCRC = crc32.Update(w.m.EventsCRC, rowsCRC, b)
	return nil
}

// rowsCRC is the Castagnoli table of the checksums the manifest keeps of
// the events and keys files.
var rowsCRC = crc32.MakeTable(crc32.Castagnoli)
