package terms

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/recall-dev/recall/internal/errpath"
	"github.com/recall-dev/recall/internal/rawfile"
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
	keysOnce  sync.Once // makes room for the parsed keys, on first use
	keyAtOnce sync.Once // finds where each key starts (keyAt): on open, or on first use when unverified
	keyAt     []uint32  // key i is keyData[keyAt[i]:keyAt[i+1]-1]; nil when the keys are damaged
	keyMu     sync.Mutex
	keys      []Key // parsed as asked for (keyDone)
	keyDone   []bool
	projects  map[string]string // the parsed keys' projects, by their field: one string per project
	vocab     []byte
	tokOff    []byte
	postOff   []byte
	postings  []byte
	folds     []byte    // accent-folded tokens with an accent, one per line
	foldIDs   []byte    // u32 token id per fold line
	stems     []byte    // word-form keys, sorted, one per line
	stemOff   []byte    // u32 offsets into stems
	listOff   []byte    // u32 offsets into lists
	lists     []byte    // per key, its token ids
	foldsOnce sync.Once // the folds section, checked on first use

	crcs     []byte          // the page checksums
	verified []atomic.Uint64 // bit p: page p was checked and is sound
	// unverified: opened by OpenUnverified, no page is checked.
	unverified bool
	damage     atomic.Pointer[error]
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
	Agent  uint8 // record.AgentCode
}

// Open maps the segment at path.
func Open(dir string, ref Ref) (*Segment, error) { return open(dir, ref, true) }

// OpenUnverified is Open without the page checksums: for a reader none
// of whose conclusions stands unchecked. The prompt hook's small binary
// (cmd/recall-hint) is one: a damaged page can only make it keep silent
// or hand the prompt to recall, which judges again from segments it
// checks; checking the pages its lookups pass through was a third of its
// time. Every read stays within the mapping: damage cannot crash it.
func OpenUnverified(dir string, ref Ref) (*Segment, error) { return open(dir, ref, false) }

func open(dir string, ref Ref, verify bool) (*Segment, error) {
	path := ref.Path(dir)
	// Opened and mapped with plain system calls (rawfile): the prompt
	// hook opens every segment on every prompt.
	data, err := rawfile.Map(path, maxSegmentBytes)
	if errors.Is(err, rawfile.ErrSize) {
		return nil, fmt.Errorf("%s: %w: %w", path, ErrDamaged, err)
	}
	if err != nil {
		return nil, fmt.Errorf("open term index: %w", err)
	}
	if len(data) < preambleSize+headerSize {
		_ = rawfile.Unmap(data)
		return nil, fmt.Errorf("%s: %w: size %d", path, ErrDamaged, len(data))
	}
	mapSmall(data)
	s, err := mapSections(ref, data, verify)
	if err != nil {
		_ = rawfile.Unmap(data)
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// CheckHeader checks the segment of ref as Open does (its header, format
// and text rules, its blocks and sections within the file) by reading its
// header alone: a run that only makes sure every segment is usable reads
// 16 + header bytes of each instead of mapping it (a mapping and its
// removal cost several times a read, and a large index has dozens).
func CheckHeader(dir string, ref Ref) error {
	path := ref.Path(dir)
	f, size, err := openSegmentFile(path)
	if err != nil {
		return err
	}
	defer f.Close()
	head := make([]byte, preambleSize+headerSize)
	if _, err := f.ReadAt(head, 0); err != nil {
		return errpath.Wrap("read", path, err)
	}
	if _, err := checkedHeader(ref, head, uint64(size), true); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// maxSegmentBytes is larger than any segment can be.
const maxSegmentBytes = 1 << 40

// openSegmentFile opens a segment file and returns its size, refusing a
// size no segment can have (shorter than its header, or absurd).
func openSegmentFile(path string) (*os.File, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, fmt.Errorf("open term index: %w", err)
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err // a *fs.PathError: it names path
	}
	size := info.Size()
	if size < preambleSize+headerSize || size > maxSegmentBytes {
		f.Close()
		return nil, 0, fmt.Errorf("%s: %w: size %d", path, ErrDamaged, size)
	}
	return f, size, nil
}

// checkedHeader decodes the header at the start of data, for a file of
// size bytes, and checks it names the blocks ref does.
func checkedHeader(ref Ref, data []byte, size uint64, verify bool) (header, error) {
	h, err := decodeHeaderOf(data, size, verify)
	if err != nil {
		return h, err
	}
	if int(h.FirstBlock) != ref.First || int(h.EndBlock) != ref.End {
		return h, fmt.Errorf("%w: blocks %d-%d, name says %d-%d", ErrDamaged, h.FirstBlock, h.EndBlock, ref.First, ref.End)
	}
	return h, nil
}

// newSegment checks data and slices its sections.
func newSegment(ref Ref, data []byte) (*Segment, error) { return mapSections(ref, data, true) }

// mapSections is newSegment; with verify false the pages are never
// checked (OpenUnverified).
func mapSections(ref Ref, data []byte, verify bool) (*Segment, error) {
	h, err := checkedHeader(ref, data, uint64(len(data)), verify)
	if err != nil {
		return nil, err
	}
	s := &Segment{Ref: ref, h: h, data: data}
	s.rows = data[h.RowsOff : h.RowsOff+h.Rows*rowSize]
	s.vocab = data[h.VocabOff : h.VocabOff+h.VocabLen]
	s.tokOff = data[h.TokOff : h.TokOff+(h.Tokens+1)*4]
	s.postOff = data[h.PostOff : h.PostOff+(h.Tokens+1)*4]
	s.postings = data[h.PostingsOff : h.PostingsOff+h.PostingsLen]
	s.keyData = data[h.KeysOff : h.KeysOff+h.KeysLen]
	s.folds = data[h.FoldsOff : h.FoldsOff+h.FoldsLen]
	s.foldIDs = data[h.FoldIDsOff : h.FoldIDsOff+h.Folds*4]
	s.stems = data[h.StemsOff : h.StemsOff+h.StemsLen]
	s.stemOff = data[h.StemOffsetsOff : h.StemOffsetsOff+(h.Stems+1)*4]
	s.listOff = data[h.StemListOffsetsOff : h.StemListOffsetsOff+(h.Stems+1)*4]
	s.lists = data[h.StemListsOff : h.StemListsOff+h.StemListsLen]
	s.crcs = data[h.CRCOff : h.CRCOff+h.CRCPages*4]
	s.unverified = !verify
	if verify && uint64(crc32.Checksum(s.crcs, castagnoli())) != h.CRCTableCRC {
		return nil, fmt.Errorf("%w: page checksum table", ErrDamaged)
	}
	if !verify {
		// Found on first use: a reader that checks nothing may need no
		// key (the prompt hook's judge, for a prompt no passage answers),
		// and the keys are some 70 KiB to fault in and scan.
		return s, nil
	}
	s.verified = make([]atomic.Uint64, (h.CRCPages+63)/64)
	// The keys are read whole on open: check them now, and note where
	// each starts for Key.
	if err := s.check(h.KeysOff, h.KeysLen); err != nil {
		return nil, err
	}
	s.keyAtOnce.Do(func() { err = s.findKeys() })
	if err != nil {
		return nil, err
	}
	return s, nil
}

// findKeys notes where each key starts (keyAt), after checking there are
// as many well-formed key lines as the header says.
func (s *Segment) findKeys() error {
	at := make([]uint32, 0, s.h.Keys+1)
	off := 0
	if err := eachKey(s.keyData, int(s.h.Keys), func(session, project []byte) {
		at = append(at, uint32(off))
		off += len(session) + 1 + len(project) + 1
	}); err != nil {
		return err
	}
	s.keyAt = append(at, uint32(off))
	return nil
}

// keyLine returns key i's line without its '\n', or nil when there is no
// key i or the keys are damaged (an unverified segment finds out here).
func (s *Segment) keyLine(i uint32) []byte {
	s.keyAtOnce.Do(func() { _ = s.findKeys() })
	if uint64(i) >= s.h.Keys || len(s.keyAt) != int(s.h.Keys)+1 {
		return nil
	}
	return s.keyData[s.keyAt[i] : s.keyAt[i+1]-1]
}

// check verifies the checksums of the pages holding data[off:off+n] that
// were not verified yet. A page that fails is reported (and remembered:
// Err); its bytes are still returned by the reader that asked, and the
// search, which checks Err before trusting what it read, falls back to
// the rows.
func (s *Segment) check(off, n uint64) error {
	if s.unverified || n == 0 || off < bodyStart || off+n > s.h.CRCOff {
		return nil // the header is checked on open; nothing else lies outside
	}
	first, last := (off-bodyStart)/pageSize, (off+n-1-bodyStart)/pageSize
	for p := first; p <= last; p++ {
		word, bit := &s.verified[p/64], uint64(1)<<(p%64)
		if word.Load()&bit != 0 {
			continue
		}
		start := bodyStart + p*pageSize
		end := min(start+pageSize, s.h.CRCOff)
		if crc32.Checksum(s.data[start:end], castagnoli()) != binary.LittleEndian.Uint32(s.crcs[p*4:]) {
			err := fmt.Errorf("%s: %w: checksum of bytes %d-%d", s.Name, ErrDamaged, start, end)
			s.damage.CompareAndSwap(nil, &err)
			return err
		}
		word.Or(bit)
	}
	return nil
}

// checkSlice checks the pages of a subslice of the mapped file.
func (s *Segment) checkSlice(b []byte) {
	if len(b) == 0 {
		return
	}
	off := uint64(cap(s.data) - cap(b))
	_ = s.check(off, uint64(len(b)))
}

// Err returns the first checksum failure a read found, or nil. What was
// read from a segment with an error must not be trusted.
func (s *Segment) Err() error {
	if e := s.damage.Load(); e != nil {
		return *e
	}
	return nil
}

// Verify checks every page of the segment: what `recall index` can do to
// find damage no search has read yet.
func (s *Segment) Verify() error {
	if err := s.check(bodyStart, s.h.CRCOff-bodyStart); err != nil {
		return err
	}
	return s.Err()
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
	err := rawfile.Unmap(s.data)
	s.data = nil
	return err
}

// ReleaseLookups drops the process's mapping of the pages a term lookup
// reads (vocabulary, offsets, postings, folds and stems; they stay in the
// page cache, and a later read maps them again), so that a search holds
// those of the segments it is reading, not of every segment it read: the
// kernel maps 64 KiB around each page a read touches, which for a common
// word is most of every segment's postings. The row table and keys, which
// ranking reads next, stay.
func (s *Segment) ReleaseLookups() {
	if s.data != nil {
		release(s.data, s.h.VocabOff, s.h.CRCOff)
	}
}

// ReleaseRows drops the row table's pages from the mapping, as
// ReleaseLookups drops the lookup pages: a search reads the entries of
// its candidates once, which for a common word is every page of every
// segment's table (at 4 GB about 37 MB mapped by the end of the
// candidate pass, beside the heap), and afterwards only the few between
// two candidates it checks for neighbours, which map again.
func (s *Segment) ReleaseRows() {
	if s.data != nil {
		release(s.data, s.h.RowsOff, s.h.RowsOff+s.h.Rows*rowSize)
	}
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
		s.keys = make([]Key, s.h.Keys)
		s.keyDone = make([]bool, s.h.Keys)
	})
	line := s.keyLine(i)
	if line == nil {
		return Key{}
	}
	s.keyMu.Lock()
	defer s.keyMu.Unlock()
	if !s.keyDone[i] {
		tab := bytes.IndexByte(line, '\t')
		s.keys[i] = Key{tsvfield.Unescape(line[:tab]), s.project(line[tab+1:])}
		s.keyDone[i] = true
	}
	return s.keys[i]
}

// project returns a key's project field unescaped, one string for every
// key of the segment with that project: a segment's keys share a few
// projects, and a question at 4 GB held one copy per key (2 MB of its
// heap while it bounds). Called with keyMu held.
func (s *Segment) project(field []byte) string {
	if p, ok := s.projects[string(field)]; ok {
		return p
	}
	if s.projects == nil {
		s.projects = map[string]string{}
	}
	p := tsvfield.Unescape(field)
	s.projects[string(field)] = p
	return p
}

// Session returns key i's session, parsed anew on each call: for a
// reader that asks for a few keys once (the prompt hook's judge), where
// Key's cache would cost more than the parsing (room for every key of
// the segment, in a process that lives a few milliseconds).
func (s *Segment) Session(i uint32) string {
	session, _, _ := bytes.Cut(s.keyLine(i), []byte{'\t'})
	return tsvfield.Unescape(session)
}

// Row returns row i's table entry; a key out of range reads as 0.
func (s *Segment) Row(i int) RowInfo {
	e := s.rows[i*rowSize : i*rowSize+rowSize]
	s.checkSlice(e)
	return s.decodeRow(e)
}

// decodeRow decodes the row table entry at the start of e; a key out of
// range reads as 0.
func (s *Segment) decodeRow(e []byte) RowInfo {
	r := RowInfo{
		TimeMs: int64(binary.LittleEndian.Uint64(e)),
		Len:    int(binary.LittleEndian.Uint32(e[8:])),
		Key:    binary.LittleEndian.Uint32(e[12:]),
		Gen:    binary.LittleEndian.Uint32(e[16:]),
		Type:   e[20],
		Flags:  e[21],
		Agent:  e[22],
	}
	if uint64(r.Key) >= s.h.Keys {
		r.Key = 0
	}
	return r
}

// RowReader reads a segment's row table entries in ascending order, as
// the candidate pass does for every row a term touched (a question reads
// nearly every entry), checking each page of the table once instead of
// asking for every entry whether its page was checked.
type RowReader struct {
	s *Segment
	// from, to: the bytes of s.rows on pages this reader saw checked.
	from, to int
}

// RowReader returns a reader of the segment's row table.
func (s *Segment) RowReader() RowReader { return RowReader{s: s} }

// RowNextSame returns row i's table entry, as Row does, and whether row
// i+1 exists and belongs to the same generation (HasGenBetween(i+1, i+2,
// gen)). A page that fails its check is reported as Row reports it
// (Segment.Err).
func (r *RowReader) RowNextSame(i int) (RowInfo, bool) {
	s := r.s
	end := min(i+2, int(s.h.Rows)) * rowSize
	start := i * rowSize
	if start < r.from || end > r.to {
		r.checkAround(start, end)
	}
	e := s.rows[start:end]
	info := s.decodeRow(e)
	return info, len(e) >= 2*rowSize && binary.LittleEndian.Uint32(e[rowSize+16:]) == info.Gen
}

// checkAround checks the pages holding s.rows[start:end] and, when they
// are sound, remembers the bytes of the table on them.
func (r *RowReader) checkAround(start, end int) {
	s := r.s
	base := int(s.h.RowsOff) // s.rows[0] in the file
	if s.check(uint64(base+start), uint64(end-start)) != nil {
		r.from, r.to = 0, 0
		return
	}
	pageFrom := (base+start-bodyStart)/pageSize*pageSize + bodyStart
	pageTo := (base+end-1-bodyStart)/pageSize*pageSize + bodyStart + pageSize
	r.from, r.to = max(pageFrom-base, 0), min(pageTo-base, len(s.rows))
}

// HasGenBetween reports whether a row in [from, to) belongs to
// generation gen: one check of the table's pages and a read of each
// row's generation, where Row would check and decode every row (a
// common word's search asks this of rows between candidates thousands
// of times).
func (s *Segment) HasGenBetween(from, to int, gen uint32) bool {
	if from >= to {
		return false
	}
	table := s.rows[from*rowSize : to*rowSize]
	s.checkSlice(table)
	for e := table; len(e) >= rowSize; e = e[rowSize:] {
		if binary.LittleEndian.Uint32(e[16:]) == gen {
			return true
		}
	}
	return false
}

func (s *Segment) tokens() int { return int(s.h.Tokens) }

// token returns token id's text, or nil if the offsets are damaged.
// Offsets are checked where they are read, not all on open: a search
// reads a few of them.
func (s *Segment) token(id int) []byte { return s.lineAt(s.tokOff, s.vocab, id) }

// lineAt returns line i (without its '\n') of text, a section of lines
// located by the offset table off, checking the pages it reads; nil if
// the offsets are damaged.
func (s *Segment) lineAt(off, text []byte, i int) []byte {
	s.checkSlice(off[i*4 : i*4+8])
	a, b := offsets(off, i)
	if a >= b || b > len(text) {
		return nil
	}
	s.checkSlice(text[a:b])
	return text[a : b-1]
}

// Token returns token id's text (folded as stored), or nil for an id out
// of range or damaged offsets.
func (s *Segment) Token(id int) []byte {
	if id < 0 || id >= s.tokens() {
		return nil
	}
	return s.token(id)
}

// offsets returns entries id and id+1 of an offset table.
func offsets(table []byte, id int) (int, int) {
	return int(binary.LittleEndian.Uint32(table[id*4:])), int(binary.LittleEndian.Uint32(table[id*4+4:]))
}

// FindTokens calls fn with every token that contains run (equals it, if
// whole) and how many times it holds it, without overlaps. run must be
// folded like the tokens (query.Shape) and hold no '\n'.
func (s *Segment) FindTokens(run string, whole bool, fn func(id, times int)) {
	s.FindTokenTexts(run, whole, func(id int, _ []byte, times int) { fn(id, times) })
}

// FindTokenTexts is FindTokens that also gives each token's text (valid
// during the call).
func (s *Segment) FindTokenTexts(run string, whole bool, fn func(id int, tok []byte, times int)) {
	if run == "" || strings.IndexByte(run, '\n') >= 0 {
		return
	}
	if whole {
		if i, ok := s.findWhole(run); ok {
			fn(i, s.token(i), 1)
		}
		return
	}
	s.populated.Do(func() {
		populate(s.data, s.h.VocabOff, s.h.VocabOff+s.h.VocabLen)
		_ = s.check(s.h.VocabOff, s.h.VocabLen)
	})
	eachLineHolding(s.vocab, []byte(run), s.tokens(), func(line int, tok []byte) {
		fn(line, tok, bytes.Count(tok, []byte(run)))
	})
}

// FindPrefixed calls fn with every token that starts with prefix, in
// order. The vocabulary is sorted, so they are one range of it, found by
// binary search instead of a scan. prefix must be folded like the tokens
// and hold no '\n'.
func (s *Segment) FindPrefixed(prefix string, fn func(id int, tok []byte)) {
	if prefix == "" || strings.IndexByte(prefix, '\n') >= 0 {
		return
	}
	n := s.tokens()
	for i := sort.Search(n, func(i int) bool { return string(s.token(i)) >= prefix }); i < n; i++ {
		tok := s.token(i)
		if !bytes.HasPrefix(tok, []byte(prefix)) {
			return
		}
		fn(i, tok)
	}
}

// findWhole returns the id of the token equal to run.
func (s *Segment) findWhole(run string) (int, bool) {
	n := s.tokens()
	i := sort.Search(n, func(i int) bool { return string(s.token(i)) >= run })
	return i, i < n && string(s.token(i)) == run
}

// eachLineHolding calls fn with the number and text of every line of
// text (lines end in '\n'; at most lines of them) that contains needle.
// Matches come in order, so a line's number is that of the previous
// match's line plus the newlines between them.
func eachLineHolding(text, needle []byte, lines int, fn func(line int, text []byte)) {
	id, counted := 0, 0
	for from := 0; from < len(text); {
		at := indexFrom(text, needle, from)
		if at < 0 {
			return
		}
		id += bytes.Count(text[counted:at], newline)
		end := bytes.IndexByte(text[at:], '\n')
		if end < 0 || id >= lines {
			return // damaged: the section ends in '\n'
		}
		end += at
		start := bytes.LastIndexByte(text[:at], '\n') + 1
		fn(id, text[start:end])
		from, counted = end+1, end+1
		id++
	}
}

// FindFolded calls fn once with every token that holds fold once its
// accents are folded (textrules.AppendAccentFolded): those holding it as
// they are, and those with an accent whose folded form does. fold must be
// accent-folded and hold no '\n'. Tokens come in no particular order.
func (s *Segment) FindFolded(fold string, fn func(id int, tok []byte)) {
	if fold == "" || strings.IndexByte(fold, '\n') >= 0 {
		return
	}
	seen := map[int]bool{}
	s.FindTokenTexts(fold, false, func(id int, tok []byte, _ int) {
		seen[id] = true
		fn(id, tok)
	})
	s.findAccented(fold, seen, fn)
}

// FindAccented calls fn with every token with an accent whose folded form
// holds fold: FindFolded without the tokens that hold fold as they are,
// for a caller that has them already.
func (s *Segment) FindAccented(fold string, fn func(id int, tok []byte)) {
	if fold == "" || strings.IndexByte(fold, '\n') >= 0 {
		return
	}
	s.findAccented(fold, nil, fn)
}

func (s *Segment) findAccented(fold string, seen map[int]bool, fn func(id int, tok []byte)) {
	s.foldsOnce.Do(func() { _ = s.check(s.h.FoldsOff, s.h.FoldsLen+s.h.Folds*4) })
	eachLineHolding(s.folds, []byte(fold), int(s.h.Folds), func(line int, _ []byte) {
		id := int(binary.LittleEndian.Uint32(s.foldIDs[line*4:]))
		if id >= s.tokens() || seen[id] {
			return // damaged, or found as it is
		}
		if seen != nil {
			seen[id] = true
		}
		fn(id, s.token(id))
	})
}

// FindStem calls fn with every token whose word-form key
// (textrules.StemKey) may be key: the token equal to key, and those the
// stems section lists under it. The caller checks each token
// (query.Forms.Classify).
func (s *Segment) FindStem(key string, fn func(id int, tok []byte)) {
	if key == "" || strings.IndexByte(key, '\n') >= 0 {
		return
	}
	same, hasSame := s.findWhole(key)
	// A lookup is a binary search: it checks the pages it reads, a
	// few dozen, not the sections whole (a prompt hint's lookups in ten
	// segments would check megabytes).
	n := int(s.h.Stems)
	i := sort.Search(n, func(i int) bool { return string(s.stemKey(i)) >= key })
	if i < n && string(s.stemKey(i)) == key {
		s.stemList(i, func(id int) {
			if hasSame && id == same {
				hasSame = false
			}
			fn(id, s.token(id))
		})
	}
	if hasSame {
		fn(same, s.token(same))
	}
}

// stemKey returns word-form key i of the stems section, or nil if its
// offsets are damaged.
func (s *Segment) stemKey(i int) []byte { return s.lineAt(s.stemOff, s.stems, i) }

// stemList calls fn with the tokens listed under word-form key i,
// ascending, stopping at the first damaged entry.
func (s *Segment) stemList(i int, fn func(id int)) {
	s.checkSlice(s.listOff[i*4 : i*4+8])
	a, b := offsets(s.listOff, i)
	if a > b || b > len(s.lists) {
		return
	}
	s.checkSlice(s.lists[a:b])
	p := s.lists[a:b]
	id := -1
	for len(p) > 0 {
		v, w := binary.Uvarint(p)
		if w <= 0 || v >= uint64(s.tokens()) {
			return // damaged
		}
		p = p[w:]
		id += int(v) + 1
		if id >= s.tokens() {
			return
		}
		fn(id)
	}
}

var newline = []byte{'\n'}

// Posting is one row holding a token: its hits and its hits in code.
type Posting struct{ Row, Hits, Code int32 }

// Postings calls fn for each row holding token id, rows ascending, with
// its hits and hits in code. It stops at the first malformed entry and
// reports it.
func (s *Segment) Postings(id int, fn func(row, hits, codeHits int)) error {
	var buf [64]Posting
	list, err := s.AppendPostings(id, buf[:0])
	for _, p := range list {
		fn(int(p.Row), int(p.Hits), int(p.Code))
	}
	return err
}

// AppendPostings appends token id's postings to dst, rows ascending: a
// caller that adds thousands of tokens' postings (a question's FIX and
// TEST) loops over them without a call per posting. On a malformed entry
// it returns those before it and the error.
func (s *Segment) AppendPostings(id int, dst []Posting) ([]Posting, error) {
	p, err := s.postingList(id)
	if err != nil {
		return dst, err
	}
	dst, err = DecodePostings(p, s.Rows(), dst)
	if err != nil {
		return dst, fmt.Errorf("%s: %w", s.Name, err)
	}
	return dst, nil
}

// DecodePostings appends the postings of list, one token's posting
// list in a segment of rows rows, to dst, rows ascending. On a malformed
// entry it returns those before it and the error.
func DecodePostings(p []byte, rows int, dst []Posting) ([]Posting, error) {
	row := -1
	for len(p) > 0 {
		v, n := binary.Uvarint(p)
		if n <= 0 {
			return dst, fmt.Errorf("%w: posting", ErrDamaged)
		}
		p = p[n:]
		row += int(v >> 1)
		hits, code := uint64(1), uint64(0)
		if v&1 != 0 {
			if hits, n = binary.Uvarint(p); n <= 0 {
				return dst, fmt.Errorf("%w: posting", ErrDamaged)
			}
			p = p[n:]
			if code, n = binary.Uvarint(p); n <= 0 {
				return dst, fmt.Errorf("%w: posting", ErrDamaged)
			}
			p = p[n:]
		}
		if row < 0 || row >= rows || v>>1 == 0 {
			return dst, fmt.Errorf("%w: posting row", ErrDamaged)
		}
		dst = append(dst, Posting{Row: int32(row), Hits: clampHits(hits), Code: clampHits(code)})
	}
	return dst, nil
}

func (s *Segment) postingList(id int) ([]byte, error) {
	a, b, err := s.postingRange(id)
	if err != nil {
		return nil, err
	}
	if err := s.check(s.h.PostingsOff+uint64(a), uint64(b-a)); err != nil {
		return nil, err
	}
	return s.postings[a:b], nil
}

// postingRange is where token id's postings lie in the postings section.
func (s *Segment) postingRange(id int) (a, b int, err error) {
	if id < 0 || id >= s.tokens() {
		return 0, 0, fmt.Errorf("%s: %w: token %d", s.Name, ErrDamaged, id)
	}
	s.checkSlice(s.postOff[id*4 : id*4+8])
	a, b = offsets(s.postOff, id)
	if a > b || b > len(s.postings) {
		return 0, 0, fmt.Errorf("%s: %w: posting offsets", s.Name, ErrDamaged)
	}
	return a, b, nil
}

// clampHits caps a posting's count at what an int32 holds: a count that
// large is only a bound anyway (a damaged or hostile segment may hold
// any varint).
func clampHits(v uint64) int32 { return int32(min(v, math.MaxInt32)) }

// PostingBytes is the size of token id's postings in bytes: a bound on
// the rows holding it (every entry takes a byte at least) read without
// decoding them. 0 for an id out of range or damaged offsets.
func (s *Segment) PostingBytes(id int) int {
	a, b, err := s.postingRange(id)
	if err != nil {
		return 0
	}
	return b - a
}

// RawBytes is the uncompressed size of the rows blocks the segment
// covers: over Rows, a bound on the average row's text length.
func (s *Segment) RawBytes() uint64 { return s.h.RawBytes }
