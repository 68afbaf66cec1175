package store

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"

	"github.com/recall-dev/recall/store/terms"
)

// LoadKeys reads the committed row keys (message identities) with the
// generation each came from.
func LoadKeys(w *RowsWriter, m *Manifest) *KeySet {
	data := make([]byte, m.UUIDBytes)
	n, _ := w.uuids.ReadAt(data, 0)
	return newKeySet(data[:n])
}

var dataFilePattern = regexp.MustCompile(`^(rows|blocks|uuids|events)-v[0-9]+-([0-9]+)\.(zst|bin|tsv)$`)

// RemoveStrays deletes data files of other sequences: leftovers of a
// compaction or rebuild that a crash interrupted, or of one that finished
// (the old sequence is removed once the new manifest is committed).
func RemoveStrays(dir string, keep ...int) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("read index dir: %w", err)
	}
	for _, e := range entries {
		if r, ok := terms.ParseName(e.Name()); ok && !slices.Contains(keep, r.Seq) {
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil && !os.IsNotExist(err) {
				return fmt.Errorf("remove stale %s: %w", e.Name(), err)
			}
			continue
		}
		mm := dataFilePattern.FindStringSubmatch(e.Name())
		if mm == nil {
			continue
		}
		if n, _ := strconv.Atoi(mm[2]); !slices.Contains(keep, n) {
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil && !os.IsNotExist(err) {
				return fmt.Errorf("remove stale %s: %w", e.Name(), err)
			}
		}
	}
	return nil
}

// Compact rewrites the data files without the rows of superseded
// generations, into the next sequence, and commits a manifest that points
// at it. Until that commit the old files stay the index; a crash leaves only
// strays that the next run removes.
func Compact(dir string, m *Manifest, warn func(string)) error {
	snap, err := snapshotOf(dir, m)
	if err != nil {
		return err
	}
	defer snap.Close()
	next := m.clone()
	next.Seq++
	next.RowsBytes, next.BlocksBytes, next.UUIDBytes, next.EventsBytes, next.Frames, next.Rows, next.TextBytes = 0, 0, 0, 0, 0, 0, 0
	next.Dead = map[uint32]int64{}
	if err := RemoveStrays(dir, m.Seq); err != nil {
		return err
	}
	w, err := OpenRowsWriter(dir, next, warn)
	if err != nil {
		return err
	}
	defer w.Close()
	keys, err := snap.liveKeys()
	if err != nil {
		return err
	}
	err = snap.EachRow(func(r *Row) error {
		if snap.Dead(r.Gen) {
			return nil
		}
		return w.Add(r, 0)
	})
	if err != nil {
		return err
	}
	if err := w.appendKeys(keys); err != nil {
		return err
	}
	if err := w.Sync(true); err != nil {
		return err
	}
	if err := CommitManifest(dir, next); err != nil {
		return err
	}
	*m = *next
	return RemoveStrays(dir, next.Seq)
}

// liveKeys returns the uuids records of generations that are not dead.
func (s *Snapshot) liveKeys() ([]byte, error) {
	data := make([]byte, s.M.UUIDBytes)
	f, err := os.Open(filepath.Join(s.Dir, s.M.KeysName()))
	if err != nil {
		return nil, fmt.Errorf("open uuids: %w", err)
	}
	defer f.Close()
	if _, err := f.ReadAt(data, 0); err != nil && s.M.UUIDBytes > 0 {
		return nil, fmt.Errorf("read uuids: %w", err)
	}
	out := data[:0]
	for off := 0; off+uuidRecordSize <= len(data); off += uuidRecordSize {
		if !s.Dead(binary.LittleEndian.Uint32(data[off+8:])) {
			out = append(out, data[off:off+uuidRecordSize]...)
		}
	}
	return out, nil
}

func (w *RowsWriter) appendKeys(recs []byte) error {
	if _, err := w.uuids.Write(recs); err != nil {
		return fmt.Errorf("write uuids: %w", err)
	}
	w.m.UUIDBytes += int64(len(recs))
	return nil
}
