package indexer

import (
	"testing"

	"github.com/recall-dev/recall/store"
	"github.com/recall-dev/recall/transcript"
)

// TestPlanMovesLiveCount: the count of live transcripts a quick run
// keeps without reading every manifest entry moves by exactly what plan
// changed: a transcript new, back, replaced while gone (a new file at a
// gone one's path), or gone.
func TestPlanMovesLiveCount(t *testing.T) {
	const root = "/src"
	path := root + "/p/a.jsonl"
	indexed := store.FileState{Path: path, Gen: 1, Dev: 1, Ino: 10, Size: 100, MtimeNs: 5, Offset: 100, Kind: store.KindMain, Verdict: store.VerdictIndexed}
	gone := indexed
	gone.Gone = true
	cases := []struct {
		name  string
		was   *store.FileState // nil: not in the manifest
		found *transcript.FileStat
		want  int
	}{
		{"new", nil, &transcript.FileStat{Dev: 1, Ino: 10, Size: 100, MtimeNs: 5}, 1},
		{"unchanged", &indexed, &transcript.FileStat{Dev: 1, Ino: 10, Size: 100, MtimeNs: 5}, 0},
		{"replaced", &indexed, &transcript.FileStat{Dev: 1, Ino: 11, Size: 50, MtimeNs: 6}, 0},
		{"back", &gone, &transcript.FileStat{Dev: 1, Ino: 10, Size: 100, MtimeNs: 5}, 1},
		{"replaced while gone", &gone, &transcript.FileStat{Dev: 1, Ino: 11, Size: 50, MtimeNs: 6}, 1},
		{"gone", &indexed, nil, -1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := store.NewManifest()
			if c.was != nil {
				st := *c.was
				m.Files[path] = &st
			}
			d := discovery{isGone: func(p string, seen bool) bool { return !seen && p == path }, gone: []string{path}}
			if c.found != nil {
				d.found = []transcript.Transcript{{Path: path, Kind: store.KindMain, Stat: *c.found}}
			}
			var sum Summary
			plan(m, d, []string{root}, &sum)
			if sum.liveDelta != c.want {
				t.Fatalf("liveDelta %d, want %d", sum.liveDelta, c.want)
			}
			before := btoi(c.was != nil && !c.was.Gone)
			if got := liveFiles(m, []string{root}, -1); got != before+c.want {
				t.Fatalf("%d live transcripts after plan, but the count kept moves to %d", got, before+c.want)
			}
		})
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
