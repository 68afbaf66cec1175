package record

import (
	"encoding/binary"
	"hash/crc32"
	"hash/fnv"
	"unsafe"
)

// crcTable is CRC-32C, the checksum a message key takes of its text.
var crcTable = crc32.MakeTable(crc32.Castagnoli)

// KeyRule is how the keys of the rows an index run adds are computed;
// Manifest.KeyRule records the rule of the oldest keys an index holds.
//
//	0: LegacyRowKey: the message uuid and the low byte of its content
//	   block's position (a message of more than 256 blocks had blocks
//	   sharing keys, and two messages of one uuid were one message
//	   whatever they said).
//	1: MessageKey: the uuid, the whole position and the row's text.
const KeyRule = 1

// MessageKey identifies a row across transcripts: forks and resumed
// copies repeat their parent's lines with the original uuid, so a row
// with the same uuid, content block and text is the same message, and a
// row whose uuid another message also uses but whose text differs is
// not. Rows without a uuid get no key (0) and are never treated as
// copies. The text is the row's as the rules make it: the key is the
// row's own, and recovery can compute it again from the rows.
func MessageKey(uuid string, block int, text string) uint64 {
	if uuid == "" {
		return 0
	}
	h := fnv.New64a()
	h.Write([]byte(uuid))
	var buf [1 + binary.MaxVarintLen64 + 4]byte
	b := append(buf[:0], '@') // not '#': no key of rule 0 is hashed from the same bytes
	b = binary.AppendUvarint(b, uint64(block))
	b = binary.LittleEndian.AppendUint32(b, crc32.Checksum(unsafe.Slice(unsafe.StringData(text), len(text)), crcTable))
	h.Write(b)
	return nonZero(h.Sum64())
}

// LegacyRowKey is a row's key under KeyRule 0. An index that holds keys
// of that rule is asked for them too, so that a fork read now of a
// parent read then is still known for a copy.
func LegacyRowKey(uuid string, block int) uint64 {
	if uuid == "" {
		return 0
	}
	h := fnv.New64a()
	h.Write([]byte(uuid))
	h.Write([]byte{'#', byte(block)})
	return nonZero(h.Sum64())
}

// nonZero keeps 0 for "no key".
func nonZero(k uint64) uint64 {
	if k == 0 {
		return 1
	}
	return k
}

// RowKeys are the keys a row of message uuid with text can have had at
// content block position block, under each key rule (keyset.go): the one
// place beside it that knows how a key is made.
func RowKeys(uuid, text string, block int) []uint64 {
	return []uint64{LegacyRowKey(uuid, block), MessageKey(uuid, block, text)}
}
