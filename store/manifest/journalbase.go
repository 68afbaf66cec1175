package manifest

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

// JournalState is what a commit changes of a manifest besides its
// contents: the checkpoint's epoch, the base, where the journal ends.
type JournalState struct {
	epoch       uint64
	base        map[string]committedState
	baseSeed    maphash.Seed
	journalEnd  int64
	journalTorn bool
}

// Snapshot is a copy of m to commit while m changes: the counters, the
// exclusions and dead generations, and every file's state, copied (in
// one allocation; the strings are shared, they never change). Every file
// line is loaded first, so m reads no more lines lazily (which would add
// to the journal base the Snapshot shares until its commit is done).
// The journal state (epoch, base, where the journal ends) goes with the
// Snapshot and comes back with takeJournalState.
//
// The last commit's Snapshot (final) shares m's maps and the checkpoint
// lines not yet read: nothing changes m until that commit is waited for,
// and loading every line of the checkpoint first made a small run's
// commit read and parse the whole manifest (3.8 MB at 1 GB, 15 MB at
// 4 GB: 25 and 160 ms for a 10-line append).
func (m *Manifest) Snapshot(final bool) *Manifest {
	if final {
		c := *m
		return &c
	}
	m.loadAll()
	c := *m
	c.Excluded, c.Dead = cloneMap(m.Excluded), cloneMap(m.Dead)
	states := make([]record.FileState, 0, len(m.byPath))
	c.byPath = make(map[string]*record.FileState, len(m.byPath))
	for k, v := range m.byPath {
		states = append(states, *v)
		c.byPath[k] = &states[len(states)-1]
	}
	return &c
}

// JournalState is m's journal state, which a snapshot committed (or not)
// gives back to the manifest it was taken from (setJournalState), as
// commitManifest would have changed that manifest's: a checkpoint's
// epoch, the base, where the journal ends and whether a torn record is
// to be cut.
func (m *Manifest) JournalState() JournalState {
	return JournalState{epoch: m.Epoch, base: m.base, baseSeed: m.baseSeed, journalEnd: m.journalEnd, journalTorn: m.journalTorn}
}

func (m *Manifest) SetJournalState(j JournalState) {
	m.Epoch = j.epoch
	m.base, m.baseSeed = j.base, j.baseSeed
	m.journalEnd, m.journalTorn = j.journalEnd, j.journalTorn
}

// ForCommit is the Snapshot of m a commit writes (the last of its run
// when final). m's journal base goes with the snapshot until the commit
// gives it back (SetJournalState), and the checkpoint a removed entry
// asked for is the snapshot's to write. A checkpoint line that fails
// to load is the error, and m is left as it was.
func (m *Manifest) ForCommit(final bool) (*Manifest, error) {
	snap := m.Snapshot(final)
	if err := snap.Err(); err != nil {
		return nil, err
	}
	snap.noBase = final
	m.base = nil
	m.forceCheckpoint = false
	return snap, nil
}
