package manifest

import (
	"bytes"
	"errors"
	"os"
	"reflect"
	"testing"

	"github.com/recall-dev/recall/record"
)

// sampleManifest is a manifest with a little of everything.
func sampleManifest() *Manifest {
	m := New()
	m.Seq, m.RowsBytes, m.Frames, m.Rows, m.TextBytes = 3, 169472, 7, 1172, 370724
	m.BlocksBytes, m.KeysBytes, m.KeysCRC, m.EventsBytes, m.EventsCRC = 750, 14064, 0xdeadbeef, 1587, 7
	m.NextGen, m.UpdatedNs = 55, 1795435454740645747
	m.Excluded["acknowledgement"], m.Excluded["copy"] = 17, 35
	m.Dead[4] = 12
	m.byPath["/home/dev/.claude/projects/-home-dev-src-shop/1.jsonl"] = &record.FileState{
		Path: "/home/dev/.claude/projects/-home-dev-src-shop/1.jsonl", Gen: 5, Dev: 2049, Ino: 1234567, Size: 9000,
		MtimeNs: 1795435454740645747, Offset: 9000, Lines: 31, Rows: 12, Session: "11111111-1111-4111-8111-111111111111",
		Project: "/home/dev/src/shop", Kind: record.KindMain, Verdict: record.VerdictIndexed, Tail: record.Fingerprint{CRC: 0xabcdef01, Len: 4096},
	}
	m.byPath["/a\tb\nc\\d.jsonl"] = &record.FileState{Path: "/a\tb\nc\\d.jsonl", Gen: 6, Kind: record.KindSubagent, Agent: "a1", Verdict: record.VerdictFork, Gone: true}
	return m
}

// FuzzParseManifest: any bytes parse as a manifest or fail with
// ErrManifestDamaged (or errNewerIndex), never panic; a manifest that
// parses encodes to bytes that parse to a manifest encoding to the same
// bytes.
func FuzzParseManifest(f *testing.F) {
	enc := sampleManifest().encode()
	f.Add(enc, true)
	f.Add(enc, false)
	f.Add(enc[:len(enc)-10], true)
	f.Add(bytes.Replace(enc, []byte("seq\t3"), []byte("seq\t4"), 1), true)
	if v1, err := os.ReadFile("../testdata/index-v1/manifest-v1.tsv"); err == nil {
		f.Add(v1, true)
	}
	f.Add([]byte("recall-manifest\tv1\nseq\t1\n"), true)
	f.Fuzz(func(t *testing.T, data []byte, whole bool) {
		m, err := parseManifest(data, whole)
		if err != nil {
			if !errors.Is(err, ErrDamaged) && !errors.Is(err, ErrNewerIndex) {
				t.Fatalf("parseManifest: %v is neither ErrManifestDamaged nor errNewerIndex", err)
			}
			return
		}
		enc := m.encode()
		again, err := parseManifest(enc, true)
		if err != nil {
			t.Fatalf("the encoding of a parsed manifest does not parse: %v\n%s", err, enc)
		}
		if enc2 := again.encode(); !bytes.Equal(enc2, enc) {
			t.Fatalf("encoding is not stable:\n%s\nthen\n%s", enc, enc2)
		}
	})
}

// FuzzManifestRoundTrip: a manifest of any names and numbers encodes and
// parses back to itself.
func FuzzManifestRoundTrip(f *testing.F) {
	f.Add(3, int64(169472), "copy", int64(35), uint32(4), "/p/1.jsonl", "11111111", "/home/dev/src/shop", uint32(5), int64(9000), true)
	f.Add(1, int64(-1), "a\tb\\", int64(-9), uint32(0), "\n", "\\t", "", uint32(1<<32-1), int64(1<<62), false)
	f.Fuzz(func(t *testing.T, seq int, rowsBytes int64, reason string, count int64, dead uint32, path, session, project string,
		gen uint32, size int64, gone bool) {
		if seq == 0 {
			return // a manifest always has a sequence
		}
		m := sampleManifest()
		m.Seq, m.RowsBytes = seq, rowsBytes
		m.Excluded[reason] = count
		m.Dead[dead] = count
		m.byPath[path] = &record.FileState{Path: path, Gen: gen, Size: size, Offset: size, Session: session, Project: project,
			Kind: record.KindMain, Verdict: record.VerdictIndexed, Gone: gone, Tail: record.Fingerprint{CRC: gen, Len: int32(gen)}}
		got, err := parseManifest(m.encode(), true)
		if err != nil {
			t.Fatalf("parse: %v\n%s", err, m.encode())
		}
		got.order, m.order = nil, nil // the order read, not state
		if !reflect.DeepEqual(got, m) {
			t.Fatalf("round trip:\n got %+v\nwant %+v", got, m)
		}
	})
}
