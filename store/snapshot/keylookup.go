package snapshot

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"

	"github.com/recall-dev/recall/store/keys"

	"github.com/recall-dev/recall/store/manifest"
)

// KeyGenerations looks message keys (MessageKey, LegacyRowKey) up in the
// committed keys file and returns the generation each was last indexed
// from; keys the index does not hold are left out. It reads only what it
// must: with a key index that covers the file, a few pages per key and
// the records appended since; without one, the file in one pass. A reader
// asks this to learn which sessions a transcript's messages were copied
// from (package lineage).
func (s *Snapshot) KeyGenerations(wanted []uint64) (map[uint64]uint32, error) {
	out := map[uint64]uint32{}
	if len(wanted) == 0 || s.M.KeysBytes <= 0 {
		return out, nil
	}
	f, err := os.Open(filepath.Join(s.Dir, s.M.KeysName()))
	if err != nil {
		return nil, fmt.Errorf("open keys: %w", err)
	}
	defer f.Close()
	if s.M.Format >= 2 && s.M.KeysBytes >= manifest.HeaderSize {
		n := (s.M.KeysBytes - manifest.HeaderSize) / keys.RecordSize
		if ix, covered, err := keys.OpenIndex(s.Dir, s.M, f, n); err == nil {
			defer ix.Close()
			if found, ok := lookUpIndexed(f, ix, covered, n, wanted); ok {
				return found, nil
			}
		}
	}
	data := make([]byte, s.M.KeysBytes)
	n, err := f.ReadAt(data, 0)
	if n == 0 && err != nil {
		return nil, fmt.Errorf("read keys: %w", err)
	}
	data = keys.Records(data[:n], s.M.Format)
	want := make(map[uint64]bool, len(wanted))
	for _, k := range wanted {
		if k != 0 {
			want[k] = true
		}
	}
	for off := 0; off+keys.RecordSize <= len(data); off += keys.RecordSize {
		if k := binary.LittleEndian.Uint64(data[off:]); want[k] {
			out[k] = binary.LittleEndian.Uint32(data[off+8:]) // later records win
		}
	}
	return out, nil
}

// lookUpIndexed answers KeyGenerations from the key index and the
// records appended past it (which win, being newer); false when the tail
// is too long to scan or a read fails.
func lookUpIndexed(f *os.File, ix *keys.Index, covered, n int64, wanted []uint64) (map[uint64]uint32, bool) {
	if n-covered > keys.TailLimit {
		return nil, false
	}
	tail := make([]byte, (n-covered)*keys.RecordSize)
	if _, err := f.ReadAt(tail, manifest.HeaderSize+covered*keys.RecordSize); err != nil && len(tail) > 0 {
		return nil, false
	}
	out := map[uint64]uint32{}
	for _, k := range wanted {
		if k == 0 {
			continue
		}
		if gen, ok := keys.ScanRecords(tail, k); ok {
			out[k] = gen
			continue
		}
		gen, ok, err := ix.Get(k)
		if err != nil {
			return nil, false
		}
		if ok {
			out[k] = gen
		}
	}
	return out, true
}

// LiveKeys returns the key records of generations that are not dead.
func (s *Snapshot) LiveKeys() ([]byte, error) {
	data := make([]byte, s.M.KeysBytes)
	f, err := os.Open(filepath.Join(s.Dir, s.M.KeysName()))
	if err != nil {
		return nil, fmt.Errorf("open keys: %w", err)
	}
	defer f.Close()
	if _, err := f.ReadAt(data, 0); err != nil && s.M.KeysBytes > 0 {
		return nil, fmt.Errorf("read keys: %w", err)
	}
	data = keys.Records(data, s.M.Format)
	out := data[:0]
	for off := 0; off+keys.RecordSize <= len(data); off += keys.RecordSize {
		if !s.Dead(binary.LittleEndian.Uint32(data[off+8:])) {
			out = append(out, data[off:off+keys.RecordSize]...)
		}
	}
	return out, nil
}
