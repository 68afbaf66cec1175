package store

import (
	"bytes"
	"testing"
)

// A commit copies the lines of unchanged transcripts as read; the result
// must be byte for byte what encoding every state again gives, whatever
// changed, was added or replaced in between.
func TestManifestEncodeCopiesUnchangedLines(t *testing.T) {
	base := sampleManifest()
	for i := range 50 {
		p := "/p/" + string(rune('a'+i%26)) + string(rune('a'+i/26)) + ".jsonl"
		base.Files[p] = &FileState{Path: p, Gen: uint32(i + 10), Size: int64(i), Offset: int64(i), Kind: KindMain, Verdict: VerdictIndexed}
	}
	cases := []struct {
		name   string
		change func(m *Manifest)
	}{
		{"nothing", func(m *Manifest) {}},
		{"one grown", func(m *Manifest) { m.Files["/p/ca.jsonl"].Offset, m.Files["/p/ca.jsonl"].Size = 99, 99 }},
		{"added first, middle, last", func(m *Manifest) {
			for _, p := range []string{"/0.jsonl", "/p/cz.jsonl", "/z.jsonl"} {
				m.Files[p] = &FileState{Path: p, Gen: 7, Kind: KindSubagent, Verdict: VerdictFork}
			}
		}},
		{"replaced", func(m *Manifest) {
			m.Files["/p/ab.jsonl"] = &FileState{Path: "/p/ab.jsonl", Gen: 500, Kind: KindMain, Verdict: VerdictIndexed}
		}},
		{"removed", func(m *Manifest) { delete(m.Files, "/p/bb.jsonl") }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, err := parseManifest(base.encode(), true)
			if err != nil {
				t.Fatal(err)
			}
			if m.loaded == nil {
				t.Fatal("the lines read were not kept")
			}
			c.change(m)
			fresh := m.clone() // new pointers: nothing is copied
			fresh.loaded, fresh.order = nil, nil
			if got, want := m.encode(), fresh.encode(); !bytes.Equal(got, want) {
				t.Errorf("encoding differs from a full encode:\n%s\nwant\n%s", got, want)
			}
		})
	}
}
