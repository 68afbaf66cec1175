package judge

import "github.com/recall-dev/recall/store/terms"

// Segment is a term segment the quick judge reads: its counts at once,
// its mapping when the judge first reads it. The prompt hook's small
// binary opens a segment the lexicon covers only if a prompt needs its
// rows or a posting list the lexicon does not carry: most prompts need
// neither, and each mapping cost some 25 µs of a process that lives a
// few milliseconds.
type Segment struct {
	rows int
	raw  uint64
	// lex is the segment's index in the lexicon (QuickOptions.Lexicon),
	// -1 when it is not known to be there: an open segment is matched by
	// its identity (terms.Lexicon.Covers).
	lex  int
	open func() (*terms.Segment, error)
	seg  *terms.Segment
	err  error
}

// Opened is a segment already open.
func Opened(s *terms.Segment) *Segment {
	return &Segment{rows: s.Rows(), raw: s.RawBytes(), lex: -1, seg: s}
}

// OpenedAll is Opened of each of segs.
func OpenedAll(segs []*terms.Segment) []*Segment {
	out := make([]*Segment, len(segs))
	for i, s := range segs {
		out[i] = Opened(s)
	}
	return out
}

// Deferred is the lexicon's segment lex, of rows rows and raw bytes,
// opened by open when the judge first reads it.
func Deferred(lex, rows int, raw uint64, open func() (*terms.Segment, error)) *Segment {
	return &Segment{rows: rows, raw: raw, lex: lex, open: open}
}

// get returns the segment, opening it on first use; nil when it cannot
// be opened (err says why, and the judge reports it).
func (s *Segment) get() *terms.Segment {
	if s.seg == nil && s.err == nil && s.open != nil {
		s.seg, s.err = s.open()
	}
	return s.seg
}
