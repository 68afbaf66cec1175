package indexer

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/recall-dev/recall/record"
	"github.com/recall-dev/recall/store"

	"github.com/recall-dev/recall/store/terms"
)

// runIndexOpts is runIndex with a checkpoint size: 1 commits after every
// transcript, so each transcript ends a block and a term segment.
func runIndexOpts(t testing.TB, src, idx string, checkpoint int64) Summary {
	t.Helper()
	var warnings []string
	sum, err := Run(Options{
		Config:          Config{Sources: []string{src}, IndexDir: idx},
		Warn:            func(s string) { warnings = append(warnings, s) },
		CheckpointBytes: checkpoint,
	})
	if err != nil {
		t.Fatalf("index: %v (warnings %q)", err, warnings)
	}
	for _, w := range warnings {
		if strings.Contains(w, "term index") {
			t.Errorf("term index warning: %s", w)
		}
	}
	return sum
}

func mustTermsRefs(t testing.TB, idx string) []terms.Ref {
	t.Helper()
	refs, err := store.Open(idx).TermRefs()
	if err != nil {
		t.Fatal(err)
	}
	return refs
}

// checkTerms checks the term index of the committed snapshot: the
// segments on disk are exactly a complete cover of the committed blocks,
// the snapshot opens them all, and each segment describes its blocks row
// for row (count, session, project, time, type, generation, text length
// and raw bytes). It returns the cover.
func checkTerms(t testing.TB, idx string) []terms.Ref {
	t.Helper()
	m, err := store.Open(idx).Manifest()
	if err != nil {
		t.Fatal(err)
	}
	blocks := m.BlockCount()
	refs := mustTermsRefs(t, idx)
	cover, covered := terms.Cover(refs, m.Seq, blocks)
	if covered != blocks {
		t.Fatalf("segments %v cover %d of %d blocks", names(refs), covered, blocks)
	}
	if len(refs) != len(cover) {
		t.Errorf("segments on disk %v, but the cover is %v: leftovers", names(refs), names(cover))
	}
	snap, err := store.Open(idx).Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	if len(snap.Blocks) != blocks {
		t.Fatalf("snapshot has %d blocks, manifest %d", len(snap.Blocks), blocks)
	}
	segs, why := snap.TermSegments()
	if blocks > 0 && segs == nil {
		t.Fatalf("TermSegments: %s", why)
	}
	if blocks > 0 && len(segs) != len(cover) {
		t.Fatalf("TermSegments opened %d segments, want %d (%v)", len(segs), len(cover), names(cover))
	}
	var infos []terms.RowInfo
	var keys []terms.Key
	for i, seg := range segs {
		if seg.Ref != cover[i] {
			t.Errorf("segment %d is %s, want %s", i, seg.Name, cover[i].Name)
		}
		rows, raw := 0, int64(0)
		for b := seg.First; b < seg.End; b++ {
			rows += snap.Blocks[b].Rows
			raw += snap.Blocks[b].RawSize
		}
		if seg.Rows() != rows {
			t.Errorf("%s has %d rows, its blocks %d", seg.Name, seg.Rows(), rows)
		}
		if got, err := terms.ReadRawBytes(idx, seg.Ref); err != nil || got != raw {
			t.Errorf("%s covers %d raw bytes (%v), its blocks %d", seg.Name, got, err, raw)
		}
		for r := range seg.Rows() {
			info := seg.Row(r)
			infos = append(infos, info)
			keys = append(keys, seg.Keys()[info.Key])
		}
	}
	i := 0
	err = snap.EachRow(func(r *record.Row) error {
		if i >= len(infos) {
			i++
			return nil
		}
		ms, _ := record.ParseTimestamp(r.Timestamp)
		want := terms.RowInfo{TimeMs: ms, Len: len(r.Text), Key: infos[i].Key, Gen: r.Gen, Type: terms.TypeCode(r.Type), Flags: infos[i].Flags}
		if infos[i] != want || keys[i] != (terms.Key{Session: r.Session, Project: r.Project}) {
			t.Errorf("row %d: segment has %+v %+v, rows file %+v %q %q", i, infos[i], keys[i], want, r.Session, r.Project)
		}
		i++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if i != len(infos) {
		t.Errorf("rows file has %d rows, segments %d", i, len(infos))
	}
	return cover
}

func names(refs []terms.Ref) []string {
	out := make([]string, len(refs))
	for i, r := range refs {
		out[i] = r.Name
	}
	slices.Sort(out)
	return out
}

// segmentsHolding lists the segments of the committed snapshot that hold
// token (folded, whole).
func segmentsHolding(t testing.TB, idx, token string) []string {
	t.Helper()
	snap, err := store.Open(idx).Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	segs, why := snap.TermSegments()
	if segs == nil && len(snap.Blocks) > 0 {
		t.Fatal(why)
	}
	var out []string
	for _, s := range segs {
		s.FindTokens(token, true, func(int, int) { out = append(out, s.Name) })
	}
	return out
}

func TestTermsCoverEveryBlock(t *testing.T) {
	for _, checkpoint := range []int64{0, 1} {
		t.Run(fmt.Sprintf("checkpoint=%d", checkpoint), func(t *testing.T) {
			src := copyTree(t, fixtureRoot)
			idx := t.TempDir()
			runIndexOpts(t, src, idx, checkpoint)
			cover := checkTerms(t, idx)
			m, _ := store.Open(idx).Manifest()
			if m.BlockCount() == 0 || len(cover) == 0 {
				t.Fatalf("%d blocks, %d segments", m.BlockCount(), len(cover))
			}
			if checkpoint == 1 && m.BlockCount() < 3 {
				t.Errorf("a commit per transcript made only %d blocks", m.BlockCount())
			}
			// Words of the fixtures are found in the index.
			if got := segmentsHolding(t, idx, "JWT"); len(got) == 0 {
				t.Error("no segment holds JWT")
			}
		})
	}
}

// TestStaleTermsSegmentIsNeverUsed: segments reaching past the committed
// blocks (a crash after writing them, before the manifest commit) are
// ignored by snapshots and removed by the next run, whose new blocks take
// the same numbers.
func TestStaleTermsSegmentIsNeverUsed(t *testing.T) {
	src, path := newSessionFile(t)
	idx := t.TempDir()
	appendText(t, path, promptLine(1, "first prompt about caching")+promptLine(2, "second prompt about eviction"))
	runIndex(t, src, idx, "")
	restore := committedManifest(t, idx)
	m, _ := store.Open(idx).Manifest()
	blocks := m.BlockCount()

	// The crashed run: it wrote a block and its segment, then died
	// before committing (the old manifest is put back).
	appendText(t, path, promptLine(3, "zanzibar appears in the lost run"))
	runIndex(t, src, idx, "")
	restore()
	// And a longer stale segment that Cover would prefer if it counted,
	// plus a temp file of an unfinished write.
	b := terms.NewBuilder()
	b.Add(&terms.Row{Session: testSession, Project: "/x", Text: []byte("phantom row")})
	phantom, err := b.WriteFile(idx, m.Seq, 0, blocks+3)
	if err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(idx, "."+terms.FileName(m.Seq, blocks, blocks+1)+".123.tmp")
	if err := os.WriteFile(tmp, []byte("torn"), 0o600); err != nil {
		t.Fatal(err)
	}
	var stale int
	for _, r := range mustTermsRefs(t, idx) {
		if r.End > blocks {
			stale++
		}
	}
	if stale < 2 {
		t.Fatalf("the simulated crash left %d stale segments (%v), want 2 or more", stale, names(mustTermsRefs(t, idx)))
	}
	for _, tok := range []string{"ZANZIBAR", "PHANTOM"} {
		if got := segmentsHolding(t, idx, tok); got != nil {
			t.Errorf("the snapshot uses stale segments %v holding %s", got, tok)
		}
	}
	snap, err := store.Open(idx).Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	segs, _ := snap.TermSegments()
	if len(segs) == 0 {
		t.Error("the stale segments made the snapshot lose its term index")
	}
	for _, s := range segs {
		if s.End > len(snap.Blocks) {
			t.Errorf("snapshot of %d blocks uses %s", len(snap.Blocks), s.Name)
		}
	}
	snap.Close()

	// The next run reads the lost line again (and one more), writing
	// blocks with the stale segments' numbers.
	appendText(t, path, promptLine(4, "quokka after the crash"))
	if sum := runIndex(t, src, idx, ""); sum.RowsAdded != 2 {
		t.Fatalf("run after the crash added %d rows, want 2", sum.RowsAdded)
	}
	checkTerms(t, idx)
	if _, err := os.Stat(tmp); !os.IsNotExist(err) {
		t.Errorf("temp file %s left behind (%v)", filepath.Base(tmp), err)
	}
	if _, err := os.Stat(phantom.Path(idx)); !os.IsNotExist(err) {
		t.Errorf("stale %s left behind (%v)", phantom.Name, err)
	}
	if got := segmentsHolding(t, idx, "PHANTOM"); got != nil {
		t.Errorf("segments %v hold the stale segment's word", got)
	}
	for _, tok := range []string{"ZANZIBAR", "QUOKKA", "CACHING"} {
		if got := segmentsHolding(t, idx, tok); len(got) != 1 {
			t.Errorf("%s is in segments %v, want exactly one", tok, got)
		}
	}
}

// TestStaleTermsSegmentRemovedByRunWithoutChanges: a run with nothing to
// read still drops a segment past the committed blocks.
func TestStaleTermsSegmentRemovedByRunWithoutChanges(t *testing.T) {
	src := copyTree(t, fixtureRoot)
	idx := t.TempDir()
	runIndex(t, src, idx, "")
	m, _ := store.Open(idx).Manifest()
	b := terms.NewBuilder()
	b.Add(&terms.Row{Session: "s", Project: "/x", Text: []byte("phantom")})
	ref, err := b.WriteFile(idx, m.Seq, m.BlockCount(), m.BlockCount()+1)
	if err != nil {
		t.Fatal(err)
	}
	if sum := runIndex(t, src, idx, ""); sum.FilesRead != 0 {
		t.Fatalf("second run read %d files", sum.FilesRead)
	}
	if _, err := os.Stat(ref.Path(idx)); !os.IsNotExist(err) {
		t.Errorf("stale %s left behind (%v)", ref.Name, err)
	}
	checkTerms(t, idx)
}

// TestTermsBackfill: an index without term segments (written before the
// term index existed, or whose segments were lost) gets them on the next
// run, even when no transcript changed.
func TestTermsBackfill(t *testing.T) {
	tests := []struct {
		name   string
		remove func(refs []terms.Ref) []terms.Ref
	}{
		{"all", func(refs []terms.Ref) []terms.Ref { return refs }},
		{"first", func(refs []terms.Ref) []terms.Ref { return refs[:1] }},
		{"last", func(refs []terms.Ref) []terms.Ref { return refs[len(refs)-1:] }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := copyTree(t, fixtureRoot)
			idx := t.TempDir()
			runIndexOpts(t, src, idx, 1)
			before := checkTerms(t, idx)
			slices.SortFunc(before, func(a, b terms.Ref) int { return a.First - b.First })
			for _, r := range tt.remove(before) {
				if err := os.Remove(r.Path(idx)); err != nil {
					t.Fatal(err)
				}
			}
			snap, err := store.Open(idx).Snapshot()
			if err != nil {
				t.Fatal(err)
			}
			if segs, why := snap.TermSegments(); segs != nil || why == nil || !strings.Contains(why.Error(), "covers") {
				t.Errorf("TermSegments with segments missing = %d segments, %q; want nil and why", len(segs), why)
			}
			snap.Close()
			if sum := runIndexOpts(t, src, idx, 1); sum.FilesRead != 0 || sum.RowsAdded != 0 {
				t.Fatalf("backfill run read %d files, added %d rows", sum.FilesRead, sum.RowsAdded)
			}
			checkTerms(t, idx)
			if got := segmentsHolding(t, idx, "JWT"); len(got) == 0 {
				t.Error("no segment holds JWT after the backfill")
			}
		})
	}
}

// TestDamagedTermsSegmentIsRebuilt: a segment that exists but cannot be
// opened makes every search read the rows; the next run rebuilds it, as
// it rebuilds missing ones.
func TestDamagedTermsSegmentIsRebuilt(t *testing.T) {
	tests := []struct {
		name   string
		damage func(t *testing.T, data []byte) []byte
	}{
		{"cut short", func(t *testing.T, data []byte) []byte { return data[:len(data)/2] }},
		{"header intact, keys section damaged", func(t *testing.T, data []byte) []byte {
			// A key line is "session\tproject\n"; without its tab it
			// does not parse. The header, and its checksum, are untouched.
			i := bytes.Index(data, []byte("\t/home/dev/src/"))
			if i < 0 {
				t.Fatal("no key line found in the segment")
			}
			data[i] = 'x'
			return data
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := copyTree(t, fixtureRoot)
			idx := t.TempDir()
			runIndex(t, src, idx, "")
			cover := checkTerms(t, idx)
			path := cover[0].Path(idx)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, tt.damage(t, data), 0o600); err != nil {
				t.Fatal(err)
			}
			snap, err := store.Open(idx).Snapshot()
			if err != nil {
				t.Fatal(err)
			}
			if segs, why := snap.TermSegments(); segs != nil || why == nil {
				t.Fatalf("the damaged segment opens: the damage is not damage")
			}
			snap.Close()
			runIndex(t, src, idx, "")
			snap, err = store.Open(idx).Snapshot()
			if err != nil {
				t.Fatal(err)
			}
			defer snap.Close()
			if segs, why := snap.TermSegments(); segs == nil {
				t.Fatalf("after a run, %s is still unreadable: TermSegments = %d segments, %s", cover[0].Name, len(segs), why)
			}
			checkTerms(t, idx)
		})
	}
}

// TestManySmallRunsAreMerged: every run ends a block and a segment of its
// own; merging keeps the segment count below the store's fan-in (mergeFanIn) while the blocks
// grow.
func TestManySmallRunsAreMerged(t *testing.T) {
	src, path := newSessionFile(t)
	idx := t.TempDir()
	const runs = 12
	most := 0
	for i := 1; i <= runs; i++ {
		appendText(t, path, promptLine(i, fmt.Sprintf("prompt number %d mentions token%02d and deadlock", i, i)))
		if sum := runIndex(t, src, idx, ""); sum.RowsAdded != 1 {
			t.Fatalf("run %d added %d rows", i, sum.RowsAdded)
		}
		cover := checkTerms(t, idx)
		most = max(most, len(cover))
		if len(cover) >= mergeFanIn {
			t.Errorf("after run %d: %d segments %v, want fewer than %d", i, len(cover), names(cover), mergeFanIn)
		}
	}
	m, _ := store.Open(idx).Manifest()
	if m.BlockCount() < runs {
		t.Errorf("%d runs made %d blocks, want one each", runs, m.BlockCount())
	}
	if most < 2 {
		t.Errorf("never more than %d segment: the runs did not write segments of their own", most)
	}
	for i := 1; i <= runs; i++ {
		if got := segmentsHolding(t, idx, fmt.Sprintf("TOKEN%02d", i)); len(got) != 1 {
			t.Errorf("TOKEN%02d in segments %v, want one", i, got)
		}
	}
}

func TestCompactionRebuildsTerms(t *testing.T) {
	src, path := newSessionFile(t)
	idx := t.TempDir()
	appendText(t, path, promptLine(1, "before replacement, walrus")+promptLine(2, "before replacement, second"))
	other := filepath.Join(filepath.Dir(path), "66666666-6666-4666-8666-666666666666.jsonl")
	appendText(t, other, strings.ReplaceAll(promptLine(5, "another session about penguins"), testSession, "66666666-6666-4666-8666-666666666666"))
	runIndex(t, src, idx, "")
	old, _ := store.Open(idx).Manifest()
	checkTerms(t, idx)

	tmp := path + ".new"
	content := promptLine(1, "after replacement, narwhal") + promptLine(2, "after replacement, changed") + promptLine(3, "added")
	if err := os.WriteFile(tmp, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
	sum := runIndex(t, src, idx, "")
	if !sum.Compacted || sum.Replaced != 1 {
		t.Fatalf("replacement: Compacted %v, Replaced %d", sum.Compacted, sum.Replaced)
	}
	m, _ := store.Open(idx).Manifest()
	if m.Seq == old.Seq {
		t.Fatalf("compaction kept sequence %d", m.Seq)
	}
	checkTerms(t, idx)
	for _, r := range mustTermsRefs(t, idx) {
		if r.Seq != m.Seq {
			t.Errorf("segment %s of old sequence %d remains (now %d)", r.Name, r.Seq, m.Seq)
		}
	}
	if got := segmentsHolding(t, idx, "WALRUS"); got != nil {
		t.Errorf("dead row's word WALRUS still in segments %v", got)
	}
	for _, tok := range []string{"NARWHAL", "PENGUINS"} {
		if got := segmentsHolding(t, idx, tok); len(got) != 1 {
			t.Errorf("%s in segments %v, want one", tok, got)
		}
	}
}

// TestQuickRunChecksTermHeaders: a quick run that commits reads only the
// headers of the term segments it keeps (its cost must not grow with the
// index; one with nothing to commit reads none), and
// that is enough to rebuild one cut short or of other text rules; damage
// past the header (a key line) is left to the sweep, which opens every
// segment as a search does. Both end with a term index searches can use.
func TestQuickRunChecksTermHeaders(t *testing.T) {
	e := newClaudeEnv(t)
	damage := func(f func([]byte) []byte) {
		t.Helper()
		path := checkTerms(t, e.idx)[0].Path(e.idx)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, f(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	usable := func() bool {
		t.Helper()
		snap, err := store.Open(e.idx).Snapshot()
		if err != nil {
			t.Fatal(err)
		}
		defer snap.Close()
		segs, _ := snap.TermSegments()
		return segs != nil
	}

	damage(func(data []byte) []byte { return data[:len(data)/2] })
	e.appendPrompt(t, oldSession, "a resumed session writes again") // a run with work to do
	e.appendHistory(t, oldSession)
	e.quickRun(t)
	if !usable() {
		t.Fatal("a quick run kept a term segment cut short")
	}

	damage(func(data []byte) []byte {
		i := bytes.Index(data, []byte("\t/home/dev/"))
		if i < 0 {
			t.Fatal("no key line found in the segment")
		}
		data[i] = 'x'
		return data
	})
	if usable() {
		t.Fatal("a segment with a damaged key line opens: the damage is not damage")
	}
	e.now = time.Now().Add(2 * e.sweepEvery) // the backstop: a sweep
	e.run(t)
	if !usable() {
		t.Fatal("a sweep kept a term segment whose keys are damaged")
	}
	checkTerms(t, e.idx)
}

// mergeFanIn is the store's: the count of segments of one tier that are
// merged into one (store/termsmaint.go).
const mergeFanIn = 4
