package store

import (
	"encoding/binary"
	"hash/maphash"

	"github.com/recall-dev/recall/record"
)

// committedState is what the journal compares a file's state with: the
// state as last committed. It keeps the numbers as they are and the
// strings (path, session, project, kind, agent, verdict) as one 64-bit
// hash of them, so the base is an 80-byte value with no pointer for the
// collector to follow where a FileState copy was 176 bytes and six
// strings: at 4 GB of transcripts the base was 11.5 MB that every cycle
// of a full index marked. Strings alone change with a number in every
// commit the indexer makes (a read moves the offset, a fork verdict the
// offset too), so the hash is a second check, not the only one.
type committedState struct {
	gen     uint32
	gone    bool
	tail    record.Fingerprint
	dev     uint64
	ino     uint64
	size    int64
	mtimeNs int64
	offset  int64
	lines   int64
	rows    int64
	text    uint64
}

// committedOf is st as the base keeps it.
func (m *Manifest) committedOf(st *record.FileState) committedState {
	if m.baseSeed == (maphash.Seed{}) {
		m.baseSeed = maphash.MakeSeed()
	}
	var h maphash.Hash
	h.SetSeed(m.baseSeed)
	for _, s := range [...]string{st.Path, st.Session, st.Project, st.Kind, st.Agent, st.Verdict} {
		var n [binary.MaxVarintLen64]byte
		h.Write(n[:binary.PutUvarint(n[:], uint64(len(s)))]) // a length first: ("ab","c") is not ("a","bc")
		h.WriteString(s)
	}
	return committedState{
		gen: st.Gen, gone: st.Gone, tail: st.Tail, dev: st.Dev, ino: st.Ino, size: st.Size,
		mtimeNs: st.MtimeNs, offset: st.Offset, lines: int64(st.Lines), rows: st.Rows, text: h.Sum64(),
	}
}
