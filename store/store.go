package store

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"sync"

	"github.com/recall-dev/recall/store/snapshot"

	"github.com/recall-dev/recall/store/keys"

	"github.com/recall-dev/recall/internal/problem"
	"github.com/recall-dev/recall/store/manifest"

	"github.com/recall-dev/recall/record"
	"github.com/recall-dev/recall/store/terms"
	"github.com/recall-dev/recall/textrules"
)

// LoadKeys opens the committed row keys (message identities) with the
// generation each came from. With a key index that matches the keys file
// (package keys) only the records appended since it was built are read,
// and lookups read the index's pages they need; otherwise the whole file
// is read, and the index built again for the next run.
//
// A keys file whose checksum does not match is still used (it only serves
// to drop copies of messages already indexed) and reported once, when it
// is read whole (`recall stats` and --repair check it every time).
func (w *RowsWriter) LoadKeys(m *manifest.Manifest) *keys.Set {
	// The key index written below must cover committed records only;
	// errors stay in w and fail the next commit.
	w.WaitCommit()
	w.flushKeys()
	if m.Format < 2 || m.KeysBytes < manifest.HeaderSize {
		return keys.NewSet(readAllKeys(w, m))
	}
	n := (m.KeysBytes - manifest.HeaderSize) / keys.RecordSize
	ix, covered, err := keys.OpenIndex(w.dir, m, w.uuids, n)
	if err == nil && n-covered <= keys.TailLimit {
		tail := make([]byte, (n-covered)*keys.RecordSize)
		if _, err := w.uuids.ReadAt(tail, manifest.HeaderSize+covered*keys.RecordSize); err == nil {
			return keys.NewIndexedSet(ix, tail, func() []byte { return readAllKeys(w, m) })
		}
	}
	if ix != nil {
		ix.Close()
	}
	raw := readAllKeys(w, m)
	if err := keys.WriteIndex(w.dir, m, raw); err != nil && w.warn != nil {
		w.warn(fmt.Errorf("key index not written (the next run reads the keys file whole again): %w", err))
	}
	return keys.NewSet(raw)
}

// readAllKeys reads every committed key record, checking the file's CRC
// (the records this run buffered are written out first).
func readAllKeys(w *RowsWriter, m *manifest.Manifest) []byte {
	w.flushKeys()
	data := make([]byte, m.KeysBytes)
	n, _ := w.uuids.ReadAt(data, 0)
	if m.Format >= 2 && (int64(n) != m.KeysBytes || crc32.Checksum(data[:n], rowsCRC) != m.KeysCRC) && w.warn != nil {
		w.warn(problem.NeedsRepair(errKeysDamaged, "reports it"))
	}
	return keys.Records(data[:n], m.Format)
}

// dataFilePattern is compiled on first use, not at every start of
// recall: only compactions and rebuilds look for stray data files. The
// value never changes once made.
var dataFilePattern = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(rowdata|rows|blocks|uuids|keys|keyidx|events)-v[0-9]+-([0-9]+)\.(zst|bin|tsv)(\.part)?$`)
})

// removeStrays deletes data files of other sequences, staged ones
// (partSuffix) included: leftovers of a forget, compaction or rebuild
// that a crash interrupted, or of one that finished (the old sequence is
// removed once the new manifest is committed). Rows files go first, so
// that `zstdcat rows-*.zst` prints one sequence's rows as soon as can be.
// Call it under the writer lock.
func removeStrays(dir string, keep ...int) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("read index dir: %w", err)
	}
	for _, name := range strays(entries, keep) {
		if err := os.Remove(filepath.Join(dir, name)); err != nil && !os.IsNotExist(err) {
			return fmt.Errorf("remove a stale data file: %w", err) // the error names it
		}
	}
	return nil
}

// strays names the data files and term segments among entries that are
// of no sequence in keep, rows files first.
func strays(entries []os.DirEntry, keep []int) []string {
	var rows, out []string
	for _, e := range entries {
		if r, ok := terms.ParseName(e.Name()); ok {
			if !slices.Contains(keep, r.Seq) {
				out = append(out, e.Name())
			}
			continue
		}
		mm := dataFilePattern().FindStringSubmatch(e.Name())
		if mm == nil {
			continue
		}
		if n, _ := strconv.Atoi(mm[2]); !slices.Contains(keep, n) {
			if mm[1] == "rows" || mm[1] == "rowdata" {
				rows = append(rows, e.Name())
			} else {
				out = append(out, e.Name())
			}
		}
	}
	return append(rows, out...)
}

// hasStrays reports, from one listing of dir and without the manifest,
// whether it holds data files or term segments of more than one
// sequence, or staged files: what an interrupted forget, rebuild or
// compaction leaves (or a rows file a crash left under its part name
// just after its commit: FinishPublish). A run that finds nothing to
// index checks this before it skips the manifest, so that they do not
// outlive it.
func hasStrays(dir string) bool {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	seq := -1
	for _, e := range entries {
		n := -1
		if r, ok := terms.ParseName(e.Name()); ok {
			n = r.Seq
		} else if mm := dataFilePattern().FindStringSubmatch(e.Name()); mm != nil {
			if mm[4] != "" {
				return true
			}
			n, _ = strconv.Atoi(mm[2])
		} else {
			continue
		}
		if seq >= 0 && n != seq {
			return true
		}
		seq = n
	}
	return false
}

// strayFiles lists the files of dir that no committed manifest names: data
// files and term segments of another sequence than m's, staged or not
// (partSuffix). An interrupted forget, rebuild or compaction leaves
// them; the next index run removes them. `recall stats` names them.
func strayFiles(dir string, m *manifest.Manifest) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	return strays(entries, []int{m.Seq})
}

// compactIndex rewrites the data files without the rows of superseded
// generations, into the next sequence, and commits a manifest that points
// at it. Until that commit the old files stay the index; a crash leaves only
// strays that the next run removes.
//
// A rows block that does not read stops it (ErrBlockDamaged): its rows
// are not dropped quietly, `recall index --repair` first reads their
// transcripts again and then compacts with CompactRepaired.
func compactIndex(dir string, m *manifest.Manifest, warn func(error)) error {
	_, err := compact(dir, m, warn, compaction{})
	return err
}

// compaction says what a compaction does beyond dropping dead rows.
type compaction struct {
	progress    func(done, total int)  // blocks rewritten so far
	skipDamaged bool                   // leave out blocks that do not read
	drop        func(*record.Row) bool // also leave out the rows it accepts
	// dropKey also leaves out the key records it accepts (the
	// identities of the rows drop left out).
	dropKey func(key uint64, gen uint32) bool
}

// compactRepaired is Compact leaving out the rows blocks that do not read,
// once a repair has accounted for their rows. It returns how many it left
// out.
func compactRepaired(dir string, m *manifest.Manifest, warn func(error)) (int, error) {
	return compact(dir, m, warn, compaction{skipDamaged: true})
}

// compactDropping is Compact also leaving out every row drop accepts
// (`recall forget`), and every key record dropKey accepts (nil: none):
// they leave every file of the index, the term segments, events and
// block records included, since all are rewritten from the rows kept.
// The caller updates the per-file row counts in m.
func compactDropping(dir string, m *manifest.Manifest, warn func(error), drop func(*record.Row) bool, dropKey func(key uint64, gen uint32) bool) error {
	_, err := compact(dir, m, warn, compaction{drop: drop, dropKey: dropKey})
	return err
}

// rederive rebuilds every derived file (block records, keys, events, term
// segments) from the rows when staleReason(m) says they were built by
// other rules or in an older format, and returns that reason ("" when
// there was nothing to do). It is a compaction into the current format:
// the rows are read back and written again, never the transcripts, which
// may be gone. progress, if set, is called as blocks are rewritten.
func rederive(dir string, m *manifest.Manifest, warn func(error), progress func(done, total int)) (string, error) {
	why := manifest.StaleReason(m)
	if why == "" {
		return "", nil
	}
	if _, err := compact(dir, m, warn, compaction{progress: progress}); err != nil {
		return why, fmt.Errorf("rebuild derived data: %w", err)
	}
	return why, nil
}

func compact(dir string, m *manifest.Manifest, warn func(error), how compaction) (skipped int, err error) {
	snap, err := snapshot.Of(dir, m)
	if err != nil {
		return 0, err
	}
	defer snap.Close()
	next := m.Clone()
	next.Seq++
	next.Format, next.Feature = manifest.FormatVersion, textrules.FeatureVersion
	next.RowsBytes, next.BlocksBytes, next.KeysBytes, next.EventsBytes, next.Frames, next.Rows, next.TextBytes = 0, 0, 0, 0, 0, 0, 0
	next.KeysCRC, next.EventsCRC = 0, 0
	next.Dead = map[uint32]int64{}
	if err := removeStrays(dir, m.Seq); err != nil {
		return 0, err
	}
	w, err := openNewSequence(dir, next, warn)
	if err != nil {
		return 0, err
	}
	defer w.Close()
	w.Replaces(m.RowsName())
	live, err := snap.LiveKeys()
	if err != nil {
		return 0, err
	}
	if how.dropKey != nil {
		kept := live[:0]
		for off := 0; off+keys.RecordSize <= len(live); off += keys.RecordSize {
			if !how.dropKey(binary.LittleEndian.Uint64(live[off:]), binary.LittleEndian.Uint32(live[off+8:])) {
				kept = append(kept, live[off:off+keys.RecordSize]...)
			}
		}
		live = kept
	}
	skipped, err = snap.Scan(func(r *record.Row) error {
		if snap.Dead(r.Gen) || how.drop != nil && how.drop(r) {
			return nil
		}
		return w.Add(r, 0)
	}, how.progress, how.skipDamaged)
	if err != nil {
		return 0, err
	}
	if err := w.appendKeys(live); err != nil {
		return 0, err
	}
	if err := w.Sync(true); err != nil {
		return 0, err
	}
	if err := manifest.Commit(dir, next); err != nil {
		return 0, err
	}
	if err := w.Publish(); err != nil {
		return 0, err
	}
	*m = *next
	if err := removeStrays(dir, next.Seq); err != nil {
		return skipped, err
	}
	return skipped, removeOldManifests(dir)
}

// removeOldManifests deletes manifests of older versions. Call it only
// once a manifest of the current version is committed: they name files
// that RemoveStrays has removed. (A checkpoint removes them already.)
func removeOldManifests(dir string) error {
	return manifest.RemoveOlder(dir)
}

// appendKeys appends key records (or the header) to the keys file,
// keeping its length and checksum in the manifest. Records are buffered
// (keysBufferBytes): one write per row was a fifth of the committer's
// time on a first run.
func (w *RowsWriter) appendKeys(recs []byte) error {
	if w.keysErr != nil {
		return w.keysErr
	}
	w.keysBuf = append(w.keysBuf, recs...)
	w.m.KeysBytes += int64(len(recs))
	w.m.KeysCRC = crc32.Update(w.m.KeysCRC, rowsCRC, recs)
	if len(w.keysBuf) >= keysBufferBytes {
		return w.flushKeys()
	}
	return nil
}

// keysBufferBytes is how many bytes of key records wait for one write.
const keysBufferBytes = 64 << 10

// flushKeys writes the buffered key records. The first error sticks: the
// records after it would leave a hole.
func (w *RowsWriter) flushKeys() error {
	if w.keysErr != nil || len(w.keysBuf) == 0 {
		return w.keysErr
	}
	if _, err := w.uuids.Write(w.keysBuf); err != nil {
		w.keysErr = fmt.Errorf("write keys: %w", err)
		return w.keysErr
	}
	w.keysBuf = w.keysBuf[:0]
	return nil
}

// discardUncommitted undoes what a failed run wrote past the committed
// manifest: the data files of its sequence are cut back to their committed
// lengths, and files of other sequences (an unfinished compaction or
// rebuild) and term segments past the committed blocks are removed. A full
// disk is freed again, and `zstdcat` prints only committed rows. Without a
// readable manifest it does nothing: the files may be all there is.
func discardUncommitted(dir string) error {
	m, err := manifest.ReadWhole(dir)
	if err != nil {
		return nil
	}
	return discardPast(dir, m)
}

// discardFirstRun removes what a failed first run wrote, when it committed
// nothing: with no manifest, its rows would read as a damaged index. Call
// it under the writer lock, and only for a run that started without a
// manifest (a lost one is recovered, and committed, before a run starts).
func discardFirstRun(dir string) error {
	if hasManifest(dir) {
		return discardUncommitted(dir)
	}
	if err := removeStrays(dir); err != nil {
		return err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("read index dir: %w", err)
	}
	for _, e := range entries {
		if _, ok := terms.ParseName(e.Name()); ok {
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil && !os.IsNotExist(err) {
				return err
			}
		}
	}
	return removeStaleTerms(dir, -1, 0) // and the temporary files
}

// hasManifest reports whether dir holds a manifest of any version this
// recall reads (damaged or not).
func hasManifest(dir string) bool {
	for v := manifest.OldestFormat; v <= manifest.Version; v++ {
		if _, err := os.Stat(filepath.Join(dir, manifest.NameFor(v))); err == nil {
			return true
		}
	}
	return false
}

// discardPast cuts every data file back to m's committed length and
// removes the files m does not name.
func discardPast(dir string, m *manifest.Manifest) error {
	if err := manifest.CheckJournal(dir, m); err != nil {
		return err
	}
	for _, f := range []struct {
		name      string
		committed int64
	}{
		{manifest.CommittedRowsName(dir, m), m.RowsBytes}, {m.BlocksName(), m.BlocksBytes}, {m.KeysName(), m.KeysBytes}, {m.EventsName(), m.EventsBytes},
	} {
		path := filepath.Join(dir, f.name)
		if info, err := os.Stat(path); err == nil && info.Size() > f.committed {
			if err := os.Truncate(path, f.committed); err != nil {
				return fmt.Errorf("cut an uncommitted tail: %w", err)
			}
		}
	}
	if err := removeStrays(dir, m.Seq); err != nil {
		return err
	}
	return removeStaleTerms(dir, m.Seq, m.BlockCount())
}
