package snapshot

import (
	"bytes"
	"hash/maphash"
	"slices"

	"github.com/recall-dev/recall/record"
)

// sessionLines finds one session's lines of the events data. A search
// asks for the ten to sixty sessions it shows or confirms; a map of every
// session's lines (a string and a slice for each of 2,100 sessions at
// 1 GB) cost it a millisecond to build, where these three slices, filled
// in one pass, cost a fifth of that.
type sessionLines struct {
	data  []byte
	seed  maphash.Seed
	start []int    // where each line of data starts
	last  []uint32 // per hash slot, 1 + the last line whose session hashes there; 0 if none
	prev  []uint32 // per line, 1 + the line before it whose session hashed to its slot; 0 if none
}

// newSessionLines indexes the lines of data (lines end in '\n'; the last
// one may not) by the session in their first field.
func newSessionLines(data []byte) *sessionLines {
	n := bytes.Count(data, []byte{'\n'}) + 1
	slots := 1
	for slots < 2*n {
		slots <<= 1
	}
	x := &sessionLines{data: data, seed: maphash.MakeSeed(), start: make([]int, 0, n), last: make([]uint32, slots), prev: make([]uint32, 0, n)}
	for off := 0; off < len(data); {
		line := lineAt(data, off)
		h := x.slot(sessionField(line))
		x.start = append(x.start, off)
		x.prev = append(x.prev, x.last[h])
		x.last[h] = uint32(len(x.start))
		off += len(line) + 1
	}
	return x
}

// each calls fn with the lines of session id, in the order of the data.
func (x *sessionLines) each(id string, fn func(line []byte)) {
	var found []int
	for i := x.last[x.slotOf(id)]; i != 0; i = x.prev[i-1] {
		line := lineAt(x.data, x.start[i-1])
		if sameSession(sessionField(line), id) {
			found = append(found, int(i-1))
		}
	}
	slices.Reverse(found) // the chain runs from the last line back
	for _, i := range found {
		fn(lineAt(x.data, x.start[i]))
	}
}

// slot is the hash slot of a session field as the data holds it
// (escaped): the slot of the session it names.
func (x *sessionLines) slot(field []byte) uint64 {
	if bytes.IndexByte(field, '\\') >= 0 {
		return x.slotOf(record.Unescape(field))
	}
	return maphash.Bytes(x.seed, field) & uint64(len(x.last)-1)
}

func (x *sessionLines) slotOf(id string) uint64 {
	return maphash.String(x.seed, id) & uint64(len(x.last)-1)
}

// lineAt returns the line of data starting at off, without its '\n'.
func lineAt(data []byte, off int) []byte {
	line := data[off:]
	if i := bytes.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	return line
}

// sessionField is a line's first field: its session, escaped.
func sessionField(line []byte) []byte {
	if i := bytes.IndexByte(line, '\t'); i >= 0 {
		return line[:i]
	}
	return line
}

// sameSession reports whether an escaped session field names id.
func sameSession(field []byte, id string) bool {
	if bytes.IndexByte(field, '\\') >= 0 {
		return record.Unescape(field) == id
	}
	return string(field) == id
}
