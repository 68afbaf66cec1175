package freshstate

import (
	"bytes"
	"fmt"
	"hash/crc32"
	"maps"
	"slices"
	"strconv"

	"github.com/recall-dev/recall/internal/tsvfield"
	"github.com/recall-dev/recall/record"
)

// crcTable is CRC-32C, the checksum of the state's end line.
var crcTable = crc32.MakeTable(crc32.Castagnoli)

// fieldParser reads the typed fields of one line and keeps the first
// error. The state is small and read once a run: strconv, not the
// manifest's allocation-free parser.
type fieldParser struct {
	f   [][]byte
	err error
}

func (p *fieldParser) str(i int) string {
	if i >= len(p.f) {
		p.fail(i)
		return ""
	}
	return tsvfield.Unescape(p.f[i])
}

func (p *fieldParser) int(i int) int64 {
	if i >= len(p.f) {
		p.fail(i)
		return 0
	}
	v, err := strconv.ParseInt(string(p.f[i]), 10, 64)
	if err != nil {
		p.fail(i)
	}
	return v
}

func (p *fieldParser) fail(i int) {
	if p.err == nil {
		p.err = fmt.Errorf("%s line: field %d missing or not a number", p.f[0], i)
	}
}

func (p *fieldParser) fileID(i int) record.FileID {
	return record.FileID{Dev: uint64(p.int(i)), Ino: uint64(p.int(i + 1)), Size: p.int(i + 2), MtimeNs: p.int(i + 3)}
}

// splitTabs splits line at its tabs into dst.
func splitTabs(line []byte, dst [][]byte) [][]byte {
	return append(dst, bytes.Split(line, []byte{'\t'})...)
}

func appendEscaped(dst []byte, s string) []byte { return tsvfield.Append(dst, s) }

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
