package snapshot

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"hash/fnv"
	"time"

	"github.com/recall-dev/recall/store/keys"

	"github.com/recall-dev/recall/record"
)

// Block describes one zstd frame of the rows file: where it is, what time
// span and sessions it covers. A query reads these first and decompresses
// only the frames that can match its filters; which frames hold which
// words, the term index says (package terms).
type Block struct {
	Offset   int64 // byte offset of the frame in the rows file
	Size     int64 // compressed size of the frame
	RawSize  int64 // decompressed size
	Rows     int   // rows in the frame
	MinTime  int64 // earliest row timestamp, Unix milliseconds (0: unknown)
	MaxTime  int64 // latest row timestamp, Unix milliseconds
	Types    uint8 // bit set of row types present (typeBit)
	Sessions Bloom // session ids
}

// NewBlock is the metadata of an empty block, to note rows in.
func NewBlock() Block { return Block{Sessions: NewBloom(SessionBloomBytes)} }

// Note adds row r, whose timestamp is ms (Unix milliseconds; hasTime
// false when it has none), to what b says of its rows.
func (b *Block) Note(r *record.Row, ms int64, hasTime bool) {
	b.Rows++
	if hasTime {
		if b.MinTime == 0 || ms < b.MinTime {
			b.MinTime = ms
		}
		if ms > b.MaxTime {
			b.MaxTime = ms
		}
	}
	b.Types |= TypeBit(r.Type)
	b.Sessions.Add(HashString(r.Session))
}

// TypeBit maps a row type to its bit in Block.Types.
func TypeBit(t string) uint8 {
	switch t {
	case record.TypeUser:
		return 1
	case record.TypeAssistant:
		return 2
	case record.TypeTool:
		return 4
	case record.TypeAgent:
		return 8
	}
	return 16
}

// HasType reports whether the block may hold rows of type t.
func (b *Block) HasType(t string) bool { return b.Types&TypeBit(t) != 0 }

// SessionBloomBytes sizes the session filter: a block holds rows of a few
// files, so a few sessions, and 512 bits keep false positives well under
// 1% at that load.
const SessionBloomBytes = 64

// Bloom is a Bloom filter with two probes derived from one 64-bit hash.
// Its length in bytes is a power of two.
type Bloom []byte

func NewBloom(nbytes int) Bloom { return make(Bloom, nbytes) }

func (f Bloom) Add(h uint64) {
	if len(f) == 0 {
		return
	}
	mask := uint64(len(f))*8 - 1
	a, b := h&mask, (h>>32|h<<32)&mask
	f[a/8] |= 1 << (a % 8)
	f[b/8] |= 1 << (b % 8)
}

func (f Bloom) mayContain(h uint64) bool {
	if len(f) == 0 {
		return true
	}
	mask := uint64(len(f))*8 - 1
	a, b := h&mask, (h>>32|h<<32)&mask
	return f[a/8]&(1<<(a%8)) != 0 && f[b/8]&(1<<(b%8)) != 0
}

// HashString is the bloom hash of session ids.
func HashString(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return keys.Mix64(h.Sum64())
}

// MaySession reports whether the block may hold rows of session id.
func (b *Block) MaySession(id string) bool { return b.Sessions.mayContain(HashString(id)) }

// Block records on disk: a little-endian uint32 payload length, the payload,
// then a CRC-32C of the payload. The payload is the fixed fields followed by
// two blooms, each with a uint32 length: the session filter and a trigram
// filter, which the term index replaced; it is written empty, and read and
// ignored in indexes written before.
var crcTable = crc32.MakeTable(crc32.Castagnoli)

const blockFixedSize = 8*5 + 4 + 1

func (b *Block) AppendRecord(dst []byte) []byte {
	payload := make([]byte, 0, blockFixedSize+8+len(b.Sessions))
	payload = binary.LittleEndian.AppendUint64(payload, uint64(b.Offset))
	payload = binary.LittleEndian.AppendUint64(payload, uint64(b.Size))
	payload = binary.LittleEndian.AppendUint64(payload, uint64(b.RawSize))
	payload = binary.LittleEndian.AppendUint64(payload, uint64(b.MinTime))
	payload = binary.LittleEndian.AppendUint64(payload, uint64(b.MaxTime))
	payload = binary.LittleEndian.AppendUint32(payload, uint32(b.Rows))
	payload = append(payload, b.Types)
	for _, f := range []Bloom{b.Sessions, nil} {
		payload = binary.LittleEndian.AppendUint32(payload, uint32(len(f)))
		payload = append(payload, f...)
	}
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(payload)))
	dst = append(dst, payload...)
	return binary.LittleEndian.AppendUint32(dst, crc32.Checksum(payload, crcTable))
}

var errBadBlockRecord = errors.New("bad block record")

// parseBlocks decodes a blocks file's committed bytes.
func parseBlocks(data []byte) ([]Block, error) {
	// Sized by a first pass over the records' lengths: grown by append,
	// the records of a 1 GB index (1,848) were copied at every growth into
	// a fresh array (zeroed first: they hold slices), on one core before a
	// search could start any other work.
	out := make([]Block, 0, countRecords(data))
	for off := 0; off < len(data); {
		b, n, err := parseBlockRecord(data[off:])
		if err != nil {
			return out, fmt.Errorf("block record at byte %d: %w", off, err)
		}
		out = append(out, b)
		off += n
	}
	return out, nil
}

// countRecords counts the records that data's length prefixes delimit,
// up to the first that does not fit (which parseBlocks reports).
func countRecords(data []byte) int {
	n := 0
	for len(data) >= 4 {
		size := 4 + uint64(binary.LittleEndian.Uint32(data)) + 4
		if size > uint64(len(data)) {
			break
		}
		data = data[size:]
		n++
	}
	return n
}

func parseBlockRecord(data []byte) (Block, int, error) {
	if len(data) < 8 {
		return Block{}, 0, errBadBlockRecord
	}
	n := int(binary.LittleEndian.Uint32(data))
	if n < blockFixedSize || 4+n+4 > len(data) {
		return Block{}, 0, errBadBlockRecord
	}
	p := data[4 : 4+n]
	if crc32.Checksum(p, crcTable) != binary.LittleEndian.Uint32(data[4+n:]) {
		return Block{}, 0, fmt.Errorf("%w: checksum mismatch", errBadBlockRecord)
	}
	var b Block
	b.Offset = int64(binary.LittleEndian.Uint64(p[0:]))
	b.Size = int64(binary.LittleEndian.Uint64(p[8:]))
	b.RawSize = int64(binary.LittleEndian.Uint64(p[16:]))
	b.MinTime = int64(binary.LittleEndian.Uint64(p[24:]))
	b.MaxTime = int64(binary.LittleEndian.Uint64(p[32:]))
	b.Rows = int(binary.LittleEndian.Uint32(p[40:]))
	b.Types = p[44]
	rest := p[blockFixedSize:]
	var err error
	var trigrams Bloom
	for _, f := range []*Bloom{&b.Sessions, &trigrams} {
		if *f, rest, err = takeBloom(rest); err != nil {
			return Block{}, 0, err
		}
	}
	return b, 4 + n + 4, nil
}

func takeBloom(p []byte) (Bloom, []byte, error) {
	if len(p) < 4 {
		return nil, nil, errBadBlockRecord
	}
	n := int(binary.LittleEndian.Uint32(p))
	if 4+n > len(p) || (n != 0 && n&(n-1) != 0) {
		return nil, nil, errBadBlockRecord
	}
	return Bloom(p[4 : 4+n]), p[4+n:], nil
}

// TimeSpan is the time of the snapshot's first and last rows, by their
// blocks' records (zero when no block knows it); superseded rows count.
func (s *Snapshot) TimeSpan() (first, last time.Time) {
	var lo, hi int64
	for i := range s.Blocks {
		b := &s.Blocks[i]
		if b.MinTime > 0 && (lo == 0 || b.MinTime < lo) {
			lo = b.MinTime
		}
		hi = max(hi, b.MaxTime)
	}
	if lo > 0 {
		first = time.UnixMilli(lo)
	}
	if hi > 0 {
		last = time.UnixMilli(hi)
	}
	return first, last
}
