package manifest

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/recall-dev/recall/internal/atomicfile"
	"github.com/recall-dev/recall/internal/errpath"
	"github.com/recall-dev/recall/internal/tsvfield"
	"github.com/recall-dev/recall/record"
)

// The manifest journal: a commit that changed a few transcripts appends
// one record (the head, then the file lines that changed) instead of
// rewriting the line of every transcript ever indexed, and a run reads
// the checkpoint's line of a transcript only when it looks that path up.
//
// Layout (little endian): a 24-byte header, "RCLJRNL\0", uint32 version
// (manifestVersion), uint64 epoch of the checkpoint it goes with, uint32
// CRC-32C of the 20 bytes before; then records, each a 12-byte header
// (uint32 payload length, uint32 CRC-32C of the payload, uint32 CRC-32C
// of those 8 bytes) and the payload: manifest lines (journalPayload).
//
// A journal of another epoch than the checkpoint's is left over from a
// crash between writing a checkpoint and starting its journal: the
// checkpoint holds all of it, and it is ignored. A last record cut short
// by a crash (its bytes short of its length, or zero from a page on, as a
// file extended but not written reads) was never acknowledged and is
// ignored. Any other record that fails its checks is damage: the
// manifest is recovered from the rows (ErrManifestDamaged), never
// guessed.

// JournalName is the journal of the checkpoint ManifestName.
const JournalName = "manifest-v3.journal"

// journalLimit bounds the journal: a commit whose record would take it
// past this writes a checkpoint instead. At about 1 KiB a record for a
// one-transcript append that is a checkpoint every few hundred commits,
// and a run never reads more than this of journal.
const journalLimit = 256 << 10

const (
	journalMagic      = "RCLJRNL\x00"
	journalHeaderSize = 24
	recordHeaderSize  = 12
	// maxRecordPayload bounds a record's declared length, so a garbled
	// length never sizes an allocation.
	maxRecordPayload = 1 << 30
)

// journal is what parseJournal found.
type journal struct {
	epoch   uint64
	records [][]byte // payloads of the valid records, in order
	end     int64    // bytes of the header and the valid records
	torn    bool     // a cut-short last record follows end
}

// errJournal wraps a journal that fails its checks.
func errJournal(format string, args ...any) error {
	return fmt.Errorf("%w: journal %s", ErrDamaged, fmt.Sprintf(format, args...))
}

// appendJournalHeader starts a journal for the checkpoint of epoch.
func appendJournalHeader(b []byte, epoch uint64) []byte {
	b = append(b, journalMagic...)
	b = binary.LittleEndian.AppendUint32(b, Version)
	b = binary.LittleEndian.AppendUint64(b, epoch)
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b[len(b)-20:], manifestCRC))
}

// appendRecord frames payload as a journal record.
func appendRecord(b, payload []byte) []byte {
	at := len(b)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(payload)))
	b = binary.LittleEndian.AppendUint32(b, crc32.Checksum(payload, manifestCRC))
	b = binary.LittleEndian.AppendUint32(b, crc32.Checksum(b[at:at+8], manifestCRC))
	return append(b, payload...)
}

// parseJournal checks a journal's header and records.
func parseJournal(data []byte) (journal, error) {
	if len(data) < journalHeaderSize || string(data[:8]) != journalMagic {
		return journal{}, errJournal("header missing")
	}
	if crc32.Checksum(data[:20], manifestCRC) != binary.LittleEndian.Uint32(data[20:]) {
		return journal{}, errJournal("header checksum fails")
	}
	switch v := binary.LittleEndian.Uint32(data[8:]); {
	case v > Version:
		return journal{}, fmt.Errorf("%w (journal v%d, this recall reads v%d)", ErrNewerIndex, v, Version)
	case v != Version:
		return journal{}, errJournal("version v%d, want v%d", v, Version)
	}
	j := journal{epoch: binary.LittleEndian.Uint64(data[12:]), end: journalHeaderSize}
	for at := int64(journalHeaderSize); at < int64(len(data)); {
		rest := data[at:]
		if len(rest) < recordHeaderSize {
			j.torn = true // a header cut short is always the last bytes
			return j, nil
		}
		n, sum := binary.LittleEndian.Uint32(rest), binary.LittleEndian.Uint32(rest[4:])
		if crc32.Checksum(rest[:8], manifestCRC) != binary.LittleEndian.Uint32(rest[8:]) || n > maxRecordPayload {
			if zeroFrom(data, at) {
				j.torn = true
				return j, nil
			}
			return journal{}, errJournal("record at byte %d: header checksum fails", at)
		}
		end := at + recordHeaderSize + int64(n)
		if end > int64(len(data)) {
			j.torn = true
			return j, nil
		}
		payload := data[at+recordHeaderSize : end]
		if crc32.Checksum(payload, manifestCRC) != sum {
			if end == int64(len(data)) && zeroPageTail(data, at+recordHeaderSize) {
				j.torn = true
				return j, nil
			}
			return journal{}, errJournal("record at byte %d: checksum fails", at)
		}
		j.records = append(j.records, payload)
		j.end, at = end, end
	}
	return j, nil
}

// zeroFrom reports whether data is all zero from at on: a file extended
// by a crash before its bytes were written.
func zeroFrom(data []byte, at int64) bool {
	for _, c := range data[at:] {
		if c != 0 {
			return false
		}
	}
	return true
}

// zeroPageTail reports whether the bytes from a page boundary after from
// to the end are all zero: the pages of a record that a crash did not let
// reach the disk.
func zeroPageTail(data []byte, from int64) bool {
	const page = 4096
	z := int64(len(data)) // start of the zero suffix
	for z > from && data[z-1] == 0 {
		z--
	}
	boundary := (z + page - 1) / page * page
	return boundary < int64(len(data))
}

// applyJournal reads dir's journal and applies the records of m's epoch:
// each restates the head and carries the file lines that changed. whole
// also keeps what a writer needs (where to append, the committed state).
func (m *Manifest) applyJournal(dir string, whole bool) error {
	if m.Epoch == 0 {
		return nil // a v1 or v2 manifest: no journal
	}
	data, err := os.ReadFile(filepath.Join(dir, JournalName))
	if errors.Is(err, fs.ErrNotExist) {
		m.journalMissing = true // a crash before the checkpoint's journal, or damage: CheckJournal
		return nil
	}
	if err != nil {
		return fmt.Errorf("read manifest journal: %w", err)
	}
	j, err := parseJournal(data)
	if err != nil {
		return readErr(JournalName, err)
	}
	if j.epoch != m.Epoch {
		// Left by a crash right after a checkpoint, which holds it all;
		// or, to a reader without the lock, a checkpoint that replaced
		// the one it read (readUnlocked).
		m.journalOther = true
		// A checkpoint's journal is written after the checkpoint is in
		// place, so a newer journal means a newer checkpoint.
		m.journalAhead = j.epoch > m.Epoch
		return nil
	}
	for i, rec := range j.records {
		last := i == len(j.records)-1
		if !whole && !last {
			continue // a reader needs only the last head
		}
		if err := m.applyRecord(rec, whole); err != nil {
			return manifestProblem(JournalName, fmt.Errorf("%w: record %d: %w", ErrDamaged, i+1, err))
		}
	}
	m.journalEnd, m.journalTorn = j.end, j.torn
	return nil
}

// applyRecord applies one record's payload: a head that replaces m's, and
// file lines (with files, the state of each path they name).
func (m *Manifest) applyRecord(payload []byte, files bool) error {
	m.Excluded, m.Dead = map[string]int64{}, map[uint32]int64{}
	m.KeyRule = 0 // a record without the line was written by a recall that keyed by rule 0
	fields := make([][]byte, 0, 20)
	for len(payload) > 0 {
		i := bytes.IndexByte(payload, '\n')
		if i < 0 {
			return errors.New("record does not end with a line end")
		}
		line := payload[:i]
		payload = payload[i+1:]
		fields = splitTabs(line, fields[:0])
		if string(fields[0]) != "file" {
			if err := m.parseLine(fields, nil); err != nil {
				return err
			}
			continue
		}
		if !files {
			continue
		}
		p := fieldParser{f: fields}
		st := p.fileState(FormatVersion)
		if p.err != nil {
			return p.err
		}
		m.byPath[st.Path] = st
		if m.base != nil {
			m.base[st.Path] = m.committedOf(st)
		}
	}
	return nil
}

// journalRecord is the record of m's changes since its last commit, or
// false when the commit must be a checkpoint: m was not opened for the
// journal (or lost its base), the journal is not there, or the record
// would take it past journalLimit.
func (m *Manifest) journalRecord() ([]byte, bool) {
	if m.base == nil || m.journalEnd == 0 || m.forceCheckpoint {
		return nil, false
	}
	payload := m.appendHead(make([]byte, 0, 1024))
	// The changed lines are found in map order, and the paths sorted only
	// once they fit: after a first index's intermediate checkpoint,
	// sorting every path only to find the lines past the limit was a
	// fifth of a commit. The record's size does not depend on the order.
	var changed []string
	size := len(payload)
	var line []byte
	for path, st := range m.byPath {
		if was, ok := m.base[path]; ok && was == m.committedOf(st) {
			continue
		}
		line = appendFileLine(line[:0], st)
		size += len(line)
		if m.journalEnd+int64(recordHeaderSize+size) > journalLimit {
			return nil, false
		}
		changed = append(changed, path)
	}
	slices.Sort(changed)
	for _, path := range changed {
		payload = appendFileLine(payload, m.byPath[path])
	}
	return appendRecord(nil, payload), true
}

// appendJournal appends rec to the journal and fsyncs it: the commit. A
// torn record a crash left past the valid ones is cut first.
func (m *Manifest) appendJournal(dir string, rec []byte) error {
	path := filepath.Join(dir, JournalName)
	f, err := os.OpenFile(path, os.O_RDWR, 0o600)
	if err != nil {
		return fmt.Errorf("open manifest journal: %w", err)
	}
	defer f.Close()
	if m.journalTorn {
		if err := f.Truncate(m.journalEnd); err != nil {
			return fmt.Errorf("cut torn journal record: %w", err) // the *fs.PathError names path
		}
	}
	if _, err := f.WriteAt(rec, m.journalEnd); err != nil {
		return m.unappend(f, fmt.Errorf("append to the journal: %w", err))
	}
	if err := f.Sync(); err != nil {
		return m.unappend(f, err)
	}
	if err := f.Close(); err != nil {
		return err
	}
	m.journalEnd += int64(len(rec))
	m.journalTorn = false
	if m.noBase {
		m.base = nil // the next commit, if any, is a checkpoint
		return nil
	}
	for path, st := range m.byPath {
		now := m.committedOf(st)
		if was, ok := m.base[path]; !ok || was != now {
			m.base[path] = now
		}
	}
	return nil
}

// unappend cuts what a failed append wrote of its record, which was
// never acknowledged: left, it reads as a torn record beside data past
// the last commit, which CheckJournal must take for damage, and the run's
// clean-up could not cut the data files back. err is the failure.
func (m *Manifest) unappend(f *os.File, err error) error {
	if terr := f.Truncate(m.journalEnd); terr != nil {
		m.journalTorn = true
		return fmt.Errorf("%w (and cutting the record: %w)", err, terr)
	}
	if serr := f.Sync(); serr != nil {
		m.journalTorn = true
	}
	return err
}

// checkpoint writes m whole under a new epoch, then starts its journal.
// Older manifests are removed before the rename, once the temp file is
// written and synced (a write that fails, on a full disk, leaves them):
// a crash then leaves no manifest, which is recovered from the rows,
// rather than an older one that a recall of another version would take
// for the truth and cut the rows committed since.
func (m *Manifest) checkpoint(dir string) error {
	m.loadAll()
	if m.files != nil && m.files.err != nil {
		return fmt.Errorf("commit manifest: %w", m.files.err)
	}
	epoch := max(m.Epoch+1, uint64(time.Now().UnixNano()))
	prev := m.Epoch
	m.Epoch = epoch
	writeThenRemoveOld := func(tmp *os.File) error {
		if _, err := tmp.Write(m.encode()); err != nil {
			return err // a *fs.PathError: "write TMP: …"
		}
		if err := tmp.Sync(); err != nil {
			return err
		}
		return RemoveOlder(dir)
	}
	if err := atomicfile.Write(filepath.Join(dir, Name), nil, 0o600, writeThenRemoveOld); err != nil {
		m.Epoch = prev
		return err
	}
	m.forceCheckpoint = false
	if err := atomicfile.Write(filepath.Join(dir, JournalName), appendJournalHeader(nil, epoch), 0o600, nil); err != nil {
		// The checkpoint is committed; without its journal the next
		// commit is a checkpoint again.
		m.base, m.journalEnd = nil, 0
		return nil
	}
	m.journalEnd, m.journalTorn = journalHeaderSize, false
	if m.noBase {
		m.base = nil // the next commit, if any, is a checkpoint
		return nil
	}
	m.base = make(map[string]committedState, len(m.byPath))
	for path, st := range m.byPath {
		m.base[path] = m.committedOf(st)
	}
	return nil
}

// RemoveOlder deletes manifests of older versions (and makes it
// durable), so that no recall reads them once this version's is written.
func RemoveOlder(dir string) error {
	removed := false
	for v := OldestFormat; v < Version; v++ {
		err := os.Remove(filepath.Join(dir, NameFor(v)))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove old manifest: %w", err)
		}
		removed = removed || err == nil
	}
	if removed {
		return syncDir(dir)
	}
	return nil
}

// CheckJournal is for a writer about to cut the data files back to m's
// lengths: when the journal is missing or ends in a cut-short record and
// a data file holds bytes past those lengths, the cut record cannot be
// told from one a crash tore before it was acknowledged, and cutting
// could drop committed rows. That is damage (ErrManifestDamaged): the
// manifest is recovered from the rows, which loses nothing.
func CheckJournal(dir string, m *Manifest) error {
	if !m.journalMissing && !m.journalTorn {
		return nil
	}
	for _, f := range []struct {
		name      string
		committed int64
	}{
		{CommittedRowsName(dir, m), m.RowsBytes}, {m.BlocksName(), m.BlocksBytes}, {m.KeysName(), m.KeysBytes}, {m.EventsName(), m.EventsBytes},
	} {
		if info, err := os.Stat(filepath.Join(dir, f.name)); err == nil && info.Size() > f.committed {
			what := "missing"
			if m.journalTorn {
				what = "cut short"
			}
			return fmt.Errorf("%w: the manifest journal is %s and %s holds bytes past what the manifest names", ErrDamaged, what, f.name)
		}
	}
	return nil
}

// lazyFiles reads the file lines of a checkpoint by chunk: the chunk
// table at its end names each chunk's place, checksum and first path.
type lazyFiles struct {
	path   string // the checkpoint
	epoch  uint64
	chunks []fileChunk
	read   map[int][]byte // chunks read and checked
	err    error          // a chunk or line that failed its checks
}

// fileChunk is one chunk of file lines of a checkpoint.
type fileChunk struct {
	off, n int64
	crc    uint32
	first  string // the path of its first line
}

// checkpointChunk is how many bytes of file lines a chunk holds (it ends
// at the first line end past this).
const checkpointChunk = 64 << 10

// appendFileLines appends m's file lines, sorted by path, then the chunk
// table: a chunk line per checkpointChunk bytes of them (offset, length,
// CRC-32C, first path) and a chunks line (the table's offset and CRC-32C).
func (m *Manifest) appendFileLines(b []byte) []byte {
	var chunks []fileChunk
	start, first := len(b), ""
	closeChunk := func() {
		if len(b) > start {
			chunks = append(chunks, fileChunk{off: int64(start), n: int64(len(b) - start), crc: crc32.Checksum(b[start:], manifestCRC), first: first})
		}
		start = len(b)
	}
	for _, path := range m.filePaths() {
		if len(b) == start {
			first = path
		}
		b = appendFileLine(b, m.byPath[path])
		if len(b)-start >= checkpointChunk {
			closeChunk()
		}
	}
	closeChunk()
	table := len(b)
	for _, c := range chunks {
		b = fmt.Appendf(b, "chunk\t%d\t%d\t%08x\t", c.off, c.n, c.crc)
		b = append(tsvfield.Append(b, c.first), '\n')
	}
	return fmt.Appendf(b, "chunks\t%d\t%08x\n", table, crc32.Checksum(b[table:], manifestCRC))
}

// openCheckpoint opens a format-3 checkpoint for OpenManifest without
// reading its file lines: the head (checked by its checksum) from the
// start, the chunk table (checked by its own) from the end, then the
// journal applied. A checkpoint without a chunk table is read whole.
func openCheckpoint(dir, path string) (*Manifest, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("read manifest: %w", err)
	}
	size := info.Size()
	head, headEnd, err := readCheckpointHead(f, size)
	if err != nil {
		return nil, err
	}
	table, tableOK, err := readChunkTable(f, size)
	if err != nil {
		return nil, err
	}
	if headEnd < 0 || !tableOK {
		return openWhole(dir, path) // a long head, no table, or damage: the whole read says which
	}
	m, err := parseManifest(head[:headEnd], false)
	if err != nil {
		return nil, readErr(path, err)
	}
	if m.Epoch == 0 {
		err = errors.New("a v3 manifest without its epoch")
	} else {
		err = table.check(int64(headEnd))
	}
	if err != nil {
		return nil, manifestProblem(path, fmt.Errorf("%w: %w", ErrDamaged, err))
	}
	m.files = &lazyFiles{path: path, epoch: m.Epoch, chunks: table.chunks, read: map[int][]byte{}}
	m.base = map[string]committedState{}
	if err := m.applyJournal(dir, true); err != nil {
		return nil, err
	}
	return m, nil
}

// readCheckpointHead reads the first bytes of a checkpoint and finds the
// end of its head (just past the head checksum line); -1 if the head is
// longer than what was read.
func readCheckpointHead(f *os.File, size int64) (head []byte, end int, err error) {
	head = make([]byte, min(size, manifestHeadBytes))
	if _, err := f.ReadAt(head, 0); err != nil {
		return nil, 0, fmt.Errorf("read manifest: %w", err)
	}
	end = bytes.Index(head, []byte("\nhead\t"))
	if end < 0 {
		return head, -1, nil
	}
	i := bytes.IndexByte(head[end+1:], '\n')
	if i < 0 {
		return head, -1, nil
	}
	return head, end + 1 + i + 1, nil
}

// readChunkTable reads a checkpoint's chunk table from its end: the last
// bytes first, then more if the table is longer; ok is false if it does
// not parse and check.
func readChunkTable(f *os.File, size int64) (table chunkIndex, ok bool, err error) {
	tailLen := min(size, manifestHeadBytes)
	tail := make([]byte, tailLen)
	if _, err := f.ReadAt(tail, size-tailLen); err != nil {
		return chunkIndex{}, false, fmt.Errorf("read manifest: %w", err)
	}
	table, ok = chunkTable(tail, size-tailLen)
	if !ok || table.off >= size-tailLen {
		return table, ok, nil
	}
	whole := make([]byte, size-table.off)
	if _, err := f.ReadAt(whole, table.off); err != nil {
		return chunkIndex{}, false, fmt.Errorf("read manifest: %w", err)
	}
	table, ok = chunkTable(whole, table.off)
	return table, ok, nil
}

// openWhole reads a checkpoint whole for OpenManifest.
func openWhole(dir, path string) (*Manifest, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read manifest: %w", err)
	}
	m, err := parseManifest(data, true)
	if err != nil {
		return nil, readErr(path, err)
	}
	m.base = make(map[string]committedState, len(m.byPath))
	for p, st := range m.byPath {
		m.base[p] = m.committedOf(st)
	}
	if err := m.applyJournal(dir, true); err != nil {
		return nil, err
	}
	return m, nil
}

// chunkIndex is a checkpoint's chunk table.
type chunkIndex struct {
	off    int64 // where the table starts
	chunks []fileChunk
}

// chunkTable finds the chunk table in tail, the end of a checkpoint that
// starts at byte at: the chunks line just before the end line, and the
// chunk lines from the table's offset on, if tail holds them.
func chunkTable(tail []byte, at int64) (chunkIndex, bool) {
	endAt := bytes.LastIndex(tail, []byte("\nend\t"))
	if endAt < 0 {
		return chunkIndex{}, false
	}
	linesAt := bytes.LastIndex(tail[:endAt], []byte("\nchunks\t"))
	if linesAt < 0 {
		return chunkIndex{}, false
	}
	f := splitTabs(tail[linesAt+1:endAt], nil)
	p := fieldParser{f: f}
	off := p.int(1)
	if p.err != nil || len(f) != 3 || off < 0 || off > at+int64(linesAt)+1 {
		return chunkIndex{}, false // a garbled offset: the whole read says what is damaged
	}
	want, err := strconv.ParseUint(string(f[2]), 16, 32)
	if err != nil {
		return chunkIndex{}, false
	}
	ix := chunkIndex{off: off}
	if off < at {
		return ix, true // the caller reads from off
	}
	lines := tail[off-at : linesAt+1]
	if crc32.Checksum(lines, manifestCRC) != uint32(want) {
		return chunkIndex{}, false
	}
	for line := range bytes.Lines(lines) {
		f := splitTabs(bytes.TrimSuffix(line, []byte("\n")), nil)
		p := fieldParser{f: f}
		c := fileChunk{off: p.int(1), n: p.int(2), first: p.str(4)}
		crc, err := strconv.ParseUint(string(f[min(3, len(f)-1)]), 16, 32)
		if p.err != nil || err != nil || string(f[0]) != "chunk" || len(f) != 5 {
			return chunkIndex{}, false
		}
		c.crc = uint32(crc)
		ix.chunks = append(ix.chunks, c)
	}
	return ix, true
}

// check makes sure the chunks tile the file lines, from the end of the
// head to the table, in path order.
func (ix chunkIndex) check(from int64) error {
	at := from
	for i, c := range ix.chunks {
		if c.off != at || c.n <= 0 || i > 0 && ix.chunks[i-1].first >= c.first {
			return fmt.Errorf("chunk %d of the checkpoint does not follow the one before", i)
		}
		at += c.n
	}
	if at != ix.off {
		return errors.New("the checkpoint's chunks do not reach its chunk table")
	}
	return nil
}

// chunk reads and checks chunk i.
func (l *lazyFiles) chunk(i int) []byte {
	if b, ok := l.read[i]; ok {
		return b
	}
	c := l.chunks[i]
	b := make([]byte, c.n)
	f, err := os.Open(l.path)
	if err == nil {
		_, err = f.ReadAt(b, c.off)
		f.Close()
	}
	switch {
	case err != nil:
		l.err = fmt.Errorf("%w: %w", ErrDamaged, errpath.Wrap("read", l.path, err))
		return nil
	case crc32.Checksum(b, manifestCRC) != c.crc || len(b) == 0 || b[len(b)-1] != '\n':
		l.err = fmt.Errorf("%w: %s: chunk at byte %d fails its checksum", ErrDamaged, Name, c.off)
		return nil
	}
	l.read[i] = b
	return b
}

// find returns the state of path in the checkpoint: the chunk whose
// first path is the last at or before it, then a binary search over its
// lines (the path is a line's last field).
func (l *lazyFiles) find(path string) *record.FileState {
	i := sort.Search(len(l.chunks), func(i int) bool { return l.chunks[i].first > path }) - 1
	if i < 0 {
		return nil
	}
	lines := l.chunk(i)
	if lines == nil {
		return nil
	}
	line := findLine(lines, path)
	if line == nil {
		return nil
	}
	return l.parseLine(line)
}

// parseLine parses a file line of the checkpoint; nil, with err set, if
// it is not one.
func (l *lazyFiles) parseLine(line []byte) *record.FileState {
	if !bytes.HasPrefix(line, []byte("file\t")) {
		l.err = fmt.Errorf("%w: %s: a line after the head is not a file line", ErrDamaged, Name)
		return nil
	}
	fp := fieldParser{f: splitTabs(line, nil)}
	st := fp.fileState(FormatVersion)
	if fp.err != nil {
		l.err = fmt.Errorf("%w: %s: %w", ErrDamaged, Name, fp.err)
		return nil
	}
	return st
}

// under returns the states of the checkpoint's paths that start with
// prefix. Sorted, they sit together: the chunks from the last one
// starting at or before prefix to the last one starting with it.
func (l *lazyFiles) under(prefix string) []*record.FileState {
	from := max(sort.Search(len(l.chunks), func(i int) bool { return l.chunks[i].first > prefix })-1, 0)
	var out []*record.FileState
	for i := from; i < len(l.chunks); i++ {
		if c := l.chunks[i]; c.first > prefix && !strings.HasPrefix(c.first, prefix) {
			break // sorted: this chunk and those after start past every path under prefix
		}
		lines := l.chunk(i)
		if lines == nil {
			return nil
		}
		for len(lines) > 0 {
			end := bytes.IndexByte(lines, '\n') // a checked chunk ends with one
			line := lines[:end]
			lines = lines[end+1:]
			if !bytes.Contains(line, []byte(prefix)) && !bytes.Contains(line, []byte{'\\'}) {
				continue // neither its path nor an escaped one can be under prefix
			}
			st := l.parseLine(line)
			if st == nil {
				return nil
			}
			if strings.HasPrefix(st.Path, prefix) {
				out = append(out, st)
			}
		}
	}
	return out
}

// findLine finds the line of path among sorted file lines.
func findLine(lines []byte, path string) []byte {
	lo, hi := 0, len(lines)
	for lo < hi {
		mid := lo + (hi-lo)/2
		start := lo
		if i := bytes.LastIndexByte(lines[lo:mid], '\n'); i >= 0 {
			start = lo + i + 1
		}
		end := start + bytes.IndexByte(lines[start:], '\n')
		if end < start {
			end = len(lines)
		}
		line := lines[start:end]
		p := line[bytes.LastIndexByte(line, '\t')+1:]
		var c int
		if bytes.IndexByte(p, '\\') >= 0 {
			c = strings.Compare(record.Unescape(p), path)
		} else {
			c = bytes.Compare(p, []byte(path))
		}
		switch {
		case c == 0:
			return line
		case c < 0:
			lo = end + 1
		default:
			hi = start
		}
	}
	return nil
}

// File returns the state of path, reading its checkpoint line if it was
// not read yet; nil if the manifest holds no such path. A chunk that
// fails its checks makes Err say so; the run must not commit (Commit
// refuses).
func (m *Manifest) File(path string) *record.FileState {
	if st, ok := m.byPath[path]; ok || m.files == nil {
		return st
	}
	st := m.files.find(path)
	if st == nil || m.files.err != nil {
		return nil
	}
	m.byPath[path] = st
	if m.base != nil {
		m.base[path] = m.committedOf(st)
	}
	return st
}

// Err is the damage met reading file lines on demand, if any: the
// checkpoint is damaged, and what File returned cannot be trusted.
func (m *Manifest) Err() error {
	if m.files != nil {
		return m.files.err
	}
	return nil
}

// Legacy reports a manifest read from an older manifest file (v1, v2),
// which the next commit replaces by a checkpoint: a run commits even
// with nothing new, so the index is upgraded once and later runs get
// the journal and the quick check.
func (m *Manifest) Legacy() bool { return m.Epoch == 0 && m.RowsBytes > 0 }

// Partial reports whether Files holds only the paths read so far.
func (m *Manifest) Partial() bool { return m.files != nil }

// LoadUnder reads the file lines of the paths that start with prefix (a
// folder's, with its separator), so Files holds them, and returns Files
// (where the caller picks them out, with those the journal or this run
// added): a quick run that lists a changed project folder needs that
// folder's entries, not every transcript's. Damage makes Err say so.
func (m *Manifest) LoadUnder(prefix string) map[string]*record.FileState {
	l := m.files
	if l == nil || l.err != nil {
		return m.byPath
	}
	for _, st := range l.under(prefix) {
		if _, ok := m.byPath[st.Path]; ok {
			continue
		}
		m.byPath[st.Path] = st
		if m.base != nil {
			m.base[st.Path] = m.committedOf(st)
		}
	}
	return m.byPath
}

// LoadAll reads every file line, so that File and Files need not read
// the checkpoint again. The paths read or changed so far keep their
// state. The checkpoint is read whole and checked whole; damage makes
// Err say so.
func (m *Manifest) LoadAll() { m.loadAll() }

func (m *Manifest) loadAll() {
	l := m.files
	if l == nil || l.err != nil {
		return
	}
	data, err := os.ReadFile(l.path)
	if err != nil {
		l.err = fmt.Errorf("read manifest: %w", err)
		return
	}
	whole, err := parseManifest(data, true)
	if err == nil && whole.Epoch != l.epoch {
		err = fmt.Errorf("%w: the checkpoint changed while read", ErrDamaged)
	}
	if err != nil {
		l.err = fmt.Errorf("%s: %w", l.path, err)
		return
	}
	for path, st := range whole.byPath {
		if _, ok := m.byPath[path]; ok {
			continue
		}
		m.byPath[path] = st
		if m.base != nil {
			m.base[path] = m.committedOf(st)
		}
	}
	m.files = nil
}
