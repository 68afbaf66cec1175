package terms

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/recall-dev/recall/internal/atomicfile"
	"github.com/recall-dev/recall/textrules"
	"golang.org/x/sys/unix"
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
//	  u64, header checksum u32 (the segment's preamble bytes 12-16)
//	tokens u32, stems u32, identifiers u32; the three tables' text
//	  lengths u64 each; lists length u64
//	three tables, each: its words sorted, each followed by '\n'; their
//	  offsets (words+1) × u32; their lists' offsets (words+1) × u32
//	lists: per word, its entries ordered by segment and token id, each
//	  uvarint(segment), uvarint(token id), uvarint(bytes of its
//	  postings), then those postings themselves when they are inline
//	  bytes or fewer (a rare word's: read with its entry, on its page,
//	  instead of in the segment)
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
}

// Lexicon is an open lexicon file.
type Lexicon struct {
	Segments []LexSegment
	data     []byte
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
}

// Identity is what Covers matches a segment by: its file's size and its
// header's checksum.
func (s *Segment) Identity() (size uint64, headerCRC uint32) {
	return uint64(len(s.data)), binary.LittleEndian.Uint32(s.data[12:])
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

// lexItem is one (word, segment, token) while the lexicon is built.
type lexItem struct {
	word     string
	seg, id  int
	postings []byte
}

// WriteLexicon writes the lexicon of segs (opened with Open, so that
// what it reads of them is checked), replacing the last one whole.
func WriteLexicon(dir string, segs []*Segment) error {
	data, err := encodeLexicon(segs)
	if err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(dir, LexiconFileName), data, 0o600, nil)
}

// encodeLexicon returns the lexicon file of segs.
func encodeLexicon(segs []*Segment) ([]byte, error) {
	var toks, stems, idents []lexItem
	for si, s := range segs {
		for id := range s.tokens() {
			tok := s.token(id)
			list, err := s.postingList(id)
			if tok == nil || err != nil {
				return nil, fmt.Errorf("%s: %w: token %d", s.Name, ErrDamaged, id)
			}
			toks = append(toks, lexItem{string(tok), si, id, list})
			if bytes.IndexByte(tok[min(len(tok), 1):], '_') >= 0 {
				idents = append(idents, toks[len(toks)-1])
			}
		}
		for i := range int(s.h.Stems) {
			key := string(s.stemKey(i))
			s.stemList(i, func(id int) {
				list, _ := s.postingList(id) // read above
				stems = append(stems, lexItem{key, si, id, list})
			})
		}
		if err := s.Err(); err != nil {
			return nil, err
		}
	}
	var b bytes.Buffer
	b.WriteString(lexiconMagic)
	for _, v := range []int{lexiconVersion, textrules.FeatureVersion, lexInline, len(segs)} {
		b.Write(binary.LittleEndian.AppendUint32(nil, uint32(v)))
	}
	for _, s := range segs {
		size, crc := s.Identity()
		b.Write(binary.LittleEndian.AppendUint16(nil, uint16(len(s.Name))))
		b.WriteString(s.Name)
		b.Write(binary.LittleEndian.AppendUint64(nil, size))
		b.Write(binary.LittleEndian.AppendUint32(nil, crc))
	}
	var lists []byte
	tables := []lexTable{encodeTable(toks, &lists), encodeTable(stems, &lists), encodeTable(idents, &lists)}
	for _, t := range tables {
		b.Write(binary.LittleEndian.AppendUint32(nil, uint32(t.n)))
	}
	for _, t := range tables {
		b.Write(binary.LittleEndian.AppendUint64(nil, uint64(len(t.text))))
	}
	b.Write(binary.LittleEndian.AppendUint64(nil, uint64(len(lists))))
	for _, t := range tables {
		b.Write(t.text)
		b.Write(t.off)
		b.Write(t.listOff)
	}
	b.Write(lists)
	if b.Len() > maxLexiconBytes {
		return nil, fmt.Errorf("term lexicon of %d bytes: too large", b.Len())
	}
	return b.Bytes(), nil
}

// maxLexiconBytes bounds a lexicon: its offsets are u32.
const maxLexiconBytes = 1<<32 - 1

// encodeTable sorts items by word and returns their table, the lists
// appended to lists.
func encodeTable(items []lexItem, lists *[]byte) lexTable {
	slices.SortFunc(items, func(a, b lexItem) int {
		if c := strings.Compare(a.word, b.word); c != 0 {
			return c
		}
		if a.seg != b.seg {
			return a.seg - b.seg
		}
		return a.id - b.id
	})
	var t lexTable
	for i, it := range items {
		if i == 0 || it.word != items[i-1].word {
			t.off = binary.LittleEndian.AppendUint32(t.off, uint32(len(t.text)))
			t.listOff = binary.LittleEndian.AppendUint32(t.listOff, uint32(len(*lists)))
			t.text = append(append(t.text, it.word...), '\n')
			t.n++
		}
		*lists = binary.AppendUvarint(*lists, uint64(it.seg))
		*lists = binary.AppendUvarint(*lists, uint64(it.id))
		*lists = binary.AppendUvarint(*lists, uint64(len(it.postings)))
		if len(it.postings) <= lexInline {
			*lists = append(*lists, it.postings...)
		}
	}
	t.off = binary.LittleEndian.AppendUint32(t.off, uint32(len(t.text)))
	t.listOff = binary.LittleEndian.AppendUint32(t.listOff, uint32(len(*lists)))
	return t
}

// LexiconSegments returns the names of the segments the lexicon of dir
// covers, reading its head alone; none when there is no usable lexicon.
func LexiconSegments(dir string) []string {
	f, err := os.Open(filepath.Join(dir, LexiconFileName))
	if err != nil {
		return nil
	}
	defer f.Close()
	head := make([]byte, 64<<10)
	n, _ := f.Read(head)
	segs, _, err := parseLexiconHead(head[:n])
	if err != nil {
		return nil
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
	path := filepath.Join(dir, LexiconFileName)
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNoLexicon, err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNoLexicon, err)
	}
	if info.Size() < int64(len(lexiconMagic)) || info.Size() > maxLexiconBytes {
		return nil, fmt.Errorf("%w: size %d", ErrNoLexicon, info.Size())
	}
	data, err := unix.Mmap(int(f.Fd()), 0, int(info.Size()), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("%w: map %s: %w", ErrNoLexicon, path, err)
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
	l := &Lexicon{Segments: segs, data: data, inline: int(binary.LittleEndian.Uint32(data[16:]))}
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
	for i, t := range tables {
		n := uint64(t.n)
		t.text, t.off, t.listOff = take(lens[i]), take((n+1)*4), take((n+1)*4)
	}
	l.lists = take(listsLen)
	if err != nil {
		return nil, err
	}
	if len(rest) != 0 {
		return nil, fmt.Errorf("%w: %d bytes past the lists", ErrNoLexicon, len(rest))
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
		if len(rest) < 2+nameLen+12 {
			return nil, nil, fmt.Errorf("%w: segment list cut short", ErrNoLexicon)
		}
		segs = append(segs, LexSegment{
			Name:      string(rest[2 : 2+nameLen]),
			Size:      binary.LittleEndian.Uint64(rest[2+nameLen:]),
			HeaderCRC: binary.LittleEndian.Uint32(rest[2+nameLen+8:]),
		})
		rest = rest[2+nameLen+12:]
	}
	return segs, rest, nil
}

// word returns word i of the table, or nil if its offsets are damaged.
func (t *lexTable) word(i int) []byte {
	a, b := offsets(t.off, i)
	if a >= b || b > len(t.text) {
		return nil
	}
	return t.text[a : b-1]
}

// search returns the first word of the table not below word.
func (t *lexTable) search(word string) int {
	return sort.Search(t.n, func(i int) bool { return string(t.word(i)) >= word })
}

// find returns word's index in the table, or -1.
func (t *lexTable) find(word string) int {
	if i := t.search(word); i < t.n && string(t.word(i)) == word {
		return i
	}
	return -1
}

// entries calls fn with the entries of word i of t, stopping at a
// damaged one.
func (l *Lexicon) entries(t *lexTable, i int, fn func(LexEntry)) {
	a, b := offsets(t.listOff, i)
	if a > b || b > len(l.lists) {
		return
	}
	p := l.lists[a:b]
	for len(p) > 0 {
		var v [3]uint64
		for j := range v {
			x, w := binary.Uvarint(p)
			if w <= 0 || x > 1<<31 {
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
	var listed []LexEntry
	if i := l.stems.find(key); i >= 0 {
		l.entries(&l.stems, i, func(e LexEntry) {
			listed = append(listed, e)
			fn(e)
		})
	}
	l.FindWhole(key, func(e LexEntry) {
		if !slices.ContainsFunc(listed, func(x LexEntry) bool { return x.Seg == e.Seg && x.ID == e.ID }) {
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
