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
	// readAt reads n bytes of the segment's file at off without opening
	// it: the postings of a lexicon entry that are not inline, where
	// opening the segment (a mapping, its header and offset tables)
	// costs several page faults more.
	readAt func(off int64, n int) ([]byte, error)
	seg    *terms.Segment
	err    error
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
// opened by open when the judge first reads its rows; postings the
// lexicon places in its file are read there by readAt (nil: the segment
// is opened for them too).
func Deferred(lex, rows int, raw uint64, open func() (*terms.Segment, error), readAt func(off int64, n int) ([]byte, error)) *Segment {
	return &Segment{rows: rows, raw: raw, lex: lex, open: open, readAt: readAt}
}

// get returns the segment, opening it on first use; nil when it cannot
// be opened (err says why, and the judge reports it).
func (s *Segment) get() *terms.Segment {
	if s.seg == nil && s.err == nil && s.open != nil {
		s.seg, s.err = s.open()
	}
	return s.seg
}

// postingsAt reads the postings of a lexicon entry from the segment's
// file, when it is not open; ok is false when they are to be read from
// the open segment instead. A read that fails is the segment's error.
func (s *Segment) postingsAt(ref tokenRef) (list []byte, ok bool) {
	if s.seg != nil || s.err != nil || s.readAt == nil || ref.offset <= 0 {
		return nil, s.err != nil
	}
	list, s.err = s.readAt(ref.offset, ref.bytes)
	return list, true
}
