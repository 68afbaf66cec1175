package indexer

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/recall-dev/recall/store"
	"github.com/recall-dev/recall/store/storetest"
	"github.com/recall-dev/recall/store/terms"
	"github.com/recall-dev/recall/textrules"
)

// setFeature rewrites every feature version an index records (manifest,
// block records, keys, events, term segments) to feature, as if another
// recall with other text rules had built its derived files. The layouts
// are those of docs/index-format.md.
func setFeature(t *testing.T, dir string, feature uint32) {
	t.Helper()
	m, err := store.Open(dir).Manifest()
	if err != nil {
		t.Fatal(err)
	}
	rewrite := func(name string, edit func([]byte) []byte) {
		path := filepath.Join(dir, name)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, edit(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	m.Feature = feature
	if err := storetest.With(dir, func(w *store.Writer) error { return w.CommitManifest(m) }); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{m.BlocksName(), m.KeysName()} {
		rewrite(name, func(b []byte) []byte { binary.LittleEndian.PutUint32(b[12:], feature); return b })
	}
	rewrite(m.EventsName(), func(b []byte) []byte {
		header, rest, _ := bytes.Cut(b, []byte{'\n'})
		fields := strings.Split(string(header), "\t")
		fields[len(fields)-1] = fmt.Sprint(feature)
		return append([]byte(strings.Join(fields, "\t")+"\n"), rest...)
	})
	// A term segment: magic, format u32, header CRC-32C u32, then 16
	// uint64 header fields, the last the feature version.
	const preamble, fields = 16, 16
	for _, ref := range mustTermsRefs(t, dir) {
		rewrite(ref.Name, func(b []byte) []byte {
			binary.LittleEndian.PutUint64(b[preamble+(fields-1)*8:], uint64(feature))
			crc := crc32.Checksum(b[preamble:preamble+fields*8], crc32.MakeTable(crc32.Castagnoli))
			binary.LittleEndian.PutUint32(b[12:], crc)
			return b
		})
	}
}

// TestOtherRulesRebuildFromRows: derived files built under other text
// rules are never used, and the next run rebuilds all of them from the
// rows, with every transcript deleted, keeping every row.
func TestOtherRulesRebuildFromRows(t *testing.T) {
	src := copyTree(t, fixtureRoot)
	idx := t.TempDir()
	runIndexOpts(t, src, idx, 1) // a segment per transcript
	before := rowLines(liveRows(t, idx), src)
	oldRefs := mustTermsRefs(t, idx)
	if len(oldRefs) == 0 {
		t.Fatal("no term segments to make stale")
	}
	if err := os.RemoveAll(src); err != nil {
		t.Fatal(err)
	}
	setFeature(t, idx, textrules.FeatureVersion+1)

	snap, err := store.Open(idx).Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if snap.Stale() == "" || snap.SkipBlocks() {
		t.Errorf("derived data of other rules is not stale")
	}
	if segs, why := snap.TermSegments(); segs != nil || why == nil || !strings.Contains(why.Error(), "rules") {
		t.Errorf("TermSegments of other rules = %d segments, %q", len(segs), why)
	}
	for _, ref := range oldRefs {
		if _, err := terms.Open(idx, ref); err == nil {
			t.Errorf("%s opens, though built under other rules", ref.Name)
		}
	}
	snap.Close()

	var notices []string
	sum, err := Run(Options{Config: Config{Sources: []string{src}, IndexDir: idx}, Notice: func(s string) { notices = append(notices, s) }})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(sum.Rederived, fmt.Sprintf("v%d", textrules.FeatureVersion+1)) || len(notices) != 1 {
		t.Errorf("rebuild not reported once with its reason: %q, %q", sum.Rederived, notices)
	}
	m, err := store.Open(idx).Manifest()
	if err != nil {
		t.Fatal(err)
	}
	if m.Feature != textrules.FeatureVersion {
		t.Errorf("manifest feature %d after the rebuild", m.Feature)
	}
	newRefs := checkTerms(t, idx)
	for _, ref := range newRefs {
		if slices.ContainsFunc(oldRefs, func(o terms.Ref) bool { return o.Name == ref.Name }) {
			t.Errorf("segment %s survived the rebuild", ref.Name)
		}
	}
	if after := rowLines(liveRows(t, idx), src); !slices.Equal(before, after) {
		t.Errorf("rows changed by the rebuild:\nbefore %q\nafter  %q", before, after)
	}
	snap, err = store.Open(idx).Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	if snap.Stale() != "" {
		t.Errorf("still stale after the rebuild: %s", snap.Stale())
	}
	if again := runIndex(t, src, idx, ""); again.Rederived != "" {
		t.Errorf("a second run rebuilt again: %s", again.Rederived)
	}
}
