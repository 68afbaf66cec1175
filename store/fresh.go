package store

import (
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"sort"
	"strconv"

	"github.com/recall-dev/recall/internal/errpath"
	"github.com/recall-dev/recall/record"
	"github.com/recall-dev/recall/textrules"
)

// freshName is the freshness state: what the last run saw of the
// transcript folders and of Claude Code's signals, so the next run can
// find what changed in a handful of system calls (indexer's quick check).
// It is a hint, never the truth: a missing, damaged or mismatched state
// only means the next run stats every transcript.
const freshName = "fresh-v2.tsv"

// FreshState is the content of freshName.
type FreshState struct {
	Feature uint32 // textrules.FeatureVersion it was written under
	Sources []string
	// Manifest is the committed manifest the state goes with; another
	// one (written by a run that kept no state, or recovered) voids it.
	Manifest ManifestStamp
	// Forgotten is the tombstone the state goes with (TombstoneID,
	// zero for none): a forget changes it, so the next run looks.
	Forgotten record.FileID
	SweepNs   int64 // when the last full sweep started
	Files     int   // transcripts the manifest held under the sources
	// Dirs are folder mtimes: the roots and project folders. An entry
	// removed or created in one changes its mtime. 0 means "list again".
	Dirs map[string]DirState
	// History is how far each history.jsonl was read, by path.
	History map[string]HistoryState
	// Hot are transcripts checked on every run (running or recently
	// written sessions), with the stat the manifest holds for them.
	Hot map[string]record.FileID
}

// DirState is one folder the quick check stats.
type DirState struct {
	Root    bool // a transcript root (its entries are project folders)
	MtimeNs int64
}

// HistoryState is how far a history.jsonl was read.
type HistoryState struct {
	Dev, Ino uint64
	Offset   int64
	Tail     uint32 // transcript.HistoryTail at Offset: the file was not cut and written again
}

// ManifestStamp identifies a committed manifest: its checkpoint and its
// journal (ManifestID). A checkpoint changes them both; a journal record
// changes the journal's size.
type ManifestStamp struct {
	Checkpoint, Journal record.FileID
}

// NewFreshState is an empty state for the given sources.
func NewFreshState(sources []string) *FreshState {
	return &FreshState{
		Feature: textrules.FeatureVersion,
		Sources: append([]string(nil), sources...),
		Dirs:    map[string]DirState{},
		History: map[string]HistoryState{},
		Hot:     map[string]record.FileID{},
	}
}

// v2: history lines carry the fingerprint of the bytes before the offset.
const freshMagic = "recall-fresh\tv2"

// readFreshState loads dir's freshness state; an error means there is
// none to trust (the caller sweeps).
func readFreshState(dir string) (*FreshState, error) {
	data, err := os.ReadFile(filepath.Join(dir, freshName))
	if err != nil {
		return nil, err
	}
	s, err := parseFresh(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", freshName, err)
	}
	return s, nil
}

func parseFresh(data []byte) (*FreshState, error) {
	end := bytes.LastIndex(data, []byte("\nend\t"))
	if !bytes.HasPrefix(data, []byte(freshMagic+"\n")) || end < 0 || !bytes.HasSuffix(data, []byte("\n")) {
		return nil, errors.New("not a freshness state")
	}
	f := splitTabs(bytes.TrimSuffix(data[end+1:], []byte("\n")), nil)
	if err := checkSum(f, data[:end+1]); err != nil {
		return nil, err
	}
	s := NewFreshState(nil)
	s.Feature = 0
	var fields [][]byte
	for line := range bytes.SplitSeq(data[len(freshMagic)+1:end], []byte{'\n'}) {
		fields = splitTabs(line, fields[:0])
		if err := s.parseLine(fields); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func (s *FreshState) parseLine(f [][]byte) error {
	p := fieldParser{f: f}
	switch string(f[0]) {
	case "feature":
		s.Feature = uint32(p.int(1))
	case "source":
		s.Sources = append(s.Sources, p.str(1))
	case "manifest":
		s.Manifest.Checkpoint = p.fileID(1)
	case "journal":
		s.Manifest.Journal = p.fileID(1)
	case "forgotten":
		s.Forgotten = p.fileID(1)
	case "sweep":
		s.SweepNs = p.int(1)
	case "files":
		s.Files = int(p.int(1))
	case "dir":
		s.Dirs[p.str(3)] = DirState{Root: p.int(1) == 1, MtimeNs: p.int(2)}
	case "history":
		s.History[p.str(5)] = HistoryState{Dev: uint64(p.int(1)), Ino: uint64(p.int(2)), Offset: p.int(3), Tail: uint32(p.int(4))}
	case "hot":
		id := p.fileID(1)
		s.Hot[p.str(5)] = id
	default:
		return fmt.Errorf("unknown line %q", f[0])
	}
	return p.err
}

func (p *fieldParser) fileID(i int) record.FileID {
	return record.FileID{Dev: uint64(p.int(i)), Ino: uint64(p.int(i + 1)), Size: p.int(i + 2), MtimeNs: p.int(i + 3)}
}

// Encode is the state as written to freshName.
func (s *FreshState) Encode() []byte {
	b := []byte(freshMagic + "\n")
	i64 := strconv.AppendInt
	b = i64(append(b, "feature\t"...), int64(s.Feature), 10)
	b = append(b, '\n')
	for _, src := range s.Sources {
		b = append(appendEscaped(append(b, "source\t"...), src), '\n')
	}
	b = append(appendFileID(append(b, "manifest"...), s.Manifest.Checkpoint), '\n')
	b = append(appendFileID(append(b, "journal"...), s.Manifest.Journal), '\n')
	if s.Forgotten != (record.FileID{}) {
		b = append(appendFileID(append(b, "forgotten"...), s.Forgotten), '\n')
	}
	b = append(i64(append(b, "sweep\t"...), s.SweepNs, 10), '\n')
	b = append(i64(append(b, "files\t"...), int64(s.Files), 10), '\n')
	for _, path := range sortedKeys(s.Dirs) {
		d := s.Dirs[path]
		root := int64(0)
		if d.Root {
			root = 1
		}
		b = i64(append(b, "dir\t"...), root, 10)
		b = i64(append(b, '\t'), d.MtimeNs, 10)
		b = append(appendEscaped(append(b, '\t'), path), '\n')
	}
	for _, path := range sortedKeys(s.History) {
		h := s.History[path]
		b = strconv.AppendUint(append(b, "history\t"...), h.Dev, 10)
		b = strconv.AppendUint(append(b, '\t'), h.Ino, 10)
		b = i64(append(b, '\t'), h.Offset, 10)
		b = strconv.AppendUint(append(b, '\t'), uint64(h.Tail), 10)
		b = append(appendEscaped(append(b, '\t'), path), '\n')
	}
	paths := make([]string, 0, len(s.Hot))
	for p := range s.Hot {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, path := range paths {
		b = appendFileID(append(b, "hot"...), s.Hot[path])
		b = append(appendEscaped(append(b, '\t'), path), '\n')
	}
	return fmt.Appendf(b, "end\t%08x\n", crc32.Checksum(b, crcTable))
}

func appendFileID(b []byte, id record.FileID) []byte {
	for _, v := range []int64{int64(id.Dev), int64(id.Ino), id.Size, id.MtimeNs} {
		b = strconv.AppendInt(append(b, '\t'), v, 10)
	}
	return b
}

// writeFreshState replaces dir's freshness state. It is not synced: a
// state lost or cut short in a crash is detected (checksum) and costs one
// full sweep, and the manifest it names is always committed first.
func writeFreshState(dir string, s *FreshState) error {
	path := filepath.Join(dir, freshName)
	tmp, err := os.CreateTemp(dir, "."+freshName+".*.tmp")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	_, err = tmp.Write(s.Encode())
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err == nil {
		os.Remove(filepath.Join(dir, "fresh-v1.tsv")) // the state of an older recall: no longer read
	}
	if err != nil {
		os.Remove(tmp.Name())
		return errpath.Wrap("write", path, err) // a rename's error names path
	}
	return nil
}

// removeFreshState drops the freshness state, so the next run sweeps.
func removeFreshState(dir string) error {
	err := os.Remove(filepath.Join(dir, freshName))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

// manifestID identifies dir's committed manifest: a checkpoint renames a
// new file over ManifestName and starts a new journal, a journal commit
// makes the journal longer, so every commit changes it. A journal that
// is not there stamps as zero.
func manifestID(dir string) (ManifestStamp, error) {
	cp, err := record.StatID(filepath.Join(dir, ManifestName))
	if err != nil {
		return ManifestStamp{}, err
	}
	j, _ := record.StatID(filepath.Join(dir, JournalName))
	return ManifestStamp{Checkpoint: cp, Journal: j}, nil
}
