package tsvfield

import (
	"fmt"
	"hash/crc32"
	"strconv"
	"sync"
)

// castagnoli is CRC-32C, the checksum of every checksum line recall
// writes; its table is made on first use (0.2 ms a process that checks
// no line need not pay at start).
var castagnoli = sync.OnceValue(func() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) })

// CheckLine checks a checksum line split into its fields (a kind, then
// the CRC-32C in hex) against the bytes before it, as recall's manifest,
// tombstone and freshness state end.
func CheckLine(fields [][]byte, before []byte) error {
	if len(fields) != 2 {
		return fmt.Errorf("%s checksum: want one field", fields[0])
	}
	want, err := strconv.ParseUint(string(fields[1]), 16, 32)
	if err != nil {
		return fmt.Errorf("%s checksum: %w", fields[0], err)
	}
	if got := crc32.Checksum(before, castagnoli()); got != uint32(want) {
		return fmt.Errorf("%s checksum %08x, the bytes before it give %08x", fields[0], want, got)
	}
	return nil
}
