package manifest

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"hash/crc32"
	"hash/maphash"
	"io"
	"io/fs"
	"iter"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"sync"

	"github.com/recall-dev/recall/internal/atomicfile"
	"github.com/recall-dev/recall/internal/problem"
	"github.com/recall-dev/recall/internal/tsvfield"
	"github.com/recall-dev/recall/record"
	"github.com/recall-dev/recall/textrules"
)

// Name is the checkpoint of the committed manifest
// (manifestName(manifestVersion), which a test checks); JournalName holds
// the commits since (journal.go).
const Name = "manifest-v3.tsv"

// Version is the layout of the manifest files, apart from the data
// files' formatVersion:
//
//	1, 2: manifest-v1.tsv, manifest-v2.tsv, replaced whole by every commit
//	   (the version was the data format's).
//	3: manifest-v3.tsv, a checkpoint of format-2 data files, sorted by
//	   path, naming its epoch; commits since are records appended to
//	   manifest-v3.journal. A recall that knows only v2 takes the file
//	   name for a newer format's and refuses the index.
const Version = 3

func NameFor(format int) string { return fmt.Sprintf("manifest-v%d.tsv", format) }

// Manifest is the committed state of the index. It is replaced whole by
// atomic rename, so readers see either the old or the new one.
type Manifest struct {
	Format      int    // layout version the manifest and its files were written in
	Feature     uint32 // textrules.FeatureVersion its derived files were built under (0: unrecorded)
	Seq         int    // data-file sequence: rowdata-v2-<seq>.zst and friends
	RowsBytes   int64  // committed length of the rows file
	BlocksBytes int64
	KeysBytes   int64
	EventsBytes int64
	KeysCRC     uint32 // CRC-32C of the committed keys bytes (format 2 on)
	EventsCRC   uint32 // CRC-32C of the committed events bytes (format 2 on)
	Frames      int
	Rows        int64
	TextBytes   int64 // bytes of the text column, for average message length
	NextGen     uint32
	// KeyRule is the rule (record.KeyRule) of the oldest message keys the
	// index holds: below the current one, a run looks copies up by
	// their older keys too. A manifest without it (written before the
	// rule was recorded, or recovered from the rows) is rule 0.
	KeyRule   int
	UpdatedNs int64
	Excluded  map[string]int64 // reason name → count; AgentExcludedKey → another agent's share
	Dead      map[uint32]int64 // superseded generation → rows it left behind
	// byPath is each transcript's state by path, as far as read: a
	// manifest opened lazily reads its lines on demand (File, Files).
	byPath map[string]*record.FileState
	// Epoch names the checkpoint this state was read from; the journal
	// written for it carries the same epoch (format 3 on).
	Epoch uint64
	// ForgetSerial is the tombstone's Serial (forgotten.go) the rows and
	// the per-transcript state were last made to agree with: a writer
	// that finds the tombstone ahead applies it first (a forget killed
	// after writing it, a recall that knew none).
	ForgetSerial uint64

	// files reads file lines of the checkpoint on demand (OpenManifest);
	// nil once every line is in Files.
	files *lazyFiles
	// base is each file's state as last committed (committedOf), for
	// the journal to write only what changed; nil: the next commit is a
	// checkpoint.
	base map[string]committedState
	// baseSeed seeds the hash of the strings in base (committedOf).
	baseSeed maphash.Seed
	// noBase: the commit of this manifest is the last of its run, so it
	// keeps no base (a full index's last checkpoint spent 30 ms hashing
	// the state of every transcript for a base nothing read).
	noBase bool
	// lineLayout is the layout of the file lines read: the data format
	// up to v2, the v2 layout in every v3 checkpoint and journal.
	lineLayout int
	// journalEnd is where the next journal record goes: the end of the
	// valid records of a journal of this epoch (0: none to append to).
	journalEnd int64
	// journalTorn: the journal ends in a record a crash cut short;
	// journalMissing: a v3 checkpoint without its journal file;
	// journalOther: the journal was of another epoch, and ignored;
	// journalAhead: of a later epoch than the checkpoint read.
	journalTorn, journalMissing, journalOther, journalAhead bool

	// order is the file paths in the order read, which is sorted (as
	// written), or nil: a commit merges in the paths added since instead
	// of sorting every path again (filePaths).
	order []string
	// forceCheckpoint: an entry was removed (RemoveFile), which a
	// journal record cannot say; the next commit is a checkpoint.
	forceCheckpoint bool
}

// SetFile sets the state of the transcript at path.
func (m *Manifest) SetFile(path string, st *record.FileState) { m.byPath[path] = st }

// Files iterates over every transcript's state, reading every line of
// the checkpoint first (LoadAll): a lazily opened manifest cannot be
// ranged over in part by mistake.
func (m *Manifest) Files() iter.Seq2[string, *record.FileState] {
	m.loadAll()
	return maps.All(m.byPath)
}

// TakeFilesOf gives m known's transcript states (a recovery keeps the
// states the last commit vouched for).
func (m *Manifest) TakeFilesOf(known *Manifest) {
	known.loadAll()
	m.byPath = known.byPath
}

// FileCount is how many transcripts m holds, every line read.
func (m *Manifest) FileCount() int {
	m.loadAll()
	return len(m.byPath)
}

// RemoveFile drops path's entry from m: a transcript a forget keeps out
// leaves no line in the manifest. The next commit of m is a checkpoint
// (a journal record only adds and changes entries).
func (m *Manifest) RemoveFile(path string) {
	m.loadAll() // else the checkpoint would read the line back in
	delete(m.byPath, path)
	m.forceCheckpoint = true
}

func New() *Manifest {
	return &Manifest{
		Format:     FormatVersion,
		lineLayout: FormatVersion,
		Feature:    textrules.FeatureVersion,
		Seq:        1,
		NextGen:    1,
		KeyRule:    record.KeyRule,
		Excluded:   map[string]int64{},
		Dead:       map[uint32]int64{},
		byPath:     map[string]*record.FileState{},
	}
}

// DeadRows counts rows hidden because their transcript was replaced.
func (m *Manifest) DeadRows() int64 {
	var n int64
	for _, r := range m.Dead {
		n += r
	}
	return n
}

// compactShare is the share of dead rows (1/compactShare of all rows) past
// which a run compacts. A compaction rewrites every data file, seconds
// for a large index, inside whatever run met the replaced transcript
// (often a search's update); dead rows below the share only cost their
// bytes, as every reader leaves them out.
const compactShare = 8

// CompactionDue reports whether enough rows are dead for a compaction to
// pay for rewriting the index.
func (m *Manifest) CompactionDue() bool {
	dead := m.DeadRows()
	return dead > 0 && dead*compactShare >= m.Rows
}

// RowsName, BlocksName, KeysName and EventsName name the data files of
// the manifest's sequence, in its format. The rows file's name does not
// match `rows-*.zst`: what that glob finds is RowsLinkName alone, which
// points at the rows file of the sequence last published, so that
// `zstdcat rows-*.zst` prints each row once whenever it runs (a rewrite
// replaces the link with one rename; publishRows).
func (m *Manifest) RowsName() string   { return m.dataName("rowdata", "zst") }
func (m *Manifest) BlocksName() string { return m.dataName("blocks", "bin") }
func (m *Manifest) EventsName() string { return m.dataName("events", "tsv") }
func (m *Manifest) KeysName() string {
	if m.Format == 1 {
		return m.dataName("uuids", "bin")
	}
	return m.dataName("keys", "bin")
}

// LegacyRowsName is where a recall before RowsLinkName kept the rows
// file; the first writer to open such an index renames it (FinishPublish).
func (m *Manifest) LegacyRowsName() string { return m.dataName("rows", "zst") }

func (m *Manifest) dataName(kind, ext string) string {
	return fmt.Sprintf("%s-v%d-%06d.%s", kind, m.Format, m.Seq, ext)
}

// cloneMap copies m into a map of its own, never nil (a nil map would
// panic at the copy's first count).
func cloneMap[K comparable, V any](m map[K]V) map[K]V {
	c := make(map[K]V, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

// Clone returns a deep copy, so a run can work on its own copy and commit it.
func (m *Manifest) Clone() *Manifest {
	m.loadAll()
	c := *m
	c.base, c.journalEnd, c.journalTorn = nil, 0, false
	c.Excluded, c.Dead = cloneMap(m.Excluded), cloneMap(m.Dead)
	c.byPath = make(map[string]*record.FileState, len(m.byPath))
	for k, v := range m.byPath {
		fs := *v
		c.byPath[k] = &fs
	}
	return &c
}

// ErrNoManifestYet marks rows found without a manifest: damage, unless
// the first index run is at work (firstBuildInProgress) or committed its
// first manifest while the reader looked. It is ErrManifestDamaged to
// every caller.
var ErrNoManifestYet = fmt.Errorf("%w", ErrDamaged)

// ErrNoIndex is returned when the index directory holds no manifest yet.
var ErrNoIndex = errors.New("no index yet")

// ReadWhole loads dir's committed manifest whole: the checkpoint with
// the journal's records applied, every file line parsed.
func ReadWhole(dir string) (*Manifest, error) { return readManifest(dir, false) }

// ReadLazy loads dir's committed manifest for a writer (under the
// lock): the head, the chunk table and the journal's records are read
// now, a file line of the checkpoint when File asks for its path (or
// LoadAll for every one). Its commits append to the journal what changed.
func ReadLazy(dir string) (*Manifest, error) { return readManifest(dir, true) }

func readManifest(dir string, lazy bool) (*Manifest, error) {
	path := filepath.Join(dir, Name)
	if lazy {
		m, err := openCheckpoint(dir, path)
		if !errors.Is(err, fs.ErrNotExist) {
			return m, err
		}
	}
	return readUnlocked(path, func() (*Manifest, os.FileInfo, error) { return readManifestOnce(dir) })
}

// maxCheckpointRaces bounds how often a reader starts over because a
// checkpoint replaced the one it was reading.
const maxCheckpointRaces = 16

// readUnlocked reads a manifest without the writer lock (a search, a
// stats): when the journal is of another epoch than the checkpoint read
// and a checkpoint has since replaced that one, a writer's checkpoint
// came between reading the two, and the old checkpoint alone lacks the
// records of its journal, commits made before the read began. It reads
// again. A journal of another epoch beside the checkpoint still there is
// what a crash between a checkpoint and its journal leaves: ignored.
// "Still there" cannot rest on the file's identity alone: the replaced
// checkpoint's inode is freed once read, and a later checkpoint's temp
// file may get its number, so a journal of a later epoch than the
// checkpoint read (journalAhead) reads again whatever the file says
// (TestReaderDuringCheckpointSeesCommitted failed about once in 30 runs
// under -race: a reader lost the last two or three commits).
func readUnlocked(path string, read func() (*Manifest, os.FileInfo, error)) (*Manifest, error) {
	for attempt := 0; ; attempt++ {
		m, info, err := read()
		if err != nil || info == nil || !m.journalOther || !(m.journalAhead || replacedSince(path, info)) {
			return m, err
		}
		if attempt == maxCheckpointRaces {
			return nil, fmt.Errorf("read manifest: replaced by %d checkpoints while read; try again", attempt+1)
		}
	}
}

// replacedSince reports whether path no longer names the file info
// describes.
func replacedSince(path string, info os.FileInfo) bool {
	now, err := os.Stat(path)
	return err != nil || !os.SameFile(now, info)
}

// readFileInfo reads path whole, with what identifies the file read.
func readFileInfo(path string) ([]byte, os.FileInfo, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, nil, fmt.Errorf("read manifest: %w", err)
	}
	data, err := io.ReadAll(f)
	return data, info, err
}

// readManifestOnce reads dir's manifest whole: the checkpoint (with the
// file it was read from) and its journal, else an older manifest.
func readManifestOnce(dir string) (*Manifest, os.FileInfo, error) {
	path := filepath.Join(dir, Name)
	data, info, err := readFileInfo(path)
	for format := Version - 1; errors.Is(err, fs.ErrNotExist) && format >= OldestFormat; format-- {
		path = filepath.Join(dir, NameFor(format))
		data, info, err = readFileInfo(path)
	}
	if errors.Is(err, fs.ErrNotExist) {
		if newer := newerFormat(dir); newer != "" {
			return nil, nil, fmt.Errorf("index in %s was written by a newer recall (%s); use that recall: this one will not read or change it, not even to rebuild it", dir, newer)
		}
		if rows := RowsFiles(dir); len(rows) > 0 {
			return nil, nil, problem.Problem{Err: fmt.Errorf("%w: %s holds rows (%s) but no manifest", ErrNoManifestYet, dir, rows[0].Name),
				Remedy: problem.Index, Mends: "recovers the manifest from them"}
		}
		return nil, nil, ErrNoIndex
	}
	if err != nil {
		return nil, nil, fmt.Errorf("read manifest: %w", err)
	}
	m, err := parseManifest(data, true)
	if err != nil {
		return nil, nil, readErr(path, err)
	}
	if err := m.applyJournal(dir, true); err != nil {
		return nil, nil, err
	}
	return m, info, nil
}

// ReadHead loads what a reader needs of dir's committed manifest:
// everything but the file lines, which come last and make up nearly all
// of it. Only the start of the file is read when that holds them all.
func ReadHead(dir string) (*Manifest, error) {
	path := filepath.Join(dir, Name)
	return readUnlocked(path, func() (*Manifest, os.FileInfo, error) {
		f, err := os.Open(path)
		if errors.Is(err, fs.ErrNotExist) {
			m, err := ReadWhole(dir) // an older format, or none: for its messages
			return m, nil, err
		}
		if err != nil {
			return nil, nil, fmt.Errorf("read manifest: %w", err)
		}
		defer f.Close()
		info, err := f.Stat()
		if err != nil {
			return nil, nil, fmt.Errorf("read manifest: %w", err)
		}
		m, err := readHeadFrom(dir, path, f)
		return m, info, err
	})
}

// readHeadFrom reads the head of the checkpoint open as f, then applies
// the last journal record's head.
func readHeadFrom(dir, path string, f *os.File) (*Manifest, error) {
	buf := make([]byte, manifestHeadBytes)
	n, err := io.ReadFull(f, buf)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("read manifest: %w", err)
	}
	head := buf[:n]
	if i := bytes.Index(head, []byte("\nfile\t")); i >= 0 {
		head = head[:i+1]
	} else if n == len(buf) {
		return ReadWhole(dir) // a head this long: read it all
	}
	m, err := parseManifest(head, false)
	if err != nil {
		return nil, readErr(path, err)
	}
	if err := m.applyJournal(dir, false); err != nil {
		return nil, err
	}
	return m, nil
}

// manifestHeadBytes is read first by readManifestHead: the lines before
// the files (counters, exclusions, dead generations) take a few hundred
// bytes unless thousands of generations are dead.
const manifestHeadBytes = 64 << 10

// newerFormat names a manifest of a newer format, if one is there.
func newerFormat(dir string) string {
	names, _ := filepath.Glob(filepath.Join(dir, "manifest-v*.tsv"))
	for _, n := range names {
		var v int
		if _, err := fmt.Sscanf(filepath.Base(n), "manifest-v%d.tsv", &v); err == nil && v > Version {
			return filepath.Base(n)
		}
	}
	return ""
}

const manifestMagic = "recall-manifest"

// ErrDamaged marks a manifest that exists but cannot be trusted:
// a checksum that does not match, a line that does not parse, a file cut
// short. Nothing is deleted for it: `recall index` recovers the manifest
// from the data files (Recover).
var ErrDamaged = errors.New("index manifest damaged")

// Checksum lines of a format-2 manifest: "head" closes the lines before
// the per-file lines (all a search reads), "end" closes the file. Each
// holds the CRC-32C of every byte before it, in hex.
const (
	headChecksum = "head"
	endChecksum  = "end"
)

// ErrNewerIndex marks a manifest or journal that a newer recall wrote:
// the index is refused, neither read as this recall's nor recovered as
// damaged (which would replace what the newer recall wrote).
var ErrNewerIndex = errors.New("written by a newer recall")

// readErr says why the manifest file path did not read, and what to do.
func readErr(path string, err error) error {
	if errors.Is(err, ErrNewerIndex) {
		return fmt.Errorf("%s: %w; use that recall", path, err)
	}
	return manifestProblem(path, err)
}

// parseManifest reads a manifest: all of it (whole), or its head, the lines
// up to and including the head checksum. It runs before every search, so it
// splits lines and fields in place rather than through a scanner.
func parseManifest(data []byte, whole bool) (*Manifest, error) {
	m, err := parseManifestLines(data, whole)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrDamaged, err)
	}
	if m.Format > FormatVersion {
		return nil, fmt.Errorf("%w (data format v%d, this recall reads up to v%d)", ErrNewerIndex, m.Format, FormatVersion)
	}
	return m, nil
}

func parseManifestLines(data []byte, whole bool) (*Manifest, error) {
	m := New()
	m.Feature = 0 // unrecorded unless a feature line says otherwise
	fields := make([][]byte, 0, 16)
	in := interner{}
	sawHead, sawEnd, version := false, false, 0
	for n, at := 1, 0; at < len(data); n++ {
		if sawEnd {
			return nil, fmt.Errorf("line %d: after the end checksum", n)
		}
		line := data[at:]
		next := len(data)
		if i := bytes.IndexByte(line, '\n'); i >= 0 {
			line, next = line[:i], at+i+1
		}
		fields = splitTabs(line, fields[:0])
		switch {
		case n == 1:
			v, ok := manifestFormat(fields)
			if !ok {
				return nil, fmt.Errorf("line 1: not a v%d to v%d manifest", OldestFormat, Version)
			}
			version, m.Format = v, min(v, FormatVersion) // v3 on: a format line says
			m.lineLayout = m.Format
		case string(fields[0]) == headChecksum || string(fields[0]) == endChecksum:
			if err := tsvfield.CheckLine(fields, data[:at]); err != nil {
				return nil, fmt.Errorf("line %d: %w", n, err)
			}
			sawHead = sawHead || string(fields[0]) == headChecksum
			sawEnd = string(fields[0]) == endChecksum
		default:
			if err := m.parseLine(fields, in); err != nil {
				return nil, fmt.Errorf("line %d: %w", n, err)
			}
		}
		at = next
	}
	if version == 0 {
		return nil, errors.New("empty manifest")
	}
	if version >= 2 && (!sawHead || whole && !sawEnd) {
		return nil, errors.New("checksum line missing: the manifest was cut short")
	}
	if m.Seq == 0 {
		return nil, errors.New("empty manifest")
	}
	return m, nil
}

// appendChecksum closes b with a checksum line of the given kind.
func appendChecksum(b []byte, kind string) []byte {
	return fmt.Appendf(b, "%s\t%08x\n", kind, crc32.Checksum(b, manifestCRC))
}

// manifestFormat reads the first line: the magic and a known version.
func manifestFormat(fields [][]byte) (int, bool) {
	if len(fields) != 2 || string(fields[0]) != manifestMagic || len(fields[1]) < 2 || fields[1][0] != 'v' {
		return 0, false
	}
	v, err := strconv.Atoi(string(fields[1][1:]))
	return v, err == nil && v >= OldestFormat && v <= Version
}

func splitTabs(line []byte, dst [][]byte) [][]byte {
	for {
		i := bytes.IndexByte(line, '\t')
		if i < 0 {
			return append(dst, line)
		}
		dst = append(dst, line[:i])
		line = line[i+1:]
	}
}

func (m *Manifest) parseLine(f [][]byte, in interner) error {
	p := fieldParser{f: f, in: in}
	switch string(f[0]) {
	case "seq":
		m.Seq = int(p.int(1))
	case "format":
		m.Format = int(p.int(1))
	case "epoch":
		m.Epoch = uint64(p.int(1))
	case "rows":
		m.RowsBytes, m.Frames, m.Rows = p.int(1), int(p.int(2)), p.int(3)
	case "text":
		m.TextBytes = p.int(1)
	case "blocks":
		m.BlocksBytes = p.int(1)
	case "keys", "uuids": // uuids in format 1
		m.KeysBytes = p.int(1)
		if len(f) > 2 {
			m.KeysCRC = uint32(p.int(2))
		}
	case "feature":
		m.Feature = uint32(p.int(1))
	case "events":
		m.EventsBytes = p.int(1)
		if len(f) > 2 {
			m.EventsCRC = uint32(p.int(2))
		}
	case "nextgen":
		m.NextGen = uint32(p.int(1))
	case "keyrule":
		m.KeyRule = int(p.int(1))
	case "updated":
		m.UpdatedNs = p.int(1)
	case "forgotten":
		m.ForgetSerial = uint64(p.int(1))
	case "excluded":
		m.Excluded[p.str(1)] = p.int(2)
	case "dead":
		m.Dead[uint32(p.int(1))] = p.int(2)
	case "file":
		st := p.fileState(m.lineLayout)
		if p.err == nil {
			m.noteOrder(st.Path)
			m.byPath[st.Path] = st
		}
	default:
		// Unknown keys come from a newer feature version; skip them.
	}
	return p.err
}

// fieldParser reads typed fields and keeps the first error.
type fieldParser struct {
	f   [][]byte
	err error
	in  interner // nil: no interning
}

// interner shares the strings that repeat from file line to file line
// (project, kind, verdict): one allocation each instead of one per line.
type interner map[string]string

// shared is field i as a string, interned when p has an interner.
func (p *fieldParser) shared(i int) string {
	if p.in == nil || !p.has(i) {
		return p.str(i)
	}
	if s, ok := p.in[string(p.f[i])]; ok {
		return s
	}
	s := p.str(i)
	p.in[string(p.f[i])] = s
	return s
}

func (p *fieldParser) has(i int) bool {
	if i < len(p.f) {
		return true
	}
	if p.err == nil {
		p.err = fmt.Errorf("%s: want at least %d fields", p.f[0], i+1)
	}
	return false
}

func (p *fieldParser) str(i int) string {
	if !p.has(i) {
		return ""
	}
	return record.Unescape(p.f[i])
}

// int parses a decimal field without allocating.
func (p *fieldParser) int(i int) int64 {
	if !p.has(i) {
		return 0
	}
	b := p.f[i]
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 19 {
		p.fail(i)
		return 0
	}
	var v int64
	for _, c := range b {
		if c < '0' || c > '9' {
			p.fail(i)
			return 0
		}
		v = v*10 + int64(c-'0')
	}
	if neg {
		v = -v
	}
	return v
}

func (p *fieldParser) fail(i int) {
	if p.err == nil {
		p.err = fmt.Errorf("%s field %d: not a number: %q", p.f[0], i, p.f[i])
	}
}

// File lines: file gen dev ino size mtime offset lines rows session project
// kind agent verdict gone path.
func (p *fieldParser) fileState(format int) *record.FileState {
	if format >= 2 {
		// gen … gone, then the tail fingerprint, then the path.
		st := p.fileStateV1()
		st.Tail = record.Fingerprint{CRC: uint32(p.int(15)), Len: int32(p.int(16))}
		st.Path = p.str(17)
		return st
	}
	return p.fileStateV1()
}

func (p *fieldParser) fileStateV1() *record.FileState {
	return &record.FileState{
		Gen:     uint32(p.int(1)),
		Dev:     uint64(p.int(2)),
		Ino:     uint64(p.int(3)),
		Size:    p.int(4),
		MtimeNs: p.int(5),
		Offset:  p.int(6),
		Lines:   int(p.int(7)),
		Rows:    p.int(8),
		Session: p.str(9),
		Project: p.shared(10),
		Kind:    p.shared(11),
		Agent:   p.str(12),
		Verdict: p.shared(13),
		Gone:    p.str(14) == "1",
		Path:    p.str(15),
	}
}

func (m *Manifest) encode() []byte {
	// Each file line is about 250 bytes; sizing the buffer up front keeps
	// a large manifest from being copied as it grows.
	b := make([]byte, 0, 512+300*len(m.byPath))
	b = appendTSVLine(b, manifestMagic, "v"+strconv.Itoa(Version))
	b = appendTSVLine(b, "format", strconv.Itoa(m.Format))
	b = appendTSVLine(b, "epoch", strconv.FormatUint(m.Epoch, 10))
	b = m.appendHead(b)
	b = appendChecksum(b, headChecksum)
	b = m.appendFileLines(b)
	return appendChecksum(b, endChecksum)
}

// appendTSVLine appends fields, tab-separated, and a newline (the fields
// are escaped already).
func appendTSVLine(b []byte, fields ...string) []byte {
	for i, f := range fields {
		if i > 0 {
			b = append(b, '\t')
		}
		b = append(b, f...)
	}
	return append(b, '\n')
}

// appendHead appends the lines of m's head that every commit restates:
// counters, exclusions, dead generations (a journal record holds them
// too).
func (m *Manifest) appendHead(b []byte) []byte {
	line := func(fields ...string) { b = appendTSVLine(b, fields...) }
	i64 := func(v int64) string { return strconv.FormatInt(v, 10) }
	line("feature", i64(int64(m.Feature)))
	line("seq", strconv.Itoa(m.Seq))
	line("rows", i64(m.RowsBytes), strconv.Itoa(m.Frames), i64(m.Rows))
	line("text", i64(m.TextBytes))
	line("blocks", i64(m.BlocksBytes))
	line("keys", i64(m.KeysBytes), i64(int64(m.KeysCRC)))
	line("events", i64(m.EventsBytes), i64(int64(m.EventsCRC)))
	line("nextgen", i64(int64(m.NextGen)))
	line("keyrule", strconv.Itoa(m.KeyRule))
	line("updated", i64(m.UpdatedNs))
	if m.ForgetSerial > 0 {
		line("forgotten", strconv.FormatUint(m.ForgetSerial, 10))
	}
	for _, name := range sortedKeys(m.Excluded) {
		line("excluded", esc(name), i64(m.Excluded[name]))
	}
	gens := make([]uint32, 0, len(m.Dead))
	for g := range m.Dead {
		gens = append(gens, g)
	}
	sort.Slice(gens, func(i, j int) bool { return gens[i] < gens[j] })
	for _, g := range gens {
		line("dead", i64(int64(g)), i64(m.Dead[g]))
	}
	return b
}

// noteOrder keeps path in m.order while the paths read are in order.
func (m *Manifest) noteOrder(path string) {
	n := len(m.order)
	switch {
	case n == 0 && len(m.byPath) == 0:
		m.order = []string{path}
	case n > 0 && n == len(m.byPath) && m.order[n-1] < path:
		m.order = append(m.order, path)
	default:
		m.order = nil
	}
}

// filePaths is every path of m.byPath in sorted order: the order read,
// with the paths added since merged in.
func (m *Manifest) filePaths() []string {
	if len(m.order) == 0 {
		return sortedKeys(m.byPath)
	}
	if len(m.order) == len(m.byPath) {
		same := true
		for _, p := range m.order {
			if m.byPath[p] == nil {
				same = false
				break
			}
		}
		if same {
			return m.order
		}
	}
	var extra []string
	for p := range m.byPath {
		if i, found := slices.BinarySearch(m.order, p); !found || i < 0 {
			extra = append(extra, p)
		}
	}
	slices.Sort(extra)
	out := make([]string, 0, len(m.byPath))
	i := 0
	for _, p := range m.order {
		if m.byPath[p] == nil {
			continue
		}
		for ; i < len(extra) && extra[i] < p; i++ {
			out = append(out, extra[i])
		}
		out = append(out, p)
	}
	return append(out, extra[i:]...)
}

// appendFileLine appends the manifest line of one transcript's state.
func appendFileLine(b []byte, s *record.FileState) []byte {
	b = append(b, "file\t"...)
	for _, v := range []int64{int64(s.Gen), int64(s.Dev), int64(s.Ino), s.Size, s.MtimeNs, s.Offset, int64(s.Lines), s.Rows} {
		b = strconv.AppendInt(b, v, 10)
		b = append(b, '\t')
	}
	gone := "0"
	if s.Gone {
		gone = "1"
	}
	for _, v := range []string{s.Session, s.Project, s.Kind, s.Agent, s.Verdict, gone} {
		b = tsvfield.Append(b, v)
		b = append(b, '\t')
	}
	b = strconv.AppendUint(b, uint64(s.Tail.CRC), 10)
	b = append(b, '\t')
	b = strconv.AppendInt(b, int64(s.Tail.Len), 10)
	b = append(b, '\t')
	b = tsvfield.Append(b, s.Path)
	return append(b, '\n')
}

func esc(s string) string { return string(tsvfield.Append(nil, s)) }

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Commit writes m durably. A manifest opened by OpenManifest
// appends what changed since its last commit to the journal as one
// checksummed record and fsyncs it; otherwise, or when the journal would
// pass journalLimit, it writes a checkpoint: the whole manifest to a temp
// file, fsync, rename over the old checkpoint, fsync the directory, then
// a new empty journal. A crash at any point leaves the old state or the
// new one, never a mix.
//
// Only a manifest of the current format is ever written: a run over an
// older index rewrites its data files first (Rederive).
func Commit(dir string, m *Manifest) error {
	if m.Format != FormatVersion {
		return fmt.Errorf("commit manifest: format v%d, want v%d", m.Format, FormatVersion)
	}
	if m.files != nil && m.files.err != nil {
		return fmt.Errorf("commit manifest: %w", m.files.err)
	}
	if rec, ok := m.journalRecord(); ok {
		return m.appendJournal(dir, rec)
	}
	return m.checkpoint(dir)
}

// syncDir makes a rename or a file creation in dir durable.
func syncDir(dir string) error { return atomicfile.SyncDir(dir) }

// BlockCount is the number of data blocks the manifest commits: every
// frame but the header frame.
func (m *Manifest) BlockCount() int { return max(m.Frames-1, 0) }

// FileStates are the manifest's transcripts; the head a search reads
// does not hold them, so they are read whole here.
func (m *Manifest) FileStates(dir string) map[string]*record.FileState {
	if len(m.byPath) > 0 {
		return m.byPath
	}
	whole, err := ReadWhole(dir)
	if err != nil {
		return nil
	}
	return whole.byPath
}

// manifestProblem is a manifest file (part) that does not read: the next
// index run recovers it from the rows, which are the truth.
func manifestProblem(part string, err error) error {
	return problem.Problem{Part: part, Err: err, Remedy: problem.Index, Mends: "recovers it from the data files"}
}

// RowsFile is a rows file found in an index directory.
type RowsFile struct {
	Name        string
	Format, Seq int
	Committed   int64 // bytes to read, 0 for all
}

// RowsFiles lists the rows files of formats this recall reads, newest
// sequence first.
func RowsFiles(dir string) []RowsFile {
	entries, _ := os.ReadDir(dir)
	var out []RowsFile
	for _, e := range entries {
		m := rowsFilePattern().FindStringSubmatch(e.Name())
		if m == nil {
			continue
		}
		format, _ := strconv.Atoi(m[1])
		seq, err := strconv.Atoi(m[2])
		if err != nil || format < OldestFormat || format > FormatVersion {
			continue
		}
		out = append(out, RowsFile{Name: e.Name(), Format: format, Seq: seq})
	}
	slices.SortFunc(out, func(a, b RowsFile) int { return cmp.Compare(b.Seq, a.Seq) })
	return out
}

// CommittedRowsName is the name m's committed rows file has now, or its
// own name if it is nowhere.
func CommittedRowsName(dir string, m *Manifest) string {
	if name, _, err := StatRows(dir, m); err == nil {
		return name
	}
	return m.RowsName()
}

// FormatVersion is the on-disk layout version of the data files. It
// appears in their names (rows-v2-…, blocks-v2-…) and in the manifest's
// format line (the manifest's own layout is manifestVersion). A reader
// that meets a newer version refuses the index and asks for `recall
// index --rebuild`; an older one it still reads, and the next
// `recall index` (or search) rewrites it in this layout from its rows.
//
// Changes, one line each:
//
//	1: rows, blocks, uuids and events files; no file records its rules.
//	2: blocks, keys (was uuids) and events files open with a header giving
//	   the format and the feature version (textrules.FeatureVersion) that
//	   built them; the manifest records the feature version too.
const FormatVersion = 2

// OldestFormat is the oldest layout this recall still reads.
const OldestFormat = 1

// PartSuffix ends the name of a data file of a sequence being written
// (a compaction, `recall forget`, `--rebuild`, a recovery) that no
// manifest names yet: `zstdcat rows-*.zst` does not print it, and a run
// that finds one removes it (RemoveStrays), since the writer that made it
// was killed before its commit.
const PartSuffix = ".part"

// RowsPlaces are where m's committed rows file can be, in the order a
// reader tries them: its name; its part name, until the commit that
// publishes it (a rewrite's checkpoints, or a crash just before its
// rename); and the names a recall before RowsLinkName gave it.
func RowsPlaces(m *Manifest) []string {
	name, legacy := m.RowsName(), m.LegacyRowsName()
	return []string{name, name + PartSuffix, legacy, legacy + PartSuffix}
}

// StatRows finds the committed rows file of m (rowsPlaces): its name
// in dir and os.Stat of it, or the error of its first place.
func StatRows(dir string, m *Manifest) (string, fs.FileInfo, error) {
	var first error
	for _, name := range RowsPlaces(m) {
		info, err := os.Stat(filepath.Join(dir, name))
		if err == nil {
			return name, info, nil
		}
		if first == nil {
			first = err
		}
	}
	return "", nil, first
}

// rowsFilePattern is compiled on first use, not at every start of
// recall: only recovery and a missing manifest list rows files. The value
// never changes once made.
var rowsFilePattern = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?:rowdata|rows)-v([0-9]+)-([0-9]+)\.zst(\.part)?$`)
})

// manifestCRC is the Castagnoli table every checksum of the manifest uses.
var manifestCRC = crc32.MakeTable(crc32.Castagnoli)

// OpenRows opens the committed rows file of m, wherever it is
// (RowsPlaces).
func OpenRows(dir string, m *Manifest) (*os.File, error) {
	var first error
	for _, name := range RowsPlaces(m) {
		f, err := os.Open(filepath.Join(dir, name))
		if err == nil {
			return f, nil
		}
		if first == nil {
			first = err
		}
	}
	return nil, first
}

// AgentExcludedKey is the Excluded key of what reason left out of
// another agent's sessions than Claude Code's: "codex:noise". The plain
// reason's count holds every agent's; Claude Code's is what the others
// leave of it (its counts predate theirs).
func AgentExcludedKey(agent, reason string) string { return agent + ":" + reason }
