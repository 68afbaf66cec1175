// Package freshstate is the indexer's freshness state (fresh-v2.tsv in
// the index directory): what the last run saw of the transcript folders
// and of Claude Code's signals, so that the next run finds what changed
// in a handful of system calls. It is a hint, never the truth: a
// missing, damaged or mismatched state only means the next run stats
// every transcript.
package freshstate

import (
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"

	"github.com/recall-dev/recall/store/manifest"

	"github.com/recall-dev/recall/internal/errpath"
	"github.com/recall-dev/recall/internal/tsvfield"
	"github.com/recall-dev/recall/record"
	"github.com/recall-dev/recall/store"
	"github.com/recall-dev/recall/textrules"
)

// freshName is the freshness state: what the last run saw of the
// transcript folders and of Claude Code's signals, so the next run can
// find what changed in a handful of system calls (indexer's quick check).
// It is a hint, never the truth: a missing, damaged or mismatched state
// only means the next run stats every transcript.
const freshName = "fresh-v2.tsv"

// State is the content of freshName.
type State struct {
	Feature uint32 // textrules.FeatureVersion it was written under
	Sources []string
	// Manifest is the committed manifest the state goes with; another
	// one (written by a run that kept no state, or recovered) voids it.
	Manifest manifest.Stamp
	// Forgotten is the tombstone the state goes with (TombstoneID,
	// zero for none): a forget changes it, so the next run looks.
	Forgotten record.FileID
	SweepNs   int64 // when the last full sweep started
	Files     int   // transcripts the manifest held under the sources
	// Dirs are folder mtimes: the roots and project folders. An entry
	// removed or created in one changes its mtime. 0 means "list again".
	Dirs map[string]Dir
	// History is how far each history.jsonl was read, by path.
	History map[string]History
	// Hot are transcripts checked on every run (running or recently
	// written sessions), with the stat the manifest holds for them.
	Hot map[string]record.FileID
}

// Dir is one folder the quick check stats.
type Dir struct {
	Root    bool // a transcript root (its entries are project folders)
	MtimeNs int64
}

// History is how far a history.jsonl was read.
type History struct {
	Dev, Ino uint64
	Offset   int64
	Tail     uint32 // transcript.HistoryTail at Offset: the file was not cut and written again
}

// New is an empty state for the given sources.
func New(sources []string) *State {
	return &State{
		Feature: textrules.FeatureVersion,
		Sources: append([]string(nil), sources...),
		Dirs:    map[string]Dir{},
		History: map[string]History{},
		Hot:     map[string]record.FileID{},
	}
}

// v2: history lines carry the fingerprint of the bytes before the offset.
const freshMagic = "recall-fresh\tv2"

// readFreshState loads dir's freshness state; an error means there is
// none to trust (the caller sweeps).
func readFreshState(dir string) (*State, error) {
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

func parseFresh(data []byte) (*State, error) {
	end := bytes.LastIndex(data, []byte("\nend\t"))
	if !bytes.HasPrefix(data, []byte(freshMagic+"\n")) || end < 0 || !bytes.HasSuffix(data, []byte("\n")) {
		return nil, errors.New("not a freshness state")
	}
	f := splitTabs(bytes.TrimSuffix(data[end+1:], []byte("\n")), nil)
	if err := tsvfield.CheckLine(f, data[:end+1]); err != nil {
		return nil, err
	}
	s := New(nil)
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

func (s *State) parseLine(f [][]byte) error {
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
		s.Dirs[p.str(3)] = Dir{Root: p.int(1) == 1, MtimeNs: p.int(2)}
	case "history":
		s.History[p.str(5)] = History{Dev: uint64(p.int(1)), Ino: uint64(p.int(2)), Offset: p.int(3), Tail: uint32(p.int(4))}
	case "hot":
		id := p.fileID(1)
		s.Hot[p.str(5)] = id
	default:
		return fmt.Errorf("unknown line %q", f[0])
	}
	return p.err
}

// Equal reports whether s and o say the same (Encode gives the same
// bytes for both): what a run that found no change compares before it
// writes the state, without encoding either.
func (s *State) Equal(o *State) bool {
	return s.Feature == o.Feature && slices.Equal(s.Sources, o.Sources) && s.Manifest == o.Manifest &&
		s.Forgotten == o.Forgotten && s.SweepNs == o.SweepNs && s.Files == o.Files &&
		maps.Equal(s.Dirs, o.Dirs) && maps.Equal(s.History, o.History) && maps.Equal(s.Hot, o.Hot)
}

// Encode is the state as written to freshName.
func (s *State) Encode() []byte {
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
func writeFreshState(dir string, s *State) error {
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

// Read reads the index's freshness state.
func Read(ix *store.Index) (*State, error) { return readFreshState(ix.Dir()) }

// Write replaces the index's freshness state; only a run that holds the
// writer lock keeps one.
func Write(w *store.Writer, s *State) error { return writeFreshState(w.Dir(), s) }

// Remove drops the index's freshness state, so that the next run sweeps.
func Remove(w *store.Writer) error { return removeFreshState(w.Dir()) }
