package keys

import (
	"encoding/binary"

	"github.com/recall-dev/recall/store/manifest"
)

// Set holds the identities of the indexed messages (the uuids file)
// and the generation each came from, to drop copies. A small run looks a
// few keys up: it scans the committed records for each, from the newest,
// instead of loading them all. After ScanLookups lookups it builds an
// open-addressing table, which holds 1.5 million keys (a 4 GB corpus) in
// about 24 MB where a Go map took more than twice that.
//
// With a key index (LoadKeys), the committed records are the index and
// the tail appended since it was built, and raw is read only when the
// table is built (or the index fails a check).
type Set struct {
	raw     []byte            // committed records, RecordSize each
	added   map[uint64]uint32 // keys added since, while scanning
	table   keyTable
	lookups int

	disk    *Index        // the key index, or nil
	tail    []byte        // records past the key index
	readAll func() []byte // every committed record, for build
}

// ScanLookups is how many lookups a run makes by scanning before it
// builds the table: scanning 400,000 records takes about as long as
// inserting a few thousand of them.
const ScanLookups = 64

// NewIndexedSet is a Set over the key index ix, whose records end where
// tail (the records appended since) begins; readAll reads every
// committed record when a lookup needs the table built.
func NewIndexedSet(ix *Index, tail []byte, readAll func() []byte) *Set {
	return &Set{disk: ix, tail: tail, added: map[uint64]uint32{}, readAll: readAll}
}

func NewSet(raw []byte) *Set {
	return &Set{raw: raw[:len(raw)-len(raw)%RecordSize], added: map[uint64]uint32{}}
}

// Get returns the generation key was last indexed from.
func (s *Set) Get(key uint64) (uint32, bool) {
	s.lookups++
	if s.table.keys == nil && s.lookups > ScanLookups {
		s.build()
	}
	if s.table.keys != nil {
		return s.table.get(key)
	}
	if gen, ok := s.added[key]; ok {
		return gen, true
	}
	if s.disk != nil {
		if gen, ok := ScanRecords(s.tail, key); ok {
			return gen, true
		}
		gen, ok, err := s.disk.Get(key)
		if err == nil {
			return gen, ok
		}
		s.dropIndex() // damaged: the keys file decides, read whole
	}
	return ScanRecords(s.raw, key)
}

// ScanRecords finds key in key records, the newest first.
func ScanRecords(raw []byte, key uint64) (uint32, bool) {
	for off := len(raw) - RecordSize; off >= 0; off -= RecordSize {
		if binary.LittleEndian.Uint64(raw[off:]) == key {
			return binary.LittleEndian.Uint32(raw[off+8:]), true
		}
	}
	return 0, false
}

// dropIndex stops using the key index: raw becomes every committed
// record.
func (s *Set) dropIndex() {
	if s.disk == nil {
		return
	}
	s.disk.Close()
	s.disk, s.tail = nil, nil
	raw := s.readAll()
	s.raw = raw[:len(raw)-len(raw)%RecordSize]
}

// Put records key as indexed from generation gen.
func (s *Set) Put(key uint64, gen uint32) {
	if s.table.keys != nil {
		s.table.put(key, gen)
		return
	}
	s.added[key] = gen
}

// build moves every key into the table, in file order so later records
// win, as a rescan from the newest would find them.
func (s *Set) build() {
	s.dropIndex()
	s.table = newKeyTable(len(s.raw)/RecordSize + len(s.added))
	for off := 0; off+RecordSize <= len(s.raw); off += RecordSize {
		s.table.put(binary.LittleEndian.Uint64(s.raw[off:]), binary.LittleEndian.Uint32(s.raw[off+8:]))
	}
	for k, g := range s.added {
		s.table.put(k, g)
	}
	s.raw, s.added = nil, nil
}

// keyTable maps non-zero uint64 keys to generations with linear probing;
// key 0 marks an empty slot (messages without a uuid have no key). Keys
// and generations are two arrays, not one of {key, gen} structs, which
// padding made 16 bytes a slot where 12 hold them: a full index at 4 GB
// kept 2 million slots live, 32 MB that are now 24.
type keyTable struct {
	keys []uint64
	gens []uint32
	used int
}

func newKeyTable(n int) keyTable {
	size := 1024
	for size < n*4/3+1 {
		size *= 2
	}
	return keyTable{keys: make([]uint64, size), gens: make([]uint32, size)}
}

func (t *keyTable) get(key uint64) (uint32, bool) {
	mask := len(t.keys) - 1
	for i := int(Mix64(key)) & mask; ; i = (i + 1) & mask {
		switch t.keys[i] {
		case key:
			return t.gens[i], true
		case 0:
			return 0, false
		}
	}
}

func (t *keyTable) put(key uint64, gen uint32) {
	if key == 0 {
		return
	}
	if (t.used+1)*4 > len(t.keys)*3 {
		t.grow()
	}
	mask := len(t.keys) - 1
	for i := int(Mix64(key)) & mask; ; i = (i + 1) & mask {
		switch t.keys[i] {
		case key:
			t.gens[i] = gen
			return
		case 0:
			t.keys[i], t.gens[i] = key, gen
			t.used++
			return
		}
	}
}

func (t *keyTable) grow() {
	keys, gens := t.keys, t.gens
	t.keys, t.gens, t.used = make([]uint64, len(keys)*2), make([]uint32, len(keys)*2), 0
	for i, k := range keys {
		if k != 0 {
			t.put(k, gens[i])
		}
	}
}

// RecordSize is one entry of the uuids file: a row key (uint64) and the
// generation it came from (uint32), little endian.
const RecordSize = 12

// Mix64 is the splitmix64 finaliser: cheap and well spread in both halves,
// which the two probes need.
func Mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

// Indexed reports whether s answers from the key index on disk (a load
// that found none, or did not believe it, reads the keys file whole),
// and how many records past the index it scans.
func (s *Set) Indexed() (ok bool, tail int) { return s.disk != nil, len(s.tail) / RecordSize }

// Records strips the header of a keys file's bytes (format 2 on).
func Records(data []byte, format int) []byte {
	if format >= 2 {
		return data[min(manifest.HeaderSize, len(data)):]
	}
	return data
}
