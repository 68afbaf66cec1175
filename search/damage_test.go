package search

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/recall-dev/recall/store/snapshot"

	"github.com/recall-dev/recall/filter"
	"github.com/recall-dev/recall/internal/problem"
	"github.com/recall-dev/recall/record"
	"github.com/recall-dev/recall/store"
	"github.com/recall-dev/recall/store/storetest"
)

// TestSearchSkipsDamagedBlock: a rows block that does not decode makes a
// search skip it, count it and keep answering from the rest, by either
// path, instead of failing (before: exit 2, "CRC check failed").
func TestSearchSkipsDamagedBlock(t *testing.T) {
	sessions := genCorpus()
	snap := buildAccelIndex(t, sessions, accelIndex{batches: 1, checkpoint: 64 << 10})
	if len(snap.Blocks) < 4 {
		t.Fatalf("only %d blocks", len(snap.Blocks))
	}
	victim := len(snap.Blocks) / 2
	lost := rowsOfBlock(t, snap, victim)
	storetest.FlipBlockByte(t, snap.Dir, victim)
	damaged, err := store.Open(snap.Dir).Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	defer damaged.Close()
	fellBack := 0
	for _, words := range [][]string{{"deadlock"}, {"pricing", "rules"}, {"the"}} {
		req := Request{Terms: words, Limit: 10, Now: accelNow, Cutoff: true, Window: filter.DefaultWindow()}
		full := req
		full.FullScan = true
		want, err := Run(damaged, full)
		if err != nil {
			t.Fatalf("%v full scan over a damaged block: %v", words, err)
		}
		if ws := want.Stats.Warnings(remedyNamed); want.Stats.Damaged != 1 || len(ws) == 0 || !strings.HasSuffix(ws[0], "[repair]") || strings.Contains(ws[0], "recall ") {
			t.Errorf("%v: damage not reported: %+v", words, want.Stats)
		}
		got, err := Run(damaged, req)
		if err != nil {
			t.Fatalf("%v over a damaged block: %v", words, err)
		}
		// The term index still holds the damaged block's rows: a search
		// that never reads that block ranks from it (its document
		// frequencies count those rows); one that meets it falls back to
		// the scan, and then gives the scan's results.
		if got.Stats.Fallback != nil {
			fellBack++
			if p, ok := problem.Find(got.Stats.Fallback); !ok || p.Remedy != problem.Repair || strings.Contains(p.Error(), "recall ") {
				t.Errorf("%v fell back without naming the repair: %s", words, got.Stats.Fallback)
			}
			compareSessions(t, got.Sessions, want.Sessions)
		}
		for _, res := range []*Result{want, got} {
			for _, s := range res.Sessions {
				for _, m := range s.Messages {
					if slices.Contains(lost, rowPlace(m.Source, m.Line)) {
						t.Errorf("%v shows a row of the damaged block: %s:%d", words, m.Source, m.Line)
					}
				}
			}
		}
	}
	if fellBack == 0 {
		t.Error("no search met the damaged block through the term index: the fallback is untested")
	}
}

// rowPlace names a row by its evidence.
func rowPlace(source string, line int) string { return fmt.Sprintf("%s:%d", source, line) }

// rowsOfBlock returns where block i's rows come from, as source:line.
func rowsOfBlock(t *testing.T, snap *snapshot.Snapshot, i int) []string {
	t.Helper()
	dec, err := snapshot.NewDecoder()
	if err != nil {
		t.Fatal(err)
	}
	defer dec.Close()
	raw, _, err := snap.ReadBlock(dec, &snap.Blocks[i], nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n") {
		if r, err := record.ParseRow([]byte(line)); err == nil {
			out = append(out, rowPlace(r.Source, r.Line))
		}
	}
	return out
}

// remedyNamed words a Repair remedy as a tag a test can look for.
func remedyNamed(p problem.Problem) string {
	if p.Remedy == problem.Repair {
		return " [repair]"
	}
	return " [other]"
}
