package indexer

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/recall-dev/recall/store/manifest"

	"github.com/recall-dev/recall/internal/problem"
	"github.com/recall-dev/recall/store"
)

// archiveIndex indexes the fixtures plus a session of its own, deletes one
// transcript (its rows are then the only copy) and returns the source,
// the index and the live rows.
func archiveIndex(t *testing.T) (src, idx string, rows []string) {
	t.Helper()
	src = copyTree(t, fixtureRoot)
	path := filepath.Join(src, "-home-dev-src-inc", testSession+".jsonl")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	appendText(t, path, promptLine(1, "first prompt about the websocket reconnect storm")+promptLine(2, "second prompt about the flaky scheduler"))
	idx = t.TempDir()
	runIndex(t, src, idx, "")
	gone := filepath.Join(src, "-home-dev-src-blog", "44444444-4444-4444-8444-444444444444.jsonl")
	if err := os.Remove(gone); err != nil {
		t.Fatal(err)
	}
	runIndex(t, src, idx, "")
	rows = rowLines(liveRows(t, idx), src)
	if !slices.ContainsFunc(rows, func(r string) bool { return strings.Contains(r, "44444444-4444") }) {
		t.Fatal("the deleted transcript had no rows: the test shows nothing")
	}
	return src, idx, rows
}

// TestLostManifestIsRecovered: a missing, cut or garbled manifest never
// costs a row. Before recovery existed, `recall index` started over from
// the transcripts on disk and the rows of deleted ones were gone.
func TestLostManifestIsRecovered(t *testing.T) {
	damage := map[string]func(path string) error{
		"deleted": os.Remove,
		"cut short": func(path string) error {
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			return os.WriteFile(path, data[:len(data)*2/3], 0o600)
		},
		"a byte flipped in a session id": func(path string) error {
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			i := strings.Index(string(data), "44444444-4444")
			data[i+2] = '5'
			return os.WriteFile(path, data, 0o600)
		},
		"emptied": func(path string) error { return os.WriteFile(path, nil, 0o600) },
	}
	for name, hurt := range damage {
		t.Run(name, func(t *testing.T) {
			src, idx, before := archiveIndex(t)
			if err := hurt(filepath.Join(idx, manifest.Name)); err != nil {
				t.Fatal(err)
			}
			// A search reads only the manifest's head: damage past it does
			// not concern it; damage in it must name the way out.
			if snap, err := store.Open(idx).Snapshot(); err == nil {
				snap.Close()
			} else if p, ok := problem.Find(err); !ok || p.Remedy != problem.Index {
				t.Errorf("a search over the damaged index: %v, want an error whose remedy is the next index run", err)
			}
			var notices []string
			sum, err := Run(Options{Config: Config{Sources: []string{src}, IndexDir: idx}, Notice: func(s string) { notices = append(notices, s) }})
			if err != nil {
				t.Fatalf("index: %v", err)
			}
			if len(notices) == 0 || !strings.Contains(notices[0], "recovered the index manifest") {
				t.Errorf("recovery not said: %q", notices)
			}
			if sum.RowsAdded != 0 {
				t.Errorf("the run after recovery added %d rows: lines indexed before were read again", sum.RowsAdded)
			}
			if after := rowLines(liveRows(t, idx), src); !slices.Equal(before, after) {
				t.Errorf("rows after recovery differ:\nbefore %q\nafter  %q", before, after)
			}
			// The recovered state tails on: a new line is one new row.
			appendText(t, filepath.Join(src, "-home-dev-src-inc", testSession+".jsonl"), promptLine(3, "third prompt about the cache stampede"))
			if sum := runIndex(t, src, idx, ""); sum.RowsAdded != 1 {
				t.Errorf("an appended line after recovery added %d rows, want 1", sum.RowsAdded)
			}
			m, err := store.Open(idx).Manifest()
			if err != nil {
				t.Fatal(err)
			}
			var gone int
			for _, st := range m.Files() {
				if st.Gone {
					gone++
				}
			}
			if gone != 1 {
				t.Errorf("%d transcripts marked gone after recovery, want 1", gone)
			}
		})
	}
}

// TestRebuildRecoversFirst: `recall index --rebuild` over a lost manifest
// still knows the rows of deleted transcripts and asks before dropping
// them.
func TestRebuildRecoversFirst(t *testing.T) {
	src, idx, before := archiveIndex(t)
	if err := os.Remove(filepath.Join(idx, manifest.Name)); err != nil {
		t.Fatal(err)
	}
	if _, err := Rebuild(Options{Config: Config{Sources: []string{src}, IndexDir: idx}}, false); err == nil {
		t.Fatal("rebuild dropped the rows of a deleted transcript without asking")
	}
	if after := rowLines(liveRows(t, idx), src); !slices.Equal(before, after) {
		t.Errorf("rows changed by the refused rebuild:\nbefore %q\nafter  %q", before, after)
	}
}

// crashedIndex indexes a corpus whose rows span many frames, then grows
// every transcript and indexes again into a copy: the second run's rows
// and keys are on disk, its manifest is not (the state a SIGKILL before
// its commit leaves), with the first run's manifest in place.
func crashedIndex(t *testing.T) (src, idx string) {
	t.Helper()
	src = t.TempDir()
	writeCrashCorpus(t, src, 6, 400, rand.New(rand.NewPCG(3, 4)))
	idx = t.TempDir()
	runIndex(t, src, idx, "")
	restore := committedManifest(t, idx)
	for s := range 6 {
		path := filepath.Join(src, fmt.Sprintf("-home-dev-p%d", s%4), fmt.Sprintf("sess-%d.jsonl", s))
		var b strings.Builder
		for n := range 300 {
			fmt.Fprintf(&b, `{"type":"user","uuid":"late-%d-%d","sessionId":"sess-%d","timestamp":"2026-05-03T10:00:00.000Z","cwd":"/p","message":{"role":"user","content":"written after the first commit, line %d of sess-%d"}}`+"\n", s, n, s, n, s)
		}
		appendText(t, path, b.String())
	}
	if _, err := Run(Options{Config: Config{Sources: []string{src}, IndexDir: idx}}); err != nil {
		t.Fatal(err)
	}
	restore()
	return src, idx
}

// TestRecoveryKeepsNoKeysOfUnwrittenRows: a run writes a row's key when it
// adds the row, the row itself only with its block's frame. Recovering
// after a crash that lost both the manifest and the last frames must not
// keep the keys of rows that never reached the disk: read again, those
// lines would look like copies of themselves and be dropped as forks.
// Before the fix a SIGKILL in the first run lost 228 rows this way
// (TestCrashSafety, 1 run in 5).
func TestRecoveryKeepsNoKeysOfUnwrittenRows(t *testing.T) {
	hurts := map[string]func(t *testing.T, idx string){
		"manifest lost, rows torn": func(t *testing.T, idx string) {
			os.Remove(filepath.Join(idx, manifest.Name))
			cutFile(t, rowsFileOf(t, idx), 0.6)
		},
		"block records lost, uncommitted rows past the manifest": func(t *testing.T, idx string) {
			m, err := store.Open(idx).Manifest()
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Remove(filepath.Join(idx, m.BlocksName())); err != nil {
				t.Fatal(err)
			}
		},
	}
	for name, hurt := range hurts {
		t.Run(name, func(t *testing.T) {
			src, idx := crashedIndex(t)
			hurt(t, idx)
			runIndex(t, src, idx, "")
			clean := t.TempDir()
			runIndex(t, src, clean, "")
			got, want := rowLines(liveRows(t, idx), src), rowLines(liveRows(t, clean), src)
			if !slices.Equal(got, want) {
				t.Fatalf("after recovery %d rows, a clean build %d; first difference: %s", len(got), len(want), firstDiff(got, want))
			}
		})
	}
}

func rowsFileOf(t *testing.T, idx string) string {
	t.Helper()
	names, _ := filepath.Glob(filepath.Join(idx, "rows-*.zst")) // the link to the rows file
	if len(names) != 1 {
		t.Fatalf("rows files %q, want one", names)
	}
	return names[0]
}

// cutFile keeps the first fraction of path.
func cutFile(t *testing.T, path string, fraction float64) {
	t.Helper()
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, int64(float64(info.Size())*fraction)); err != nil {
		t.Fatal(err)
	}
}
