package store

import (
	"fmt"
	"math/bits"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/recall-dev/recall/store/manifest"

	"github.com/recall-dev/recall/store/terms"
)

func TestTier(t *testing.T) {
	// A tier is four times the one below, from firstTierBytes up;
	// segments of maxMergeBytes or more are never merged.
	want := func(raw int64) int {
		if raw >= maxMergeBytes {
			return -1
		}
		if raw < firstTierBytes {
			return 0
		}
		return (bits.Len64(uint64(raw/firstTierBytes))-1)/2 + 1
	}
	tests := []struct {
		raw  int64
		want int
	}{
		{0, 0},
		{1, 0},
		{firstTierBytes - 1, 0},
		{firstTierBytes, 1},
		{4*firstTierBytes - 1, 1},
		{4 * firstTierBytes, 2},
		{16*firstTierBytes - 1, 2},
		{maxMergeBytes - 1, want(maxMergeBytes - 1)},
		{maxMergeBytes, -1},
		{1 << 40, -1},
	}
	for _, tt := range tests {
		if got := tier(tt.raw); got != tt.want || got != want(tt.raw) {
			t.Errorf("tier(%d) = %d, want %d", tt.raw, got, tt.want)
		}
	}
	if maxMergeBytes > 4*firstTierBytes && tier(maxMergeBytes-1) < 2 {
		t.Errorf("tier(maxMergeBytes-1) = %d", tier(maxMergeBytes-1))
	}
}

func TestMergeStart(t *testing.T) {
	const mb = 1 << 20
	tests := []struct {
		name string
		raws []int64
		want int
	}{
		{"none", nil, -1},
		{"fewer than the fan-in", []int64{10, 10, 10}, -1},
		{"fan-in of one tier", []int64{10, 20, 30, 40}, 0},
		{"tail of one tier", []int64{20 * mb, 2 * mb, 10, 20, 30, 40}, 2},
		{"mixed tiers", []int64{10, 20, 2 * mb, 40}, -1},
		{"higher tier", []int64{2 * mb, 2 * mb, 3 * mb, 3 * mb}, 0},
		{"never merged", []int64{maxMergeBytes, maxMergeBytes, maxMergeBytes, maxMergeBytes}, -1},
		{"one too big", []int64{10, 10, 10, maxMergeBytes}, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			var cover []terms.Ref
			for i, raw := range tt.raws {
				b := terms.NewBuilder()
				for left := raw; left > 0; left -= min(left, 1<<30) {
					b.AddRawBytes(int(min(left, 1<<30)))
				}
				ref, err := b.WriteFile(dir, 1, i, i+1)
				if err != nil {
					t.Fatal(err)
				}
				cover = append(cover, ref)
			}
			got, err := mergeStart(dir, cover)
			if err != nil || got != tt.want {
				t.Errorf("mergeStart = %d, %v; want %d", got, err, tt.want)
			}
		})
	}
	dir := t.TempDir()
	missing := []terms.Ref{{Name: terms.FileName(1, 0, 1), Seq: 1, First: 0, End: 1}, {Name: terms.FileName(1, 1, 2), Seq: 1, First: 1, End: 2},
		{Name: terms.FileName(1, 2, 3), Seq: 1, First: 2, End: 3}, {Name: terms.FileName(1, 3, 4), Seq: 1, First: 3, End: 4}}
	if _, err := mergeStart(dir, missing); err == nil {
		t.Error("mergeStart of missing segments did not fail")
	}
}

// TestCompactionRebuildsTerms: a replaced transcript leaves dead rows,
// so the run compacts into the next sequence; that sequence must have a
// complete term index and the old one none.

// TestCrashTempsRemoved: the temp files a crash leaves beside the index
// files are removed by the next writer; other files are left alone.
func TestCrashTempsRemoved(t *testing.T) {
	dir := t.TempDir()
	crashed := []string{
		".terms-v3-000001-00000000-00000004.bin.123.tmp",
		"." + manifest.Name + ".456.tmp",
		"." + manifest.JournalName + ".789.tmp",
		".keyidx-v2-000001.bin.1.tmp",
		"." + freshStateName + ".2.tmp",
		"." + RowsLinkName + ".tmp",
	}
	kept := []string{".settings.json.3.tmp", "notes.tmp", manifest.Name, ".terms-notes"}
	for _, name := range append(slices.Clone(crashed), kept...) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := removeStaleTerms(dir, -1, 0); err != nil {
		t.Fatal(err)
	}
	for _, name := range crashed {
		if _, err := os.Stat(filepath.Join(dir, name)); !os.IsNotExist(err) {
			t.Errorf("%s is still there (%v)", name, err)
		}
	}
	for _, name := range kept {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("%s was removed: %v", name, err)
		}
	}
}

// The lexicon covers the sealed segments (raw bytes at least sealed),
// all but the cover's last; it is rewritten only when one more is sealed
// or one it covers left the cover.
func TestUpdateLexicon(t *testing.T) {
	const sealed = 1000
	dir := t.TempDir()
	segment := func(block int, raw int) terms.Ref {
		b := terms.NewBuilder()
		r := terms.Row{Type: terms.TypeUser, Session: "s", Project: "/p", Text: []byte(fmt.Sprintf("word%d shared", block))}
		b.Add(&r)
		b.AddRawBytes(raw)
		ref, err := b.WriteFile(dir, 1, block, block+1)
		if err != nil {
			t.Fatal(err)
		}
		ref, _ = terms.ParseName(ref.Name) // as terms.Refs reads it
		return ref
	}
	a, b, small, c, last := segment(0, sealed), segment(1, 5*sealed), segment(2, 10), segment(3, sealed), segment(4, 2*sealed)
	lexicon := filepath.Join(dir, terms.LexiconFileName)
	var before os.FileInfo
	for i, step := range []struct {
		cover     []terms.Ref
		covers    []string
		rewritten bool
	}{
		{[]terms.Ref{a, b, small, last}, []string{a.Name, b.Name}, true},
		{[]terms.Ref{a, b, small, last}, []string{a.Name, b.Name}, false},
		{[]terms.Ref{a, b, small, c, last}, []string{a.Name, b.Name, c.Name}, true},
		{[]terms.Ref{a, b, small, c, last}, []string{a.Name, b.Name, c.Name}, false},
		{[]terms.Ref{a, c, last}, []string{a.Name, c.Name}, true},
		{[]terms.Ref{a, c}, []string{a.Name, c.Name}, false},
	} {
		if err := updateLexicon(dir, step.cover, sealed); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if got := terms.LexiconSegments(dir); !slices.Equal(got, step.covers) {
			t.Fatalf("step %d: covers %q, want %q", i, got, step.covers)
		}
		info, err := os.Stat(lexicon)
		if err != nil {
			t.Fatal(err)
		}
		if rewritten := before == nil || !os.SameFile(before, info); rewritten != step.rewritten {
			t.Errorf("step %d: rewritten %v, want %v", i, rewritten, step.rewritten)
		}
		before = info
	}
	// A segment it covers dropped as damaged drops the lexicon: its
	// blocks are indexed again under the same name.
	if err := os.WriteFile(a.Path(dir), []byte("damaged"), 0o600); err != nil {
		t.Fatal(err)
	}
	if left, err := dropDamaged(dir, []terms.Ref{a, c}, 1, 5, checkHeaders); err != nil || len(left) != 1 {
		t.Fatalf("dropDamaged left %v, %v", left, err)
	}
	if _, err := os.Stat(lexicon); !os.IsNotExist(err) {
		t.Fatalf("the lexicon of a dropped segment is still there: %v", err)
	}
}
