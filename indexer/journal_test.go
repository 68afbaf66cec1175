package indexer

import (
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/recall-dev/recall/store/manifest"

	"github.com/recall-dev/recall/store"
	"github.com/recall-dev/recall/store/storetest"
)

// asManifestV2 rewrites idx's committed manifest as the manifest-v2.tsv
// an older recall wrote (no journal, no format or epoch line), as an
// index built before the journal looks.
func asManifestV2(t *testing.T, idx string) {
	t.Helper()
	m, err := store.Open(idx).Manifest()
	must(t, err)
	cp := filepath.Join(idx, manifest.Name)
	// A checkpoint of the whole state, then its lines as v2 writes them.
	must(t, os.Remove(cp))
	must(t, os.Remove(filepath.Join(idx, manifest.JournalName)))
	must(t, storetest.With(idx, func(w *store.Writer) error { return w.CommitManifest(m) }))
	data, err := os.ReadFile(cp)
	must(t, err)
	castagnoli := crc32.MakeTable(crc32.Castagnoli)
	var out []byte
	for line := range bytes.Lines(data) {
		switch {
		case bytes.HasPrefix(line, []byte("recall-manifest\t")):
			out = append(out, "recall-manifest\tv2\n"...)
		case bytes.HasPrefix(line, []byte("format\t")), bytes.HasPrefix(line, []byte("epoch\t")):
		case bytes.HasPrefix(line, []byte("head\t")), bytes.HasPrefix(line, []byte("end\t")):
			kind := line[:bytes.IndexByte(line, '\t')]
			out = fmt.Appendf(out, "%s\t%08x\n", kind, crc32.Checksum(out, castagnoli))
		default:
			out = append(out, line...)
		}
	}
	must(t, os.Remove(cp))
	must(t, os.Remove(filepath.Join(idx, manifest.JournalName)))
	must(t, os.WriteFile(filepath.Join(idx, "manifest-v2.tsv"), out, 0o600))
}

// TestManifestV2IsUpgraded: an index an older recall wrote (manifest-v2.tsv)
// is read by searches as it is, and the next run commits a v3 checkpoint,
// removes the v2 manifest and loses no row.
func TestManifestV2IsUpgraded(t *testing.T) {
	src, path := newSessionFile(t)
	idx := t.TempDir()
	appendText(t, path, promptLine(1, "first prompt about caching layers")+promptLine(2, "second prompt about cache eviction"))
	runIndex(t, src, idx, "")
	asManifestV2(t, idx)
	if _, err := os.Stat(filepath.Join(idx, manifest.Name)); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("the v3 manifest is still there")
	}
	if got := len(liveRows(t, idx)); got != 2 {
		t.Fatalf("a search over the v2 index sees %d rows, want 2", got)
	}
	// A run with nothing new upgrades it too.
	runIndex(t, src, idx, "")
	if _, err := os.Stat(filepath.Join(idx, manifest.Name)); err != nil {
		t.Fatalf("a run with nothing new left the v2 manifest as it was: %v", err)
	}
	asManifestV2(t, idx)
	appendText(t, path, promptLine(3, "third prompt about write-through caches"))
	if sum := runIndex(t, src, idx, ""); sum.RowsAdded != 1 {
		t.Fatalf("the run over the v2 index added %d rows, want 1", sum.RowsAdded)
	}
	if _, err := os.Stat(filepath.Join(idx, "manifest-v2.tsv")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("manifest-v2.tsv is still there after the upgrade (%v): an older recall would take it for the index", err)
	}
	clean := t.TempDir()
	runIndex(t, src, clean, "")
	if got, want := rowLines(liveRows(t, idx), src), rowLines(liveRows(t, clean), src); !slices.Equal(got, want) {
		t.Fatalf("after the upgrade %d rows, a clean build %d", len(got), len(want))
	}
}

// TestAppendCommitsToTheJournal: an append is committed as a journal
// record, leaving the checkpoint as it was, and the next run (a search's
// update too) reads the state the record holds.
func TestAppendCommitsToTheJournal(t *testing.T) {
	src, path := newSessionFile(t)
	idx := t.TempDir()
	appendText(t, path, promptLine(1, "first prompt about caching layers"))
	runIndex(t, src, idx, "")
	cp := filepath.Join(idx, manifest.Name)
	before, err := os.ReadFile(cp)
	must(t, err)
	for n := 2; n <= 4; n++ {
		appendText(t, path, promptLine(n, fmt.Sprintf("prompt number %d about eviction", n)))
		if sum := runIndex(t, src, idx, ""); sum.RowsAdded != 1 {
			t.Fatalf("run %d added %d rows, want 1", n, sum.RowsAdded)
		}
	}
	after, err := os.ReadFile(cp)
	must(t, err)
	if !bytes.Equal(before, after) {
		t.Error("appends rewrote the checkpoint")
	}
	if got := len(liveRows(t, idx)); got != 4 {
		t.Fatalf("%d rows after three appends, want 4", got)
	}
}

// TestQuickRunMeetsDamagedCheckpoint: a quick run whose lookup reads a
// damaged chunk of the checkpoint uses nothing it read (its transcripts
// would look new and be indexed twice): it runs as a sweep, which reads
// the checkpoint whole, finds the damage and recovers from the rows.
func TestQuickRunMeetsDamagedCheckpoint(t *testing.T) {
	e := newClaudeEnv(t)
	path := filepath.Join(e.idx, manifest.Name)
	data, err := os.ReadFile(path)
	must(t, err)
	at := bytes.Index(data, []byte("\nfile\t"))
	if at < 0 {
		t.Fatal("no file line in the checkpoint")
	}
	data[at+10] ^= 0x01 // in the first file line: the head and the chunk table still check
	must(t, os.WriteFile(path, data, 0o600))
	e.appendPrompt(t, oldSession, "typed after the damage")
	e.appendHistory(t, oldSession)
	var warned []string
	sum, err := Run(Options{Config: Config{Sources: []string{e.root}, IndexDir: e.idx}, Quick: true, SweepEvery: e.sweepEvery,
		Warn: func(s string) { warned = append(warned, s) }})
	must(t, err)
	if sum.RowsAdded != 1 {
		t.Fatalf("the run added %d rows, want 1 (warnings %q)", sum.RowsAdded, warned)
	}
	e.mustIndex(t, "an old session about the parser", "old subagent work", "typed after the damage")
	if n := texts(liveRows(t, e.idx))["an old session about the parser"]; n != 1 {
		t.Fatalf("the old row is there %d times", n)
	}
}
