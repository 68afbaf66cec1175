package snapshot

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/recall-dev/recall/store/lockfile"

	"github.com/recall-dev/recall/store/manifest"

	"github.com/klauspost/compress/zstd"

	"github.com/recall-dev/recall/internal/errpath"
	"github.com/recall-dev/recall/internal/parallel"
	"github.com/recall-dev/recall/internal/problem"
	"github.com/recall-dev/recall/record"
	"github.com/recall-dev/recall/store/terms"
)

// Snapshot is a reader's view of the index: the committed manifest and the
// blocks it covers. Writers only append past the committed lengths or write
// new files, so a snapshot stays valid while an indexer runs.
type Snapshot struct {
	Dir    string
	M      *manifest.Manifest
	Blocks []Block
	// stale says why the derived files may not be used for bounds or
	// skipping ("" when they may): see staleReason.
	stale  string
	rows   *os.File
	events *os.File         // nil when the index has no events file
	terms  []*terms.Segment // opened by TermSegments

	problemsMu sync.Mutex
	problems   []error // damage met and worked around while reading

	eventsOnce sync.Once // reads the events file once, for EventsOf
	eventsData []byte
	eventsErr  error
	// eventLines finds each session's lines of eventsData, indexed in
	// one pass on the first SessionEvents or Titles call.
	eventLinesOnce sync.Once
	eventLines     *sessionLines
}

// Open opens the committed index in dir. It returns ErrNoIndex if
// nothing has been indexed yet.
func Open(dir string) (*Snapshot, error) {
	return OpenWith(dir, manifest.ReadHead)
}

// OpenWith is OpenSnapshot reading the manifest with readHead.
func OpenWith(dir string, readHead func(dir string) (*manifest.Manifest, error)) (*Snapshot, error) {
	// A compaction may remove the files of the manifest just read; the
	// next manifest names the new ones, so try again. So too when the
	// first run's rows were there without a manifest and its first
	// commit landed while this looked (the manifest is there now): a
	// search during a first index read that as damage.
	for attempt := 0; ; attempt++ {
		m, err := readHead(dir)
		if err != nil {
			err = firstBuildInProgress(dir, err)
			if errors.Is(err, manifest.ErrNoManifestYet) && attempt < 3 && fileExists(filepath.Join(dir, manifest.Name)) {
				continue
			}
			return nil, err
		}
		s, err := Of(dir, m)
		if errors.Is(err, fs.ErrNotExist) && attempt < 3 {
			continue
		}
		return s, err
	}
}

// firstBuildInProgress tells a reader that rows without a manifest are
// the first index run at work, not damage: until its first commit there
// is no index to read (ErrNoIndex). Only with the writer lock held, and
// only here: the writer itself reads the manifest under that lock and must
// recover such rows when no one holds it.
func firstBuildInProgress(dir string, err error) error {
	if !errors.Is(err, manifest.ErrDamaged) || fileExists(filepath.Join(dir, manifest.Name)) {
		return err
	}
	if held, lerr := lockfile.Held(filepath.Join(dir, lockfile.WriterName)); lerr == nil && held {
		by := ""
		if pid := lockfile.HolderOf(dir, lockfile.WriterName); pid != "" {
			by = " (pid " + pid + ")"
		}
		return fmt.Errorf("%w: the first index run%s is in progress", manifest.ErrNoIndex, by)
	}
	return err
}

// ErrBlocksDamaged marks a block records file that is missing, cut short
// or fails its checks. The records are derived from the rows file: `recall
// index` rebuilds them (Recover) and loses nothing.
var ErrBlocksDamaged = errors.New("block records damaged")

func Of(dir string, m *manifest.Manifest) (*Snapshot, error) {
	blocks, stale, err := readBlocks(dir, m)
	if err != nil {
		return nil, err
	}
	rows, err := manifest.OpenRows(dir, m)
	if err != nil {
		return nil, fmt.Errorf("open rows: %w", err)
	}
	// The events file is opened now, with the rows, so a compaction that
	// replaces both before Events is called cannot take it away.
	events, err := os.Open(filepath.Join(dir, m.EventsName()))
	if err != nil && !(errors.Is(err, fs.ErrNotExist) && m.EventsBytes == 0) {
		rows.Close()
		return nil, fmt.Errorf("open events: %w", err)
	}
	return &Snapshot{Dir: dir, M: m, Blocks: blocks, stale: stale, rows: rows, events: events}, nil
}

// readBlocks reads and checks the committed block records: each record's
// checksum, their count against the manifest's frames, and that they tile
// the rows file from its header frame to its committed end.
func readBlocks(dir string, m *manifest.Manifest) ([]Block, string, error) {
	data, err := readPrefix(filepath.Join(dir, m.BlocksName()), m.BlocksBytes)
	if err != nil {
		return nil, "", blocksProblem(err)
	}
	blocks, stale, err := parseBlocksFile(data, m)
	if err == nil {
		err = checkTiling(blocks, m)
	}
	if err != nil {
		return nil, "", blocksProblem(err)
	}
	return blocks, stale, nil
}

// checkTiling checks that the blocks are the manifest's frames, back to
// back up to the committed end of the rows file.
func checkTiling(blocks []Block, m *manifest.Manifest) error {
	if len(blocks) != m.BlockCount() {
		return fmt.Errorf("%d block records, the manifest says %d", len(blocks), m.BlockCount())
	}
	for i := 1; i < len(blocks); i++ {
		if blocks[i].Offset != blocks[i-1].Offset+blocks[i-1].Size {
			return fmt.Errorf("block %d does not start where block %d ends", i, i-1)
		}
	}
	if n := len(blocks); n > 0 && blocks[n-1].Offset+blocks[n-1].Size != m.RowsBytes {
		return fmt.Errorf("the blocks end at byte %d, the rows file at %d", blocks[n-1].Offset+blocks[n-1].Size, m.RowsBytes)
	}
	return nil
}

// CheckBlocksLength is CheckBlocks for a run that must not read every
// record (the quick check): the blocks file holds at least its committed
// bytes. A record damaged within is found by the next search or sweep.
func CheckBlocksLength(dir string, m *manifest.Manifest) error {
	info, err := os.Stat(filepath.Join(dir, m.BlocksName()))
	if err == nil && info.Size() < m.BlocksBytes {
		err = fmt.Errorf("%s is %d bytes shorter than committed", m.BlocksName(), m.BlocksBytes-info.Size())
	}
	if err != nil {
		return blocksProblem(err)
	}
	return nil
}

// CheckBlocks reports whether the committed block records read whole
// (errBlocksDamaged if not). It reads only the blocks file.
func CheckBlocks(dir string, m *manifest.Manifest) error {
	_, _, err := readBlocks(dir, m)
	return err
}

// parseBlocksFile decodes the committed bytes of a blocks file. Block
// records locate the frames, which any format needs; whether their time,
// type and session summaries may be used to skip blocks is stale's to say.
func parseBlocksFile(data []byte, m *manifest.Manifest) (blocks []Block, stale string, err error) {
	stale = manifest.StaleReason(m)
	if m.Format >= 2 && len(data) > 0 {
		feature, err := manifest.ReadHeader(data, manifest.BlocksMagic)
		if err != nil {
			return nil, "", fmt.Errorf("blocks file: %w", err)
		}
		if feature != m.Feature && stale == "" {
			stale = fmt.Sprintf("its block records were built under text rules v%d, the manifest says v%d", feature, m.Feature)
		}
		data = data[manifest.HeaderSize:]
	}
	blocks, err = parseBlocks(data)
	return blocks, stale, err
}

// Stale says why the snapshot's derived data (block summaries, events,
// term segments) was built under other rules and is not used, or "".
// Searches then read every row and find recall events in them; the next
// `recall index` rebuilds the derived data (Rederive).
func (s *Snapshot) Stale() string { return s.stale }

// noteProblem records damage a reader met and worked around.
func (s *Snapshot) noteProblem(p error) {
	s.problemsMu.Lock()
	defer s.problemsMu.Unlock()
	s.problems = append(s.problems, p)
}

// Problems lists damage met while reading and worked around (the answer
// came from the rows), each a problem.Problem naming what mends it.
func (s *Snapshot) Problems() []error {
	s.problemsMu.Lock()
	defer s.problemsMu.Unlock()
	return slices.Clone(s.problems)
}

// SkipBlocks reports whether block summaries may rule blocks out.
func (s *Snapshot) SkipBlocks() bool { return s.stale == "" }

// readPrefix reads the first n bytes of path.
func readPrefix(path string, n int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		if n == 0 && errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err // a *fs.PathError: it names path
	}
	defer f.Close()
	data := make([]byte, n)
	if _, err := f.ReadAt(data, 0); err != nil && n > 0 {
		return nil, errpath.Wrap("read", path, err) // io.EOF names none
	}
	return data, nil
}

// Close releases the files.
func (s *Snapshot) Close() error {
	if s.events != nil {
		s.events.Close()
	}
	for _, seg := range s.terms {
		seg.Close()
	}
	return s.rows.Close()
}

// TermSegments opens the term-index segments that cover the snapshot's
// blocks, in block order. It returns nil and why when they cannot answer
// (derived data built by other rules, an index from before the term index,
// a run that failed to build it, a segment that does not open): the search
// then reads the rows, and -v says why (a problem.Problem when a run
// mends it).
func (s *Snapshot) TermSegments() (segs []*terms.Segment, why error) {
	if s.terms != nil || len(s.Blocks) == 0 {
		return s.terms, nil
	}
	if s.stale != "" {
		return nil, errors.New(s.stale)
	}
	refs, err := terms.Refs(s.Dir)
	if err != nil {
		return nil, err
	}
	cover, covered := terms.Cover(refs, s.M.Seq, len(s.Blocks))
	if covered < len(s.Blocks) {
		return nil, problem.Problem{Err: fmt.Errorf("the term index covers %d of %d blocks", covered, len(s.Blocks)), Remedy: problem.Index, Mends: "completes it"}
	}
	// Opened on all cores: opening checks each segment's keys (a search
	// at 1 GB opens ten segments, about half a millisecond on one core
	// while the other waited for the candidate pass).
	segs = make([]*terms.Segment, len(cover))
	errs := make([]error, len(cover))
	parallel.Each(len(cover), func(i int) { segs[i], errs[i] = terms.Open(s.Dir, cover[i]) })
	if err := firstError(errs); err != nil { // the one opening them in order met
		for _, open := range segs {
			if open != nil {
				open.Close()
			}
		}
		if errors.Is(err, fs.ErrNotExist) {
			return nil, errors.New("a merge replaced a term segment while the search opened it")
		}
		return nil, problem.NeedsRepair(err, "rebuilds it from the rows")
	}
	s.terms = segs
	return segs, nil
}

// firstError returns the first error of errs that is not nil.
func firstError(errs []error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// Dead reports whether rows of generation gen are hidden (their transcript
// was replaced or shrank and was read again).
func (s *Snapshot) Dead(gen uint32) bool {
	_, dead := s.M.Dead[gen]
	return dead
}

// ErrBlockDamaged wraps every reason a rows block cannot be read: a short
// read, a frame that does not decode (zstd frames carry a checksum of
// their content), or a size that is not the one its record gives. Searches
// skip such a block and say so; `recall index --repair` re-reads its
// transcripts.
var ErrBlockDamaged = errors.New("rows block damaged")

// ReadBlock decompresses block b into dst (reused if large enough). The
// compressed bytes go through scratch, which is returned grown for reuse.
func (s *Snapshot) ReadBlock(dec *zstd.Decoder, b *Block, dst, scratch []byte) (raw, scratchOut []byte, err error) {
	if int64(cap(scratch)) < b.Size {
		scratch = make([]byte, b.Size)
	}
	scratch = scratch[:b.Size]
	if _, err := s.rows.ReadAt(scratch, b.Offset); err != nil {
		return nil, scratch, fmt.Errorf("%w: read block at byte %d: %w", ErrBlockDamaged, b.Offset, err)
	}
	if want := b.RawSize + DecodeSlack; int64(cap(dst)) < want && b.RawSize <= maxBlockRoom {
		dst = make([]byte, 0, want)
	}
	raw, err = dec.DecodeAll(scratch, dst[:0])
	if err != nil {
		return nil, scratch, fmt.Errorf("%w: decode block at byte %d: %w", ErrBlockDamaged, b.Offset, err)
	}
	if int64(len(raw)) != b.RawSize {
		return nil, scratch, fmt.Errorf("%w: block at byte %d decodes to %d bytes, its record says %d", ErrBlockDamaged, b.Offset, len(raw), b.RawSize)
	}
	return raw, scratch, nil
}

// DecodeSlack is the room ReadBlock leaves past a block's text in the
// buffer it decodes into: with at least 16 bytes there, zstd's decoder
// copies literals and matches 16 bytes at a time; without, it takes its
// bounds-exact copies for the block's end, which was about half of the
// decoding a search's blocks made (each buffer was the block's size).
const DecodeSlack = 64

// maxBlockRoom caps the room ReadBlock makes from a block record's size,
// which a damaged record may overstate (a block holds about 128 KiB; a
// longer one grows as it decodes).
const maxBlockRoom = 1 << 20

// NewDecoder returns a zstd decoder suited to ReadBlock; one per goroutine.
func NewDecoder() (*zstd.Decoder, error) {
	return zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(false))
}

// EachRow calls fn for every row of every block in order, dead rows
// included (fn decides). It stops at the first error.
func (s *Snapshot) EachRow(fn func(*record.Row) error) error {
	_, err := s.Scan(fn, nil, false)
	return err
}

// Scan is EachRow, reporting the blocks done to progress (if set)
// and, with skipDamaged, leaving out blocks that do not read (counted in
// skipped) instead of stopping at the first.
func (s *Snapshot) Scan(fn func(*record.Row) error, progress func(done, total int), skipDamaged bool) (skipped int, err error) {
	dec, err := NewDecoder()
	if err != nil {
		return 0, err
	}
	defer dec.Close()
	var raw, scratch []byte
	for i := range s.Blocks {
		raw, scratch, err = s.ReadBlock(dec, &s.Blocks[i], raw, scratch)
		if err == nil {
			err = eachLine(raw, fn)
		}
		if skipDamaged && errors.Is(err, ErrBlockDamaged) {
			skipped++
			continue
		}
		if err != nil {
			return skipped, err
		}
		if progress != nil {
			progress(i+1, len(s.Blocks))
		}
	}
	return skipped, nil
}

func eachLine(raw []byte, fn func(*record.Row) error) error {
	for len(raw) > 0 {
		i := bytes.IndexByte(raw, '\n')
		if i < 0 {
			i = len(raw)
		}
		r, err := record.ParseRow(raw[:i])
		if err != nil {
			return err
		}
		if err := fn(&r); err != nil {
			return err
		}
		if i == len(raw) {
			break
		}
		raw = raw[i+1:]
	}
	return nil
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// blocksProblem is a block records file that does not read: the next
// index run rebuilds it from the rows.
func blocksProblem(err error) error {
	return problem.Problem{Err: fmt.Errorf("%w: %w", ErrBlocksDamaged, err), Remedy: problem.Index, Mends: "rebuilds them from the rows"}
}
