package snapshot

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"testing"
)

func sameBlock(a, b Block) bool {
	return a.Offset == b.Offset && a.Size == b.Size && a.RawSize == b.RawSize && a.Rows == b.Rows &&
		a.MinTime == b.MinTime && a.MaxTime == b.MaxTime && a.Types == b.Types && bytes.Equal(a.Sessions, b.Sessions)
}

// oldRecord is a block record as indexes before the term index wrote it,
// with a trigram filter, which is read and ignored.
func oldRecord(b Block, trigrams []byte) []byte {
	rec := b.AppendRecord(nil)
	payload := rec[4 : len(rec)-4]
	payload = append(payload[:len(payload)-4:len(payload)-4], 0, 0, 0, 0)
	binary.LittleEndian.PutUint32(payload[len(payload)-4:], uint32(len(trigrams)))
	payload = append(payload, trigrams...)
	out := binary.LittleEndian.AppendUint32(nil, uint32(len(payload)))
	out = append(out, payload...)
	return binary.LittleEndian.AppendUint32(out, crc32.Checksum(payload, crcTable))
}

// FuzzParseBlocks: any bytes decode as block records or fail with
// errBadBlockRecord, never panic; what decodes is a prefix of records, and
// each block decoded encodes to a record that decodes to the same block.
func FuzzParseBlocks(f *testing.F) {
	s := NewBloom(SessionBloomBytes)
	s.Add(HashString("11111111-1111-4111-8111-111111111111"))
	a := Block{Offset: 0, Size: 4096, RawSize: 65536, Rows: 120, MinTime: 1772359200000, MaxTime: 1772362800000, Types: 5, Sessions: s}
	b := Block{Offset: 4096, Size: 10, RawSize: 20, Rows: 1, Types: 1}
	two := append(a.AppendRecord(nil), b.AppendRecord(nil)...)
	f.Add(two)
	f.Add(two[:len(two)-3])
	f.Add(oldRecord(a, make([]byte, 64)))
	flipped := bytes.Clone(two)
	flipped[20] ^= 0x40
	f.Add(flipped)
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		blocks, err := parseBlocks(data)
		if err != nil && !errors.Is(err, errBadBlockRecord) {
			t.Fatalf("parseBlocks: %v is not errBadBlockRecord", err)
		}
		if n := countRecords(data); len(blocks) > n || err == nil && len(blocks) != n {
			t.Fatalf("parseBlocks read %d records (error %v), the lengths count %d", len(blocks), err, n)
		}
		var again []byte
		for i, blk := range blocks {
			rec := blk.AppendRecord(nil)
			got, n, err := parseBlockRecord(rec)
			if err != nil || n != len(rec) || !sameBlock(got, blk) {
				t.Fatalf("block %d %+v: encoded and decoded as %+v, %d of %d bytes, %v", i, blk, got, n, len(rec), err)
			}
			again = append(again, rec...)
		}
		if err == nil && len(blocks) > 0 {
			if round, err := parseBlocks(again); err != nil || len(round) != len(blocks) {
				t.Fatalf("re-encoded blocks: %d of %d, %v", len(round), len(blocks), err)
			}
		}
	})
}

// FuzzBlockRecordRoundTrip: a block of any values encodes to a record
// that decodes to the same block.
func FuzzBlockRecordRoundTrip(f *testing.F) {
	f.Add(int64(0), int64(4096), int64(65536), uint32(120), int64(1772359200000), int64(1772362800000), uint8(5), []byte{1, 2, 3, 4, 5, 6, 7, 8})
	f.Add(int64(-1), int64(1<<62), int64(0), uint32(1<<32-1), int64(-5), int64(0), uint8(255), []byte{})
	f.Fuzz(func(t *testing.T, off, size, raw int64, rows uint32, minT, maxT int64, types uint8, sessions []byte) {
		n := 1
		for n*2 <= len(sessions) {
			n *= 2
		}
		blk := Block{Offset: off, Size: size, RawSize: raw, Rows: int(rows), MinTime: minT, MaxTime: maxT, Types: types}
		if len(sessions) > 0 {
			blk.Sessions = Bloom(sessions[:n])
		}
		rec := blk.AppendRecord(nil)
		got, used, err := parseBlockRecord(rec)
		if err != nil || used != len(rec) || !sameBlock(got, blk) {
			t.Fatalf("%+v: decoded %+v, %d of %d bytes, %v", blk, got, used, len(rec), err)
		}
	})
}
