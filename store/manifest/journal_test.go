package manifest

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/recall-dev/recall/record"
)

// journaledIndex commits sampleManifest as a checkpoint, then three
// journal commits, each changing one file and the rows length. It
// returns the states committed (after the checkpoint and after each
// record) and the journal's length after each commit.
func journaledIndex(t *testing.T) (dir string, states []*Manifest, ends []int64) {
	t.Helper()
	dir = t.TempDir()
	m := sampleManifest()
	m.Format = FormatVersion
	must(t, Commit(dir, m))
	states = append(states, mustRead(t, dir))
	ends = append(ends, journalLength(t, dir))
	for i := range 3 {
		m, err := ReadLazy(dir)
		must(t, err)
		st := m.File("/home/dev/.claude/projects/-home-dev-src-shop/1.jsonl")
		st.Size += 100
		st.Offset += 100
		st.Lines++
		m.RowsBytes += 1000
		m.Excluded["noise"] = int64(i + 1)
		if i == 1 {
			added := &record.FileState{Path: "/new/" + fmt.Sprint(i) + ".jsonl", Gen: 99, Kind: record.KindMain, Verdict: record.VerdictIndexed}
			m.byPath[added.Path] = added
		}
		must(t, Commit(dir, m))
		states = append(states, mustRead(t, dir))
		ends = append(ends, journalLength(t, dir))
	}
	if _, err := os.Stat(filepath.Join(dir, JournalName)); err != nil || ends[3] == ends[0] {
		t.Fatalf("the commits wrote no journal records (%v)", err)
	}
	return dir, states, ends
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func mustRead(t *testing.T, dir string) *Manifest {
	t.Helper()
	m, err := ReadWhole(dir)
	must(t, err)
	return m
}

func journalLength(t *testing.T, dir string) int64 {
	t.Helper()
	info, err := os.Stat(filepath.Join(dir, JournalName))
	must(t, err)
	return info.Size()
}

// sameState compares what two manifests hold, not how they were read.
func sameState(t *testing.T, got, want *Manifest) {
	t.Helper()
	if got.RowsBytes != want.RowsBytes || got.Epoch != want.Epoch || !reflect.DeepEqual(got.Excluded, want.Excluded) ||
		!reflect.DeepEqual(got.byPath, want.byPath) {
		t.Fatalf("state differs:\n got rows %d excluded %v, %d files\nwant rows %d excluded %v, %d files",
			got.RowsBytes, got.Excluded, len(got.byPath), want.RowsBytes, want.Excluded, len(want.byPath))
	}
}

func TestJournalCommitsReadBack(t *testing.T) {
	dir, states, _ := journaledIndex(t)
	last := states[len(states)-1]
	if last.RowsBytes != states[0].RowsBytes+3000 || last.Excluded["noise"] != 3 || len(last.byPath) != 3 {
		t.Fatalf("after three journal commits: rows %d, noise %d, %d files", last.RowsBytes, last.Excluded["noise"], len(last.byPath))
	}
	// A reader of the head only (a search) sees the last record's head.
	head, err := ReadHead(dir)
	must(t, err)
	if head.RowsBytes != last.RowsBytes || head.Excluded["noise"] != 3 {
		t.Fatalf("head reader: rows %d noise %d, want %d and 3", head.RowsBytes, head.Excluded["noise"], last.RowsBytes)
	}
	// Lookups by path give what a whole read gives, for every path and
	// for one that is not there.
	m, err := ReadLazy(dir)
	must(t, err)
	for path, want := range last.byPath {
		if got := m.File(path); got == nil || *got != *want {
			t.Errorf("File(%q) = %+v, want %+v", path, got, want)
		}
	}
	if m.File("/not/there.jsonl") != nil {
		t.Error("File found a path the manifest does not hold")
	}
}

// TestCheckpointLookupFindsEveryPath: the binary search over a
// checkpoint's sorted lines finds every path, escaped ones included, and
// no other.
func TestCheckpointLookupFindsEveryPath(t *testing.T) {
	dir := t.TempDir()
	m := New()
	var paths []string
	for i := range 3000 {
		p := fmt.Sprintf("/p/%04d/%c.jsonl", i, 'a'+i%26)
		if i%7 == 0 {
			p = fmt.Sprintf("/p/%04d/tab\there\\%d.jsonl", i, i)
		}
		paths = append(paths, p)
		m.byPath[p] = &record.FileState{Path: p, Gen: uint32(i + 1), Kind: record.KindMain, Verdict: record.VerdictIndexed, Size: int64(i)}
	}
	must(t, Commit(dir, m))
	open, err := ReadLazy(dir)
	must(t, err)
	if n := len(open.files.chunks); n < 3 {
		t.Fatalf("%d chunks: the test wants several", n)
	}
	for i, p := range paths {
		if st := open.File(p); st == nil || st.Gen != uint32(i+1) {
			t.Fatalf("File(%q) = %+v", p, st)
		}
	}
	for _, p := range []string{"", "/", "/p/0000", "/p/0250/z.jsonl", "/q"} {
		if open.File(p) != nil {
			t.Errorf("File(%q) found a path that is not there", p)
		}
	}
}

// TestDamagedCheckpointChunk: a chunk of file lines whose checksum fails
// is damage, found by the lookup that reads it (which then answers
// nothing and forbids the commit) and by a whole read.
func TestDamagedCheckpointChunk(t *testing.T) {
	dir := t.TempDir()
	m := New()
	for i := range 3000 {
		p := fmt.Sprintf("/p/%04d.jsonl", i)
		m.byPath[p] = &record.FileState{Path: p, Gen: uint32(i + 1), Kind: record.KindMain, Verdict: record.VerdictIndexed}
	}
	must(t, Commit(dir, m))
	open, err := ReadLazy(dir)
	must(t, err)
	c := open.files.chunks[1]
	path := filepath.Join(dir, Name)
	data, err := os.ReadFile(path)
	must(t, err)
	data[c.off+c.n/2] ^= 0x01
	must(t, os.WriteFile(path, data, 0o600))

	open, err = ReadLazy(dir)
	must(t, err) // the head and the table are intact
	if st := open.File("/p/0000.jsonl"); st == nil || open.Err() != nil {
		t.Fatalf("a path in an intact chunk: %+v, %v", st, open.Err())
	}
	if st := open.File(c.first); st != nil || !errors.Is(open.Err(), ErrDamaged) {
		t.Fatalf("a path in the damaged chunk: %+v, Err %v; want nil and ErrManifestDamaged", st, open.Err())
	}
	if err := Commit(dir, open); !errors.Is(err, ErrDamaged) {
		t.Fatalf("commit after damage was met = %v, want ErrManifestDamaged", err)
	}
	if _, err := ReadWhole(dir); !errors.Is(err, ErrDamaged) {
		t.Fatalf("ReadManifest = %v, want ErrManifestDamaged", err)
	}
	other, err := ReadLazy(dir)
	must(t, err)
	other.LoadAll()
	if !errors.Is(other.Err(), ErrDamaged) {
		t.Fatalf("LoadAll over the damaged chunk: Err %v", other.Err())
	}
}

// TestTornJournalRecordIsIgnored: a last record cut short by a crash was
// never acknowledged; the state is the one before it, and the next
// commit replaces it.
func TestTornJournalRecordIsIgnored(t *testing.T) {
	tears := map[string]func(path string, end int64){
		"cut in the payload": func(path string, end int64) { must(t, os.Truncate(path, end-5)) },
		"cut in the header":  func(path string, _ int64) { cutAfterRecords(t, path, 2, 7) },
		"zero-filled page": func(path string, _ int64) {
			data, err := os.ReadFile(path)
			must(t, err)
			// A record whose length reaches into a page never written.
			rec := appendRecord(nil, bytes.Repeat([]byte("file\tx\n"), 1200))
			at := len(data)
			data = append(data, rec...)
			for i := (at + recordHeaderSize + 4095) / 4096 * 4096; i < len(data); i++ {
				data[i] = 0
			}
			must(t, os.WriteFile(path, data, 0o600))
		},
	}
	for name, tear := range tears {
		t.Run(name, func(t *testing.T) {
			dir, states, ends := journaledIndex(t)
			path := filepath.Join(dir, JournalName)
			tear(path, ends[3])
			want := states[2]
			if name == "zero-filled page" {
				want = states[3]
			}
			got, err := ReadWhole(dir)
			must(t, err)
			sameState(t, got, want)
			// The next commit cuts the torn bytes and appends after the
			// valid records.
			m, err := ReadLazy(dir)
			must(t, err)
			m.RowsBytes++
			must(t, Commit(dir, m))
			again := mustRead(t, dir)
			if again.RowsBytes != want.RowsBytes+1 {
				t.Fatalf("after the next commit rows %d, want %d", again.RowsBytes, want.RowsBytes+1)
			}
		})
	}
}

// cutAfterRecords cuts a journal keep bytes into the record after the
// first n.
func cutAfterRecords(t *testing.T, path string, n int, keep int64) {
	t.Helper()
	data, err := os.ReadFile(path)
	must(t, err)
	j, err := parseJournal(data)
	must(t, err)
	at := int64(journalHeaderSize)
	for _, r := range j.records[:n] {
		at += recordHeaderSize + int64(len(r))
	}
	must(t, os.Truncate(path, at+keep))
}

// TestDamagedJournalRecordIsDamage: a record whose checksum fails and
// that no crash can explain (not the torn end) makes the manifest
// damaged, for the recovery from rows, never a silent step back.
func TestDamagedJournalRecordIsDamage(t *testing.T) {
	for _, record := range []int{0, 1, 2} {
		for _, part := range []string{"payload", "header"} {
			t.Run(fmt.Sprintf("record %d %s", record+1, part), func(t *testing.T) {
				dir, _, ends := journaledIndex(t)
				path := filepath.Join(dir, JournalName)
				data, err := os.ReadFile(path)
				must(t, err)
				at := ends[record]
				if part == "payload" {
					at += recordHeaderSize + 3
				}
				data[at] ^= 0x20
				must(t, os.WriteFile(path, data, 0o600))
				if _, err := ReadWhole(dir); !errors.Is(err, ErrDamaged) {
					t.Fatalf("ReadManifest = %v, want ErrManifestDamaged", err)
				}
				if _, err := ReadHead(dir); !errors.Is(err, ErrDamaged) {
					t.Fatalf("readManifestHead = %v, want ErrManifestDamaged", err)
				}
			})
		}
	}
}

// TestCheckpointCrashPoints: the states a kill leaves between the steps
// of a checkpoint, and of a journal commit, read as one committed state.
func TestCheckpointCrashPoints(t *testing.T) {
	t.Run("checkpoint renamed, its journal not yet started", func(t *testing.T) {
		dir, states, _ := journaledIndex(t)
		old, err := os.ReadFile(filepath.Join(dir, JournalName))
		must(t, err)
		m, err := ReadLazy(dir)
		must(t, err)
		m.RowsBytes += 7
		must(t, m.checkpoint(dir))
		// Put the old epoch's journal back: the kill came before the
		// new one was renamed in.
		must(t, os.WriteFile(filepath.Join(dir, JournalName), old, 0o600))
		got := mustRead(t, dir)
		if got.RowsBytes != states[3].RowsBytes+7 {
			t.Fatalf("rows %d, want the checkpoint's %d: the old journal was applied", got.RowsBytes, states[3].RowsBytes+7)
		}
		// The next commit writes a checkpoint, with a journal of its own.
		m, err = ReadLazy(dir)
		must(t, err)
		m.RowsBytes++
		must(t, Commit(dir, m))
		if got := mustRead(t, dir); got.RowsBytes != states[3].RowsBytes+8 {
			t.Fatalf("rows %d after the next commit, want %d", got.RowsBytes, states[3].RowsBytes+8)
		}
	})
	t.Run("checkpoint renamed, no journal at all", func(t *testing.T) {
		dir, states, _ := journaledIndex(t)
		must(t, os.Remove(filepath.Join(dir, JournalName)))
		m, err := ReadLazy(dir)
		must(t, err)
		if m.RowsBytes != states[0].RowsBytes {
			t.Fatalf("rows %d, want the checkpoint's %d", m.RowsBytes, states[0].RowsBytes)
		}
		// With data files no longer than the checkpoint names, nothing
		// can have been committed past it.
		writeData(t, dir, m, 0)
		must(t, CheckJournal(dir, m))
		// With bytes past it, a journal was lost (or a record torn):
		// damage, for recovery from the rows.
		writeData(t, dir, m, 1)
		if err := CheckJournal(dir, m); !errors.Is(err, ErrDamaged) {
			t.Fatalf("CheckJournal = %v, want ErrManifestDamaged", err)
		}
	})
	t.Run("torn record with data past the last valid one", func(t *testing.T) {
		dir, _, ends := journaledIndex(t)
		must(t, os.Truncate(filepath.Join(dir, JournalName), ends[3]-2))
		m, err := ReadLazy(dir)
		must(t, err)
		writeData(t, dir, m, 1000)
		if err := CheckJournal(dir, m); !errors.Is(err, ErrDamaged) {
			t.Fatalf("CheckJournal = %v, want ErrManifestDamaged", err)
		}
	})
	t.Run("old manifest left beside a checkpoint", func(t *testing.T) {
		dir := t.TempDir()
		m := sampleManifest()
		m.Format = FormatVersion
		old := []byte("recall-manifest\tv2\n")
		must(t, os.WriteFile(filepath.Join(dir, NameFor(2)), old, 0o600))
		must(t, Commit(dir, m))
		if _, err := os.Stat(filepath.Join(dir, NameFor(2))); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("the v2 manifest is still there after a checkpoint (%v): an older recall would read it", err)
		}
	})
}

// writeData makes m's rows file past bytes longer than m commits (and
// the other data files as long as it commits).
func writeData(t *testing.T, dir string, m *Manifest, past int64) {
	t.Helper()
	for _, f := range []struct {
		name string
		n    int64
	}{{m.RowsName(), m.RowsBytes + past}, {m.BlocksName(), m.BlocksBytes}, {m.KeysName(), m.KeysBytes}, {m.EventsName(), m.EventsBytes}} {
		must(t, os.WriteFile(filepath.Join(dir, f.name), make([]byte, f.n), 0o600))
	}
}

// TestJournalIsBounded: commits past journalLimit become a checkpoint,
// and the journal starts over.
func TestJournalIsBounded(t *testing.T) {
	dir := t.TempDir()
	m := sampleManifest()
	m.Format = FormatVersion
	must(t, Commit(dir, m))
	epoch := m.Epoch
	checkpoints := 0
	for i := range 400 {
		m, err := ReadLazy(dir)
		must(t, err)
		m.RowsBytes++
		for k := range 5 {
			p := fmt.Sprintf("/p/%04d/%s.jsonl", i, bytes.Repeat([]byte{'a' + byte(k)}, 100))
			m.byPath[p] = &record.FileState{Path: p, Gen: uint32(i), Kind: record.KindMain, Verdict: record.VerdictIndexed}
		}
		must(t, Commit(dir, m))
		if m.Epoch != epoch {
			checkpoints++
			epoch = m.Epoch
		}
		if n := journalLength(t, dir); n > journalLimit {
			t.Fatalf("journal of %d bytes, bound %d", n, journalLimit)
		}
	}
	if checkpoints == 0 {
		t.Fatal("400 commits never wrote a checkpoint")
	}
	if got := mustRead(t, dir); len(got.byPath) != 2002 || got.RowsBytes != sampleManifest().RowsBytes+400 {
		t.Fatalf("after the commits %d files, rows %d", len(got.byPath), got.RowsBytes)
	}
}

// FuzzParseJournal: any bytes parse as a journal or fail with
// ErrManifestDamaged (or errNewerIndex), never panic; the records found,
// framed again after the header, give back the bytes they were read from.
func FuzzParseJournal(f *testing.F) {
	j := appendJournalHeader(nil, 42)
	j = appendRecord(j, []byte("seq\t1\nrows\t10\t1\t1\n"))
	j = appendRecord(j, []byte("file\t1\t2\t3\t4\t5\t4\t1\t1\ts\t/p\tmain\t\tindexed\t0\t0\t0\t/a.jsonl\n"))
	f.Add(j)
	f.Add(j[:len(j)-3])
	f.Add(append(bytes.Clone(j), make([]byte, 5000)...))
	f.Add(appendJournalHeader(nil, 1))
	f.Add([]byte("RCLJRNL\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := parseJournal(data)
		if err != nil {
			if !errors.Is(err, ErrDamaged) && !errors.Is(err, ErrNewerIndex) {
				t.Fatalf("parseJournal: %v is neither ErrManifestDamaged nor errNewerIndex", err)
			}
			return
		}
		again := bytes.Clone(data[:journalHeaderSize])
		for _, r := range got.records {
			again = appendRecord(again, r)
		}
		if !bytes.Equal(again, data[:got.end]) {
			t.Fatalf("records framed again differ from the %d bytes read", got.end)
		}
		if !got.torn && got.end != int64(len(data)) {
			t.Fatalf("%d bytes past the records, and not torn", int64(len(data))-got.end)
		}
		m := New()
		for _, r := range got.records {
			_ = m.applyRecord(r, true) // any payload: an error, never a panic
		}
	})
}

// TestCheckpointLoadUnderFindsEveryPathOfAFolder: loading a folder's
// entries gives exactly those a whole read has under it, for folders
// inside one chunk, across chunk bounds, at the first and last, with
// escaped paths, and for folders that are prefixes of others' names.
func TestCheckpointLoadUnderFindsEveryPathOfAFolder(t *testing.T) {
	dir := t.TempDir()
	m := New()
	for i := range 3000 {
		p := fmt.Sprintf("/p/%03d/%04d.jsonl", i/40, i)
		if i%7 == 0 {
			p = fmt.Sprintf("/p/%03d/tab\there\\%d.jsonl", i/40, i)
		}
		if i%11 == 0 {
			p = fmt.Sprintf("/p/%03d-other/%04d.jsonl", i/40, i) // shares the folder's name as a prefix
		}
		m.byPath[p] = &record.FileState{Path: p, Gen: uint32(i + 1), Kind: record.KindMain, Verdict: record.VerdictIndexed}
	}
	must(t, Commit(dir, m))
	whole := mustRead(t, dir)
	for _, prefix := range []string{"/p/000/", "/p/001/", "/p/037/", "/p/038-other/", "/p/074/", "/p/", "/q/", "/a/", "/p/0"} {
		open, err := ReadLazy(dir)
		must(t, err)
		if n := len(open.files.chunks); n < 3 {
			t.Fatalf("%d chunks: the test wants several", n)
		}
		got := map[string]record.FileState{}
		for p, st := range open.LoadUnder(prefix) {
			if strings.HasPrefix(p, prefix) {
				got[p] = *st
			}
		}
		want := map[string]record.FileState{}
		for p, st := range whole.byPath {
			if strings.HasPrefix(p, prefix) {
				want[p] = *st
			}
		}
		if !reflect.DeepEqual(got, want) || open.Err() != nil {
			t.Errorf("LoadUnder(%q): %d paths, want %d (err %v)", prefix, len(got), len(want), open.Err())
		}
		if prefix != "/p/" && prefix != "/p/0" && len(open.files.read) == len(open.files.chunks) {
			t.Errorf("LoadUnder(%q) read every chunk", prefix)
		}
	}
}
