package indexer

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

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
			if err := hurt(filepath.Join(idx, store.ManifestName)); err != nil {
				t.Fatal(err)
			}
			// A search reads only the manifest's head: damage past it does
			// not concern it; damage in it must name the way out.
			if snap, err := store.OpenSnapshot(idx); err == nil {
				snap.Close()
			} else if !strings.Contains(err.Error(), "`recall index` recovers") {
				t.Errorf("a search over the damaged index: %v, want an error naming the command that recovers", err)
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
			m, err := store.ReadManifest(idx)
			if err != nil {
				t.Fatal(err)
			}
			var gone int
			for _, st := range m.Files {
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
	if err := os.Remove(filepath.Join(idx, store.ManifestName)); err != nil {
		t.Fatal(err)
	}
	if _, err := Rebuild(Options{Config: Config{Sources: []string{src}, IndexDir: idx}}, false); err == nil {
		t.Fatal("rebuild dropped the rows of a deleted transcript without asking")
	}
	if after := rowLines(liveRows(t, idx), src); !slices.Equal(before, after) {
		t.Errorf("rows changed by the refused rebuild:\nbefore %q\nafter  %q", before, after)
	}
}
