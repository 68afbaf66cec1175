package terms

import "encoding/binary"

// SessionRows calls fn, in row order, with the table entry of every row
// whose key names one of sessions (session ids escaped as the key lines
// hold them, each mapped to the number fn is given for it). It reads the
// keys, and the row table only when a key names one of them: one pass
// over 24 bytes a row, with an array lookup per row. What duplicate
// collapse compares of two sessions, every message of each (matched or
// not), comes from here without decompressing any text.
//
// It reports whether it read the row table. A page of the table that
// fails its check is reported as Row reports it (Err); its entries are
// still passed on.
func (s *Segment) SessionRows(sessions map[string]int, fn func(session int, r RowInfo)) bool {
	if len(sessions) == 0 || s.h.Keys == 0 {
		return false
	}
	var of []int32 // per key: 1 + the number of its session, 0 for none
	key := 0
	_ = eachKey(s.keyData, int(s.h.Keys), func(session, _ []byte) {
		if n, ok := sessions[string(session)]; ok {
			if of == nil {
				of = make([]int32, s.h.Keys)
			}
			of[key] = int32(n) + 1
		}
		key++
	}) // checked by newSegment
	if of == nil {
		return false
	}
	s.checkSlice(s.rows)
	for e := s.rows; len(e) >= rowSize; e = e[rowSize:] {
		k := binary.LittleEndian.Uint32(e[12:])
		if uint64(k) < uint64(len(of)) && of[k] != 0 {
			fn(int(of[k]-1), s.decodeRow(e))
		}
	}
	return true
}
