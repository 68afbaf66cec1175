package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recall-dev/recall/store/snapshot"

	"github.com/recall-dev/recall/store"
	"github.com/recall-dev/recall/store/storetest"
)

// TestStatsReportsDamage: `recall stats` reads the whole index and says
// what does not read and what `recall index --repair` would do about it,
// transcript by transcript (before: stats and index exited 0 and said
// nothing while every search that reached the block failed).
func TestStatsReportsDamage(t *testing.T) {
	src, idx, project := filepath.Join(t.TempDir(), "projects"), t.TempDir(), t.TempDir()
	for i := range 60 {
		c := startAt(fmt.Sprintf("2026-03-%02dT10:00:00Z", 1+i%28))
		for j := range 6 {
			c.user(fmt.Sprintf("Question %d of session %d about the ledger export.", j, i)).assistant(unrelatedParagraph(i*7+j, "The export job is idempotent."))
		}
		s := c.session(fmt.Sprintf("%08d-0000-4000-8000-%012d", i, i), project)
		if err := s.Write(src); err != nil {
			t.Fatal(err)
		}
	}
	dirs := []string{"--source", src, "--index-dir", idx}
	expectExit(t, "index", runCLI(t, append([]string{"index", "-q"}, dirs...)...), 0)
	expectExit(t, "stats before", runCLI(t, append([]string{"stats"}, dirs...)...), 0, "damage       none: every rows block and derived file reads")

	snap, err := store.Open(idx).Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	blocks := len(snap.Blocks)
	snap.Close()
	if blocks < 3 {
		t.Fatalf("%d blocks: the test needs several", blocks)
	}
	storetest.FlipBlockByte(t, idx, blocks/2)

	res := runCLI(t, append([]string{"stats"}, dirs...)...)
	expectExit(t, "stats after damage", res, 0, "damage       1 rows block and 0 derived files do not read", "a repair reads again: ", "more (--json lists them all)", "recall index --repair")
	var js struct {
		Damage struct {
			Blocks []snapshot.DamagedBlock `json:"damaged_blocks"`
			Reread map[string]int64        `json:"reread"`
		} `json:"damage"`
	}
	if err := json.Unmarshal([]byte(runCLI(t, append([]string{"stats", "--json"}, dirs...)...).stdout), &js); err != nil {
		t.Fatal(err)
	}
	if len(js.Damage.Blocks) != 1 || len(js.Damage.Reread) == 0 {
		t.Errorf("stats --json damage = %+v, want one block and the transcripts to read again", js.Damage)
	}
	if strings.Contains(res.stdout, "lost (the transcript is gone)") {
		t.Errorf("every transcript is on disk, yet stats lists lost rows:\n%s", res.stdout)
	}

	for path := range js.Damage.Reread {
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
		break
	}
	expectExit(t, "stats with a transcript gone", runCLI(t, append([]string{"stats"}, dirs...)...), 0,
		"lost (the transcript is gone): ", "rows of 1 gone transcript cannot be recovered")

	expectExit(t, "repair", runCLI(t, append([]string{"index", "--repair", "-q"}, dirs...)...), 0)
	expectExit(t, "stats after repair", runCLI(t, append([]string{"stats"}, dirs...)...), 0, "damage       none")
	expectExit(t, "stats --no-verify", runCLI(t, append([]string{"stats", "--no-verify"}, dirs...)...), 0, "damage       not checked (--no-verify)")
}

// TestStatsReportsStrays: a second sequence's rows file beside the index
// (an interrupted forget or rebuild) is named by `recall stats`, with
// the command that removes it, and `recall index` removes it (issue 23:
// stats said "damage none" and zstdcat printed the rows twice).
func TestStatsReportsStrays(t *testing.T) {
	src, idx, project := filepath.Join(t.TempDir(), "projects"), t.TempDir(), t.TempDir()
	c := startAt("2026-03-01T10:00:00Z")
	c.user("Question about the ledger export and its retries.").assistant("The export job is idempotent.")
	s := c.session("00000001-0000-4000-8000-000000000001", project)
	if err := s.Write(src); err != nil {
		t.Fatal(err)
	}
	dirs := []string{"--source", src, "--index-dir", idx}
	expectExit(t, "index", runCLI(t, append([]string{"index", "-q"}, dirs...)...), 0)
	m, err := store.Open(idx).Manifest()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(idx, m.RowsName()))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(idx, "rows-v2-000042.zst"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	expectExit(t, "stats", runCLI(t, append([]string{"stats"}, dirs...)...), 0,
		"strays       rows-v2-000042.zst", "no manifest names", "run `recall index`: it removes them")
	expectExit(t, "index", runCLI(t, append([]string{"index", "-q"}, dirs...)...), 0)
	if _, err := os.Stat(filepath.Join(idx, "rows-v2-000042.zst")); err == nil {
		t.Error("the stray rows file survived `recall index`")
	}
	res := runCLI(t, append([]string{"stats"}, dirs...)...)
	if strings.Contains(res.stdout, "strays") {
		t.Errorf("stats still reports strays:\n%s", res.stdout)
	}
}
