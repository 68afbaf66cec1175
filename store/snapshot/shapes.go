package snapshot

import (
	"bytes"
	"errors"

	"github.com/recall-dev/recall/internal/tsvfield"
	"github.com/recall-dev/recall/record"
	"github.com/recall-dev/recall/store/terms"
)

// RowShape is what duplicate collapse compares of one message of a
// session, matched or not: its type (terms.TypeUser, …) and the length
// of its text in bytes.
type RowShape struct {
	Type uint8
	Len  uint32
}

// SessionShapes returns the shape of every live row of each session of
// ids, in index order: title rows, lines that are not rows and rows of
// an unknown type are left out. It reads the term index's row tables
// when they cover the index (no text is decompressed), else, or when a
// row table page it read fails its check, the rows (the blocks whose
// session filter may hold one of ids). Both give the same shapes: the
// row table records each row's type and text length as the rows hold
// them. A session with no live row has none.
func (s *Snapshot) SessionShapes(ids []string) (map[string][]RowShape, error) {
	if len(ids) == 0 {
		return map[string][]RowShape{}, nil
	}
	if segs, why := s.TermSegments(); segs != nil && why == nil {
		if out, ok := s.shapesFromTerms(segs, ids); ok {
			return out, nil
		}
	}
	return s.shapesFromRows(ids)
}

// shapesFromTerms reads the shapes from the row tables; ok is false if a
// page of one failed its check.
func (s *Snapshot) shapesFromTerms(segs []*terms.Segment, ids []string) (map[string][]RowShape, bool) {
	want := escapedIDs(ids)
	per := make([][]RowShape, len(ids))
	for _, seg := range segs {
		read := seg.SessionRows(want, func(i int, r terms.RowInfo) {
			if r.Type != terms.TypeOther && r.Type != terms.TypeTitle && !s.Dead(r.Gen) {
				per[i] = append(per[i], RowShape{Type: r.Type, Len: uint32(r.Len)})
			}
		})
		if seg.Err() != nil {
			return nil, false
		}
		if read {
			// As a search does once its candidates are read: the pages
			// of a whole row table are not kept mapped for a few rows.
			seg.ReleaseRows()
		}
	}
	return byID(ids, want, per), true
}

// shapesFromRows reads the shapes from the rows, skipping damaged blocks
// as searches do.
func (s *Snapshot) shapesFromRows(ids []string) (map[string][]RowShape, error) {
	dec, err := NewDecoder()
	if err != nil {
		return nil, err
	}
	defer dec.Close()
	want := escapedIDs(ids)
	per := make([][]RowShape, len(ids))
	var raw, scratch, unescaped []byte
	var f [record.NumColumns][]byte
	for i := range s.Blocks {
		b := &s.Blocks[i]
		if s.SkipBlocks() && !mayHoldAny(b, ids) {
			continue
		}
		raw, scratch, err = s.ReadBlock(dec, b, raw, scratch)
		if errors.Is(err, ErrBlockDamaged) {
			continue
		}
		if err != nil {
			return nil, err
		}
		for rest := raw; len(rest) > 0; {
			var line []byte
			line, rest, _ = bytes.Cut(rest, []byte{'\n'})
			if !record.SplitRow(line, &f) {
				continue
			}
			at, ok := want[string(f[record.ColSession])]
			if !ok {
				continue
			}
			// As addBlockRows records them in the row table.
			typ := terms.TypeCode(string(f[record.ColType]))
			gen, _ := tsvfield.ParseUint32(f[record.ColGen])
			if typ == terms.TypeOther || typ == terms.TypeTitle || s.Dead(gen) {
				continue
			}
			text := f[record.ColText]
			if bytes.IndexByte(text, '\\') >= 0 {
				unescaped = record.UnescapeAppend(unescaped[:0], text)
				text = unescaped
			}
			per[at] = append(per[at], RowShape{Type: typ, Len: uint32(min(uint64(len(text)), 1<<32-1))})
		}
	}
	return byID(ids, want, per), nil
}

// mayHoldAny reports whether block b's session filter may hold one of
// ids.
func mayHoldAny(b *Block, ids []string) bool {
	for _, id := range ids {
		if b.MaySession(id) {
			return true
		}
	}
	return false
}

// escapedIDs maps each of ids, escaped as the rows and key lines hold
// it, to its first place in ids.
func escapedIDs(ids []string) map[string]int {
	want := make(map[string]int, len(ids))
	for i, id := range ids {
		e := string(tsvfield.Append(nil, id))
		if _, seen := want[e]; !seen {
			want[e] = i
		}
	}
	return want
}

// byID maps each of ids to the shapes gathered at its first place.
func byID(ids []string, want map[string]int, per [][]RowShape) map[string][]RowShape {
	out := make(map[string][]RowShape, len(ids))
	for _, id := range ids {
		out[id] = per[want[string(tsvfield.Append(nil, id))]]
	}
	return out
}
