package keys

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"slices"

	"github.com/recall-dev/recall/store/manifest"

	"github.com/recall-dev/recall/internal/atomicfile"
	"github.com/recall-dev/recall/textrules"
)

// The key index (keyidx-v2-NNNNNN.bin) lets a small run look message
// keys up without reading the whole keys file: the keys of its first C
// records, sorted, one entry per key with the generation of its last
// record, read page by page by binary search. Records appended since
// (the tail) are scanned. It is derived data: a missing, damaged or
// mismatched index, or a tail past keyTailLimit, is rebuilt from the keys
// file by the run that needs it.
//
// Layout, little endian: a 48-byte header (the derived files' binary
// header: "RCLKIDX\0", format and feature version as uint32; then C and
// the entry count as uint64, the keys file's record C-1 (12 bytes, zero
// if C is 0) so an index of a keys file cut or rewritten since is not
// taken for its, CRC-32C of the 44 bytes before); the entries (uint64 key, uint32 generation), ascending; a
// CRC-32C per 4096 bytes of entries, each checked the first time a
// lookup reads its page.

const (
	keyIndexMagic   = "RCLKIDX\x00"
	IndexHeaderSize = 48
	keyIndexPage    = 4096
	// TailLimit is how many records past the index a run scans before
	// it rebuilds the index: 16k records are 192 KiB, a rebuild reads the
	// keys file once and sorts it.
	TailLimit = 16 << 10
)

// IndexName names the key index of a manifest's sequence.
func IndexName(m *manifest.Manifest) string {
	return fmt.Sprintf("keyidx-v%d-%06d.bin", manifest.FormatVersion, m.Seq)
}

// Index is an open key index.
type Index struct {
	f       *os.File
	entries int64
	sums    []uint32         // page checksums
	pages   map[int64][]byte // pages read and checked
	bad     error            // a page that failed its checksum
}

// OpenIndex opens dir's key index for m's keys file (committed
// records n), checking it belongs to that file.
func OpenIndex(dir string, m *manifest.Manifest, keys *os.File, n int64) (*Index, int64, error) {
	f, err := os.Open(filepath.Join(dir, IndexName(m)))
	if err != nil {
		return nil, 0, err
	}
	ok := false
	defer func() {
		if !ok {
			f.Close()
		}
	}()
	var h [IndexHeaderSize]byte
	if _, err := f.ReadAt(h[:], 0); err != nil {
		return nil, 0, fmt.Errorf("key index header: %w", err)
	}
	if crc32.Checksum(h[:44], keysCRC) != binary.LittleEndian.Uint32(h[44:]) {
		return nil, 0, errors.New("key index header damaged")
	}
	if feature, err := manifest.ReadHeader(h[:], keyIndexMagic); err != nil || feature != textrules.FeatureVersion {
		return nil, 0, errors.New("key index of another format or rules")
	}
	covered, entries := int64(binary.LittleEndian.Uint64(h[16:])), int64(binary.LittleEndian.Uint64(h[24:]))
	if covered > n || entries > covered || covered < 0 {
		return nil, 0, errors.New("key index covers more records than the keys file commits")
	}
	if covered > 0 {
		var last [RecordSize]byte
		if _, err := keys.ReadAt(last[:], manifest.HeaderSize+(covered-1)*RecordSize); err != nil || last != [RecordSize]byte(h[32:44]) {
			return nil, 0, errors.New("key index of another keys file")
		}
	}
	pages := (entries*RecordSize + keyIndexPage - 1) / keyIndexPage
	info, err := f.Stat()
	if err != nil || info.Size() != IndexHeaderSize+entries*RecordSize+4*pages {
		return nil, 0, errors.New("key index size does not match its header")
	}
	sums := make([]byte, 4*pages)
	if _, err := f.ReadAt(sums, IndexHeaderSize+entries*RecordSize); err != nil {
		return nil, 0, fmt.Errorf("key index checksums: %w", err)
	}
	ix := &Index{f: f, entries: entries, pages: map[int64][]byte{}}
	for i := range pages {
		ix.sums = append(ix.sums, binary.LittleEndian.Uint32(sums[4*i:]))
	}
	ok = true
	return ix, covered, nil
}

// entry reads entry i, checking the pages it lies on.
func (ix *Index) entry(i int64) (key uint64, gen uint32, err error) {
	var rec [RecordSize]byte
	off := i * RecordSize
	for n := 0; n < RecordSize; {
		page, err := ix.page((off + int64(n)) / keyIndexPage)
		if err != nil {
			return 0, 0, err
		}
		n += copy(rec[n:], page[(off+int64(n))%keyIndexPage:])
	}
	return binary.LittleEndian.Uint64(rec[:]), binary.LittleEndian.Uint32(rec[8:]), nil
}

func (ix *Index) page(p int64) ([]byte, error) {
	if b, ok := ix.pages[p]; ok {
		return b, nil
	}
	if ix.bad != nil {
		return nil, ix.bad
	}
	size := min(keyIndexPage, ix.entries*RecordSize-p*keyIndexPage)
	b := make([]byte, size)
	if _, err := ix.f.ReadAt(b, IndexHeaderSize+p*keyIndexPage); err != nil {
		ix.bad = fmt.Errorf("read key index: %w", err)
		return nil, ix.bad
	}
	if crc32.Checksum(b, keysCRC) != ix.sums[p] {
		ix.bad = fmt.Errorf("key index page %d fails its checksum", p)
		return nil, ix.bad
	}
	ix.pages[p] = b
	return b, nil
}

// Get finds key by binary search.
func (ix *Index) Get(key uint64) (uint32, bool, error) {
	lo, hi := int64(0), ix.entries
	for lo < hi {
		mid := lo + (hi-lo)/2
		k, gen, err := ix.entry(mid)
		if err != nil {
			return 0, false, err
		}
		switch {
		case k == key:
			return gen, true, nil
		case k < key:
			lo = mid + 1
		default:
			hi = mid
		}
	}
	return 0, false, nil
}

func (ix *Index) Close() { ix.f.Close() }

// keyEntry is one keys-file record: its key and generation; its position
// is its place in the slice (sortKeyEntries keeps it in the order).
type keyEntry struct {
	key uint64
	gen uint32
}

// sortKeyEntries orders entries, given in keys-file order, by key and,
// for a key, from the last record: the order of a sort by key, then
// position from the last. A least-significant-digit radix sort on the
// key is stable, so starting from the entries reversed leaves each key's
// in order of position from the last. It takes a few passes over 385k
// keys at 1 GB where a comparison sort took 1% of the run, at its end,
// alone. Digits of 11 bits (six passes, not eight of 8 bits), the
// counts of every digit taken in one pass before the moves (a digit's
// counts do not depend on the order), and entries of 16 bytes, not 24
// with their position: a full index's last commit sorts 1.5M keys at
// 4 GB, 190 -> 120 ms with the index's encoding (a Go benchmark of
// random keys), 108 -> 66 MB allocated. It returns the sorted entries,
// in entries' array or in one as long.
func sortKeyEntries(entries []keyEntry) []keyEntry {
	if len(entries) < 2 {
		return entries
	}
	slices.Reverse(entries)
	const bits, digits = 11, 6
	const mask = 1<<bits - 1
	var counts [digits][1 << bits]int
	for i := range entries {
		k := entries[i].key
		counts[0][k&mask]++
		counts[1][k>>11&mask]++
		counts[2][k>>22&mask]++
		counts[3][k>>33&mask]++
		counts[4][k>>44&mask]++
		counts[5][k>>55&mask]++
	}
	var tmp []keyEntry
	for digit := range counts {
		shift, count := bits*digit, &counts[digit]
		if count[entries[0].key>>shift&mask] == len(entries) {
			continue // every key has this digit: the order stands
		}
		if tmp == nil {
			tmp = make([]keyEntry, len(entries))
		}
		sum := 0
		for d, c := range count {
			count[d] = sum
			sum += c
		}
		for i := range entries {
			d := entries[i].key >> shift & mask
			tmp[count[d]] = entries[i]
			count[d]++
		}
		entries, tmp = tmp, entries
	}
	return entries
}

// WriteIndex builds the key index of records (the keys file without
// its header) and writes it for m's sequence.
func WriteIndex(dir string, m *manifest.Manifest, records []byte) error {
	return atomicfile.Write(filepath.Join(dir, IndexName(m)), encodeKeyIndex(records), 0o600, nil)
}

// encodeKeyIndex is the key index of records (the keys file without its
// header), as written.
func encodeKeyIndex(records []byte) []byte {
	n := int64(len(records) / RecordSize)
	entries := make([]keyEntry, 0, n)
	for i := range n {
		r := records[i*RecordSize:]
		entries = append(entries, keyEntry{binary.LittleEndian.Uint64(r), binary.LittleEndian.Uint32(r[8:])})
	}
	var last [RecordSize]byte
	if n > 0 {
		last = [RecordSize]byte(records[(n-1)*RecordSize:])
	}
	records = nil // read: the collector may take it while the entries sort
	// By key, the last record of a key first, then keep one per key.
	entries = sortKeyEntries(entries)
	entries = slices.CompactFunc(entries, func(a, b keyEntry) bool { return a.key == b.key })
	bodyLen := len(entries) * RecordSize
	out := make([]byte, 0, IndexHeaderSize+bodyLen+4*(bodyLen/keyIndexPage+1))
	out = manifest.AppendHeader(out, keyIndexMagic)
	out = binary.LittleEndian.AppendUint64(out, uint64(n))
	out = binary.LittleEndian.AppendUint64(out, uint64(len(entries)))
	out = append(out, last[:]...) // zero if there is none
	out = binary.LittleEndian.AppendUint32(out, crc32.Checksum(out, keysCRC))
	for _, e := range entries {
		out = binary.LittleEndian.AppendUint64(out, e.key)
		out = binary.LittleEndian.AppendUint32(out, e.gen)
	}
	body := out[IndexHeaderSize:]
	for p := 0; p < len(body); p += keyIndexPage {
		out = binary.LittleEndian.AppendUint32(out, crc32.Checksum(body[p:min(p+keyIndexPage, len(body))], keysCRC))
	}
	return out
}

// EnsureIndex builds dir's key index when it is missing, stale or
// more than keyTailLimit records behind the committed keys, so that the
// next small run does not pay for it. A sweep calls it: it reads every
// transcript's state anyway. Failures only cost the next run the build.
func EnsureIndex(dir string, m *manifest.Manifest) {
	if write := PrepareIndex(dir, m); write != nil {
		_ = write()
	}
}

// PrepareIndex is EnsureKeyIndex in two steps: it reads and sorts the
// keys m names now and returns the write of their index, nil if none is
// needed (or the keys cannot be read). The write must wait until m is
// committed: an index covering records no manifest commits could be
// taken, after a crash, for that of other records written in their
// place. A full index's last commit prepares it while its manifest is
// written and synced (StartCommit), instead of after it, alone on one
// core (0.2-0.3 s at 4 GB).
func PrepareIndex(dir string, m *manifest.Manifest) (write func() error) {
	if m.Format != manifest.FormatVersion || m.KeysBytes < manifest.HeaderSize {
		return nil
	}
	keys, err := os.Open(filepath.Join(dir, m.KeysName()))
	if err != nil {
		return nil
	}
	defer keys.Close()
	n := (m.KeysBytes - manifest.HeaderSize) / RecordSize
	if ix, covered, err := OpenIndex(dir, m, keys, n); err == nil {
		ix.Close()
		if n-covered <= TailLimit {
			return nil
		}
	}
	records := make([]byte, n*RecordSize)
	if _, err := keys.ReadAt(records, manifest.HeaderSize); err != nil {
		return nil
	}
	out, path := encodeKeyIndex(records), filepath.Join(dir, IndexName(m))
	return func() error { return atomicfile.Write(path, out, 0o600, nil) }
}

// keysCRC is the Castagnoli table of the key index's page checksums.
var keysCRC = crc32.MakeTable(crc32.Castagnoli)
