package indexer

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recall-dev/recall/store/manifest"

	"github.com/recall-dev/recall/store"
)

// TestStraysDoNotOutliveTheNextRun: what an interrupted forget, rebuild
// or compaction leaves (a whole second sequence, staged or renamed in
// place) is gone after the next run of each kind, even one that finds
// nothing to index (before issue 23 it survived `recall index`,
// `--repair` and a search's update until a compaction, and zstdcat
// printed its rows too).
func TestStraysDoNotOutliveTheNextRun(t *testing.T) {
	runs := map[string]func(e *claudeEnv, t *testing.T){
		"quick run (a search's update)": func(e *claudeEnv, t *testing.T) { e.quickRun(t) },
		"sweep (recall index --sweep)": func(e *claudeEnv, t *testing.T) {
			if _, err := Run(Options{Config: Config{Sources: []string{e.root}, IndexDir: e.idx}}); err != nil {
				t.Fatal(err)
			}
		},
		"--repair": func(e *claudeEnv, t *testing.T) {
			if _, err := Run(Options{Config: Config{Sources: []string{e.root}, IndexDir: e.idx}, Repair: true}); err != nil {
				t.Fatal(err)
			}
		},
	}
	leftovers := map[string]func(t *testing.T, idx string, m *manifest.Manifest){
		"a rewrite renamed in place": func(t *testing.T, idx string, m *manifest.Manifest) {
			copyFile(t, filepath.Join(idx, m.RowsName()), filepath.Join(idx, "rows-v2-000099.zst"))
			copyFile(t, filepath.Join(idx, m.KeysName()), filepath.Join(idx, "keys-v2-000099.bin"))
		},
		"a staged rewrite": func(t *testing.T, idx string, m *manifest.Manifest) {
			copyFile(t, filepath.Join(idx, m.RowsName()), filepath.Join(idx, "rows-v2-000099.zst.part"))
		},
	}
	for rname, run := range runs {
		for lname, leave := range leftovers {
			t.Run(rname+"/"+lname, func(t *testing.T) {
				e := newClaudeEnv(t)
				m, err := store.Open(e.idx).Manifest()
				must(t, err)
				leave(t, e.idx, m)
				if st, err := store.Open(e.idx).Stats(); err != nil || len(st.Strays) == 0 {
					t.Fatalf("stats does not report the leftover: %v, %v", st.Strays, err)
				}
				run(e, t)
				entries, err := os.ReadDir(e.idx)
				must(t, err)
				for _, en := range entries {
					if strings.Contains(en.Name(), "000099") {
						t.Errorf("%s survived the run", en.Name())
					}
				}
				if st, err := store.Open(e.idx).Stats(); err != nil || len(st.Strays) != 0 {
					t.Errorf("stats after the run: strays %v, %v", st.Strays, err)
				}
			})
		}
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	must(t, err)
	must(t, os.WriteFile(to, data, 0o600))
}
