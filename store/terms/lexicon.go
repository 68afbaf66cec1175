package terms

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/recall-dev/recall/internal/atomicfile"
	"github.com/recall-dev/recall/internal/rawfile"
	"github.com/recall-dev/recall/textrules"
)

// The lexicon is the vocabularies of several segments merged into one:
// each token and word-form key once, with the segments and token ids
// that hold it and the size of each one's postings. The prompt hook's
// small binary (cmd/recall-hint) looks a prompt's words up in it instead
// of in every segment: in a process that lives a few milliseconds, each
// 64 KiB of a mapping it touches costs a page fault of 2-4 µs, and a
// word's binary searches in eight segments touched most of their
// vocabularies. It covers the segments that are never merged again
// (store: the sealed ones), so it is rewritten only when one more is
// sealed; the others are looked up one by one.
//
// It is derived and unchecked: a reader matches each segment it names by
// name, size and header checksum (Covers), and damage elsewhere can only
// make a lookup find less, which keeps a hint silent (every hint shown is
// judged again by recall from checked segments).

// LexiconFileName is the lexicon's file in the index directory.
const LexiconFileName = "terms-lexicon-v1.bin"

// lexiconMagic opens the file; the format version and the text rules'
// version follow it.
const lexiconMagic = "RCLLEXIC"

const lexiconVersion = 1

// ErrNoLexicon wraps every reason OpenLexicon gives no lexicon.
var ErrNoLexicon = errors.New("no usable term lexicon")

// A lexicon file is, little endian:
//
//	magic [8]byte, version u32, textrules.FeatureVersion u32, inline u32
//	segments u32, then per segment: name length u16, name, file size
//	  u64, header checksum u32 (the segment's preamble bytes 12-16),
//	  rows u64, raw bytes u64 (its header's counts, so that a reader
//	  need not open a segment whose words it finds here)
//	tokens u32, stems u32, identifiers u32; the three tables' text
//	  lengths u64 each; lists length u64
//	lists: per word, its entries ordered by segment and token id, each
//	  uvarint(segment), uvarint(token id), uvarint(bytes of its
//	  postings), then those postings themselves when they are inline
//	  bytes or fewer (a rare word's: read with its entry, on its page,
//	  instead of in the segment)
//	three tables, each: its words sorted, each followed by '\n'; their
//	  offsets (words+1) × u32; their lists' offsets (words+1) × u32;
//	  but for the identifiers, a hash of hashSlots(words) × u32 slots,
//	  each 0 or 1 + a word's index, by FNV-1a and linear probing
//
// The tables are the tokens, the word-form keys (each listing the tokens
// the segments' stems sections list under it, not the token equal to it:
// Segment.FindStem adds that one), and the identifiers (the tokens with a
// '_' after their first byte, for prefix lookups: a small table).

// LexEntry is one segment's token under a lexicon word: Seg indexes the
// lexicon's segments. Postings is its posting list when Inline.
type LexEntry struct {
	Seg, ID, Bytes int
	Inline         bool
	Postings       []byte
}

// lexInline is the most bytes of postings an entry carries inline:
// enough for a word in a few dozen rows of a segment, the words a
// prompt's hint reads.
const lexInline = 48

// LexSegment is a segment as the lexicon knows it.
type LexSegment struct {
	Name      string
	Size      uint64
	HeaderCRC uint32
	Rows      int
	RawBytes  uint64
}

// Lexicon is an open lexicon file.
type Lexicon struct {
	Segments []LexSegment
	inline   int
	toks     lexTable
	stems    lexTable
	idents   lexTable
	lists    []byte
}

// lexTable is one of the lexicon's tables: n sorted words (text, off)
// and where each one's list starts (listOff).
type lexTable struct {
	n                  int
	text, off, listOff []byte
	// hash: hashSlots(n) slots, each 0 or 1 + the index of a word
	// whose wordHash starts its probe there (linear probing); none in
	// the identifiers' table, which is searched by prefix.
	hash []byte
}

// hashSlots is the size of a table's hash for n words: the next power of
// two of 1.5 n (a load of at most two thirds).
func hashSlots(n int) int {
	if n == 0 {
		return 0
	}
	slots := 1
	for slots < n+n/2 {
		slots <<= 1
	}
	return slots
}

// wordHash is FNV-1a of word.
func wordHash(word string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(word); i++ {
		h = (h ^ uint64(word[i])) * 1099511628211
	}
	return h
}

// buildHash fills t's hash.
func (t *lexTable) buildHash() {
	slots := hashSlots(t.n)
	t.hash = make([]byte, slots*4)
	for i := range t.n {
		at := wordHash(string(t.word(i))) & uint64(slots-1)
		for binary.LittleEndian.Uint32(t.hash[at*4:]) != 0 {
			at = (at + 1) & uint64(slots-1)
		}
		binary.LittleEndian.PutUint32(t.hash[at*4:], uint32(i+1))
	}
}

// Identity is what Covers matches a segment by: its file's size and its
// header's checksum.
func (s *Segment) Identity() (size uint64, headerCRC uint32) {
	return uint64(len(s.data)), binary.LittleEndian.Uint32(s.data[12:])
}

// lexSegmentFixed is a segment's bytes in the lexicon's list beside its
// name and the name's length.
const lexSegmentFixed = 8 + 4 + 8 + 8

// Index returns the lexicon's index of the segment named name, or -1.
func (l *Lexicon) Index(name string) int {
	for i, ls := range l.Segments {
		if ls.Name == name {
			return i
		}
	}
	return -1
}

// Covers returns the lexicon's index of s, or -1 when it does not cover
// s as it is now (a segment rebuilt under the same name is another).
func (l *Lexicon) Covers(s *Segment) int {
	size, crc := s.Identity()
	for i, ls := range l.Segments {
		if ls.Name == s.Name && ls.Size == size && ls.HeaderCRC == crc {
			return i
		}
	}
	return -1
}

// WriteLexicon writes the lexicon of segs (opened with Open, so that
// what it reads of them is checked), replacing the last one whole.
func WriteLexicon(dir string, segs []*Segment) error {
	return atomicfile.Write(filepath.Join(dir, LexiconFileName), nil, 0o600, func(f *os.File) error {
		// The lists go to the file as they are made, after room for the
		// head, which is written last: building the lexicon holds its
		// tables alone. Written in large pieces, not in the small ones
		// atomicfile writes (which keep a segment's page cache in small
		// folios, for searches' resident sets): the page cache then
		// holds the lexicon in large folios, and the prompt hook's
		// lookups fault in a few of them.
		if _, err := f.Seek(int64(lexHeadSize(segs)), io.SeekStart); err != nil {
			return err
		}
		w := bufio.NewWriterSize(f, 1<<20)
		head, tables, err := encodeLexicon(segs, w)
		if err != nil {
			return err
		}
		if len(head) != lexHeadSize(segs) {
			return fmt.Errorf("term lexicon head of %d bytes, %d made room for", len(head), lexHeadSize(segs))
		}
		for _, t := range tables {
			if _, err := w.Write(t); err != nil {
				return err
			}
		}
		if err := w.Flush(); err != nil {
			return err
		}
		_, err = f.WriteAt(head, 0)
		return err
	})
}

// lexHeadSize is the size of the head of a lexicon of segs.
func lexHeadSize(segs []*Segment) int {
	n := 24 + 3*4 + 4*8
	for _, s := range segs {
		n += 2 + len(s.Name) + lexSegmentFixed
	}
	return n
}

// encodeLexicon writes the lexicon's lists of segs to lists and returns
// its head and its tables, which follow the lists. Each table is a merge
// of the segments' sorted sections, read in step, so that building it
// holds the tables and a cursor per segment, not a record per token (at
// 4 GB, some 1.3 million); the segments' pages are let go as the merge
// passes them.
func encodeLexicon(segs []*Segment, lists io.Writer) (head []byte, tables [][]byte, err error) {
	sink := &listSink{w: lists}
	var made [3]lexTable
	for ti, kind := range []lexKind{lexTokens, lexStems, lexIdents} {
		if made[ti], err = mergeTable(segs, kind, sink); err != nil {
			return nil, nil, err
		}
	}
	if err := sink.flush(); err != nil {
		return nil, nil, err
	}
	for _, s := range segs {
		if err := s.Err(); err != nil {
			return nil, nil, err
		}
	}
	head = append(head, lexiconMagic...)
	for _, v := range []int{lexiconVersion, textrules.FeatureVersion, lexInline, len(segs)} {
		head = binary.LittleEndian.AppendUint32(head, uint32(v))
	}
	for _, s := range segs {
		size, crc := s.Identity()
		head = binary.LittleEndian.AppendUint16(head, uint16(len(s.Name)))
		head = append(head, s.Name...)
		head = binary.LittleEndian.AppendUint64(head, size)
		head = binary.LittleEndian.AppendUint32(head, crc)
		head = binary.LittleEndian.AppendUint64(head, uint64(s.Rows()))
		head = binary.LittleEndian.AppendUint64(head, s.RawBytes())
	}
	for _, t := range made {
		head = binary.LittleEndian.AppendUint32(head, uint32(t.n))
	}
	for _, t := range made {
		head = binary.LittleEndian.AppendUint64(head, uint64(len(t.text)))
	}
	head = binary.LittleEndian.AppendUint64(head, uint64(sink.n))
	size := len(head) + sink.n
	for ti := range made {
		t := &made[ti]
		if ti != 2 { // the identifiers are found by prefix
			t.buildHash()
		}
		tables = append(tables, t.text, t.off, t.listOff, t.hash)
		size += len(t.text) + len(t.off) + len(t.listOff) + len(t.hash)
	}
	if int64(size) > maxLexiconBytes {
		return nil, nil, fmt.Errorf("term lexicon of %d bytes: too large", size)
	}
	return head, tables, nil
}

// listSink is where the lexicon's lists go as they are made: n is how
// many bytes went, the offset of the next list.
type listSink struct {
	w   io.Writer
	n   int
	buf []byte
	err error
}

// add writes an entry.
func (k *listSink) add(seg, id int, postings []byte) {
	k.buf = binary.AppendUvarint(k.buf, uint64(seg))
	k.buf = binary.AppendUvarint(k.buf, uint64(id))
	k.buf = binary.AppendUvarint(k.buf, uint64(len(postings)))
	if len(postings) <= lexInline {
		k.buf = append(k.buf, postings...)
	}
	if len(k.buf) >= 64<<10 {
		_ = k.flush()
	}
}

// offset is where the next entry starts.
func (k *listSink) offset() int { return k.n + len(k.buf) }

func (k *listSink) flush() error {
	if k.err == nil && len(k.buf) > 0 {
		_, k.err = k.w.Write(k.buf)
	}
	k.n += len(k.buf)
	k.buf = k.buf[:0]
	return k.err
}

// maxLexiconBytes bounds a lexicon: its offsets are u32.
const maxLexiconBytes int64 = 1<<32 - 1

// lexKind is what a table lists: the tokens, the word-form keys, or the
// identifiers.
type lexKind int

const (
	lexTokens lexKind = iota
	lexStems
	lexIdents
)

// lexCursor walks one segment's sorted section for mergeTable.
type lexCursor struct {
	s     *Segment
	seg   int
	kind  lexKind
	at, n int
	word  []byte // the word at at; nil past the end
}

// next moves to the next word (for identifiers, the next token that is
// one), or past the end.
func (c *lexCursor) next() error {
	for c.at++; c.at < c.n; c.at++ {
		if c.kind == lexStems {
			c.word = c.s.stemKey(c.at)
		} else {
			c.word = c.s.token(c.at)
		}
		if c.word == nil {
			return fmt.Errorf("%s: %w: word %d", c.s.Name, ErrDamaged, c.at)
		}
		if c.kind != lexIdents || bytes.IndexByte(c.word[1:], '_') >= 0 {
			return nil
		}
	}
	c.word = nil
	return nil
}

// entries adds the cursor's word's entries to sink: its token, or the
// tokens listed under its key, each with its postings.
func (c *lexCursor) entries(sink *listSink) error {
	var err error
	add := func(id int) {
		list, perr := c.s.postingList(id)
		if perr != nil {
			err = perr
			return
		}
		sink.add(c.seg, id, list)
	}
	if c.kind == lexStems {
		c.s.stemList(c.at, add)
	} else {
		add(c.at)
	}
	return err
}

// lexReleaseEvery is how many words mergeTable writes between releases
// of the segments' lookup pages.
const lexReleaseEvery = 4096

// mergeTable merges the segments' sections of one kind into a table,
// its lists added to sink: a word's entries by segment, then token.
func mergeTable(segs []*Segment, kind lexKind, sink *listSink) (lexTable, error) {
	cursors := make([]*lexCursor, 0, len(segs))
	for si, s := range segs {
		n := s.tokens()
		if kind == lexStems {
			n = int(s.h.Stems)
		}
		c := &lexCursor{s: s, seg: si, kind: kind, at: -1, n: n}
		if err := c.next(); err != nil {
			return lexTable{}, err
		}
		cursors = append(cursors, c)
	}
	var t lexTable
	for {
		// The least word among the cursors (a few dozen segments: a
		// scan is as quick as a heap).
		var least []byte
		for _, c := range cursors {
			if c.word != nil && (least == nil || bytes.Compare(c.word, least) < 0) {
				least = c.word
			}
		}
		if least == nil {
			break
		}
		t.off = binary.LittleEndian.AppendUint32(t.off, uint32(len(t.text)))
		t.listOff = binary.LittleEndian.AppendUint32(t.listOff, uint32(sink.offset()))
		t.text = append(append(t.text, least...), '\n')
		t.n++
		if t.n%lexReleaseEvery == 0 {
			// The merge reads every segment's vocabulary and postings
			// once, in step: what it passed need not stay mapped (at 4
			// GB, some 200 MB of segments).
			for _, s := range segs {
				s.ReleaseLookups()
			}
		}
		word := t.text[len(t.text)-1-len(least) : len(t.text)-1] // as just written
		for _, c := range cursors {
			if c.word == nil || !bytes.Equal(c.word, word) {
				continue
			}
			if err := c.entries(sink); err != nil {
				return lexTable{}, err
			}
			if err := c.next(); err != nil {
				return lexTable{}, err
			}
		}
	}
	t.off = binary.LittleEndian.AppendUint32(t.off, uint32(len(t.text)))
	t.listOff = binary.LittleEndian.AppendUint32(t.listOff, uint32(sink.offset()))
	return t, sink.err
}

// LexiconSegments returns the names of the segments the lexicon of dir
// covers, reading its head alone; none when there is no usable lexicon.
func LexiconSegments(dir string) []string {
	f, err := os.Open(filepath.Join(dir, LexiconFileName))
	if err != nil {
		return nil
	}
	defer f.Close()
	// The head is a segment list: a few KB, longer only for an index of
	// thousands of segments. Read more until it parses, or the file ends.
	var segs []LexSegment
	for size := 16 << 10; ; size *= 4 {
		head := make([]byte, size)
		n, rerr := io.ReadFull(f, head[:size])
		segs, _, err = parseLexiconHead(head[:n])
		if err == nil {
			break
		}
		if rerr != nil || size >= 64<<20 {
			return nil // the file ended (or its head is absurd): none usable
		}
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return nil
		}
	}
	names := make([]string, len(segs))
	for i, s := range segs {
		names[i] = s.Name
	}
	return names
}

// OpenLexicon maps the lexicon of dir. It stays mapped until the process
// ends (its reader lives milliseconds).
func OpenLexicon(dir string) (*Lexicon, error) {
	data, err := rawfile.Map(filepath.Join(dir, LexiconFileName), maxLexiconBytes)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNoLexicon, err)
	}
	return ParseLexicon(data)
}

// ParseLexicon reads a lexicon from data, checking that every section
// lies within it; what the sections hold is checked as it is read.
func ParseLexicon(data []byte) (*Lexicon, error) {
	segs, rest, err := parseLexiconHead(data)
	if err != nil {
		return nil, err
	}
	if len(rest) < 3*4+4*8 {
		return nil, fmt.Errorf("%w: cut short", ErrNoLexicon)
	}
	l := &Lexicon{Segments: segs, inline: int(binary.LittleEndian.Uint32(data[16:]))}
	tables := []*lexTable{&l.toks, &l.stems, &l.idents}
	var lens [3]uint64
	for i, t := range tables {
		t.n = int(binary.LittleEndian.Uint32(rest[i*4:]))
		lens[i] = binary.LittleEndian.Uint64(rest[12+i*8:])
	}
	listsLen := binary.LittleEndian.Uint64(rest[36:])
	rest = rest[44:]
	take := func(n uint64) []byte {
		if err != nil || n > uint64(len(rest)) {
			err = fmt.Errorf("%w: a section past the end", ErrNoLexicon)
			return nil
		}
		sec := rest[:n]
		rest = rest[n:]
		return sec
	}
	l.lists = take(listsLen)
	for i, t := range tables {
		n := uint64(t.n)
		t.text, t.off, t.listOff = take(lens[i]), take((n+1)*4), take((n+1)*4)
		if i != 2 {
			t.hash = take(uint64(hashSlots(t.n)) * 4)
		}
	}
	if err != nil {
		return nil, err
	}
	if len(rest) != 0 {
		return nil, fmt.Errorf("%w: %d bytes past the tables", ErrNoLexicon, len(rest))
	}
	return l, nil
}

// parseLexiconHead reads the preamble and the segment list, returning
// what follows.
func parseLexiconHead(data []byte) ([]LexSegment, []byte, error) {
	if len(data) < 24 || string(data[:8]) != lexiconMagic {
		return nil, nil, fmt.Errorf("%w: not a lexicon", ErrNoLexicon)
	}
	if v, f := binary.LittleEndian.Uint32(data[8:]), binary.LittleEndian.Uint32(data[12:]); v != lexiconVersion || f != textrules.FeatureVersion {
		return nil, nil, fmt.Errorf("%w: format v%d, text rules v%d", ErrNoLexicon, v, f)
	}
	n := binary.LittleEndian.Uint32(data[20:])
	rest := data[24:]
	var segs []LexSegment
	for range n {
		if len(rest) < 2 {
			return nil, nil, fmt.Errorf("%w: segment list cut short", ErrNoLexicon)
		}
		nameLen := int(binary.LittleEndian.Uint16(rest))
		if len(rest) < 2+nameLen+lexSegmentFixed {
			return nil, nil, fmt.Errorf("%w: segment list cut short", ErrNoLexicon)
		}
		f := rest[2+nameLen:]
		rows := binary.LittleEndian.Uint64(f[12:])
		if rows >= 1<<31 {
			return nil, nil, fmt.Errorf("%w: %d rows", ErrNoLexicon, rows)
		}
		segs = append(segs, LexSegment{
			Name:      string(rest[2 : 2+nameLen]),
			Size:      binary.LittleEndian.Uint64(f),
			HeaderCRC: binary.LittleEndian.Uint32(f[8:]),
			Rows:      int(rows),
			RawBytes:  binary.LittleEndian.Uint64(f[20:]),
		})
		rest = rest[2+nameLen+lexSegmentFixed:]
	}
	return segs, rest, nil
}

// word returns word i of the table, or nil if its offsets are damaged.
func (t *lexTable) word(i int) []byte {
	a, b := offsets(t.off, i)
	if a < 0 || a >= b || b > len(t.text) { // a < 0: a damaged offset read on a 32-bit platform
		return nil
	}
	return t.text[a : b-1]
}

// search returns the first word of the table not below word.
func (t *lexTable) search(word string) int {
	return sort.Search(t.n, func(i int) bool { return string(t.word(i)) >= word })
}

// find returns word's index in the table, or -1: by its hash (a slot
// and the word's text, where a binary search touched a page at each of
// its first steps), or by a binary search in a table without one.
func (t *lexTable) find(word string) int {
	if slots := len(t.hash) / 4; slots > 0 {
		at := wordHash(word) & uint64(slots-1)
		for range min(slots, maxProbes) {
			v := int(binary.LittleEndian.Uint32(t.hash[at*4:]))
			if v == 0 {
				return -1
			}
			if v <= t.n && string(t.word(v-1)) == word {
				return v - 1
			}
			at = (at + 1) & uint64(slots-1)
		}
		return -1 // damaged: no free slot where one must be
	}
	if i := t.search(word); i < t.n && string(t.word(i)) == word {
		return i
	}
	return -1
}

// maxProbes bounds a hash lookup: at a load of two thirds, runs are
// short; a damaged hash with none free ends there.
const maxProbes = 256

// entries calls fn with the entries of word i of t, stopping at a
// damaged one.
func (l *Lexicon) entries(t *lexTable, i int, fn func(LexEntry)) {
	a, b := offsets(t.listOff, i)
	if a < 0 || a > b || b > len(l.lists) {
		return
	}
	p := l.lists[a:b]
	for len(p) > 0 {
		var v [3]uint64
		for j := range v {
			x, w := binary.Uvarint(p)
			if w <= 0 || x >= 1<<31 {
				return
			}
			v[j], p = x, p[w:]
		}
		if v[0] >= uint64(len(l.Segments)) {
			return
		}
		e := LexEntry{Seg: int(v[0]), ID: int(v[1]), Bytes: int(v[2])}
		if e.Bytes <= l.inline {
			if e.Bytes > len(p) {
				return
			}
			e.Inline, e.Postings, p = true, p[:e.Bytes:e.Bytes], p[e.Bytes:]
		}
		fn(e)
	}
}

// FindWhole calls fn with every segment's token equal to word.
func (l *Lexicon) FindWhole(word string, fn func(LexEntry)) {
	if word == "" {
		return
	}
	if i := l.toks.find(word); i >= 0 {
		l.entries(&l.toks, i, fn)
	}
}

// FindStem calls fn with what Segment.FindStem yields for key in every
// segment: the tokens listed under key, then the token equal to key
// where it is not among them.
func (l *Lexicon) FindStem(key string, fn func(LexEntry)) {
	if key == "" {
		return
	}
	var listed []uint64 // segment<<32 | token of each listed
	if i := l.stems.find(key); i >= 0 {
		l.entries(&l.stems, i, func(e LexEntry) {
			listed = append(listed, uint64(e.Seg)<<32|uint64(e.ID))
			fn(e)
		})
	}
	l.FindWhole(key, func(e LexEntry) {
		if !slices.Contains(listed, uint64(e.Seg)<<32|uint64(e.ID)) {
			fn(e)
		}
	})
}

// FindPrefixed calls fn with every segment's tokens that start with
// prefix, in token order within each segment, as Segment.FindPrefixed
// does. prefix holds a '_' after its first byte (an identifier's first
// parts): others find nothing here.
func (l *Lexicon) FindPrefixed(prefix string, fn func(LexEntry)) {
	if strings.IndexByte(prefix[min(len(prefix), 1):], '_') < 0 {
		return
	}
	for i := l.idents.search(prefix); i < l.idents.n; i++ {
		if !bytes.HasPrefix(l.idents.word(i), []byte(prefix)) {
			return
		}
		l.entries(&l.idents, i, fn)
	}
}
