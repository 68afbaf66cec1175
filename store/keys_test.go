package store

import (
	"encoding/binary"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/recall-dev/recall/store/keys"

	"github.com/recall-dev/recall/store/manifest"
)

// keysIndex writes n random key records (keys repeat: the last record of
// a key wins) into a new index's keys file and commits them. It returns
// the writer, the manifest and each key's generation.
func keysIndex(t *testing.T, n int, r *rand.Rand) (string, *RowsWriter, *manifest.Manifest, map[uint64]uint32) {
	t.Helper()
	dir := t.TempDir()
	m := manifest.New()
	w, err := openRowsWriterAt(dir, m, nil)
	must(t, err)
	want := map[uint64]uint32{}
	var recs []byte
	for i := range n {
		key, gen := uint64(r.IntN(n/2)+1), uint32(i)
		recs = binary.LittleEndian.AppendUint64(recs, key)
		recs = binary.LittleEndian.AppendUint32(recs, gen)
		want[key] = gen
	}
	must(t, w.appendKeys(recs))
	must(t, w.Sync(false))
	return dir, w, m, want
}

// appendKey appends one committed key record.
func appendKey(t *testing.T, w *RowsWriter, key uint64, gen uint32) {
	t.Helper()
	var rec [keys.RecordSize]byte
	binary.LittleEndian.PutUint64(rec[:], key)
	binary.LittleEndian.PutUint32(rec[8:], gen)
	must(t, w.appendKeys(rec[:]))
	must(t, w.flushKeys()) // written out, as a commit's Sync does
}

// checkKeys looks every key (and some never written) up in a KeySet, fewer
// than keys.ScanLookups at a time so the index, not the table, answers;
// viaIndex says whether the first load finds the index (a load without
// one builds it).
func checkKeys(t *testing.T, w *RowsWriter, m *manifest.Manifest, want map[uint64]uint32, viaIndex bool) {
	t.Helper()
	var s *keys.Set
	n := 0
	for key, gen := range want {
		if n%keys.ScanLookups == 0 {
			s = w.LoadKeys(m)
			if indexed, _ := s.Indexed(); n == 0 && indexed != viaIndex {
				t.Fatalf("key index used: %v, want %v", indexed, viaIndex)
			}
		}
		n++
		if got, ok := s.Get(key); !ok || got != gen {
			t.Fatalf("key %d = %d, %v; want %d", key, got, ok, gen)
		}
	}
	for _, key := range []uint64{1 << 62, 1<<63 + 5} {
		if _, ok := w.LoadKeys(m).Get(key); ok {
			t.Fatalf("key %d was never written, found", key)
		}
	}
}

// TestKeyIndexAgreesWithKeysFile: the key index, with the records
// appended since it was built, answers as the keys file does; an index of
// a keys file cut since, or with a damaged page, is not believed.
func TestKeyIndexAgreesWithKeysFile(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	dir, w, m, want := keysIndex(t, 6000, r)
	defer w.Close()
	checkKeys(t, w, m, want, false) // the first load builds the index
	checkKeys(t, w, m, want, true)
	// Records appended after the index: the tail, newest first.
	for i := range 300 {
		key := uint64(r.IntN(6000) + 1)
		appendKey(t, w, key, uint32(10000+i))
		want[key] = uint32(10000 + i)
	}
	checkKeys(t, w, m, want, true)

	// A damaged page: the lookups that read it use the keys file.
	path := filepath.Join(dir, keys.IndexName(m))
	data, err := os.ReadFile(path)
	must(t, err)
	data[keys.IndexHeaderSize+5000] ^= 0x40
	must(t, os.WriteFile(path, data, 0o600))
	for key, gen := range want {
		if got, ok := w.LoadKeys(m).Get(key); !ok || got != gen {
			t.Fatalf("with a damaged index page, key %d = %d, %v; want %d", key, got, ok, gen)
		}
	}

	// The keys file cut back (a recovery) and written again with other
	// records: the index of the old file is rebuilt, not used.
	must(t, os.Remove(path))
	checkKeys(t, w, m, want, false)
	m.KeysBytes -= 100 * keys.RecordSize
	must(t, w.uuids.Truncate(m.KeysBytes))
	_, err = w.uuids.Seek(m.KeysBytes, 0)
	must(t, err)
	want = map[uint64]uint32{}
	raw := make([]byte, m.KeysBytes-manifest.HeaderSize)
	_, err = w.uuids.ReadAt(raw, manifest.HeaderSize)
	must(t, err)
	for off := 0; off < len(raw); off += keys.RecordSize {
		want[binary.LittleEndian.Uint64(raw[off:])] = binary.LittleEndian.Uint32(raw[off+8:])
	}
	for i := range 100 {
		key := uint64(7000 + i)
		appendKey(t, w, key, 1)
		want[key] = 1
	}
	if indexed, _ := w.LoadKeys(m).Indexed(); indexed {
		t.Fatal("the index of the keys file before the cut was used")
	}
	checkKeys(t, w, m, want, true)
}

// TestEnsureKeyIndex: a sweep leaves a key index that covers every
// committed key, so the next small run reads no keys file whole.
func TestEnsureKeyIndex(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	_, w, m, want := keysIndex(t, 3000, r)
	defer w.Close()
	keys.EnsureIndex(w.dir, m)
	s := w.LoadKeys(m)
	if indexed, tail := s.Indexed(); !indexed || tail != 0 {
		t.Fatalf("after ensureKeyIndex: index %v, tail of %d records", indexed, tail)
	}
	for i := range keys.TailLimit + 10 {
		appendKey(t, w, uint64(100000+i), 2)
		want[uint64(100000+i)] = 2
	}
	keys.EnsureIndex(w.dir, m)
	if indexed, tail := w.LoadKeys(m).Indexed(); !indexed || tail != 0 {
		t.Fatal("EnsureKeyIndex left an index more than keyTailLimit records behind")
	}
	checkKeys(t, w, m, want, true)
}

// TestPrepareKeyIndexWritesOnlyWhenTold: the last commit of a sweep
// prepares the key index while its manifest is written, and writes it
// only once that commit succeeded: preparing leaves no file, the write
// leaves the index EnsureKeyIndex would, and a current index needs no
// write.
func TestPrepareKeyIndexWritesOnlyWhenTold(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	dir, w, m, want := keysIndex(t, 3000, r)
	defer w.Close()
	path := filepath.Join(dir, keys.IndexName(m))
	write := keys.PrepareIndex(dir, m)
	if write == nil {
		t.Fatal("no key index to write for a keys file without one")
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("preparing the key index wrote it (%v)", err)
	}
	must(t, write())
	prepared, err := os.ReadFile(path)
	must(t, err)
	must(t, os.Remove(path))
	keys.EnsureIndex(dir, m)
	ensured, err := os.ReadFile(path)
	must(t, err)
	if string(prepared) != string(ensured) {
		t.Fatal("the prepared key index differs from ensureKeyIndex's")
	}
	if keys.PrepareIndex(dir, m) != nil {
		t.Fatal("a current key index is prepared again")
	}
	checkKeys(t, w, m, want, true)
}
