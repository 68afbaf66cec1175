package indexer

import (
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/recall-dev/recall/store/manifest"

	"github.com/recall-dev/recall/record"
	"github.com/recall-dev/recall/store"
)

var update = flag.Bool("update", false, "rewrite golden files")

// fixtureRoot is the hand-written projects tree shared by the tests.
const fixtureRoot = "../testdata/transcripts/projects"

// copyTree copies src into a fresh temp dir and returns it, so tests can
// append, truncate and delete without touching the fixtures.
func copyTree(t testing.TB, src string) string {
	t.Helper()
	dst := t.TempDir()
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	return dst
}

func runIndex(t testing.TB, src, idx, current string) Summary {
	t.Helper()
	var warnings []string
	sum, err := Run(Options{
		Config: Config{Sources: []string{src}, IndexDir: idx, CurrentSession: current},
		Warn:   func(s string) { warnings = append(warnings, s) },
	})
	if err != nil {
		t.Fatalf("index: %v (warnings %q)", err, warnings)
	}
	return sum
}

// liveRows returns the rows a reader sees: every committed row whose
// generation is not dead.
func liveRows(t testing.TB, idx string) []record.Row {
	t.Helper()
	snap, err := store.Open(idx).Snapshot()
	if err != nil {
		t.Fatalf("open snapshot: %v", err)
	}
	defer snap.Close()
	var out []record.Row
	err = snap.EachRow(func(r *record.Row) error {
		if !snap.Dead(r.Gen) {
			out = append(out, *r)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("read rows: %v", err)
	}
	return out
}

// rowLines renders rows as sorted TSV lines with the source root replaced
// by "$SRC" and the generation dropped (it depends on history, not content).
func rowLines(rows []record.Row, srcRoot string) []string {
	lines := make([]string, 0, len(rows))
	for _, r := range rows {
		r.Source = strings.Replace(r.Source, srcRoot, "$SRC", 1)
		r.Gen = 0
		lines = append(lines, strings.TrimSuffix(string(r.AppendTSV(nil)), "\n"))
	}
	sort.Strings(lines)
	return lines
}

// committedManifest keeps the committed manifest as it is now, checkpoint
// and journal, and returns a function that puts it back: the state a
// SIGKILL before a later run's commit leaves.
func committedManifest(t *testing.T, idx string) (restore func()) {
	t.Helper()
	saved := map[string][]byte{}
	for _, name := range []string{manifest.Name, manifest.JournalName} {
		data, err := os.ReadFile(filepath.Join(idx, name))
		if err != nil {
			t.Fatal(err)
		}
		saved[name] = data
	}
	return func() {
		t.Helper()
		for name, data := range saved {
			if err := os.WriteFile(filepath.Join(idx, name), data, 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
}
