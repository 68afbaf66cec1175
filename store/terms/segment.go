package terms

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/recall-dev/recall/internal/tsvfield"
)

// Segment is an open segment file, memory-mapped: a query touches only
// the vocabulary and the postings and rows it needs.
type Segment struct {
	Ref
	h         header
	populated sync.Once // the vocabulary's pages, mapped on first search
	data      []byte
	rows      []byte
	keyData   []byte    // the keys section, checked on open
	keysOnce  sync.Once // finds where each key starts, on first use
	keyAt     []uint32  // key i is keyData[keyAt[i]:keyAt[i+1]-1]
	keyMu     sync.Mutex
	keys      []Key // parsed as asked for (keyDone)
	keyDone   []bool
	vocab     []byte
	tokOff    []byte
	postOff   []byte
	postings  []byte
}

// Key is a row's session and project.
type Key struct{ Session, Project string }

// RowInfo is one row table entry.
type RowInfo struct {
	TimeMs int64
	Len    int
	Key    uint32
	Gen    uint32
	Type   uint8
	Flags  uint8
}

// Open maps the segment at path.
func Open(dir string, ref Ref) (*Segment, error) {
	path := ref.Path(dir)
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open term index: %w", err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("stat %s: %w", path, err)
	}
	size := info.Size()
	if size < preambleSize+headerSize || size > 1<<40 {
		return nil, fmt.Errorf("%s: %w: size %d", path, ErrDamaged, size)
	}
	data, err := unix.Mmap(int(f.Fd()), 0, int(size), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("map %s: %w", path, err)
	}
	s, err := newSegment(ref, data)
	if err != nil {
		_ = unix.Munmap(data)
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// newSegment checks data and slices its sections.
func newSegment(ref Ref, data []byte) (*Segment, error) {
	h, err := decodeHeader(data, uint64(len(data)))
	if err != nil {
		return nil, err
	}
	if int(h.FirstBlock) != ref.First || int(h.EndBlock) != ref.End {
		return nil, fmt.Errorf("%w: blocks %d-%d, name says %d-%d", ErrDamaged, h.FirstBlock, h.EndBlock, ref.First, ref.End)
	}
	s := &Segment{Ref: ref, h: h, data: data}
	s.rows = data[h.RowsOff : h.RowsOff+h.Rows*rowSize]
	s.vocab = data[h.VocabOff : h.VocabOff+h.VocabLen]
	s.tokOff = data[h.TokOff : h.TokOff+(h.Tokens+1)*4]
	s.postOff = data[h.PostOff : h.PostOff+(h.Tokens+1)*4]
	s.postings = data[h.PostingsOff : h.PostingsOff+h.PostingsLen]
	s.keyData = data[h.KeysOff : h.KeysOff+h.KeysLen]
	if err := eachKey(s.keyData, int(h.Keys), func(_, _ []byte) {}); err != nil {
		return nil, err
	}
	return s, nil
}

// eachKey calls fn with the session and project of every key line, still
// escaped, after checking there are n well-formed lines. Opening checks
// the keys this way without allocating; Keys builds the strings when a
// search first needs them (most segments, for a rare word, never do).
func eachKey(data []byte, n int, fn func(session, project []byte)) error {
	count := 0
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			return fmt.Errorf("%w: keys", ErrDamaged)
		}
		line := data[:i]
		data = data[i+1:]
		tab := bytes.IndexByte(line, '\t')
		if tab < 0 {
			return fmt.Errorf("%w: key line", ErrDamaged)
		}
		fn(line[:tab], line[tab+1:])
		count++
	}
	if count != n {
		return fmt.Errorf("%w: %d keys, header says %d", ErrDamaged, count, n)
	}
	return nil
}

// Close unmaps the segment.
func (s *Segment) Close() error {
	if s.data == nil {
		return nil
	}
	err := unix.Munmap(s.data)
	s.data = nil
	return err
}

// Rows is the number of rows in the segment.
func (s *Segment) Rows() int { return int(s.h.Rows) }

// Keys are the segment's session/project pairs, indexed by RowInfo.Key.
func (s *Segment) Keys() []Key {
	out := make([]Key, s.h.Keys)
	for i := range out {
		out[i] = s.Key(uint32(i))
	}
	return out
}

// KeyCount is the number of keys.
func (s *Segment) KeyCount() int { return int(s.h.Keys) }

// Key returns key i (RowInfo.Key). Keys are parsed as they are asked for:
// a search needs those of its candidates only. Safe for concurrent use.
func (s *Segment) Key(i uint32) Key {
	s.keysOnce.Do(func() {
		s.keyAt = make([]uint32, 0, s.h.Keys+1)
		off := 0
		_ = eachKey(s.keyData, int(s.h.Keys), func(session, project []byte) {
			s.keyAt = append(s.keyAt, uint32(off))
			off += len(session) + 1 + len(project) + 1
		}) // checked by newSegment
		s.keyAt = append(s.keyAt, uint32(off))
		s.keys = make([]Key, s.h.Keys)
		s.keyDone = make([]bool, s.h.Keys)
	})
	if uint64(i) >= s.h.Keys {
		return Key{}
	}
	s.keyMu.Lock()
	defer s.keyMu.Unlock()
	if !s.keyDone[i] {
		line := s.keyData[s.keyAt[i] : s.keyAt[i+1]-1]
		tab := bytes.IndexByte(line, '\t')
		s.keys[i] = Key{tsvfield.Unescape(line[:tab]), tsvfield.Unescape(line[tab+1:])}
		s.keyDone[i] = true
	}
	return s.keys[i]
}

// Row returns row i's table entry; a key out of range reads as 0.
func (s *Segment) Row(i int) RowInfo {
	e := s.rows[i*rowSize : i*rowSize+rowSize]
	r := RowInfo{
		TimeMs: int64(binary.LittleEndian.Uint64(e)),
		Len:    int(binary.LittleEndian.Uint32(e[8:])),
		Key:    binary.LittleEndian.Uint32(e[12:]),
		Gen:    binary.LittleEndian.Uint32(e[16:]),
		Type:   e[20],
		Flags:  e[21],
	}
	if uint64(r.Key) >= s.h.Keys {
		r.Key = 0
	}
	return r
}

func (s *Segment) tokens() int { return int(s.h.Tokens) }

// token returns token id's text, or nil if the offsets are damaged.
// Offsets are checked where they are read, not all on open: a search
// reads a few of them.
func (s *Segment) token(id int) []byte {
	a, b := offsets(s.tokOff, id)
	if a >= b || b > len(s.vocab) {
		return nil
	}
	return s.vocab[a : b-1]
}

// offsets returns entries id and id+1 of an offset table.
func offsets(table []byte, id int) (int, int) {
	return int(binary.LittleEndian.Uint32(table[id*4:])), int(binary.LittleEndian.Uint32(table[id*4+4:]))
}

// FindTokens calls fn with every token that contains run (equals it, if
// whole) and how many times it holds it, without overlaps. run must be
// folded like the tokens (filter.Shape) and hold no '\n'.
func (s *Segment) FindTokens(run string, whole bool, fn func(id, times int)) {
	if run == "" || strings.IndexByte(run, '\n') >= 0 {
		return
	}
	if whole {
		n := s.tokens()
		i := sort.Search(n, func(i int) bool { return string(s.token(i)) >= run })
		if i < n && string(s.token(i)) == run {
			fn(i, 1)
		}
		return
	}
	s.populated.Do(func() { populate(s.data, s.h.VocabOff, s.h.VocabOff+s.h.VocabLen) })
	needle := []byte(run)
	// Matches come in vocabulary order, so a token's number is the number
	// of the previous match's token plus the lines between them.
	id, counted := 0, 0
	for from := 0; from < len(s.vocab); {
		at := bytes.Index(s.vocab[from:], needle)
		if at < 0 {
			return
		}
		at += from
		id += bytes.Count(s.vocab[counted:at], newline)
		end := bytes.IndexByte(s.vocab[at:], '\n')
		if end < 0 || id >= s.tokens() {
			return // damaged: the vocabulary ends in '\n'
		}
		end += at
		start := bytes.LastIndexByte(s.vocab[:at], '\n') + 1
		fn(id, bytes.Count(s.vocab[start:end], needle))
		from, counted = end+1, end+1
		id++
	}
}

var newline = []byte{'\n'}

// Postings calls fn for each row holding token id, rows ascending, with
// its hits and hits in code. It stops at the first malformed entry and
// reports it.
func (s *Segment) Postings(id int, fn func(row, hits, codeHits int)) error {
	if id < 0 || id >= s.tokens() {
		return fmt.Errorf("%s: %w: token %d", s.Name, ErrDamaged, id)
	}
	a, b := offsets(s.postOff, id)
	if a > b || b > len(s.postings) {
		return fmt.Errorf("%s: %w: posting offsets", s.Name, ErrDamaged)
	}
	p := s.postings[a:b]
	row := -1
	for len(p) > 0 {
		v, n := binary.Uvarint(p)
		if n <= 0 {
			return fmt.Errorf("%s: %w: posting", s.Name, ErrDamaged)
		}
		p = p[n:]
		row += int(v >> 1)
		hits, code := uint64(1), uint64(0)
		if v&1 != 0 {
			if hits, n = binary.Uvarint(p); n <= 0 {
				return fmt.Errorf("%s: %w: posting", s.Name, ErrDamaged)
			}
			p = p[n:]
			if code, n = binary.Uvarint(p); n <= 0 {
				return fmt.Errorf("%s: %w: posting", s.Name, ErrDamaged)
			}
			p = p[n:]
		}
		if row < 0 || row >= s.Rows() || v>>1 == 0 {
			return fmt.Errorf("%s: %w: posting row", s.Name, ErrDamaged)
		}
		fn(row, int(hits), int(code))
	}
	return nil
}
