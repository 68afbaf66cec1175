package indexer

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"hash/fnv"
	"math/bits"
)

// Block describes one zstd frame of the rows file: where it is, what time
// span and sessions it covers, and which trigrams its text holds.
// A query reads these first and decompresses only the frames that can match.
type Block struct {
	Offset   int64 // byte offset of the frame in the rows file
	Size     int64 // compressed size of the frame
	RawSize  int64 // decompressed size
	Rows     int   // rows in the frame
	MinTime  int64 // earliest row timestamp, Unix milliseconds (0: unknown)
	MaxTime  int64 // latest row timestamp, Unix milliseconds
	Types    uint8 // bit set of row types present (typeBit)
	Sessions bloom // session ids
	Trigrams bloom // ASCII-lowercased byte trigrams of the text column
}

// typeBit maps a row type to its bit in Block.Types.
func typeBit(t string) uint8 {
	switch t {
	case TypeUser:
		return 1
	case TypeAssistant:
		return 2
	case TypeTool:
		return 4
	case TypeAgent:
		return 8
	}
	return 16
}

// HasType reports whether the block may hold rows of type t.
func (b *Block) HasType(t string) bool { return b.Types&typeBit(t) != 0 }

// Bloom sizes. A block holds rows of a few files, so a few sessions: 512
// bits keep false positives well under 1% at that load.
const (
	sessionBloomBytes = 64
	// trigramBitsPerKey sizes the trigram filter: 8 bits a distinct trigram
	// with two probes gives about 5% false positives per trigram, and a
	// word needs all of its trigrams, so a five-letter word (three
	// trigrams) passes a block that lacks it about 0.01% of the time.
	trigramBitsPerKey = 8
	minTrigramBytes   = 64
)

// bloom is a Bloom filter with two probes derived from one 64-bit hash.
// Its length in bytes is a power of two.
type bloom []byte

func newBloom(nbytes int) bloom { return make(bloom, nbytes) }

func (f bloom) add(h uint64) {
	if len(f) == 0 {
		return
	}
	mask := uint64(len(f))*8 - 1
	a, b := h&mask, (h>>32|h<<32)&mask
	f[a/8] |= 1 << (a % 8)
	f[b/8] |= 1 << (b % 8)
}

func (f bloom) mayContain(h uint64) bool {
	if len(f) == 0 {
		return true
	}
	mask := uint64(len(f))*8 - 1
	a, b := h&mask, (h>>32|h<<32)&mask
	return f[a/8]&(1<<(a%8)) != 0 && f[b/8]&(1<<(b%8)) != 0
}

// hashString is the bloom hash of session ids.
func hashString(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return mix64(h.Sum64())
}

// hashTrigram spreads a 24-bit trigram over 64 bits.
func hashTrigram(t uint32) uint64 { return mix64(uint64(t) * 0x9E3779B97F4A7C15) }

// mix64 is the splitmix64 finaliser: cheap and well spread in both halves,
// which the two probes need.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

// MaySession reports whether the block may hold rows of session id.
func (b *Block) MaySession(id string) bool { return b.Sessions.mayContain(hashString(id)) }

// MayContainLiteral reports whether the block's text may contain lit,
// compared case-insensitively. Only ASCII literals of three bytes or more
// can rule a block out; anything else may match.
func (b *Block) MayContainLiteral(lit []byte) bool {
	if len(lit) < 3 {
		return true
	}
	var t uint32
	for i, c := range lit {
		if c >= 0x80 {
			return true
		}
		t = (t<<8 | uint32(lowerASCII(c))) & 0xFFFFFF
		if i >= 2 && !b.Trigrams.mayContain(hashTrigram(t)) {
			return false
		}
	}
	return true
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// trigramSet collects the distinct trigrams of a block exactly, with a bit
// per possible trigram (2^24 bits, 2 MiB), so that the bloom can be sized to
// the real count. It is reused from block to block.
type trigramSet struct {
	seen []uint64
	list []uint32
}

func newTrigramSet() *trigramSet { return &trigramSet{seen: make([]uint64, 1<<24/64)} }

// addText adds the trigrams of text, ASCII-lowercased. Non-ASCII runes that
// fold to ASCII letters (the Kelvin sign and the long s) are also added as
// those letters, so that a case-insensitive ASCII query is never ruled out
// by text it would match.
func (s *trigramSet) addText(text []byte) {
	var t uint32
	n := 0
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c == 0xE2 && i+2 < len(text) && text[i+1] == 0x84 && text[i+2] == 0xAA {
			c, i = 'k', i+2 // U+212A KELVIN SIGN
		} else if c == 0xC5 && i+1 < len(text) && text[i+1] == 0xBF {
			c, i = 's', i+1 // U+017F LATIN SMALL LETTER LONG S
		}
		t = (t<<8 | uint32(lowerASCII(c))) & 0xFFFFFF
		n++
		if n >= 3 {
			s.add(t)
		}
	}
}

func (s *trigramSet) add(t uint32) {
	w, bit := t/64, uint64(1)<<(t%64)
	if s.seen[w]&bit == 0 {
		s.seen[w] |= bit
		s.list = append(s.list, t)
	}
}

// bloomAndReset builds the block's trigram filter and empties the set.
func (s *trigramSet) bloomAndReset() bloom {
	nbytes := len(s.list) * trigramBitsPerKey / 8
	if nbytes < minTrigramBytes {
		nbytes = minTrigramBytes
	}
	f := newBloom(1 << bits.Len(uint(nbytes-1)))
	for _, t := range s.list {
		f.add(hashTrigram(t))
		s.seen[t/64] = 0
	}
	s.list = s.list[:0]
	return f
}

// Block records on disk: a little-endian uint32 payload length, the payload,
// then a CRC-32C of the payload. The payload is the fixed fields followed by
// the three blooms, each with a uint32 length.
var crcTable = crc32.MakeTable(crc32.Castagnoli)

const blockFixedSize = 8*5 + 4 + 1

func (b *Block) appendRecord(dst []byte) []byte {
	payload := make([]byte, 0, blockFixedSize+8+len(b.Sessions)+len(b.Trigrams))
	payload = binary.LittleEndian.AppendUint64(payload, uint64(b.Offset))
	payload = binary.LittleEndian.AppendUint64(payload, uint64(b.Size))
	payload = binary.LittleEndian.AppendUint64(payload, uint64(b.RawSize))
	payload = binary.LittleEndian.AppendUint64(payload, uint64(b.MinTime))
	payload = binary.LittleEndian.AppendUint64(payload, uint64(b.MaxTime))
	payload = binary.LittleEndian.AppendUint32(payload, uint32(b.Rows))
	payload = append(payload, b.Types)
	for _, f := range []bloom{b.Sessions, b.Trigrams} {
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
	var out []Block
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
	for _, f := range []*bloom{&b.Sessions, &b.Trigrams} {
		if *f, rest, err = takeBloom(rest); err != nil {
			return Block{}, 0, err
		}
	}
	return b, 4 + n + 4, nil
}

func takeBloom(p []byte) (bloom, []byte, error) {
	if len(p) < 4 {
		return nil, nil, errBadBlockRecord
	}
	n := int(binary.LittleEndian.Uint32(p))
	if 4+n > len(p) || (n != 0 && n&(n-1) != 0) {
		return nil, nil, errBadBlockRecord
	}
	return bloom(p[4 : 4+n]), p[4+n:], nil
}
