package terms

import (
	"encoding/binary"
	"hash/crc32"
	"math/bits"
	"slices"
	"strings"
	"sync"
	"unsafe"

	"github.com/recall-dev/recall/internal/atomicfile"
	"github.com/recall-dev/recall/internal/errpath"
	"github.com/recall-dev/recall/internal/tsvfield"
	"github.com/recall-dev/recall/textrules"
)

// Row is what the builder needs of one indexed row.
type Row struct {
	TimeMs           int64 // Unix milliseconds, UnknownTime if unknown
	Type             uint8 // TypeCode
	Gen              uint32
	Session, Project string
	Text             []byte // unescaped
	// Headless: the row is from a run no person typed into (FlagHeadless).
	Headless bool
	Agent    uint8 // record.AgentCode
}

// Builder collects rows, in rows-file order, into one segment.
type Builder struct {
	tok    textrules.Tokenizer
	ids    tokenTable // token → index into tokens, plus one
	tokens []string
	// touched holds the table slots of the tokens of the row being added,
	// whose counts are open in their slots until the row ends.
	touched []int32
	// entries is the postings in row order, as closeRow writes them, in
	// chunks that each hold whole rows; encode sorts them into each token's
	// list (appendPostings).
	entries [][]uint32
	chunks  *ChunkPool
	rows    []byte // row table
	keys    map[key]uint32
	order   []key
	last    uint32 // key of the last row
	stems   *StemCache
	nrows   int32
	raw     int64  // rows bytes covered, for the header
	arena   []byte // the chunk internToken copies new tokens into
	// pend holds the words of the row being added, hashed and their
	// table slots prefetched, until they are counted (queue, drain).
	pend []pendingHit
	long []byte // the pending words longer than 16 bytes
}

// maxPending is how many words the builder queues, prefetching their
// token-table slots, before it counts them. The table is tens of MB and
// a word's slot is a random access into it, most often a cache miss:
// prefetched together, the misses of a row's words overlap instead of
// each stalling its lookup in turn. A few hundred lines stay in the
// first-level cache until they are counted.
const maxPending = 256

// pendingHit is a word queued to be counted: its first 16 bytes (all of
// it when no longer, tokenWords), length, hash and whether it is in code.
type pendingHit struct {
	prefix, suffix uint64
	h              uint32
	n              int32
	long           int32 // where in Builder.long a word longer than 16 bytes is
	inCode         bool
}

type key struct{ session, project string }

// NewBuilder returns an empty builder.
func NewBuilder() *Builder {
	return &Builder{ids: newTokenTable(1 << 14), keys: map[key]uint32{}}
}

// UseChunks makes the builder take the chunks it keeps its posting
// entries in, and its token table, from p and give them back on Release,
// so that the segments of a run reuse them instead of allocating (and the
// collector scanning for) a few tens of MB per segment. The table is
// taken at the size the last segment grew it to: a segment's table
// doubles about six times from its first size, rehashing every token
// each time into fresh pages, each page faulted in twice (read, then
// written). Call it before the first Add.
func (b *Builder) UseChunks(p *ChunkPool) {
	if b.nrows != 0 || len(b.tokens) != 0 {
		// A pooled table would drop the tokens the builder holds.
		panic("terms: UseChunks after Add")
	}
	b.chunks = p
	if slots := p.takeTable(); slots != nil {
		b.ids = tokenTable{slots: slots}
	}
}

// Release gives the builder's entry chunks and token table back to its
// pool; the builder must not be used after.
func (b *Builder) Release() {
	for _, c := range b.entries {
		b.chunks.put(c)
	}
	b.entries = nil
	b.chunks.putTable(b.ids.slots)
	b.ids = tokenTable{}
}

// entryChunk is the entries a pooled chunk holds (1 MiB).
const entryChunk = 1 << 18

// maxFreeChunks bounds what a ChunkPool keeps between segments: about
// one 32 MiB segment's entries.
const maxFreeChunks = 32

// ChunkPool keeps the entry chunks of finished builders for the next
// ones. Safe for concurrent use; a nil pool allocates every chunk.
type ChunkPool struct {
	mu     sync.Mutex
	free   [][]uint32
	tables [][]tokenSlot // token tables of finished builders, at most maxFreeTables
}

// maxFreeTables is how many token tables a ChunkPool keeps: one per
// builder that can run at once (a run builds a segment per core).
const maxFreeTables = 2

// maxPooledTable bounds the size of a table the pool keeps (32 MiB of
// slots, what a segment of about 500k distinct tokens grows to), so that a
// segment of unusual text does not pin a larger one for the whole run.
const maxPooledTable = 1 << 20

// takeTable returns a cleared token table of a finished builder, or nil.
func (p *ChunkPool) takeTable() []tokenSlot {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	k := len(p.tables)
	if k == 0 {
		p.mu.Unlock()
		return nil
	}
	t := p.tables[k-1]
	p.tables = p.tables[:k-1]
	p.mu.Unlock()
	clear(t)
	return t
}

// putTable keeps t for the next builder, unless the pool has enough or t
// is larger than maxPooledTable.
func (p *ChunkPool) putTable(t []tokenSlot) {
	if p == nil || len(t) == 0 || len(t) > maxPooledTable {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.tables) < maxFreeTables {
		p.tables = append(p.tables, t)
	}
}

// NewChunkPool returns an empty pool.
func NewChunkPool() *ChunkPool { return &ChunkPool{} }

// get returns an empty chunk with room for at least n entries.
func (p *ChunkPool) get(n int) []uint32 {
	if p != nil && n <= entryChunk {
		p.mu.Lock()
		defer p.mu.Unlock()
		if k := len(p.free); k > 0 {
			c := p.free[k-1]
			p.free = p.free[:k-1]
			return c[:0]
		}
	}
	return make([]uint32, 0, max(n, entryChunk))
}

func (p *ChunkPool) put(c []uint32) {
	if p == nil || cap(c) != entryChunk {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.free) < maxFreeChunks {
		p.free = append(p.free, c)
	}
}

// UseStems makes the builder take word-form keys from c, shared with the
// other segments of a run, instead of stemming each vocabulary token anew.
func (b *Builder) UseStems(c *StemCache) { b.stems = c }

// StemCache remembers the word-form keys (textrules.StemKey) of tokens
// across the segments one run builds: most of a segment's vocabulary was
// in the previous one's, and stemming every token of every vocabulary was
// a third of encoding a segment. It holds at most maxStemCache tokens, so
// its memory stays bounded at any corpus size; a token past that is
// stemmed each time. Safe for concurrent use.
type StemCache struct {
	mu sync.Mutex
	m  map[string]stemResult
}

type stemResult struct {
	key string
	ok  bool
}

// maxStemCache bounds a StemCache: about 20 MB with the tokens and keys
// it keeps alive.
const maxStemCache = 1 << 18

// NewStemCache returns an empty cache.
func NewStemCache() *StemCache { return &StemCache{m: map[string]stemResult{}} }

// stemKey is textrules.StemKey of tok, from c when it is not nil.
func (c *StemCache) stemKey(tok string) (string, bool) {
	if !textrules.MayHaveStemKey(tok) {
		return "", false
	}
	if c == nil {
		return textrules.StemKey([]byte(tok))
	}
	c.mu.Lock()
	r, hit := c.m[tok]
	c.mu.Unlock()
	if hit {
		return r.key, r.ok
	}
	r.key, r.ok = textrules.StemKey([]byte(tok))
	c.mu.Lock()
	if len(c.m) < maxStemCache {
		// tok is in a builder's token arena (internToken): a copy of
		// its own keeps the arena's chunk from outliving the builder.
		c.m[strings.Clone(tok)] = r
	}
	c.mu.Unlock()
	return r.key, r.ok
}

// AddRawBytes counts n more uncompressed rows bytes as covered.
func (b *Builder) AddRawBytes(n int) { b.raw += int64(n) }

// Rows is how many rows have been added.
func (b *Builder) Rows() int { return int(b.nrows) }

// Add adds the next row.
func (b *Builder) Add(r *Row) {
	row := b.nrows
	b.nrows++
	b.rows = appendRowEntry(b.rows, r, b.keyOf(r.Session, r.Project))
	b.tok.EachSpan(r.Text, func(tok []byte, _, _ int, inCode bool) {
		b.queue(tok, row, inCode)
	})
	b.drain(row)
	b.closeRow()
}

// queue hashes tok, prefetches its table slot and queues it to be
// counted in row. Words are counted in the order they come, so token
// ids, and everything else, are as if each were counted when it came.
func (b *Builder) queue(tok []byte, row int32, inCode bool) {
	prefix, suffix := tokenWords(tok)
	h := hashToken(tok, prefix)
	p := pendingHit{prefix: prefix, suffix: suffix, h: h, n: int32(len(tok)), inCode: inCode}
	if len(tok) > 16 {
		p.long = int32(len(b.long))
		b.long = append(b.long, tok...)
	}
	prefetch(unsafe.Pointer(&b.ids.slots[int(h)&(len(b.ids.slots)-1)]))
	b.pend = append(b.pend, p)
	if len(b.pend) == maxPending {
		b.drain(row)
	}
}

// drain counts the queued words.
func (b *Builder) drain(row int32) {
	for i := range b.pend {
		b.hit(&b.pend[i], row)
	}
	b.pend = b.pend[:0]
	b.long = b.long[:0]
}

// hit counts one occurrence of the queued word p in row. The row's
// counters live in the word's table slot, so that a word touches one
// cache line. The word's bytes are its two words when it is no longer
// than 16 bytes, else its copy in b.long.
func (b *Builder) hit(p *pendingHit, row int32) {
	var short [16]byte
	var tok []byte
	if p.n <= 16 {
		binary.LittleEndian.PutUint64(short[:8], p.prefix)
		binary.LittleEndian.PutUint64(short[8:], p.suffix)
		tok = short[:p.n]
	} else {
		tok = b.long[p.long : p.long+p.n]
	}
	prefix, suffix := p.prefix, p.suffix
	i, found := b.ids.find(p.h, prefix, suffix, tok, b.tokens)
	if !found {
		i = b.add(i, prefix, suffix, tok, row)
	}
	s := &b.ids.slots[i]
	if s.row != row {
		s.row, s.hits, s.codeHits = row, 0, 0
		b.touched = append(b.touched, int32(i))
	}
	s.hits++
	if p.inCode {
		s.codeHits++
	}
}

// add puts tok, new, in the empty slot find returned and returns its slot.
// Slots move when the table grows; the row's touched slots are then found
// again (those whose open row is row).
func (b *Builder) add(slot int, prefix, suffix uint64, tok []byte, row int32) int {
	b.tokens = append(b.tokens, b.internToken(tok))
	size := len(b.ids.slots)
	slot = b.ids.insert(slot, tokenSlot{id: int32(len(b.tokens)), prefix: prefix, suffix: suffix, row: -1}, b.tokens)
	if len(b.ids.slots) != size {
		b.touched = b.touched[:0]
		for i := range b.ids.slots {
			if s := &b.ids.slots[i]; s.id != 0 && s.row == row {
				b.touched = append(b.touched, int32(i))
			}
		}
	}
	return slot
}

// closeRow appends the entries of the row just added to b.entries: the
// number of its tokens, then per token id<<1 | more and, if more, its
// hits and hits in code (else one hit, none in code). The slots it reads
// were just touched, so this is a sequential write instead of an append
// to each token's own list, a cache miss per token and row.
func (b *Builder) closeRow() {
	need := 1 + 3*len(b.touched)
	last := len(b.entries) - 1
	if last < 0 || cap(b.entries[last])-len(b.entries[last]) < need {
		b.entries = append(b.entries, b.chunks.get(need))
		last++
	}
	e := append(b.entries[last], uint32(len(b.touched)))
	for _, i := range b.touched {
		s := &b.ids.slots[i]
		id := uint32(s.id-1) << 1
		if s.hits == 1 && s.codeHits == 0 {
			e = append(e, id)
			continue
		}
		e = append(e, id|1, s.hits, s.codeHits)
	}
	b.entries[last] = e
	b.touched = b.touched[:0]
}

// internToken returns a copy of tok, a new token, as a string in the
// builder's token arena: a segment's few hundred thousand tokens are then
// a few large allocations instead of one each (the allocation was most
// of adding a token). The arena's bytes are never written again once a
// token is in them; a token the StemCache keeps past the builder is
// copied out (stemKey), so that it does not hold a chunk alive.
func (b *Builder) internToken(tok []byte) string {
	if cap(b.arena)-len(b.arena) < len(tok) {
		b.arena = make([]byte, 0, max(tokenArenaChunk, len(tok)))
	}
	start := len(b.arena)
	b.arena = append(b.arena, tok...)
	return unsafe.String(unsafe.SliceData(b.arena[start:]), len(tok))
}

// tokenArenaChunk is the size of one chunk of a builder's token arena.
const tokenArenaChunk = 64 << 10

func appendRowEntry(dst []byte, r *Row, k uint32) []byte {
	var flags uint8
	if len(r.Text) <= maxAckBytes && textrules.IsAcknowledgement(string(r.Text)) {
		flags |= FlagAck
	}
	if r.Headless {
		flags |= FlagHeadless
	}
	dst = binary.LittleEndian.AppendUint64(dst, uint64(r.TimeMs))
	dst = binary.LittleEndian.AppendUint32(dst, uint32(min(uint64(len(r.Text)), 1<<32-1)))
	dst = binary.LittleEndian.AppendUint32(dst, k)
	dst = binary.LittleEndian.AppendUint32(dst, r.Gen)
	return append(dst, r.Type, flags, r.Agent, 0)
}

// maxAckBytes bounds the texts checked for acknowledgements:
// textrules.IsAcknowledgement accepts none longer, and checking a longer
// message would cost a copy of its text.
const maxAckBytes = textrules.MaxAckBytes

func (b *Builder) keyOf(session, project string) uint32 {
	k := key{session, project}
	if b.last < uint32(len(b.order)) && b.order[b.last] == k {
		return b.last // rows of one transcript come together
	}
	if id, ok := b.keys[k]; ok {
		b.last = id
		return id
	}
	id := uint32(len(b.order))
	b.keys[k] = id
	b.order = append(b.order, k)
	b.last = id
	return id
}

// appendPostings appends the postings section, every token's list in
// order (token ids sorted), and returns the offsets of each list in it
// (order's positions, plus the end). Two passes over the entries: the
// first sizes each list, the second writes each entry in place; what they
// touch per entry (a token's previous row and its write position) is a
// few MB at most.
func (b *Builder) appendPostings(out []byte, order []int32) ([]byte, []uint32) {
	n := len(b.tokens)
	lists := make([]postingList, n)
	for i := range lists {
		lists[i].prev = -1
	}
	b.walkEntries(lists, nil)
	offsets := make([]uint32, n+1)
	off := uint32(0)
	for i, id := range order {
		l := &lists[id]
		offsets[i] = off
		off, l.at, l.prev = off+l.at, off, -1
	}
	offsets[n] = off
	base := len(out)
	out = slices.Grow(out, int(off))[:base+int(off)]
	b.walkEntries(lists, out[base:])
	return out, offsets
}

// postingList is appendPostings' state of one token's list.
type postingList struct {
	prev int32  // row of the list's last entry, -1 none
	at   uint32 // its size, then where its next entry goes
}

// walkEntries goes through b.entries (as closeRow wrote them, rows in
// order) once: with post nil it adds each entry's encoded size to its
// token's list, else it writes the entry at its list's place in post.
// One walk for both passes, with the choice a predictable branch: a
// function called per entry made encoding a segment 2.2× slower
// (BenchmarkEncode).
func (b *Builder) walkEntries(lists []postingList, post []byte) {
	row := int32(0)
	for _, e := range b.entries {
		for i := 0; i < len(e); row++ {
			end := i + 1 + int(e[i])
			for i++; i < end; i++ {
				v := e[i]
				l := &lists[v>>1]
				l.at += putUvarint(post, l.at, uint64(row-l.prev)<<1|uint64(v&1))
				l.prev = row
				if v&1 == 0 {
					continue
				}
				l.at += putUvarint(post, l.at, uint64(e[i+1])) // hits
				l.at += putUvarint(post, l.at, uint64(e[i+2])) // hits in code
				i += 2
				end += 2
			}
		}
	}
}

// putUvarint writes v at post[at:] and returns its length, or only
// returns its length when post is nil (walkEntries' sizing pass). Both
// without a loop for the common case: the length from v's bit length,
// and a value under 128 (most row gaps and counts) as its one byte.
func putUvarint(post []byte, at uint32, v uint64) uint32 {
	if post == nil {
		return uint32(uvarintLen(v))
	}
	if v < 0x80 {
		post[at] = byte(v)
		return 1
	}
	return uint32(binary.PutUvarint(post[at:], v))
}

// uvarintLen is the length of v as a uvarint: 7 bits a byte, at least
// one byte.
func uvarintLen(v uint64) int { return (bits.Len64(v|1) + 6) / 7 }

// WriteFile writes the segment of blocks [first, end) of sequence seq to
// dir, durably and atomically (temp file, fsync, rename).
func (b *Builder) WriteFile(dir string, seq, first, end int) (Ref, error) {
	ref := Ref{Name: FileName(seq, first, end), Seq: seq, First: first, End: end}
	data := b.encode(uint64(first), uint64(end))
	if err := atomicfile.Write(ref.Path(dir), data, 0o600, nil); err != nil {
		return ref, errpath.Wrap("write term index", ref.Name, err) // the temp file's name holds ref.Name
	}
	return ref, nil
}

func (b *Builder) encode(first, end uint64) []byte {
	order := sortedTokenIDs(b.tokens)

	h := header{FirstBlock: first, EndBlock: end, Rows: uint64(b.nrows), Keys: uint64(len(b.order)), Tokens: uint64(len(order)), RawBytes: uint64(b.raw), Feature: textrules.FeatureVersion}
	out := make([]byte, preambleSize+headerSize, b.encodedSizeHint())
	h.RowsOff = uint64(len(out))
	out = append(out, b.rows...)
	h.KeysOff = uint64(len(out))
	for _, k := range b.order {
		out = tsvfield.Append(out, k.session)
		out = append(out, '\t')
		out = tsvfield.Append(out, k.project)
		out = append(out, '\n')
	}
	h.KeysLen = uint64(len(out)) - h.KeysOff
	h.VocabOff = uint64(len(out))
	for _, id := range order {
		out = append(append(out, b.tokens[id]...), '\n')
	}
	h.VocabLen = uint64(len(out)) - h.VocabOff
	h.TokOff = uint64(len(out))
	off := uint32(0)
	for _, id := range order {
		out = binary.LittleEndian.AppendUint32(out, off)
		off += uint32(len(b.tokens[id])) + 1
	}
	out = binary.LittleEndian.AppendUint32(out, off)
	h.PostOff = uint64(len(out))
	postOffsets := len(out)
	out = append(out, make([]byte, 4*(len(order)+1))...)
	h.PostingsOff = uint64(len(out))
	out, offsets := b.appendPostings(out, order)
	for i, o := range offsets {
		binary.LittleEndian.PutUint32(out[postOffsets+4*i:], o)
	}
	h.PostingsLen = uint64(len(out)) - h.PostingsOff
	out = b.appendChannels(out, &h, order)
	out = appendPageChecksums(out, &h)
	copy(out, h.encode())
	return out
}

// sortedTokenIDs returns the ids of tokens (unique) in the tokens' byte
// order. Each id is sorted with its token's first eight bytes as a
// big-endian number (zero-padded, as a shorter string sorts first), so
// most comparisons are of two numbers side by side instead of two strings
// found through the token list (a cache miss each; the sort was 1% of a
// full index).
func sortedTokenIDs(tokens []string) []int32 {
	type keyed struct {
		head uint64
		id   int32
	}
	keys := make([]keyed, len(tokens))
	for i, tok := range tokens {
		var head uint64
		for j := range min(len(tok), 8) {
			head |= uint64(tok[j]) << (56 - 8*j)
		}
		keys[i] = keyed{head, int32(i)}
	}
	slices.SortFunc(keys, func(x, y keyed) int {
		if x.head != y.head {
			if x.head < y.head {
				return -1
			}
			return 1
		}
		return strings.Compare(tokens[x.id], tokens[y.id])
	})
	order := make([]int32, len(tokens))
	for i, k := range keys {
		order[i] = k.id
	}
	return order
}

// encodedSizeHint is about the size of the encoded segment, so that
// encode allocates it once instead of growing it (and copying it) a
// dozen times: the sections up to the postings exactly, the channels and
// checksums guessed from the vocabulary's size.
func (b *Builder) encodedSizeHint() int {
	n := preambleSize + headerSize + len(b.rows) + 8*len(b.tokens) + 8
	for _, k := range b.order {
		n += len(k.session) + len(k.project) + 2
	}
	for _, tok := range b.tokens {
		n += 2*len(tok) + 1
	}
	for _, e := range b.entries {
		n += 2 * len(e) // postings take about two bytes an entry
	}
	return n + n/pageSize*4 + 64
}

// appendChannels appends the folds and stems sections, which the match
// channels look tokens up in (query.Forms): the accent-folded form of
// every token with an accent, and the word-form key of every token whose
// key is not the token itself (a token equal to its key is found in the
// vocabulary).
func (b *Builder) appendChannels(out []byte, h *header, order []int32) []byte {
	type stemEntry struct {
		key string
		id  uint32
	}
	var stems []stemEntry
	var foldIDs []uint32
	h.FoldsOff = uint64(len(out))
	for id, list := range order {
		tok := b.tokens[list]
		if textrules.HasAccent([]byte(tok)) {
			out = append(textrules.AppendAccentFolded(out, []byte(tok)), '\n')
			foldIDs = append(foldIDs, uint32(id))
		}
		if key, ok := b.stems.stemKey(tok); ok && key != tok {
			stems = append(stems, stemEntry{key, uint32(id)})
		}
	}
	h.FoldsLen = uint64(len(out)) - h.FoldsOff
	h.Folds = uint64(len(foldIDs))
	h.FoldIDsOff = uint64(len(out))
	for _, id := range foldIDs {
		out = binary.LittleEndian.AppendUint32(out, id)
	}
	slices.SortFunc(stems, func(x, y stemEntry) int {
		if c := strings.Compare(x.key, y.key); c != 0 {
			return c
		}
		return int(x.id) - int(y.id)
	})
	var keys []string
	var lists [][]byte
	for i, e := range stems {
		if i == 0 || e.key != stems[i-1].key {
			keys = append(keys, e.key)
			lists = append(lists, binary.AppendUvarint(nil, uint64(e.id)))
			continue
		}
		last := len(lists) - 1
		lists[last] = binary.AppendUvarint(lists[last], uint64(e.id-stems[i-1].id-1))
	}
	h.Stems = uint64(len(keys))
	h.StemsOff = uint64(len(out))
	for _, k := range keys {
		out = append(append(out, k...), '\n')
	}
	h.StemsLen = uint64(len(out)) - h.StemsOff
	h.StemOffsetsOff = uint64(len(out))
	off := uint32(0)
	for _, k := range keys {
		out = binary.LittleEndian.AppendUint32(out, off)
		off += uint32(len(k)) + 1
	}
	out = binary.LittleEndian.AppendUint32(out, off)
	h.StemListOffsetsOff = uint64(len(out))
	off = 0
	for _, l := range lists {
		out = binary.LittleEndian.AppendUint32(out, off)
		off += uint32(len(l))
	}
	out = binary.LittleEndian.AppendUint32(out, off)
	h.StemListsOff = uint64(len(out))
	for _, l := range lists {
		out = append(out, l...)
	}
	h.StemListsLen = uint64(len(out)) - h.StemListsOff
	return out
}

// appendPageChecksums appends the CRC-32C of every page of the body (all
// of out after the header) and records the table in h.
func appendPageChecksums(out []byte, h *header) []byte {
	h.CRCOff = uint64(len(out))
	body := out[bodyStart:]
	h.CRCPages = uint64((len(body) + pageSize - 1) / pageSize)
	table := len(out)
	for len(body) > 0 {
		n := min(len(body), pageSize)
		out = binary.LittleEndian.AppendUint32(out, crc32.Checksum(body[:n], castagnoli()))
		body = body[n:]
	}
	h.CRCTableCRC = uint64(crc32.Checksum(out[table:], castagnoli()))
	return out
}

// tokenTable maps tokens to their index in Builder.tokens: open
// addressing with linear probing. It is the builder's hot path (one lookup
// per word of every message), bound by memory: a slot holds the token's
// first 16 bytes beside its index and the counters of the row's entry, so
// that a word of up to 15 bytes (nearly every word) reads and writes one
// slot and nothing else. A token holds no zero byte (it is word
// characters), so the zero-padded 16 bytes tell apart every token shorter
// than 16 bytes from every other token; a longer one is compared whole.
type tokenTable struct {
	slots []tokenSlot
	used  int
}

// tokenSlot is one token's entry, 32 bytes (two to a cache line).
type tokenSlot struct {
	prefix   uint64 // the token's bytes 0-7, little-endian, zero-padded
	suffix   uint64 // its bytes 8-15, likewise
	id       int32  // index into Builder.tokens + 1; 0 for an empty slot
	row      int32  // row of the last entry, -1 none
	hits     uint32
	codeHits uint32
}

func newTokenTable(size int) tokenTable { return tokenTable{slots: make([]tokenSlot, size)} }

// tokenWords is tok's bytes 0-7 and 8-15 as little-endian words,
// zero-padded.
func tokenWords(tok []byte) (prefix, suffix uint64) {
	if len(tok) <= 8 {
		return tokenPrefix(tok), 0
	}
	return binary.LittleEndian.Uint64(tok), tokenPrefix(tok[8:])
}

// tokenPrefix is tok's first 8 bytes as a little-endian word, zero-padded.
//
// A token from textrules.Tokenizer lies at the start of a buffer of at
// least 16 bytes, so a short one (or a token's bytes from 8 on) is read
// as one word and masked (the bytes past it are whatever the buffer
// held) instead of byte by byte.
func tokenPrefix(tok []byte) uint64 {
	if len(tok) >= 8 {
		return binary.LittleEndian.Uint64(tok)
	}
	if cap(tok) >= 8 {
		return binary.LittleEndian.Uint64(tok[:8]) & (1<<(8*len(tok)) - 1)
	}
	var v uint64
	for i, c := range tok {
		v |= uint64(c) << (8 * i)
	}
	return v
}

// find returns the slot holding tok and true, or the empty slot where it
// belongs and false.
func (t *tokenTable) find(h uint32, prefix, suffix uint64, tok []byte, tokens []string) (int, bool) {
	mask := len(t.slots) - 1
	for i := int(h) & mask; ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.id == 0 {
			return i, false
		}
		if s.prefix == prefix && s.suffix == suffix && (len(tok) < 16 || tokens[s.id-1] == string(tok)) {
			return i, true
		}
	}
}

// insert puts s in the empty slot find returned, growing the table to keep
// it at most half full, and returns the slot s ends in.
func (t *tokenTable) insert(slot int, s tokenSlot, tokens []string) int {
	t.slots[slot] = s
	t.used++
	if t.used*2 <= len(t.slots) {
		return slot
	}
	grown := make([]tokenSlot, len(t.slots)*2)
	mask := len(grown) - 1
	for _, v := range t.slots {
		if v.id == 0 {
			continue
		}
		tok := tokens[v.id-1]
		i := int(hashToken([]byte(tok), v.prefix)) & mask
		for grown[i].id != 0 {
			i = (i + 1) & mask
		}
		grown[i] = v
		if v.id == s.id {
			slot = i
		}
	}
	t.slots = grown
	return slot
}

// hashToken hashes tok, whose first 8 bytes are prefix (tokenPrefix), a
// word at a time: prefix and the token's length, then each further 8
// bytes (the last 8 of the token for its tail), each step a multiply and
// a fold of the high bits into the low, so that the low bits the table
// indexes by depend on every byte. A token holds no zero byte (it is word
// characters), so the zero-padded prefix and the length tell tokens of up
// to 8 bytes apart. It costs a few multiplies instead of FNV-1a's one per
// byte; the table is in memory only, so the hash is not part of the
// format.
func hashToken(tok []byte, prefix uint64) uint32 {
	h := mixWord(prefix ^ uint64(len(tok))<<59)
	for i := 8; i < len(tok); i += 8 {
		h = mixWord(h ^ binary.LittleEndian.Uint64(tok[min(i, len(tok)-8):]))
	}
	return uint32(h >> 32)
}

// mixWord is one multiply-xorshift round (the constant is 2^64 over the
// golden ratio).
func mixWord(v uint64) uint64 {
	v *= 0x9e3779b97f4a7c15
	return v ^ v>>29
}
