package indexer

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/recall-dev/recall/store/manifest"

	"github.com/recall-dev/recall/internal/problem"
	"github.com/recall-dev/recall/search"
	"github.com/recall-dev/recall/store"
	"github.com/recall-dev/recall/store/terms"
)

// The fault campaign: an archive (some transcripts deleted after they were
// indexed) meets one injected fault per iteration, then `recall index`
// (and, when the fault hit rows, `recall index --repair`). Every row must
// come back exactly once, except the rows of a damaged block whose
// transcript is gone, which the repair must list. RECALL_FAULT_ITER sets
// the iterations (docs/reliability.md reports a long run).

// fault damages one part of an index. It returns whether rows (not only
// derived data or the manifest) were damaged.
type fault struct {
	name string
	hurt func(t *testing.T, idx string, rng *rand.Rand) (rowsHit bool)
}

func faults() []fault {
	flipIn := func(name func(m *manifest.Manifest) string, skip int64) func(*testing.T, string, *rand.Rand) bool {
		return func(t *testing.T, idx string, rng *rand.Rand) bool {
			m, err := store.Open(idx).Manifest()
			if err != nil {
				t.Fatal(err)
			}
			flipRandomByte(t, filepath.Join(idx, name(m)), skip, rng)
			return false
		}
	}
	return []fault{
		{"delete the manifest", func(t *testing.T, idx string, _ *rand.Rand) bool {
			must(t, os.Remove(filepath.Join(idx, manifest.Name)))
			return false
		}},
		{"cut the manifest short", func(t *testing.T, idx string, rng *rand.Rand) bool {
			path := filepath.Join(idx, manifest.Name)
			info, err := os.Stat(path)
			must(t, err)
			must(t, os.Truncate(path, rng.Int64N(info.Size())))
			return false
		}},
		{"flip a manifest byte", func(t *testing.T, idx string, rng *rand.Rand) bool {
			flipRandomByte(t, filepath.Join(idx, manifest.Name), 0, rng)
			return false
		}},
		{"flip a journal byte", func(t *testing.T, idx string, rng *rand.Rand) bool {
			flipRandomByte(t, filepath.Join(idx, manifest.JournalName), 0, rng)
			return false
		}},
		{"cut the journal short", func(t *testing.T, idx string, rng *rand.Rand) bool {
			path := filepath.Join(idx, manifest.JournalName)
			info, err := os.Stat(path)
			must(t, err)
			must(t, os.Truncate(path, rng.Int64N(info.Size())))
			return false
		}},
		{"delete the journal", func(t *testing.T, idx string, _ *rand.Rand) bool {
			must(t, os.Remove(filepath.Join(idx, manifest.JournalName)))
			return false
		}},
		{"flip a rows byte", func(t *testing.T, idx string, rng *rand.Rand) bool {
			m, err := store.Open(idx).Manifest()
			must(t, err)
			snap, err := store.Open(idx).Snapshot()
			must(t, err)
			b := snap.Blocks[rng.IntN(len(snap.Blocks))]
			snap.Close()
			path := filepath.Join(idx, m.RowsName())
			data, err := os.ReadFile(path)
			must(t, err)
			data[b.Offset+rng.Int64N(b.Size)] ^= byte(1 + rng.IntN(255))
			must(t, os.WriteFile(path, data, 0o600))
			return true
		}},
		{"flip a block-record byte", flipIn(func(m *manifest.Manifest) string { return m.BlocksName() }, 16)},
		{"flip a keys byte", flipIn(func(m *manifest.Manifest) string { return m.KeysName() }, 0)},
		{"flip an events byte", flipIn(func(m *manifest.Manifest) string { return m.EventsName() }, 0)},
		{"flip a term segment byte", func(t *testing.T, idx string, rng *rand.Rand) bool {
			refs, err := store.Open(idx).TermRefs()
			must(t, err)
			flipRandomByte(t, refs[rng.IntN(len(refs))].Path(idx), 0, rng)
			return false
		}},
		{"delete a term segment", func(t *testing.T, idx string, rng *rand.Rand) bool {
			refs, err := store.Open(idx).TermRefs()
			must(t, err)
			must(t, os.Remove(refs[rng.IntN(len(refs))].Path(idx)))
			return false
		}},
		{"delete the block records", func(t *testing.T, idx string, _ *rand.Rand) bool {
			m, err := store.Open(idx).Manifest()
			must(t, err)
			must(t, os.Remove(filepath.Join(idx, m.BlocksName())))
			return false
		}},
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// flipRandomByte changes one byte of a file at or after skip.
func flipRandomByte(t *testing.T, path string, skip int64, rng *rand.Rand) {
	t.Helper()
	data, err := os.ReadFile(path)
	must(t, err)
	if int64(len(data)) <= skip {
		return
	}
	data[skip+rng.Int64N(int64(len(data))-skip)] ^= byte(1 + rng.IntN(255))
	must(t, os.WriteFile(path, data, 0o600))
}

// faultTally is what the campaign counts.
type faultTally struct {
	iterations, lost, duplicated, wrong, listedLost int64
	byFault                                         map[string]int
}

func TestFaultCampaign(t *testing.T) {
	iterations := 20
	if n, err := strconv.Atoi(os.Getenv("RECALL_FAULT_ITER")); err == nil && n > 0 {
		iterations = n
	}
	rng := rand.New(rand.NewPCG(7, uint64(iterations)))
	tally := faultTally{byFault: map[string]int{}}
	all := faults()
	for i := range iterations {
		f := all[i%len(all)]
		tally.byFault[f.name]++
		runFault(t, f, rng, &tally)
	}
	t.Logf("fault campaign: %d iterations %v; rows lost unlisted %d, duplicated %d, wrong searches %d; rows of deleted transcripts in damaged blocks (listed by the repair) %d",
		tally.iterations, tally.byFault, tally.lost, tally.duplicated, tally.wrong, tally.listedLost)
	if tally.lost+tally.duplicated+tally.wrong > 0 {
		t.Errorf("lost %d, duplicated %d, wrong %d", tally.lost, tally.duplicated, tally.wrong)
	}
}

// runFault builds an archive, injects f, lets recall index (and repair)
// and compares the rows with the archive's.
func runFault(t *testing.T, f fault, rng *rand.Rand, tally *faultTally) {
	t.Helper()
	src, idx := t.TempDir(), t.TempDir()
	writeCrashCorpus(t, src, 12, 40, rng)
	runIndexOpts(t, src, idx, 30000) // several blocks and segments
	var gone []string
	for s := range 12 {
		if rng.IntN(3) == 0 {
			path := filepath.Join(src, fmt.Sprintf("-home-dev-p%d", s%4), fmt.Sprintf("sess-%d.jsonl", s))
			must(t, os.Remove(path))
			gone = append(gone, path)
		}
	}
	runIndex(t, src, idx, "")
	before := rowLines(liveRows(t, idx), src)
	rowsHit := f.hurt(t, idx, rng)
	tally.iterations++
	if !searchAfterFault(t, idx) {
		tally.wrong++
		t.Errorf("%s: a search over the damaged index failed without naming its fix", f.name)
	}

	opts := Options{Config: Config{Sources: []string{src}, IndexDir: idx}, Warn: func(string) {}}
	if _, err := Run(opts); err != nil && !rowsHit {
		t.Errorf("%s: index: %v", f.name, err)
		return
	}
	opts.Repair = true
	sum, err := Run(opts)
	if err != nil {
		t.Errorf("%s: index --repair: %v", f.name, err)
		return
	}
	after := rowLines(liveRows(t, idx), src)
	expected := before
	if sum.Repair != nil && len(sum.Repair.Lost) > 0 {
		// Only a transcript deleted from disk can lose rows: the repair
		// re-reads every other one.
		for path := range sum.Repair.Lost {
			if !slices.Contains(gone, path) {
				tally.lost++
				t.Errorf("%s: the repair lists %s as lost, but it is on disk", f.name, path)
			}
		}
		expected = slices.DeleteFunc(slices.Clone(before), func(r string) bool { return rowFromLost(r, src, sum.Repair.Lost) })
		tally.listedLost += int64(len(before) - len(expected))
	}
	lost, dup := diffRows(expected, after)
	tally.lost += lost
	tally.duplicated += dup
	if lost+dup > 0 {
		t.Errorf("%s: %d rows lost, %d duplicated", f.name, lost, dup)
	}
	if d, err := store.Open(idx).Verify(); err != nil || !d.None() {
		tally.wrong++
		t.Errorf("%s: after repair the index does not verify: %+v, %v", f.name, d, err)
	}
	if refs, _ := store.Open(idx).TermRefs(); len(refs) > 0 {
		m, _ := store.Open(idx).Manifest()
		if _, covered := terms.Cover(refs, m.Seq, m.BlockCount()); covered != m.BlockCount() {
			tally.wrong++
			t.Errorf("%s: the term index covers %d of %d blocks after repair", f.name, covered, m.BlockCount())
		}
	}
}

// searchAfterFault runs a search over the damaged index, both ways: it
// must answer (from what reads) or fail with the command that fixes it.
func searchAfterFault(t *testing.T, idx string) bool {
	t.Helper()
	snap, err := store.Open(idx).Snapshot()
	if err != nil {
		p, ok := problem.Find(err)
		return ok && (p.Remedy == problem.Index || p.Remedy == problem.Repair)
	}
	defer snap.Close()
	var ranked [2]string
	for i, full := range []bool{false, true} {
		req := search.Request{Terms: []string{"deadlock", "retry"}, Limit: 10, FullScan: full, Cutoff: true, Now: time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)}
		res, err := search.Run(snap, req)
		if err != nil {
			t.Logf("search (full scan %v): %v", full, err)
			return false
		}
		if res.Stats.Damaged > 0 {
			return true // rows unread on one path: the rankings may differ, and the user is told
		}
		for _, s := range res.Sessions {
			ranked[i] += fmt.Sprintf("%s %.12g\n", s.ID, s.Score)
		}
	}
	if ranked[0] != ranked[1] {
		t.Logf("the term index ranks\n%s\nthe rows rank\n%s", ranked[0], ranked[1])
		return false
	}
	return true
}

// rowFromLost reports whether a row line (as rowLines renders it) came
// from one of the transcripts the repair listed as lost.
func rowFromLost(row, src string, lost map[string]int64) bool {
	for path := range lost {
		if strings.Contains(row, "\t"+strings.Replace(path, src, "$SRC", 1)+"\t") {
			return true
		}
	}
	return false
}

// diffRows counts rows of want missing from got, and rows of got beyond
// their count in want.
func diffRows(want, got []string) (lost, dup int64) {
	count := map[string]int{}
	for _, r := range want {
		count[r]++
	}
	for _, r := range got {
		count[r]--
	}
	for _, n := range count {
		if n > 0 {
			lost += int64(n)
		} else {
			dup -= int64(n)
		}
	}
	return lost, dup
}
