package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/recall-dev/recall/store/snapshot"

	"github.com/recall-dev/recall/store/keys"

	"github.com/recall-dev/recall/store/manifest"

	"github.com/recall-dev/recall/internal/atomicfile"
	"github.com/recall-dev/recall/internal/problem"
	"github.com/recall-dev/recall/record"
	"github.com/recall-dev/recall/store/terms"
	"github.com/recall-dev/recall/textrules"
)

// blockTarget is the uncompressed size at which a block is closed and
// written as one zstd frame. Larger blocks compress better; smaller ones
// cost a search less to read for the few sessions it shows. Cutting 100 MB
// of benchmark rows into 64, 128 and 256 KiB pieces, `zstd -3` of the
// pieces came to 108.4%, 102.5% and 100% of the 256 KiB size; 128 KiB
// halves what a search decompresses per session shown for 2.5%.
const blockTarget = 128 << 10

// RowsWriter appends rows to the data files of the manifest's sequence.
// Nothing it writes is visible until the manifest is committed; a crash
// before that leaves bytes past the committed lengths, which the next writer
// cuts off (openRepaired).
//
// Compressing a block and indexing its terms is most of the writer's
// work, so full blocks go to an encoder pipeline that uses every core;
// frames are written in block order by one goroutine (see encoder).
type RowsWriter struct {
	dir    string
	m      *manifest.Manifest
	rows   *os.File
	blocks *os.File
	uuids  *os.File
	events *os.File
	// keysBuf holds key records not yet written to uuids; keysErr is
	// the first failure to write them.
	keysBuf []byte
	keysErr error
	blk     blockBuilder
	bufs    blockBuffers
	pipe    *encoder
	warn    func(error) // term-index failures, which lose no rows
	// inflight is the commit StartCommit started, nil once waited for.
	inflight *pendingCommit
	// commitErr is the failure of a commit in the background, if any.
	commitErr error
	// termsDue: the last commit left the term index's last segment to
	// be written; Close waits for it and warns of its failure.
	termsDue bool
	// staged: the data files are written under their part names
	// (partSuffix) until the first commit, which publishes the derived
	// ones (OpenNewSequence); rowsStaged: the rows file still is, until
	// just after the last commit (Publish).
	staged, rowsStaged bool
	// replaces names the rows files of the sequences this one replaces,
	// removed right after its rows file takes its name (Replaces).
	replaces []string
}

// Replaces names the rows files the staged sequence replaces: they are
// removed right after its rows file takes the link, before the rest of
// the old sequence's files (a listing of the directory).
func (w *RowsWriter) Replaces(rowsNames ...string) { w.replaces = append(w.replaces, rowsNames...) }

// openRowsWriterAt opens (creating if needed) the data files named by m
// and cuts them back to m's committed lengths.
func openRowsWriterAt(dir string, m *manifest.Manifest, warn func(error)) (*RowsWriter, error) {
	return openRowsWriter(dir, m, warn, false)
}

// openNewSequence opens the data files of a sequence no manifest names
// yet (m.Seq, nothing committed), under their part names, for a rewrite
// (a compaction, `recall forget`, `--rebuild`, a recovery). Its first
// commit renames the derived files in place before the manifest that
// names them is committed (Sync, StartCommit). The rows file keeps its
// part name through every checkpoint, which readers open (manifest.OpenRows),
// until the last commit: then it takes its name and RowsLinkName, and
// the replaced sequence's files go (Publish). So `zstdcat rows-*.zst`,
// right after a rewrite is killed at any moment, prints the old rows or
// the new, each once, and no torn frame. The next writer finishes what
// a kill left (FinishPublish).
func openNewSequence(dir string, m *manifest.Manifest, warn func(error)) (*RowsWriter, error) {
	if m.RowsBytes != 0 {
		return nil, fmt.Errorf("open a new sequence: sequence %d holds %d committed bytes", m.Seq, m.RowsBytes)
	}
	return openRowsWriter(dir, m, warn, true)
}

func openRowsWriter(dir string, m *manifest.Manifest, warn func(error), staged bool) (*RowsWriter, error) {
	if m.Format != manifest.FormatVersion || m.Feature != textrules.FeatureVersion {
		return nil, fmt.Errorf("append to an index in format v%d, rules v%d: rebuild its derived data first", m.Format, m.Feature)
	}
	// Cutting back to m's lengths is safe only when the journal says
	// they are the last committed ones.
	if err := manifest.CheckJournal(dir, m); err != nil {
		return nil, err
	}
	w := &RowsWriter{dir: dir, m: m, warn: warn, staged: staged}
	w.blk = newBlockBuilder(w.bufs.get())
	files := []struct {
		f         **os.File
		name      string
		committed int64
	}{
		{&w.rows, m.RowsName(), m.RowsBytes},
		{&w.blocks, m.BlocksName(), m.BlocksBytes},
		{&w.uuids, m.KeysName(), m.KeysBytes},
		{&w.events, m.EventsName(), m.EventsBytes},
	}
	for _, spec := range files {
		name := spec.name
		if staged {
			name += manifest.PartSuffix
		}
		f, err := openRepaired(filepath.Join(dir, name), spec.committed)
		if err != nil {
			w.Close()
			return nil, err
		}
		*spec.f = f
	}
	if !staged && m.RowsBytes == 0 {
		// A first run's rows file takes the link before it grows; an
		// older name or a killed writer's publication was finished by
		// the run's OpenRun.
		if err := linkRows(dir, m.RowsName()); err != nil {
			w.Close()
			return nil, err
		}
	}
	// Segments past the committed blocks describe blocks a crash lost;
	// the blocks about to be written would reuse their numbers.
	if err := removeStaleTerms(dir, m.Seq, m.BlockCount()); err != nil {
		w.Close()
		return nil, err
	}
	pipe, err := newEncoder(w)
	if err != nil {
		w.Close()
		return nil, err
	}
	w.pipe = pipe
	if err := w.writeHeaders(); err != nil {
		w.Close()
		return nil, err
	}
	return w, nil
}

// writeHeaders starts each new file with its header: the rows file with
// the TSV header line, the derived files with the format and feature
// version that build them.
func (w *RowsWriter) writeHeaders() error {
	if w.m.RowsBytes == 0 {
		if err := w.writeHeaderFrame(); err != nil {
			return err
		}
	}
	headers := []struct {
		f       *os.File
		length  *int64
		header  []byte
		purpose string
	}{
		{w.blocks, &w.m.BlocksBytes, manifest.AppendHeader(nil, manifest.BlocksMagic), "blocks"},
	}
	for _, h := range headers {
		if *h.length != 0 {
			continue
		}
		if _, err := h.f.Write(h.header); err != nil {
			return fmt.Errorf("write %s header: %w", h.purpose, err)
		}
		*h.length = int64(len(h.header))
	}
	if w.m.KeysBytes == 0 {
		if err := w.appendKeys(manifest.AppendHeader(nil, manifest.KeysMagic)); err != nil {
			return err
		}
	}
	if w.m.EventsBytes == 0 {
		return w.appendEvents([]byte(manifest.EventsHeader()))
	}
	return nil
}

// openRepaired opens path for appending after cutting it to committed
// bytes: anything past that is a torn tail from a crash.
func openRepaired(path string, committed int64) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err // a *fs.PathError: it names path
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if info.Size() < committed {
		f.Close()
		return nil, problem.NeedsRepair(fmt.Errorf("%w: %s is shorter (%d bytes) than the manifest says (%d)", snapshot.ErrBlockDamaged, path, info.Size(), committed),
			"reads the transcripts of the missing rows again")
	}
	if info.Size() > committed {
		if err := f.Truncate(committed); err != nil {
			f.Close()
			return nil, fmt.Errorf("cut a torn tail: %w", err)
		}
	}
	if _, err := f.Seek(committed, 0); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// writeHeaderFrame starts a new rows file with the TSV header in a frame of
// its own, so `zstdcat rows-*.zst` prints a header line then rows.
func (w *RowsWriter) writeHeaderFrame() error {
	frame := w.pipe.encs[0].EncodeAll([]byte(record.Header()), nil)
	if _, err := w.rows.Write(frame); err != nil {
		return fmt.Errorf("write header frame: %w", err)
	}
	w.m.RowsBytes += int64(len(frame))
	w.m.Frames++
	return nil
}

// Add appends one row, handing the block to the encoders when it is full.
func (w *RowsWriter) Add(r *record.Row, key uint64) error {
	w.blk.add(r)
	w.m.TextBytes += int64(len(r.Text))
	if err := w.noteEvent(r); err != nil {
		return err
	}
	if key != 0 {
		var rec [keys.RecordSize]byte
		binary.LittleEndian.PutUint64(rec[:], key)
		binary.LittleEndian.PutUint32(rec[8:], r.Gen)
		if err := w.appendKeys(rec[:]); err != nil {
			return err
		}
	}
	if len(w.blk.buf) >= blockTarget {
		return w.flushBlock()
	}
	return nil
}

// flushBlock hands the open block to the encoders.
func (w *RowsWriter) flushBlock() error {
	if w.blk.meta.Rows == 0 {
		return nil
	}
	return w.pipe.submit(w.blk.take(w.bufs.get()))
}

// Sync makes everything appended so far durable. The manifest that points
// at it may be committed only after this returns. On the last Sync of a
// run (final), the term index of the blocks written is completed too;
// between checkpoints its segments keep growing, so that a long first run
// does not leave a small segment at every checkpoint. Blocks committed
// without their segment are read in full by searches, and indexed by the
// next run if this one is killed.
func (w *RowsWriter) Sync(final bool) error {
	if err := w.flushForCommit(final, false); err != nil {
		return err
	}
	publish := w.publishNames()
	return syncFiles(w.dir, w.dataFiles(), publish)
}

// publishNames are the renames that put a staged sequence's derived
// files in place before its first commit (none once done); the rows
// file waits for the commit (Publish).
func (w *RowsWriter) publishNames() []string {
	if !w.staged {
		return nil
	}
	w.staged, w.rowsStaged = false, true
	return []string{w.m.BlocksName(), w.m.KeysName(), w.m.EventsName()}
}

// Publish ends the first commit of a staged sequence, once its manifest
// is committed: the rows file takes its name, and the files of every
// other sequence are removed (the rows file first). Call it after
// commitManifest of a writer's manifest (StartCommit calls it itself).
// A failure leaves what the next writer finishes (FinishPublish,
// removeStrays).
func (w *RowsWriter) Publish() error {
	if !w.rowsStaged {
		return nil
	}
	w.rowsStaged = false
	return publishRows(w.dir, w.m.Seq, w.m.RowsName(), w.replaces)
}

// RowsLinkName is the one name in an index directory that `rows-*.zst`
// matches: a second name (a hard link) of the rows file of the sequence
// last published, so that `zstdcat rows-*.zst`, `zstd -dc rows-*.zst`
// and any tool that takes regular files only read it as the rows file.
// Where the file system has no hard links it is a symbolic link. Readers
// never open it; they open the rows file their manifest names.
const RowsLinkName = "rows-all.zst"

// publishRows renames a committed sequence's rows file from its part
// name, points RowsLinkName at it (one rename: `zstdcat rows-*.zst`
// prints the old rows or the new, never both), removes the rows files it
// replaces, then every other sequence's files, and makes that durable.
func publishRows(dir string, seq int, rowsName string, replaces []string) error {
	path := filepath.Join(dir, rowsName)
	if err := os.Rename(path+manifest.PartSuffix, path); err != nil {
		return err
	}
	if err := linkRows(dir, rowsName); err != nil {
		return err
	}
	for _, name := range replaces {
		if name != rowsName {
			_ = os.Remove(filepath.Join(dir, name)) // removeStrays says why, if it fails
		}
	}
	if err := removeStrays(dir, seq); err != nil {
		return err
	}
	return atomicfile.SyncDir(dir)
}

// linkRows makes RowsLinkName a second name of the rows file rowsName,
// unless it is already, by renaming a new link over it: a hard link, or
// a symbolic link where hard links fail (or while rowsName is still to
// be renamed into place: FinishPublish), which the next call makes hard.
func linkRows(dir, rowsName string) error {
	link := filepath.Join(dir, RowsLinkName)
	target := filepath.Join(dir, rowsName)
	ti, terr := os.Stat(target)
	li, lerr := os.Lstat(link)
	if lerr == nil && terr == nil && li.Mode().IsRegular() && os.SameFile(li, ti) {
		return nil
	}
	tmp := filepath.Join(dir, "."+RowsLinkName+".tmp") // what a kill leaves, removeStaleTerms removes
	if err := os.Remove(tmp); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("link %s: %w", RowsLinkName, err)
	}
	if err := os.Link(target, tmp); err != nil {
		if lerr == nil && li.Mode()&fs.ModeSymlink != 0 {
			if got, rerr := os.Readlink(link); rerr == nil && got == rowsName {
				return nil // a symbolic link already, and no hard link to be had
			}
		}
		if serr := os.Symlink(rowsName, tmp); serr != nil {
			return fmt.Errorf("link %s to %s: %w; %w", RowsLinkName, rowsName, err, serr)
		}
	}
	if err := os.Rename(tmp, link); err != nil {
		return fmt.Errorf("link %s: %w", RowsLinkName, err)
	}
	return nil
}

// finishPublish completes what a writer left undone for m, under the
// lock, before anything reads the rows: a rows file still under its
// part name (a rewrite killed between the commit of m and the rename,
// or between its checkpoints and its last commit) is cut to its
// committed length, takes its name and the link, and the files of the
// sequence it replaced go; a rows file under a name a recall before the
// link gave it is renamed; a missing or stale link is made again.
func finishPublish(dir string, m *manifest.Manifest) error {
	if m == nil || m.RowsBytes == 0 {
		return nil
	}
	places := manifest.RowsPlaces(m)
	name := places[0]
	for _, from := range places {
		if _, err := os.Lstat(filepath.Join(dir, from)); err != nil {
			continue
		}
		switch from {
		case name:
			return linkRows(dir, name)
		case m.LegacyRowsName():
			// The link first: until the rename it is a symbolic
			// link that dangles, and `zstdcat rows-*.zst` prints the
			// old name's rows once; then it is made a hard link.
			if err := linkRows(dir, name); err != nil {
				return err
			}
			if err := os.Rename(filepath.Join(dir, from), filepath.Join(dir, name)); err != nil {
				return err
			}
			if err := linkRows(dir, name); err != nil {
				return err
			}
			return atomicfile.SyncDir(dir)
		default:
			if err := cutStagedTail(dir, m, from); err != nil {
				return err
			}
			if err := os.Rename(filepath.Join(dir, from), filepath.Join(dir, name+manifest.PartSuffix)); err != nil {
				return err
			}
			return publishRows(dir, m.Seq, name, nil)
		}
	}
	return nil // no rows file: damage, said where it is read
}

// cutStagedTail cuts what a killed rewrite appended to a staged rows
// file past its last commit, before the file takes the link: `zstdcat`
// would stop at the torn frame. Only when the journal says m's length is
// the last committed one (as openRowsWriter does); otherwise the next
// writer finds out.
func cutStagedTail(dir string, m *manifest.Manifest, staged string) error {
	path := filepath.Join(dir, staged)
	info, err := os.Stat(path)
	if err != nil || info.Size() <= m.RowsBytes || manifest.CheckJournal(dir, m) != nil {
		return nil
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := f.Truncate(m.RowsBytes); err != nil {
		return fmt.Errorf("cut a torn tail: %w", err)
	}
	return f.Sync()
}

// flushForCommit waits for a commit under way, then writes out what a
// commit covers: the open block, the encoded blocks, the keys and, on
// the run's last commit (final), the term index of the blocks written,
// or, with lastSegmentLater, all of it but the last segment, which
// Close waits for.
func (w *RowsWriter) flushForCommit(final, lastSegmentLater bool) error {
	if err := w.WaitCommit(); err != nil {
		return err
	}
	if err := w.flushBlock(); err != nil {
		return err
	}
	if err := w.pipe.drain(); err != nil {
		return err
	}
	if err := w.flushKeys(); err != nil {
		return err
	}
	switch {
	case final && lastSegmentLater:
		// The last segment is encoded and written while the commit
		// syncs and the key index is sorted: Close waits for it (the
		// segments are derived, so the commit need not).
		w.pipe.terms.closeGroup()
		w.termsDue = true
	case final:
		if err := w.pipe.terms.flush(); err != nil && w.warn != nil {
			w.warn(termsError(err))
		}
	}
	return nil
}

// dataFiles are the files a commit syncs before its manifest.
func (w *RowsWriter) dataFiles() []*os.File {
	return []*os.File{w.rows, w.blocks, w.uuids, w.events}
}

// Close stops the encoders and releases the files; calling it again does
// nothing. Blocks not synced are dropped (they were never committed).
func (w *RowsWriter) Close() {
	_ = w.WaitCommit() // its files are closed next; a failure was the caller's to hear
	if w.pipe != nil {
		if w.termsDue {
			w.termsDue = false
			if err := w.pipe.terms.flush(); err != nil && w.warn != nil {
				w.warn(termsError(err))
			}
		}
		w.pipe.stop()
		w.pipe = nil
	}
	for _, f := range []**os.File{&w.rows, &w.blocks, &w.uuids, &w.events} {
		if *f != nil {
			(*f).Close()
			*f = nil
		}
	}
}

// blockBuilder accumulates one block's rows and the metadata that is
// cheap to keep row by row.
type blockBuilder struct {
	buf   []byte      // TSV rows
	terms []terms.Row // the rows as the term index reads them (termRow)
	meta  snapshot.Block
	plain record.Repeats // kept from block to block
}

func newBlockBuilder(next blockBuf) blockBuilder {
	return blockBuilder{buf: next.raw, terms: next.terms, meta: snapshot.NewBlock()}
}

// blockBuffers recycles the buffers of blocks the term index is done
// with: a fresh 192 KiB buffer per block was a fifth of what a first run
// allocates, and the collections that go with it.
type blockBuffers struct{ pool sync.Pool }

// blockBuf is a block's buffers: its TSV and its rows for the term index.
type blockBuf struct {
	raw   []byte
	terms []terms.Row
}

func (p *blockBuffers) get() blockBuf {
	if b, ok := p.pool.Get().(*blockBuf); ok {
		return blockBuf{raw: b.raw[:0], terms: b.terms[:0]}
	}
	return blockBuf{raw: make([]byte, 0, blockTarget+64<<10)}
}

// put takes back a block's buffers; terms must hold no rows' texts any
// more (cleared).
func (p *blockBuffers) put(raw []byte, terms []terms.Row) {
	p.pool.Put(&blockBuf{raw: raw, terms: terms})
}

func (b *blockBuilder) add(r *record.Row) {
	b.buf = r.AppendTSVAfter(b.buf, &b.plain)
	t, ok := record.ParseTimestamp(r.Timestamp)
	b.terms = append(b.terms, termRow(r, t, ok))
	b.meta.Note(r, t, ok)
}

// take returns the block to encode and starts an empty one in next.
func (b *blockBuilder) take(next blockBuf) *pendingBlock {
	meta := b.meta
	meta.RawSize = int64(len(b.buf))
	p := &pendingBlock{raw: b.buf, terms: b.terms, meta: meta}
	plain := b.plain
	*b = newBlockBuilder(next)
	b.plain = plain
	return p
}
