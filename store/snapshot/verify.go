package snapshot

import (
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"sort"

	"github.com/recall-dev/recall/store/manifest"

	"github.com/recall-dev/recall/internal/errpath"
	"github.com/recall-dev/recall/record"
	"github.com/recall-dev/recall/store/terms"
)

// Damage is what Verify found wrong with an index, and what a repair
// would do about it.
type Damage struct {
	Blocks  []DamagedBlock // rows blocks that do not read
	Derived []string       // derived files that do not read (rebuilt from the rows by `recall index`)
	// Affected are the transcripts whose current generation lost rows in
	// the damaged blocks, with how many: a repair reads those still on
	// disk again; the rows of the others are lost.
	Affected map[string]int64
}

// DamagedBlock is one rows block that does not read.
type DamagedBlock struct {
	Index  int
	Offset int64
	Err    string
}

// None reports an index found sound.
func (d *Damage) None() bool { return len(d.Blocks) == 0 && len(d.Derived) == 0 }

// Verify reads every part of the committed index: each rows block is
// decoded (zstd checks the frame's content checksum) and its rows parsed
// and counted, the keys and events headers checked, and every term
// segment opened. It costs one pass over the compressed rows, so it runs
// for `recall stats` and `recall index --repair`, not before every search
// (searches check what they read as they read it).
func Verify(dir string) (*Damage, error) {
	snap, err := Open(dir)
	if err != nil {
		return nil, err
	}
	defer snap.Close()
	d := &Damage{Affected: map[string]int64{}}
	counted, err := snap.verifyBlocks(d)
	if err != nil {
		return nil, err
	}
	for path, st := range snap.M.FileStates(dir) {
		if missing := st.Rows - counted[path]; missing > 0 && len(d.Blocks) > 0 {
			d.Affected[path] = missing
		}
	}
	d.Derived = snap.verifyDerived()
	return d, nil
}

// verifyBlocks decodes every block and counts the live rows of each
// transcript's current generation in those that read.
func (s *Snapshot) verifyBlocks(d *Damage) (map[string]int64, error) {
	dec, err := NewDecoder()
	if err != nil {
		return nil, err
	}
	defer dec.Close()
	files := s.M.FileStates(s.Dir)
	counted := map[string]int64{}
	var raw, scratch []byte
	for i := range s.Blocks {
		b := &s.Blocks[i]
		raw, scratch, err = s.ReadBlock(dec, b, raw, scratch)
		if err == nil {
			rows := 0
			err = eachLine(raw, func(r *record.Row) error {
				rows++
				if st := files[r.Source]; st != nil && st.Gen == r.Gen {
					counted[r.Source]++
				}
				return nil
			})
			if err == nil && rows != b.Rows {
				err = fmt.Errorf("%w: %d rows, its record says %d", ErrBlockDamaged, rows, b.Rows)
			}
		}
		if err != nil {
			d.Blocks = append(d.Blocks, DamagedBlock{Index: i, Offset: b.Offset, Err: err.Error()})
		}
	}
	return counted, nil
}

// verifyDerived checks the headers of the derived files and opens every
// term segment that covers the blocks.
func (s *Snapshot) verifyDerived() []string {
	var bad []string
	if s.M.Format >= 2 && s.M.KeysBytes > 0 {
		if err := checkFileHeader(filepath.Join(s.Dir, s.M.KeysName()), manifest.KeysMagic, s.M.KeysBytes, s.M.KeysCRC); err != nil {
			bad = append(bad, errpath.Wrap("", filepath.Join(s.Dir, s.M.KeysName()), err).Error())
		}
	}
	if _, err := s.EventsOf(map[string]bool{}); err != nil {
		bad = append(bad, err.Error())
	}
	for _, p := range s.Problems() {
		bad = append(bad, p.Error()) // the caller says what mends derived files
	}
	refs, err := terms.Refs(s.Dir)
	if err != nil {
		return append(bad, err.Error())
	}
	cover, _ := terms.Cover(refs, s.M.Seq, len(s.Blocks))
	for _, r := range cover {
		seg, err := terms.Open(s.Dir, r)
		if err != nil {
			bad = append(bad, err.Error())
			continue
		}
		seg.Close()
	}
	sort.Strings(bad)
	return bad
}

// checkFileHeader checks a binary derived file's header, committed size
// and checksum.
func checkFileHeader(path, magic string, committed int64, crc uint32) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return err
	}
	if info.Size() < committed {
		return fmt.Errorf("%d bytes, the manifest says %d", info.Size(), committed)
	}
	data := make([]byte, committed)
	if _, err := f.ReadAt(data, 0); err != nil {
		return err
	}
	if _, err := manifest.ReadHeader(data, magic); err != nil {
		return err
	}
	if crc32.Checksum(data, crcTable) != crc {
		return errors.New("checksum mismatch")
	}
	return nil
}

// CheckRowsLength reports a rows file shorter than its committed length
// (cut by a bad copy, a restore, a full disk elsewhere): the rows of its
// last blocks are gone from it. A stat; every index run makes it, so the
// damage is said before any run appends after the hole.
func CheckRowsLength(dir string, m *manifest.Manifest) error {
	if m.RowsBytes == 0 {
		return nil
	}
	name, info, err := manifest.StatRows(dir, m)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrBlockDamaged, err)
	}
	if info.Size() < m.RowsBytes {
		return fmt.Errorf("%w: %s is %d bytes shorter than committed; the rows of its last blocks are gone from it", ErrBlockDamaged, name, m.RowsBytes-info.Size())
	}
	return nil
}
