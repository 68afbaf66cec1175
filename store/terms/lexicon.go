package terms

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"

	"github.com/recall-dev/recall/internal/atomicfile"
	"github.com/recall-dev/recall/internal/rawfile"
	"github.com/recall-dev/recall/textrules"
)

// The lexicon is the vocabularies of several segments merged into one:
// each token and word-form key once, with the segments and token ids
// that hold it, the size of each one's postings and where they lie. The
// prompt hook's small binary (cmd/recall-hint) looks a prompt's words up
// in it instead of in every segment: in a process that lives a few
// milliseconds, each 64 KiB of a mapping it touches costs a page fault
// of 2-4 µs (more when the page cache holds the file in small pieces),
// and a word's binary searches in eight segments touched most of their
// vocabularies. A word is a hash slot and a record: two pages, where
// sorted tables with their offsets and lists apart took five to ten. It
// covers the segments that are never merged again (store: the sealed
// ones), so it is rewritten only when one more is sealed; the others are
// looked up one by one.
//
// It is derived and unchecked: a reader matches each segment it names by
// name, size and header checksum (Covers), and damage elsewhere can only
// make a lookup find less, which keeps a hint silent (every hint shown is
// judged again by recall from checked segments).

// LexiconFileName is the lexicon's file in the index directory.
const LexiconFileName = "terms-lexicon-v2.bin"

// staleLexiconFile is the lexicon of the format before, removed when a
// lexicon is written.
const staleLexiconFile = "terms-lexicon-v1.bin"

// lexiconMagic opens the file; the format version and the text rules'
// version follow it.
const lexiconMagic = "RCLLEXIC"

const lexiconVersion = 2

// ErrNoLexicon wraps every reason OpenLexicon gives no lexicon.
var ErrNoLexicon = errors.New("no usable term lexicon")

// A lexicon file is, little endian:
//
//	magic [8]byte, version u32, textrules.FeatureVersion u32, inline u32
//	segments u32, then per segment: name length u16, name, file size
//	  u64, header checksum u32 (the segment's preamble bytes 12-16),
//	  rows u64, raw bytes u64 (its header's counts, so that a reader
//	  need not open a segment whose words it finds here)
//	records u32, records length u64
//	records: each kind u8, uvarint(key length), key, uvarint(body
//	  length), body. A word's (kind 1): uvarint(length) and the list of
//	  the segments' tokens equal to it, then the list of the tokens the
//	  segments' stems sections list under it as a word-form key (not the
//	  token equal to it: Segment.FindStem adds that one). An identifier
//	  group's (kind 2), keyed by the identifiers' first part (the tokens
//	  with a '_' after their first byte, up to it: JWT for JWT_SECRET):
//	  per identifier, sorted, uvarint(length) and its text, uvarint
//	  (length) and its list.
//	a list: its entries ordered by segment and token id, each
//	  uvarint(segment), uvarint(token id), uvarint(bytes of its
//	  postings), then those postings themselves when they are inline
//	  bytes or fewer (a rare word's: read with its entry, on its page,
//	  instead of in the segment), else uvarint(their offset in the
//	  segment's file) (read there without opening the segment)
//	hash: hashSlots(records) × u64 slots, each 0 or 1 + a record's
//	  offset in the records (low 32 bits) and the high 32 bits of its
//	  lexHash (high), by linear probing from lexHash's low bits

// LexEntry is one segment's token under a lexicon word: Seg indexes the
// lexicon's segments. Postings is its posting list when Inline.
type LexEntry struct {
	Seg, ID, Bytes int
	Inline         bool
	Postings       []byte
	// Offset is where the postings lie in the segment's file when they
	// are not inline: read there without opening the segment.
	Offset int64
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
	src      lexSource
	// where its records and hash lie in src, and the hash's slots
	recordsOff, recordsLen, hashOff, slots int64
}

// The kinds of record.
const (
	lexWord  = 1
	lexGroup = 2
)

// hashSlots is the size of a hash for n records: the next power of two
// of 1.5 n (a load of at most two thirds).
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

// lexHash is FNV-1a of a record's kind and key.
func lexHash(kind byte, key []byte) uint64 {
	h := (uint64(14695981039346656037) ^ uint64(kind)) * 1099511628211
	for _, c := range key {
		h = (h ^ uint64(c)) * 1099511628211
	}
	return h
}

// identGroup is the key of the group of an identifier, or of a prefix
// of identifiers: up to its first '_' after its first byte; "" when it
// has none.
func identGroup(ident []byte) []byte {
	i := bytes.IndexByte(ident[min(len(ident), 1):], '_')
	if i < 0 {
		return nil
	}
	return ident[:1+i]
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
	err := atomicfile.Write(filepath.Join(dir, LexiconFileName), nil, 0o600, func(f *os.File) error {
		// The records go to the file as they are made, after room for
		// the head, which is written last: building the lexicon holds
		// its hash alone. Written in large pieces, not in the small ones
		// atomicfile writes (which keep a segment's page cache in small
		// folios, for searches' resident sets): the page cache then
		// holds the lexicon in large folios, and the prompt hook's
		// lookups fault in a few of them.
		if _, err := f.Seek(int64(lexHeadSize(segs)), io.SeekStart); err != nil {
			return err
		}
		w := bufio.NewWriterSize(f, 1<<20)
		head, hash, err := encodeLexicon(segs, w)
		if err != nil {
			return err
		}
		if len(head) != lexHeadSize(segs) {
			return fmt.Errorf("term lexicon head of %d bytes, %d made room for", len(head), lexHeadSize(segs))
		}
		if _, err := w.Write(hash); err != nil {
			return err
		}
		if err := w.Flush(); err != nil {
			return err
		}
		_, err = f.WriteAt(head, 0)
		return err
	})
	if err != nil {
		return err
	}
	if err := os.Remove(filepath.Join(dir, staleLexiconFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove the lexicon of the format before: %w", err)
	}
	return nil
}

// lexHeadSize is the size of the head of a lexicon of segs.
func lexHeadSize(segs []*Segment) int {
	n := 24 + 4 + 8
	for _, s := range segs {
		n += 2 + len(s.Name) + lexSegmentFixed
	}
	return n
}

// encodeLexicon writes the lexicon's records of segs to records and
// returns its head and its hash, which follows them. The records are
// merges of the segments' sorted sections, read in step, so that
// building the lexicon holds its hash and a cursor per segment and
// section, not a record per token (at 4 GB, some 1.3 million); the
// segments' pages are let go as the merge passes them.
func encodeLexicon(segs []*Segment, records io.Writer) (head, hash []byte, err error) {
	return encodeLexiconSplit(segs, records, lexPivot(segs))
}

// encodeLexiconSplit is encodeLexicon with the words merged in two
// ranges at once, split at pivot (in one when pivot is nil): the words
// before it on this goroutine, written to records as they are made; the
// words from it on and then the identifiers on another, kept in memory
// and written after. A full index ends with the lexicon's build, which
// had one core of two working (0.5 s at 4 GB). The file is the same
// whatever the pivot.
func encodeLexiconSplit(segs []*Segment, records io.Writer, pivot []byte) (head, hash []byte, err error) {
	first := &recordSink{w: records}
	var rest bytes.Buffer
	later := &recordSink{w: &rest}
	var laterErr error
	var laterPanic any // raised again on this goroutine, as a merge here would raise it
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() { laterPanic = recover() }()
		if pivot != nil {
			if laterErr = mergeWords(segs, later, pivot, nil); laterErr != nil {
				return
			}
		}
		if laterErr = mergeIdentifiers(segs, later); laterErr == nil {
			laterErr = later.flush()
		}
	}()
	err = mergeWords(segs, first, nil, pivot)
	if err == nil {
		err = first.flush()
	}
	<-done
	if laterPanic != nil {
		panic(laterPanic)
	}
	if err = cmp.Or(err, laterErr); err != nil {
		return nil, nil, err
	}
	sink := first
	if err := sink.append(later, rest.Bytes()); err != nil {
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
	head = binary.LittleEndian.AppendUint32(head, uint32(len(sink.hashes)))
	head = binary.LittleEndian.AppendUint64(head, uint64(sink.n))
	hash = sink.hash()
	if size := int64(len(head)) + int64(sink.n) + int64(len(hash)); size > maxLexiconBytes {
		return nil, nil, fmt.Errorf("term lexicon of %d bytes: too large", size)
	}
	return head, hash, nil
}

// recordSink is where the lexicon's records go as they are made: n is
// how many bytes went, the offset of the next record; hashes and offs,
// each record's lexHash and offset, for its hash.
type recordSink struct {
	w      io.Writer
	n      int
	buf    []byte
	hashes []uint64
	offs   []uint32
	err    error
}

// add writes a record of kind and key with its body.
func (k *recordSink) add(kind byte, key, body []byte) {
	k.hashes = append(k.hashes, lexHash(kind, key))
	k.offs = append(k.offs, uint32(min(int64(k.n+len(k.buf)), maxLexiconBytes)))
	k.buf = append(k.buf, kind)
	k.buf = binary.AppendUvarint(k.buf, uint64(len(key)))
	k.buf = append(k.buf, key...)
	k.buf = binary.AppendUvarint(k.buf, uint64(len(body)))
	k.buf = append(k.buf, body...)
	if len(k.buf) >= 64<<10 {
		_ = k.flush()
	}
}

func (k *recordSink) flush() error {
	if int64(k.n+len(k.buf)) > maxLexiconBytes {
		k.err = fmt.Errorf("term lexicon of more than %d bytes: too large", maxLexiconBytes)
	}
	if k.err == nil && len(k.buf) > 0 {
		_, k.err = k.w.Write(k.buf)
	}
	k.n += len(k.buf)
	k.buf = k.buf[:0]
	return k.err
}

// append writes the records another sink made (its bytes, data) after
// k's, which is flushed.
func (k *recordSink) append(other *recordSink, data []byte) error {
	base := int64(k.n)
	if _, err := k.w.Write(data); err != nil {
		return err
	}
	k.n += len(data)
	k.hashes = append(k.hashes, other.hashes...)
	for _, off := range other.offs {
		k.offs = append(k.offs, uint32(min(base+int64(off), maxLexiconBytes)))
	}
	return nil
}

// hash is the lexicon's hash of the records added.
func (k *recordSink) hash() []byte {
	slots := hashSlots(len(k.hashes))
	hash := make([]byte, slots*8)
	for i, h := range k.hashes {
		at := h & uint64(slots-1)
		for binary.LittleEndian.Uint64(hash[at*8:]) != 0 {
			at = (at + 1) & uint64(slots-1)
		}
		binary.LittleEndian.PutUint64(hash[at*8:], h&^(1<<32-1)|uint64(k.offs[i]+1))
	}
	return hash
}

// appendEntry appends the entry of token id of segment seg (the
// lexicon's index si) to list.
func appendEntry(list []byte, si int, s *Segment, id int) ([]byte, error) {
	a, b, err := s.postingRange(id)
	if err != nil {
		return list, err
	}
	if err := s.check(s.h.PostingsOff+uint64(a), uint64(b-a)); err != nil {
		return list, err
	}
	list = binary.AppendUvarint(list, uint64(si))
	list = binary.AppendUvarint(list, uint64(id))
	list = binary.AppendUvarint(list, uint64(b-a))
	if b-a <= lexInline {
		return append(list, s.postings[a:b]...), nil
	}
	return binary.AppendUvarint(list, s.h.PostingsOff+uint64(a)), nil
}

// maxLexiconBytes bounds a lexicon: its offsets are u32 (and 1 + an
// offset too).
const maxLexiconBytes int64 = 1<<32 - 2

// lexKind is what a cursor walks: the tokens, the word-form keys, or the
// identifiers.
type lexKind int

const (
	lexTokens lexKind = iota
	lexStems
	lexIdents
)

// lexCursor walks one segment's sorted section for the merges.
type lexCursor struct {
	s     *Segment
	seg   int
	kind  lexKind
	at, n int
	word  []byte // the word at at; nil past the end
	hi    []byte // the cursor ends before this word; nil: at the section's end
}

// newCursors opens a cursor of kind on each of segs, at its first word
// from lo on (from the first when lo is nil), each ending before hi
// (at its end when hi is nil).
func newCursors(segs []*Segment, kind lexKind, lo, hi []byte) ([]*lexCursor, error) {
	cursors := make([]*lexCursor, 0, len(segs))
	for si, s := range segs {
		c := &lexCursor{s: s, seg: si, kind: kind, n: s.tokens(), hi: hi}
		if kind == lexStems {
			c.n = int(s.h.Stems)
		}
		at, err := c.firstFrom(lo)
		if err != nil {
			return nil, err
		}
		c.at = at - 1
		if err := c.next(); err != nil {
			return nil, err
		}
		cursors = append(cursors, c)
	}
	return cursors, nil
}

// firstFrom is the index of the cursor's first word not below lo, by
// binary search of its sorted section.
func (c *lexCursor) firstFrom(lo []byte) (int, error) {
	if lo == nil {
		return 0, nil
	}
	var err error
	at := sort.Search(c.n, func(i int) bool {
		w := c.wordAt(i)
		if w == nil {
			err = fmt.Errorf("%s: %w: word %d", c.s.Name, ErrDamaged, i)
			return true
		}
		return bytes.Compare(w, lo) >= 0
	})
	return at, err
}

// next moves to the next word (for identifiers, the next token that is
// one), or past the end: the section's, or hi.
func (c *lexCursor) next() error {
	for c.at++; c.at < c.n; c.at++ {
		c.word = c.wordAt(c.at)
		if c.word == nil {
			return fmt.Errorf("%s: %w: word %d", c.s.Name, ErrDamaged, c.at)
		}
		if c.hi != nil && bytes.Compare(c.word, c.hi) >= 0 {
			break
		}
		if c.kind != lexIdents || identGroup(c.word) != nil {
			return nil
		}
	}
	c.word = nil
	return nil
}

// wordAt is word i of the cursor's section; nil when damaged.
func (c *lexCursor) wordAt(i int) []byte {
	if c.kind == lexStems {
		return c.s.stemKey(i)
	}
	return c.s.token(i)
}

// entries appends the cursor's word's entries to list: its token, or the
// tokens listed under its key.
func (c *lexCursor) entries(list []byte) ([]byte, error) {
	if c.kind != lexStems {
		return appendEntry(list, c.seg, c.s, c.at)
	}
	var err error
	c.s.stemList(c.at, func(id int) {
		if err == nil {
			list, err = appendEntry(list, c.seg, c.s, id)
		}
	})
	return list, err
}

// least is the least word among the cursors; nil when all have ended.
// (A few dozen segments: a scan is as quick as a heap.)
func least(cursors []*lexCursor) []byte {
	var w []byte
	for _, c := range cursors {
		if c.word != nil && (w == nil || bytes.Compare(c.word, w) < 0) {
			w = c.word
		}
	}
	return w
}

// take appends the entries of the cursors at word to list, in segment
// order, and moves them on.
func take(cursors []*lexCursor, word, list []byte) ([]byte, error) {
	for _, c := range cursors {
		if c.word == nil || !bytes.Equal(c.word, word) {
			continue
		}
		var err error
		if list, err = c.entries(list); err != nil {
			return list, err
		}
		if err := c.next(); err != nil {
			return list, err
		}
	}
	return list, nil
}

// lexReleaseEvery is how many words a merge writes between releases of
// the segments' lookup pages: it reads every segment's vocabulary and
// postings once, in step, and what it passed need not stay mapped (at 4
// GB, some 200 MB of segments).
const lexReleaseEvery = 4096

// mergeWords writes a word record for every token and word-form key of
// segs from lo on and before hi (nil: no bound), in order.
func mergeWords(segs []*Segment, sink *recordSink, lo, hi []byte) error {
	toks, err := newCursors(segs, lexTokens, lo, hi)
	if err != nil {
		return err
	}
	stems, err := newCursors(segs, lexStems, lo, hi)
	if err != nil {
		return err
	}
	all := append(toks[:len(toks):len(toks)], stems...)
	var word, toksList, stemsList, body []byte
	for n := 1; ; n++ {
		w := least(all)
		if w == nil {
			return sink.err
		}
		word = append(word[:0], w...) // the cursors move on
		if toksList, err = take(toks, word, toksList[:0]); err != nil {
			return err
		}
		if stemsList, err = take(stems, word, stemsList[:0]); err != nil {
			return err
		}
		body = binary.AppendUvarint(body[:0], uint64(len(toksList)))
		body = append(append(body, toksList...), stemsList...)
		sink.add(lexWord, word, body)
		if n%lexReleaseEvery == 0 {
			releaseLookups(segs)
		}
	}
}

// mergeIdentifiers writes an identifier group record for every first
// part of the identifiers of segs: those of a group are next to each
// other in order (they share its key and the '_' after it).
func mergeIdentifiers(segs []*Segment, sink *recordSink) error {
	cursors, err := newCursors(segs, lexIdents, nil, nil)
	if err != nil {
		return err
	}
	var group, ident, list, body []byte
	for n := 1; ; n++ {
		w := least(cursors)
		if w == nil || !bytes.Equal(identGroup(w), group) {
			if len(body) > 0 {
				sink.add(lexGroup, group, body)
			}
			if w == nil {
				return sink.err
			}
			group, body = append(group[:0], identGroup(w)...), body[:0]
		}
		ident = append(ident[:0], w...)
		if list, err = take(cursors, ident, list[:0]); err != nil {
			return err
		}
		body = binary.AppendUvarint(body, uint64(len(ident)))
		body = append(body, ident...)
		body = binary.AppendUvarint(body, uint64(len(list)))
		body = append(body, list...)
		if n%lexReleaseEvery == 0 {
			releaseLookups(segs)
		}
	}
}

// lexPivot is where encodeLexicon splits the words: 65% into the tokens
// of the segment with the most, so that the words after it and the
// identifiers (a sixth of the work) take about as long as the words
// before it (at 4 GB, 60% left the second merge 20% longer, 80% the
// first 30% longer). Nil, no split, for a lexicon so small
// that a goroutine costs more than it saves, or when that segment's
// vocabulary is damaged (the merge then says so).
func lexPivot(segs []*Segment) []byte {
	var most *Segment
	for _, s := range segs {
		if most == nil || s.tokens() > most.tokens() {
			most = s
		}
	}
	if most == nil || most.tokens() < minSplitTokens {
		return nil
	}
	return bytes.Clone(most.token(most.tokens() * 13 / 20))
}

// minSplitTokens is the fewest tokens in a segment that make the
// lexicon's merge split in two.
const minSplitTokens = 4096

func releaseLookups(segs []*Segment) {
	for _, s := range segs {
		s.ReleaseLookups()
	}
}

// LexiconSegments returns the names of the segments the lexicon of dir
// covers, reading its head alone; none when there is no usable lexicon.
func LexiconSegments(dir string) []string {
	l, err := OpenLexicon(dir)
	if err != nil {
		return nil
	}
	defer l.Close()
	names := make([]string, len(l.Segments))
	for i, s := range l.Segments {
		names[i] = s.Name
	}
	return names
}

// OpenLexicon opens the lexicon of dir, reading its head. Its lookups
// read the file with pread, a system call each, not through a mapping:
// its reader (the prompt hook's small binary) reads a few hundred bytes
// of it here and there, where each page of a mapping first touched costs
// a page fault of several system calls' time.
func OpenLexicon(dir string) (*Lexicon, error) {
	f, err := rawfile.OpenFile(filepath.Join(dir, LexiconFileName))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNoLexicon, err)
	}
	src := &lexFile{f: f}
	// The head is a segment list: a few KB, longer only for an index of
	// thousands of segments. Read more until it parses, or the file ends.
	for size := 4 << 10; ; size *= 4 {
		head := src.at(0, int(min(int64(size), f.Size)))
		l, err := parseLexicon(head, src, f.Size)
		if err == nil {
			return l, nil
		}
		if src.err != nil || int64(size) >= f.Size || size >= 64<<20 {
			f.Close()
			return nil, cmp.Or(src.err, err) // the file ended (or its head is absurd)
		}
	}
}

// ParseLexicon reads a lexicon from data, checking that its records and
// hash lie within it; what they hold is checked as it is read.
func ParseLexicon(data []byte) (*Lexicon, error) {
	return parseLexicon(data, lexBytes(data), int64(len(data)))
}

// parseLexicon reads a lexicon of size bytes whose head data starts,
// its records and hash read from src.
func parseLexicon(data []byte, src lexSource, size int64) (*Lexicon, error) {
	segs, rest, err := parseLexiconHead(data)
	if err != nil {
		return nil, err
	}
	if len(rest) < 12 {
		return nil, fmt.Errorf("%w: cut short", ErrNoLexicon)
	}
	n := int(binary.LittleEndian.Uint32(rest))
	recordsLen := binary.LittleEndian.Uint64(rest[4:])
	recordsOff := int64(len(data) - len(rest) + 12)
	if recordsLen > uint64(size-recordsOff) {
		return nil, fmt.Errorf("%w: records past the end", ErrNoLexicon)
	}
	l := &Lexicon{Segments: segs, inline: int(binary.LittleEndian.Uint32(data[16:])), src: src,
		recordsOff: recordsOff, recordsLen: int64(recordsLen), hashOff: recordsOff + int64(recordsLen)}
	l.slots = int64(hashSlots(n))
	if got := size - l.hashOff; got != l.slots*8 {
		return nil, fmt.Errorf("%w: a hash of %d bytes for %d records", ErrNoLexicon, got, n)
	}
	return l, nil
}

// lexSource is where a lexicon's records and hash are read from: its
// bytes, or its file.
type lexSource interface {
	// at returns the n bytes at off, or fewer where the source ends or
	// fails.
	at(off int64, n int) []byte
}

// lexBytes is a lexicon in memory.
type lexBytes []byte

func (b lexBytes) at(off int64, n int) []byte {
	if off < 0 || off >= int64(len(b)) {
		return nil
	}
	return b[off:min(off+int64(n), int64(len(b)))]
}

// lexFile is a lexicon's file, read with pread; err is its first failure.
type lexFile struct {
	f   *rawfile.File
	err error
}

func (s *lexFile) at(off int64, n int) []byte {
	if off < 0 || off >= s.f.Size {
		return nil
	}
	b, err := s.f.ReadAt(off, int(min(int64(n), s.f.Size-off)))
	if err != nil && s.err == nil {
		s.err = fmt.Errorf("%w: %w", ErrNoLexicon, err)
	}
	return b
}

// Err is the first failure reading the lexicon's file since it was
// opened: its lookups since may have found less than it holds.
func (l *Lexicon) Err() error {
	if f, ok := l.src.(*lexFile); ok {
		return f.err
	}
	return nil
}

// Close closes the lexicon's file, if it has one.
func (l *Lexicon) Close() error {
	if f, ok := l.src.(*lexFile); ok {
		return f.f.Close()
	}
	return nil
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

// maxProbes bounds a hash lookup: at a load of two thirds, runs are
// short; a damaged hash with none free ends there.
const maxProbes = 256

// record returns the body of the record of kind and key, or nil: by its
// hash slot (whose high half screens out most other keys before their
// records are read) and its record.
func (l *Lexicon) record(kind byte, key string) []byte {
	if l.slots == 0 {
		return nil
	}
	h := lexHash(kind, []byte(key))
	at := int64(h & uint64(l.slots-1))
	for range min(l.slots, maxProbes) {
		slot := l.src.at(l.hashOff+at*8, 8)
		if len(slot) < 8 {
			return nil
		}
		v := binary.LittleEndian.Uint64(slot)
		if v == 0 {
			return nil
		}
		if v>>32 == h>>32 {
			if k, rkey, body, ok := l.recordAt(int64(uint32(v)) - 1); ok && k == kind && string(rkey) == key {
				return body
			}
		}
		at = (at + 1) & (l.slots - 1)
	}
	return nil // damaged: no free slot where one must be
}

// lexRecordRead is how much of a record a lookup reads at first: most
// records are shorter; a longer one is read again whole.
const lexRecordRead = 512

// recordAt reads the record at off: its kind, key and body.
func (l *Lexicon) recordAt(off int64) (kind byte, key, body []byte, ok bool) {
	if off < 0 || off >= l.recordsLen {
		return 0, nil, nil, false
	}
	read := func(n int64) []byte { return l.src.at(l.recordsOff+off, int(min(n, l.recordsLen-off))) }
	rec := read(lexRecordRead)
	if len(rec) < 2 {
		return 0, nil, nil, false
	}
	// A length past the records (or past what an int holds, on a 32-bit
	// platform) is damage.
	keyLen, w := binary.Uvarint(rec[1:])
	if w <= 0 || keyLen > uint64(l.recordsLen) || keyLen > math.MaxInt32 {
		return 0, nil, nil, false
	}
	bodyAt := 1 + w + int(keyLen)
	if bodyAt+binary.MaxVarintLen64 > len(rec) { // a long key
		rec = read(int64(bodyAt + binary.MaxVarintLen64))
	}
	bodyLen, w2 := binary.Uvarint(rec[min(bodyAt, len(rec)):])
	if w2 <= 0 || bodyLen > uint64(l.recordsLen) || bodyLen > math.MaxInt32 {
		return 0, nil, nil, false
	}
	if end := int64(bodyAt+w2) + int64(bodyLen); end > int64(len(rec)) {
		if rec = read(end); int64(len(rec)) < end {
			return 0, nil, nil, false
		}
	}
	return rec[0], rec[1+w : bodyAt], rec[bodyAt+w2 : bodyAt+w2+int(bodyLen)], true
}

// uvarintBytes reads a uvarint length and that many bytes from p,
// returning them and what follows.
func uvarintBytes(p []byte) (got, rest []byte, ok bool) {
	n, w := binary.Uvarint(p)
	if w <= 0 || n > uint64(len(p)-w) {
		return nil, nil, false
	}
	return p[w : w+int(n)], p[w+int(n):], true
}

// entries calls fn with the entries of list, stopping at a damaged one.
func (l *Lexicon) entries(list []byte, fn func(LexEntry)) {
	p := list
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
		} else {
			off, w := binary.Uvarint(p)
			if w <= 0 || off > math.MaxInt64-uint64(e.Bytes) {
				return
			}
			e.Offset, p = int64(off), p[w:]
		}
		fn(e)
	}
}

// wordLists are the two lists of word's record: the tokens equal to it
// and those listed under it as a word-form key.
func (l *Lexicon) wordLists(word string) (toks, stems []byte) {
	body := l.record(lexWord, word)
	if body == nil {
		return nil, nil
	}
	toks, stems, ok := uvarintBytes(body)
	if !ok {
		return nil, nil
	}
	return toks, stems
}

// FindWhole calls fn with every segment's token equal to word.
func (l *Lexicon) FindWhole(word string, fn func(LexEntry)) {
	if word == "" {
		return
	}
	toks, _ := l.wordLists(word)
	l.entries(toks, fn)
}

// FindStem calls fn with what Segment.FindStem yields for key in every
// segment: the tokens listed under key, then the token equal to key
// where it is not among them.
func (l *Lexicon) FindStem(key string, fn func(LexEntry)) {
	if key == "" {
		return
	}
	toks, stems := l.wordLists(key)
	var buf [64]uint64
	listed := buf[:0] // segment<<32 | token of each listed
	l.entries(stems, func(e LexEntry) {
		listed = append(listed, uint64(e.Seg)<<32|uint64(e.ID))
		fn(e)
	})
	l.entries(toks, func(e LexEntry) {
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
	group := identGroup([]byte(prefix))
	if group == nil {
		return
	}
	p := l.record(lexGroup, string(group))
	for len(p) > 0 {
		ident, rest, ok := uvarintBytes(p)
		if !ok {
			return
		}
		list, rest, ok := uvarintBytes(rest)
		if !ok {
			return
		}
		if bytes.HasPrefix(ident, []byte(prefix)) {
			l.entries(list, fn)
		}
		p = rest
	}
}
