package indexer

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recall-dev/recall/store"
)

// TestFixturesGolden indexes the hand-written fixtures and compares the
// decompressed rows with a golden file (never compressed bytes: the
// encoder's output may change between library versions).
func TestFixturesGolden(t *testing.T) {
	src := copyTree(t, fixtureRoot)
	idx := t.TempDir()
	runIndex(t, src, idx, "")
	got := strings.Join(rowLines(liveRows(t, idx), src), "\n") + "\n"
	golden := filepath.Join("testdata", "golden", "fixtures.tsv")
	if *update {
		os.MkdirAll(filepath.Dir(golden), 0o755)
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("read golden (run with -update to create): %v", err)
	}
	if got != string(want) {
		t.Errorf("rows differ from %s (run go test -update to accept):\n got:\n%s\nwant:\n%s", golden, got, want)
	}
}

// TestExclusionReasons checks every reason is counted on the fixtures,
// which hold examples of each.
func TestExclusionReasons(t *testing.T) {
	src := copyTree(t, fixtureRoot)
	idx := t.TempDir()
	sum := runIndex(t, src, idx, "")
	want := map[string]int64{
		"noise":           11, // command echo, stdout, caveat, interruption, synthetic, API error, compaction, task notification, bash in/out, usage limit
		"too_short":       1,  // "fix it"
		"acknowledgement": 2,  // "ok thanks, continue", "I'll help with that."
		"copy":            2,  // the fork's copies of its parent's prompt and reply
		"headless":        2,  // the headless run's prompt and reply: kept, marked
		"recall_output":   1,  // pasted "[1/3] 3f2a9c1 • …"
		"bad_line":        1,  // "this is {not json"
	}
	for reason, n := range want {
		if sum.Excluded[reason] != n {
			t.Errorf("excluded[%s] = %d, want %d", reason, sum.Excluded[reason], n)
		}
	}
	if n := sum.Excluded["fork"]; n != 0 {
		t.Errorf("excluded[fork] = %d: no transcript is left out for where it opens", n)
	}
	m, err := store.Open(idx).Manifest()
	if err != nil {
		t.Fatal(err)
	}
	for reason, n := range want {
		if m.Excluded[reason] != n {
			t.Errorf("manifest excluded[%s] = %d, want %d", reason, m.Excluded[reason], n)
		}
	}
	for _, r := range liveRows(t, idx) {
		if strings.Contains(r.Text, "<ide_opened_file>") {
			t.Errorf("IDE tag kept in %q", r.Text)
		}
	}
}

// TestHeadlessRunsAreKeptAndMarked: a `claude -p` transcript opens with
// queue-operation records, as VS Code and remote sessions do; its
// entrypoint, not its first line, makes it headless. Its rows are
// indexed with the entrypoint that marks them.
func TestHeadlessRunsAreKeptAndMarked(t *testing.T) {
	src := copyTree(t, fixtureRoot)
	idx := t.TempDir()
	runIndex(t, src, idx, "")
	headless := 0
	for _, r := range liveRows(t, idx) {
		if r.Session != "22222222-2222-4222-8222-222222222222" {
			if r.Headless() {
				t.Errorf("row of an interactive session marked headless: %q (%s)", r.Text, r.Entrypoint)
			}
			continue
		}
		headless++
		if !r.Headless() || r.Entrypoint != "sdk-cli" {
			t.Errorf("headless run's row %q has entrypoint %q", r.Text, r.Entrypoint)
		}
	}
	if headless != 2 {
		t.Fatalf("%d rows of the headless run indexed, want its prompt and reply", headless)
	}
}

// TestCurrentSessionIsLeftForLater: the running session's transcripts
// (main and subagents) are not consumed; once it is no longer current they
// are indexed whole.
func TestCurrentSessionIsLeftForLater(t *testing.T) {
	const current = "11111111-1111-4111-8111-111111111111"
	src := copyTree(t, fixtureRoot)
	idx := t.TempDir()
	sum := runIndex(t, src, idx, current)
	if sum.CurrentFiles != 2 {
		t.Errorf("CurrentFiles = %d, want 2 (main + subagent)", sum.CurrentFiles)
	}
	for _, r := range liveRows(t, idx) {
		if r.Session == current {
			t.Fatalf("current session row indexed: %q", r.Text)
		}
	}
	runIndex(t, src, idx, "")
	// The fork copied two of its messages and was indexed while it was
	// current, so those two stay with the fork: every message of the
	// session is indexed exactly once, under one of the two.
	seen := map[string]int{}
	for _, r := range liveRows(t, idx) {
		if strings.HasPrefix(r.UUID, "aaaaaaaa-0000-4000-8000-0000000000") || strings.HasPrefix(r.UUID, "aaaaaaaa-0000-4000-8000-0000000001") {
			seen[r.UUID]++
		}
	}
	if len(seen) != 8 {
		t.Fatalf("after the session ended: %d of its 8 messages indexed: %v", len(seen), seen)
	}
	for uuid, n := range seen {
		if n != 1 {
			t.Errorf("message %s indexed %d times", uuid, n)
		}
	}
}

// TestRowsPointAtTheirSourceLine: every row's source and line lead to the
// JSONL line it came from (same uuid).
func TestRowsPointAtTheirSourceLine(t *testing.T) {
	src := copyTree(t, fixtureRoot)
	idx := t.TempDir()
	runIndex(t, src, idx, "")
	rows := liveRows(t, idx)
	if len(rows) == 0 {
		t.Fatal("no rows")
	}
	for _, r := range rows {
		line := readLine(t, r.Source, r.Line)
		var rec struct {
			UUID string `json:"uuid"`
		}
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("%s:%d is not JSON: %v", r.Source, r.Line, err)
		}
		if rec.UUID != r.UUID {
			t.Errorf("%s:%d has uuid %s, row says %s", r.Source, r.Line, rec.UUID, r.UUID)
		}
	}
}

func readLine(t *testing.T, path string, n int) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for i := 1; sc.Scan(); i++ {
		if i == n {
			return sc.Text()
		}
	}
	t.Fatalf("%s has no line %d", path, n)
	return ""
}

// TestSharedTranscripts indexes the real public transcripts when present:
// the repository's ../shared/transcripts (CI clones it beside ../shared).
func TestSharedTranscripts(t *testing.T) {
	src := "../../shared/transcripts" // from indexer/, the repository's ../shared
	if _, err := os.Stat(src); err != nil {
		t.Skipf("%s not present (the repository's ../shared/transcripts)", src)
	}
	abs, _ := filepath.Abs(src)
	idx := t.TempDir()
	sum := runIndex(t, abs, idx, "")
	if sum.RowsAdded == 0 || sum.BadLines != 0 {
		t.Fatalf("rows %d, bad lines %d", sum.RowsAdded, sum.BadLines)
	}
	for _, r := range liveRows(t, idx) {
		if strings.Contains(r.Text, "<task-notification>") || strings.Contains(r.Text, "<command-name>") ||
			strings.Contains(r.Text, "<local-command") {
			t.Errorf("noise indexed from %s:%d: %.80q", r.Source, r.Line, r.Text)
		}
	}
}
