package snapshot

import (
	"encoding/binary"
	"hash/crc32"
	"testing"

	"github.com/recall-dev/recall/record"
)

func TestBlockRecordRoundTrip(t *testing.T) {
	rows := []record.Row{
		{Session: "s1", Project: "/p1", Type: record.TypeUser, Timestamp: "2026-03-01T10:00:00.000Z", Text: "How do we rotate the JWT signing key?"},
		{Session: "s2", Project: "/p2", Type: record.TypeTool, Timestamp: "2026-02-01T10:00:00.000Z", Text: "Edit: /src/pricing.ts"},
	}
	meta := testBlock(100, 42, rows...)
	got, n, err := parseBlockRecord(meta.AppendRecord(nil))
	if err != nil {
		t.Fatal(err)
	}
	if n != len(meta.AppendRecord(nil)) || got.Offset != 100 || got.Size != 42 || got.Rows != 2 {
		t.Fatalf("fixed fields: %+v", got)
	}
	if got.MinTime >= got.MaxTime {
		t.Fatalf("time range not kept: %d..%d", got.MinTime, got.MaxTime)
	}
	if !got.MaySession("s1") || !got.MaySession("s2") {
		t.Error("session or project filter lost a member")
	}
	if !got.HasType(record.TypeUser) || !got.HasType(record.TypeTool) || got.HasType(record.TypeAgent) {
		t.Errorf("types = %b", got.Types)
	}
}

func TestBlockRecordDetectsCorruption(t *testing.T) {
	meta := testBlock(0, 1, record.Row{Session: "s", Text: "some text here"})
	rec := meta.AppendRecord(nil)
	for _, cut := range []int{0, 3, len(rec) - 1} {
		if _, _, err := parseBlockRecord(rec[:cut]); err == nil {
			t.Errorf("truncated record (%d of %d bytes) accepted", cut, len(rec))
		}
	}
	rec[10] ^= 0xFF
	if _, _, err := parseBlockRecord(rec); err == nil {
		t.Error("flipped byte accepted")
	}
}

// Indexes written before the term index carry a trigram filter in every
// block record; it must still parse, and be ignored.
func TestBlockRecordWithTrigramFilterParses(t *testing.T) {
	meta := testBlock(7, 9, record.Row{Session: "s", Text: "some text here"})
	payload := []byte{}
	rec := meta.AppendRecord(nil)
	payload = append(payload, rec[4:len(rec)-4]...)
	payload = payload[:len(payload)-4] // drop the empty trigram filter
	payload = binary.LittleEndian.AppendUint32(payload, 8)
	payload = append(payload, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF)
	old := binary.LittleEndian.AppendUint32(nil, uint32(len(payload)))
	old = append(old, payload...)
	old = binary.LittleEndian.AppendUint32(old, crc32.Checksum(payload, crcTable))
	got, n, err := parseBlockRecord(old)
	if err != nil || n != len(old) {
		t.Fatalf("old record: n=%d err=%v", n, err)
	}
	if got.Offset != 7 || got.Size != 9 || !got.MaySession("s") {
		t.Fatalf("old record fields: %+v", got)
	}
}

// testBlock is the block record of rows, as the writer notes them, at
// offset with size compressed bytes.
func testBlock(offset, size int64, rows ...record.Row) Block {
	b := NewBlock()
	for i := range rows {
		ms, ok := record.ParseTimestamp(rows[i].Timestamp)
		b.Note(&rows[i], ms, ok)
	}
	b.Offset, b.Size = offset, size
	return b
}
