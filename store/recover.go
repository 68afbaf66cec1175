package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/recall-dev/recall/store/snapshot"

	"github.com/recall-dev/recall/store/keys"

	"github.com/recall-dev/recall/store/manifest"

	"github.com/recall-dev/recall/internal/errpath"
	"github.com/recall-dev/recall/internal/problem"
	"github.com/recall-dev/recall/record"
	"github.com/recall-dev/recall/store/forget"
)

// Recovery: a manifest that is missing or damaged (deleted, lost with a
// disk, cut short, a bad restore) is rebuilt from the data files, never
// answered by deleting them. Every row names its source transcript, line,
// uuid and generation, which is what the manifest's per-file state needs;
// what is lost is only what rows cannot tell (exclusion counters, and
// transcripts that gave no rows, which are read again).

// committedRows keeps of files the rows file known names, to the length
// it committed: known's per-transcript state counts those rows and no
// other. Bytes past it are a crashed run's uncommitted rows, which the
// transcripts give again; other sequences are leftovers of a compaction.
func committedRows(files []manifest.RowsFile, known *manifest.Manifest) []manifest.RowsFile {
	for _, f := range files {
		if f.Seq == known.Seq && f.Format == known.Format {
			f.Committed = known.RowsBytes
			return []manifest.RowsFile{f}
		}
	}
	return nil
}

// Recovered is what Recover found, and what it could not read.
type Recovered struct {
	From        []string // the rows files read, newest first
	Rows        int64    // rows kept
	Files       int      // transcripts named by the rows
	LostFrames  int      // frames that did not decode; their rows are lost
	LostBytes   int64    // bytes of those frames and of torn tails
	KeysDropped bool     // no keys file was readable: copies may be indexed again
	Forgotten   int64    // rows left out because a forget removed them (the tombstone)
}

// Empty reports a recovery that found nothing to keep or lose: the files
// of a first run stopped before it committed anything.
func (r *Recovered) Empty() bool {
	return r.Rows == 0 && r.Files == 0 && r.LostFrames == 0 && r.LostBytes == 0 && r.Forgotten == 0
}

// Say says it in one line; w words the remedy for lost frames.
func (r *Recovered) Say(w problem.Wording) string {
	s := fmt.Sprintf("recovered the index manifest from %s: %d rows of %d transcripts kept; exclusion counters restart at zero",
		strings.Join(r.From, ", "), r.Rows, r.Files)
	if r.LostFrames > 0 || r.LostBytes > 0 {
		lost := problem.NeedsRepair(fmt.Errorf("%d damaged frames (%d bytes) could not be read", r.LostFrames, r.LostBytes), "re-reads transcripts that still exist")
		s += "; " + problem.Say(lost, w)
	}
	if r.KeysDropped {
		s += "; the message identities were unreadable, so copies of indexed messages in forks may be indexed again"
	}
	if r.Forgotten > 0 {
		s += fmt.Sprintf("; %d rows that a forget removed stay removed", r.Forgotten)
	}
	return s
}

// recoverIndex rebuilds dir's manifest from its data files; call it under the
// writer lock. Every rows file of the directory is read (a crash during a
// compaction can leave two sequences; a row is kept once, by its source,
// generation and ordinal), frame by frame: a frame that does not decode is
// skipped and counted, a torn tail ends a file. The rows are written into
// a new sequence in the current format, with every derived file rebuilt.
// complete is called before the commit, to fill what rows cannot say: how
// far into each transcript its lines were consumed (files with Offset < 0).
// The old files are removed only after the new manifest is committed.
//
// known, if not nil, is a manifest that still reads (the block records were
// what was lost): its per-transcript state and counters are kept.
//
// Rows a forget removed stay removed: the tombstone (forgotten.go) is
// read first, and rows its rules forget are not kept, nor are their
// message identities (a forget killed before its compaction, and rows
// files of a sequence before it, still hold them).
func recoverIndex(dir string, known *manifest.Manifest, warn func(error), complete func(*manifest.Manifest)) (*manifest.Manifest, *Recovered, error) {
	tomb, err := readTombstone(dir)
	if err != nil {
		return nil, nil, err
	}
	files := manifest.RowsFiles(dir)
	if known != nil {
		files = committedRows(files, known)
	}
	if len(files) == 0 {
		return nil, nil, errors.New("recover: no rows file")
	}
	m := manifest.New()
	m.Seq = files[0].Seq + 1
	if err := removeStrays(dir, append(seqsOf(files), m.Seq)...); err != nil {
		return nil, nil, err
	}
	w, err := openNewSequence(dir, m, warn)
	if err != nil {
		return nil, nil, err
	}
	defer w.Close()
	for _, f := range files {
		w.Replaces(f.Name)
	}
	r := &recovery{w: w, seen: map[uint64]bool{}, files: map[string]*recoveredFile{}, rec: &Recovered{}, keyed: map[int][]keyedRow{},
		forget: tomb.Filter(), forgotten: map[uint32]bool{}, forgottenMsgs: MessageRows{}}
	for _, f := range files {
		if err := r.readRowsFile(dir, f); err != nil {
			warn(fmt.Errorf("recover: %w", errpath.Wrap("", filepath.Join(dir, f.Name), err)))
		}
	}
	r.fill(m)
	if known != nil {
		m.TakeFilesOf(known)
		m.Excluded, m.NextGen = known.Excluded, max(m.NextGen, known.NextGen)
	}
	recs, ok := r.keys(dir, files, m, known)
	r.rec.KeysDropped = !ok
	recs = withoutKeys(recs, messageKeys(recs, r.forgotten, r.forgottenMsgs))
	r.rec.Forgotten = r.dropped
	if tomb != nil && len(tomb.Active()) == len(tomb.Rules) {
		// The rows agree with every rule; a pending undo (a lifted
		// rule) is left to the next writer, which reads its
		// transcripts again.
		m.ForgetSerial = tomb.Serial
	}
	complete(m)
	if err := w.appendKeys(recs); err != nil {
		return nil, nil, err
	}
	if err := w.Sync(true); err != nil {
		return nil, nil, err
	}
	if err := manifest.Commit(dir, m); err != nil {
		return nil, nil, err
	}
	if err := w.Publish(); err != nil {
		return m, r.rec, err
	}
	if err := removeStrays(dir, m.Seq); err != nil {
		return m, r.rec, err
	}
	return m, r.rec, removeOldManifests(dir)
}

func seqsOf(files []manifest.RowsFile) []int {
	out := make([]int, len(files))
	for i, f := range files {
		out[i] = f.Seq
	}
	return out
}

// recovery accumulates the rows kept and what they say of each transcript.
type recovery struct {
	w     *RowsWriter
	seen  map[uint64]bool // rows kept, by source, generation and ordinal
	files map[string]*recoveredFile
	rec   *Recovered
	// keyed holds, per rows file (by sequence), the uuids and texts of the last
	// rows read from it that have one, newest last: where its keys file
	// stops being backed by rows (see cutKeys).
	keyed map[int][]keyedRow
	// forget tests rows against the tombstone (nil: none); the
	// generations and messages of the rows it dropped are kept, for
	// their keys to go too.
	forget        *forget.Filter
	forgotten     map[uint32]bool
	forgottenMsgs MessageRows
	// Forgotten counts the rows left out for the tombstone.
	dropped int64
}

// keyedKept is how many of a rows file's last uuids cutKeys may try.
const keyedKept = 64

type recoveredFile struct {
	gens map[uint32]int64 // rows per generation
	last record.Row       // a row of the newest generation: session, project, agent
	line int              // the last line of the newest generation
}

// readRowsFile copies every row of one rows file that decodes and was not
// kept already.
func (r *recovery) readRowsFile(dir string, f manifest.RowsFile) error {
	file, err := os.Open(filepath.Join(dir, f.Name))
	if err != nil {
		return err
	}
	defer file.Close()
	info, err := file.Stat()
	if err != nil {
		return err
	}
	dec, err := snapshot.NewDecoder()
	if err != nil {
		return err
	}
	defer dec.Close()
	r.rec.From = append(r.rec.From, f.Name)
	var buf, raw []byte
	end := info.Size()
	if f.Committed > 0 {
		end = min(end, f.Committed)
	}
	for off, frame := int64(0), 0; off < end; frame++ {
		size, err := zstdFrameSize(file, off, end)
		if err != nil {
			r.rec.LostBytes += end - off // a torn or garbled tail
			return nil
		}
		buf = slices.Grow(buf[:0], int(size))[:size]
		if _, err := file.ReadAt(buf, off); err != nil {
			return fmt.Errorf("read frame at %d: %w", off, err)
		}
		off += size
		raw, err = dec.DecodeAll(buf, raw[:0])
		switch {
		case err != nil:
			r.rec.LostFrames++
			r.rec.LostBytes += size
		case frame > 0:
			if err := r.addFrame(f.Seq, raw); err != nil {
				return err
			}
		}
	}
	return nil
}

// addFrame keeps the rows of one decoded frame of rows file seq.
func (r *recovery) addFrame(seq int, raw []byte) error {
	return eachLineLenient(raw, func(row *record.Row) error {
		if row.UUID != "" {
			r.keyed[seq] = append(r.keyed[seq], keyedRow{row.UUID, row.Text})
			if n := len(r.keyed[seq]); n > 2*keyedKept {
				r.keyed[seq] = append(r.keyed[seq][:0], r.keyed[seq][n-keyedKept:]...)
			}
		}
		id := rowIdentity(row)
		if r.seen[id] {
			return nil
		}
		r.seen[id] = true
		if r.forget.MatchRow(row) {
			r.dropped++
			r.forgotten[row.Gen] = true
			r.forgottenMsgs.Add(row)
			return nil
		}
		r.note(row)
		return r.w.Add(row, 0)
	})
}

// eachLineLenient is eachLine skipping lines that are not rows (the
// header line of an old file, a damaged line).
func eachLineLenient(raw []byte, fn func(*record.Row) error) error {
	for len(raw) > 0 {
		line := raw
		if i := slices.Index(raw, '\n'); i >= 0 {
			line, raw = raw[:i], raw[i+1:]
		} else {
			raw = nil
		}
		row, err := record.ParseRow(line)
		if err != nil {
			continue
		}
		if err := fn(&row); err != nil {
			return err
		}
	}
	return nil
}

func rowIdentity(row *record.Row) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s\x00%d\x00%d", row.Source, row.Gen, row.Ordinal)
	return h.Sum64()
}

func (r *recovery) note(row *record.Row) {
	rf := r.files[row.Source]
	if rf == nil {
		rf = &recoveredFile{gens: map[uint32]int64{}}
		r.files[row.Source] = rf
	}
	rf.gens[row.Gen]++
	r.rec.Rows++
	switch {
	case row.Gen > rf.last.Gen || rf.last.Source == "":
		rf.last, rf.line = *row, row.Line
	case row.Gen == rf.last.Gen:
		rf.line = max(rf.line, row.Line)
	}
}

// fill writes the per-transcript state the rows describe into m. The
// newest generation of each transcript is current; older ones are dead
// (hidden, removed by the next compaction), as they were.
func (r *recovery) fill(m *manifest.Manifest) {
	for path, rf := range r.files {
		cur := slices.Max(slices.Collect(maps.Keys(rf.gens)))
		for gen, n := range rf.gens {
			if gen != cur {
				m.Dead[gen] += n
			}
			m.NextGen = max(m.NextGen, gen+1)
		}
		kind := record.KindMain
		switch {
		case strings.Contains(path, "/subagents/"):
			kind = record.KindSubagent
		case strings.HasPrefix(filepath.Base(path), "agent-"):
			kind = record.KindAgentOld
		}
		m.SetFile(path, &record.FileState{Path: path, Gen: cur, Offset: -1, Lines: rf.line, Rows: rf.gens[cur],
			Session: rf.last.Session, Project: rf.last.Project, Kind: kind, Agent: rf.last.AgentID, Verdict: record.VerdictIndexed})
	}
	r.rec.Files = len(r.files)
}

// keys returns the message identities of the newest keys file that reads,
// limited to the rows it was written with (cutKeys) and to the
// generations kept.
func (r *recovery) keys(dir string, files []manifest.RowsFile, m, known *manifest.Manifest) ([]byte, bool) {
	live := map[uint32]bool{}
	for _, st := range m.Files() {
		live[st.Gen] = true
	}
	for _, f := range files {
		old := &manifest.Manifest{Format: f.Format, Seq: f.Seq}
		data, err := os.ReadFile(filepath.Join(dir, old.KeysName()))
		if err != nil {
			continue
		}
		if f.Format >= 2 {
			if _, err := manifest.ReadHeader(data, manifest.KeysMagic); err != nil {
				continue
			}
		}
		if known != nil && known.Seq == f.Seq && known.KeysBytes <= int64(len(data)) {
			data = keys.Records(data[:known.KeysBytes], f.Format)
		} else {
			data = r.cutKeys(keys.Records(data, f.Format), f.Seq)
		}
		data = data[:len(data)/keys.RecordSize*keys.RecordSize]
		out := make([]byte, 0, len(data))
		for off := 0; off < len(data); off += keys.RecordSize {
			if live[binary.LittleEndian.Uint32(data[off+8:])] {
				out = append(out, data[off:off+keys.RecordSize]...)
			}
		}
		return out, true
	}
	return nil, m.FileCount() == 0
}

// zstdFrameSize returns the size of the zstd frame at off, by walking its
// header and block headers (RFC 8878, section 3.1.1), without decoding.
func zstdFrameSize(r io.ReaderAt, off, size int64) (int64, error) {
	var hdr [18]byte
	n, _ := r.ReadAt(hdr[:], off)
	const magic = 0xFD2FB528
	if n < 6 || binary.LittleEndian.Uint32(hdr[:]) != magic {
		return 0, errors.New("no zstd frame")
	}
	fhd := hdr[4]
	dictIDSize := [4]int64{0, 1, 2, 4}[fhd&3]
	checksum := fhd>>2&1 == 1
	single := fhd>>5&1 == 1
	fcsSize := [4]int64{0, 2, 4, 8}[fhd>>6]
	if fhd>>6 == 0 && single {
		fcsSize = 1
	}
	pos := 5 + dictIDSize + fcsSize
	if !single {
		pos++ // the window descriptor
	}
	for {
		var bh [3]byte
		if _, err := r.ReadAt(bh[:], off+pos); err != nil {
			return 0, errors.New("frame cut short")
		}
		h := uint32(bh[0]) | uint32(bh[1])<<8 | uint32(bh[2])<<16
		last, typ, blockSize := h&1 == 1, h>>1&3, int64(h>>3)
		if typ == 3 {
			return 0, errors.New("reserved block type")
		}
		if typ == 1 {
			blockSize = 1 // RLE: one byte, repeated
		}
		pos += 3 + blockSize
		if off+pos > size {
			return 0, errors.New("frame cut short")
		}
		if last {
			break
		}
	}
	if checksum {
		pos += 4
	}
	if off+pos > size {
		return 0, errors.New("frame cut short")
	}
	return pos, nil
}

// cutKeys drops the key records written past the last rows that reached
// the disk. A run appends a row's key as it adds the row, but the row
// reaches the rows file only with its block's frame: a crash before the
// first commit leaves keys of rows that are not there, and kept, they
// would make those lines look like copies of themselves when read again
// (dropped as forks: lost). Keys are appended in row order, so the records
// backed by rows end at the last one of the last rows read with a uuid.
// When none of the last keyedKept such rows has a record (a key file
// older than its rows), every record is kept.
func (r *recovery) cutKeys(recs []byte, seq int) []byte {
	recs = recs[:len(recs)/keys.RecordSize*keys.RecordSize]
	rows := r.keyed[seq]
	for i := len(rows) - 1; i >= max(0, len(rows)-keyedKept); i-- {
		if end := lastRecordOf(recs, rows[i]); end >= 0 {
			return recs[:end]
		}
	}
	if len(rows) == 0 {
		return nil // no row of this file has a key: no record is backed
	}
	return recs
}

// keyedRow is what a row's key is computed from, but its block.
type keyedRow struct{ uuid, text string }

// lastRecordOf returns the end of the last record holding a key of
// row (any block, under either key rule), -1 for none.
func lastRecordOf(recs []byte, row keyedRow) int {
	cut := make(map[uint64]bool, 512)
	for block := range 256 {
		cut[record.LegacyRowKey(row.uuid, block)] = true
		cut[record.MessageKey(row.uuid, block, row.text)] = true
	}
	for off := len(recs) - keys.RecordSize; off >= 0; off -= keys.RecordSize {
		if cut[binary.LittleEndian.Uint64(recs[off:])] {
			return off + keys.RecordSize
		}
	}
	return -1
}
