package indexer

import (
	"testing"

	"github.com/recall-dev/recall/store/manifest"

	"github.com/recall-dev/recall/record"
	"github.com/recall-dev/recall/transcript"
)

// TestPlanMovesLiveCount: the count of live transcripts a quick run
// keeps without reading every manifest entry moves by exactly what plan
// changed: a transcript new, back, replaced while gone (a new file at a
// gone one's path), or gone.
func TestPlanMovesLiveCount(t *testing.T) {
	const root = "/src"
	path := root + "/p/a.jsonl"
	indexed := record.FileState{Path: path, Gen: 1, Dev: 1, Ino: 10, Size: 100, MtimeNs: 5, Offset: 100, Kind: record.KindMain, Verdict: record.VerdictIndexed}
	gone := indexed
	gone.Gone = true
	cases := []struct {
		name  string
		was   *record.FileState // nil: not in the manifest
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
			m := manifest.New()
			if c.was != nil {
				st := *c.was
				m.SetFile(path, &st)
			}
			d := discovery{isGone: func(p string, seen bool) bool { return !seen && p == path }, gone: []string{path}}
			if c.found != nil {
				d.found = []transcript.Transcript{{Path: path, Kind: record.KindMain, Stat: *c.found}}
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

// TestPlanHandsOutStateAsPlanned: a reader copies the state to continue
// from out of the manifest entry when it starts on a file. A path found
// twice (overlapping sources) is read twice; the committer moves the
// entry after the first read, so the second must still start from the
// state as planned, as a Work built at plan time did.
func TestPlanHandsOutStateAsPlanned(t *testing.T) {
	const root = "/src"
	path := root + "/p/a.jsonl"
	m := manifest.New()
	m.SetFile(path, &record.FileState{Path: path, Gen: 1, Dev: 1, Ino: 10, Size: 100, MtimeNs: 5, Offset: 100, Lines: 3, Kind: record.KindMain, Verdict: record.VerdictIndexed})
	grown := transcript.Transcript{Path: path, Kind: record.KindMain, Session: "s", Stat: transcript.FileStat{Dev: 1, Ino: 10, Size: 150, MtimeNs: 6}}
	d := discovery{found: []transcript.Transcript{grown, grown}, isGone: func(string, bool) bool { return false }}
	var sum Summary
	work, _ := plan(m, d, []string{root}, &sum)
	if len(work) != 2 {
		t.Fatalf("%d files planned, want 2", len(work))
	}
	m.File(path).Offset, m.File(path).Lines = 150, 5 // the first read committed
	for i, keep := range []bool{false, true} {
		w := work[i].work(keep)
		if w.T != grown || w.KeepSecrets != keep {
			t.Fatalf("file %d: transcript %+v, keep secrets %v; want %+v, %v", i, w.T, w.KeepSecrets, grown, keep)
		}
		if i == 1 && (w.State.Offset != 100 || w.State.Lines != 3) {
			t.Fatalf("second read of %s starts at offset %d, line %d; want the state as planned, 100 and 3", path, w.State.Offset, w.State.Lines)
		}
	}
}
