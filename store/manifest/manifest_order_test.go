package manifest

import (
	"bytes"
	"testing"

	"github.com/recall-dev/recall/record"
)

// A commit merges the paths added since the manifest was read into the
// order it was read in; the bytes must be those of sorting every path.
func TestManifestEncodeKeepsReadOrder(t *testing.T) {
	base := manifestOf(200)
	cases := []struct {
		name   string
		change func(m *Manifest)
	}{
		{"nothing", func(m *Manifest) {}},
		{"one grown", func(m *Manifest) {
			for _, st := range m.byPath {
				st.Offset++
				break
			}
		}},
		{"added first, middle, last", func(m *Manifest) {
			for _, p := range []string{"/0.jsonl", "/home/dev/.claude/projects/-home-dev-src-project-07/zz.jsonl", "/z.jsonl"} {
				m.byPath[p] = &record.FileState{Path: p, Gen: 7, Kind: record.KindSubagent, Verdict: record.VerdictFork}
			}
		}},
		{"removed", func(m *Manifest) {
			for p := range m.byPath {
				delete(m.byPath, p)
				break
			}
		}},
		{"removed one, added one", func(m *Manifest) {
			for p := range m.byPath {
				delete(m.byPath, p)
				break
			}
			m.byPath["/a.jsonl"] = &record.FileState{Path: "/a.jsonl", Kind: record.KindMain, Verdict: record.VerdictIndexed}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, err := parseManifest(base.encode(), true)
			if err != nil {
				t.Fatal(err)
			}
			if len(m.order) != len(m.byPath) {
				t.Fatalf("order of %d paths kept for %d files", len(m.order), len(m.byPath))
			}
			c.change(m)
			sorted := m.Clone()
			sorted.order = nil
			if got, want := m.encode(), sorted.encode(); !bytes.Equal(got, want) {
				t.Errorf("encoding differs from one with every path sorted")
			}
		})
	}
}
