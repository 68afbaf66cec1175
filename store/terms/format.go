package terms

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/recall-dev/recall/internal/errpath"
	"github.com/recall-dev/recall/textrules"
)

// FormatVersion is the version in segment file names and headers.
//
//	1: the first term index.
//	2: the header records the feature version (textrules.FeatureVersion)
//	   of the rules that built the segment.
//	3: word forms and accent folds of the tokens (for the match channels'
//	   bounds), and a CRC-32C of every 4 KiB page of the body, checked
//	   where a search reads it.
const FormatVersion = 3

// magic opens every segment file.
const magic = "RCLTERMS"

// A segment file is, little endian:
//
//	magic [8]byte, version u32, header CRC-32 (Castagnoli) u32
//	header: headerFields × u64 (see header)
//	row table: rows × rowSize bytes
//	keys: one "session\tproject\n" line per key (indexer TSV escaping)
//	vocabulary: the tokens, sorted, each followed by '\n'
//	token offsets: (tokens+1) × u32, where each token starts in the vocabulary
//	posting offsets: (tokens+1) × u32, where each token's postings start
//	postings: per token, one entry per row holding it, rows ascending
//	folds: the tokens with an accent (textrules.HasAccent), in token
//	  order, each accent-folded (textrules.AppendAccentFolded) and
//	  followed by '\n'
//	fold ids: folds × u32, the token of each fold line
//	stems: the word-form keys (textrules.StemKey) of tokens that differ
//	  from the token itself, sorted, each followed by '\n'
//	stem offsets: (stems+1) × u32, where each key starts in stems
//	stem list offsets: (stems+1) × u32, where each key's tokens start
//	stem lists: per key, its tokens ascending, each uvarint(id - previous
//	  - 1), the first counting from -1
//	page checksums: one CRC-32C per pageSize bytes of the file from the
//	  end of the header to the start of this table (the last page may be
//	  short); the header holds the table's own CRC
//
// A posting entry is uvarint(delta<<1 | more), delta being the row minus
// the previous entry's row (the first counts from -1); if more is set,
// uvarint(hits) and uvarint(hits in code) follow, else hits is 1 and hits
// in code 0.
const (
	preambleSize = 16
	headerFields = 30
	headerSize   = headerFields * 8
	bodyStart    = preambleSize + headerSize
	// pageSize is the unit of the body's checksums: a read verifies the
	// pages it touches, each once per open segment. One memory page, so a
	// search checks what it faults in anyway, at 0.1% of the file.
	pageSize = 4096
)

// header locates the sections; offsets are from the file start.
type header struct {
	FirstBlock, EndBlock uint64 // blocks [FirstBlock, EndBlock) of the rows file
	Rows, Keys, Tokens   uint64
	RowsOff              uint64
	KeysOff, KeysLen     uint64
	VocabOff, VocabLen   uint64
	TokOff, PostOff      uint64
	PostingsOff          uint64
	PostingsLen          uint64
	RawBytes             uint64 // uncompressed rows bytes of the blocks covered
	Feature              uint64 // textrules.FeatureVersion of the rules that built it
	// Format 3: the channels' sections and the page checksums.
	Folds, FoldsOff, FoldsLen, FoldIDsOff          uint64
	Stems, StemsOff, StemsLen, StemOffsetsOff      uint64
	StemListOffsetsOff, StemListsOff, StemListsLen uint64
	CRCOff, CRCPages, CRCTableCRC                  uint64
}

func (h *header) fields() [headerFields]*uint64 {
	return [headerFields]*uint64{&h.FirstBlock, &h.EndBlock, &h.Rows, &h.Keys, &h.Tokens, &h.RowsOff,
		&h.KeysOff, &h.KeysLen, &h.VocabOff, &h.VocabLen, &h.TokOff, &h.PostOff, &h.PostingsOff, &h.PostingsLen, &h.RawBytes, &h.Feature,
		&h.Folds, &h.FoldsOff, &h.FoldsLen, &h.FoldIDsOff,
		&h.Stems, &h.StemsOff, &h.StemsLen, &h.StemOffsetsOff, &h.StemListOffsetsOff, &h.StemListsOff, &h.StemListsLen,
		&h.CRCOff, &h.CRCPages, &h.CRCTableCRC}
}

func (h *header) encode() []byte {
	b := make([]byte, preambleSize, preambleSize+headerSize)
	copy(b, magic)
	binary.LittleEndian.PutUint32(b[8:], FormatVersion)
	for _, f := range h.fields() {
		b = binary.LittleEndian.AppendUint64(b, *f)
	}
	binary.LittleEndian.PutUint32(b[12:], crc32.Checksum(b[preambleSize:], castagnoli()))
	return b
}

// castagnoli is CRC-32C's table, made on first use: making it costs
// 0.2 ms, which a process that checks no page (OpenUnverified: the prompt
// hook's small binary) does not pay at start.
var castagnoli = sync.OnceValue(func() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) })

// ErrDamaged wraps every reason a segment cannot be read: the writer
// deletes such a segment and indexes its blocks again.
var ErrDamaged = errors.New("term index segment damaged")

// ErrStale wraps the reasons a sound segment must not be used: it was
// built in another format or under other text rules, so its bounds may be
// below the scores the rules of this recall give. It is rebuilt from the
// rows like a damaged one.
var ErrStale = errors.New("term index segment built by other rules")

func decodeHeader(data []byte, size uint64) (header, error) { return decodeHeaderOf(data, size, true) }

// decodeHeaderOf is decodeHeader; with verify false the header's checksum
// is not checked (OpenUnverified): its fields are bounded all the same.
func decodeHeaderOf(data []byte, size uint64, verify bool) (header, error) {
	var h header
	if len(data) < preambleSize+headerSize || string(data[:8]) != magic {
		return h, fmt.Errorf("%w: no header", ErrDamaged)
	}
	if v := binary.LittleEndian.Uint32(data[8:]); v != FormatVersion {
		return h, fmt.Errorf("%w: format v%d, want v%d", ErrStale, v, FormatVersion)
	}
	body := data[preambleSize : preambleSize+headerSize]
	if verify && crc32.Checksum(body, castagnoli()) != binary.LittleEndian.Uint32(data[12:]) {
		return h, fmt.Errorf("%w: header checksum", ErrDamaged)
	}
	for i, f := range h.fields() {
		*f = binary.LittleEndian.Uint64(body[i*8:])
	}
	if h.Feature != textrules.FeatureVersion {
		return h, fmt.Errorf("%w: text rules v%d, want v%d", ErrStale, h.Feature, textrules.FeatureVersion)
	}
	return h, h.check(size)
}

// check bounds every section inside the file, so readers may slice freely.
func (h *header) check(size uint64) error {
	type section struct{ off, n uint64 }
	const maxCount = 1 << 31
	if h.Rows > maxCount || h.Keys > maxCount || h.Tokens > maxCount || h.Folds > maxCount || h.Stems > maxCount ||
		h.EndBlock < h.FirstBlock {
		return fmt.Errorf("%w: counts", ErrDamaged)
	}
	// Every key line and every token takes at least two bytes, and every
	// row names a key: counts that their sections cannot hold are damage,
	// caught before anything is allocated for them.
	if h.Keys > h.KeysLen/2 || h.Tokens > h.VocabLen/2 || h.Rows > 0 && h.Keys == 0 ||
		h.Folds > h.FoldsLen/2 || h.Stems > h.StemsLen/2 {
		return fmt.Errorf("%w: counts do not fit their sections", ErrDamaged)
	}
	for _, s := range []section{
		{h.RowsOff, h.Rows * rowSize},
		{h.KeysOff, h.KeysLen},
		{h.VocabOff, h.VocabLen},
		{h.TokOff, (h.Tokens + 1) * 4},
		{h.PostOff, (h.Tokens + 1) * 4},
		{h.PostingsOff, h.PostingsLen},
		{h.FoldsOff, h.FoldsLen},
		{h.FoldIDsOff, h.Folds * 4},
		{h.StemsOff, h.StemsLen},
		{h.StemOffsetsOff, (h.Stems + 1) * 4},
		{h.StemListOffsetsOff, (h.Stems + 1) * 4},
		{h.StemListsOff, h.StemListsLen},
		{h.CRCOff, h.CRCPages * 4},
	} {
		if s.off > size || s.n > size-s.off {
			return fmt.Errorf("%w: section past the end", ErrDamaged)
		}
	}
	// The checksums cover every byte between the header and their table:
	// every other section lies there.
	if h.CRCOff < bodyStart || h.CRCPages != (h.CRCOff-bodyStart+pageSize-1)/pageSize {
		return fmt.Errorf("%w: page checksums do not cover the body", ErrDamaged)
	}
	for _, s := range []section{
		{h.RowsOff, h.Rows * rowSize}, {h.KeysOff, h.KeysLen}, {h.VocabOff, h.VocabLen},
		{h.TokOff, (h.Tokens + 1) * 4}, {h.PostOff, (h.Tokens + 1) * 4}, {h.PostingsOff, h.PostingsLen},
		{h.FoldsOff, h.FoldsLen}, {h.FoldIDsOff, h.Folds * 4}, {h.StemsOff, h.StemsLen},
		{h.StemOffsetsOff, (h.Stems + 1) * 4}, {h.StemListOffsetsOff, (h.Stems + 1) * 4}, {h.StemListsOff, h.StemListsLen},
	} {
		if s.off < bodyStart || s.off+s.n > h.CRCOff {
			return fmt.Errorf("%w: a section outside the checksummed body", ErrDamaged)
		}
	}
	return nil
}

// UnknownTime is the row time of a row whose timestamp could not be read.
const UnknownTime = math.MinInt64

// rowSize is one row table entry: time i64 (Unix ms, UnknownTime), text
// length u32, key u32, generation u32, type u8, flags u8, agent u8
// (record.AgentCode; 0, Claude Code, in segments written before other
// agents were read, which held Claude Code's rows alone), 1 byte zero.
const rowSize = 24

// Row types as stored, and flags.
const (
	TypeUser uint8 = iota + 1
	TypeAssistant
	TypeTool
	TypeAgent
	TypeOther
	TypeTitle // feature version 3

	// FlagAck marks an acknowledgement, which scores nothing.
	FlagAck uint8 = 1
	// FlagHeadless marks a row of a headless run (`claude -p`, an SDK),
	// which searches leave out unless asked (feature version 3).
	FlagHeadless uint8 = 2
)

// TypeCode maps a row type name to its stored code.
func TypeCode(t string) uint8 {
	switch t {
	case "user":
		return TypeUser
	case "assistant":
		return TypeAssistant
	case "tool":
		return TypeTool
	case "agent":
		return TypeAgent
	case "title":
		return TypeTitle
	}
	return TypeOther
}

// TypeName is the inverse of TypeCode ("" for TypeOther).
func TypeName(c uint8) string {
	switch c {
	case TypeUser:
		return "user"
	case TypeAssistant:
		return "assistant"
	case TypeTool:
		return "tool"
	case TypeAgent:
		return "agent"
	case TypeTitle:
		return "title"
	}
	return ""
}

// FileName names the segment of blocks [first, end) of data sequence seq.
func FileName(seq, first, end int) string {
	return fmt.Sprintf("terms-v%d-%06d-%08d-%08d.bin", FormatVersion, seq, first, end)
}

// Ref names one segment file.
type Ref struct {
	Name       string
	Version    int // format version; Cover takes only FormatVersion
	Seq        int
	First, End int // blocks
}

// ParseName reads a segment file name of any format version,
// terms-v<version>-<seq>-<first>-<end>.bin with decimal numbers; ok is
// false for other files. It is read by hand rather than by a regular
// expression, whose compilation at every start of recall cost more than a
// search's reading of every name (0.02-0.04 ms); FuzzParseName checks it
// against that expression.
func ParseName(name string) (Ref, bool) {
	rest, ok := strings.CutPrefix(name, "terms-v")
	if !ok {
		return Ref{}, false
	}
	if rest, ok = strings.CutSuffix(rest, ".bin"); !ok {
		return Ref{}, false
	}
	var n [4]int
	for i := range n {
		field := rest
		if i < len(n)-1 {
			if field, rest, ok = strings.Cut(rest, "-"); !ok {
				return Ref{}, false
			}
		}
		v, ok := decimal(field)
		if !ok {
			return Ref{}, false
		}
		n[i] = v
	}
	if n[3] <= n[2] {
		return Ref{}, false
	}
	return Ref{Name: name, Version: n[0], Seq: n[1], First: n[2], End: n[3]}, true
}

// decimal reads s, one or more ASCII digits, as an int; ok is false for
// anything else and for a number too large for an int.
func decimal(s string) (int, bool) {
	if s == "" {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	v, err := strconv.Atoi(s)
	return v, err == nil
}

// Cover picks, among refs, segments of sequence seq that cover blocks
// [0, blocks) without overlap, preferring the longest at each point (a
// merge writes its segment before removing the ones it replaces). It
// returns the chosen segments in block order and the blocks they cover
// from 0: blocks if complete.
func Cover(refs []Ref, seq, blocks int) ([]Ref, int) {
	var usable []Ref
	for _, r := range refs {
		if r.Version == FormatVersion && r.Seq == seq && r.End <= blocks {
			usable = append(usable, r)
		}
	}
	slices.SortFunc(usable, func(a, b Ref) int {
		if a.First != b.First {
			return a.First - b.First
		}
		return b.End - a.End
	})
	var chosen []Ref
	at := 0
	for _, r := range usable {
		if r.First == at {
			chosen = append(chosen, r)
			at = r.End
		}
	}
	return chosen, at
}

// Path joins dir and a ref's name.
func (r Ref) Path(dir string) string { return filepath.Join(dir, r.Name) }

// ReadRawBytes returns how many uncompressed rows bytes a segment covers,
// reading only its header.
func ReadRawBytes(dir string, ref Ref) (int64, error) {
	f, err := os.Open(ref.Path(dir))
	if err != nil {
		return 0, fmt.Errorf("open term index: %w", err)
	}
	defer f.Close()
	buf := make([]byte, preambleSize+headerSize)
	if _, err := io.ReadFull(f, buf); err != nil {
		return 0, errpath.Wrap("read", ref.Path(dir), err) // a short file's io.ErrUnexpectedEOF names none
	}
	info, err := f.Stat()
	if err != nil {
		return 0, err
	}
	h, err := decodeHeader(buf, uint64(info.Size()))
	if err != nil {
		return 0, fmt.Errorf("%s: %w", ref.Name, err)
	}
	return int64(h.RawBytes), nil
}
