package indexer

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recall-dev/recall/filter"
	"github.com/recall-dev/recall/record"
	"github.com/recall-dev/recall/store"
	"github.com/recall-dev/recall/store/storetest"
	"github.com/recall-dev/recall/transcript"
)

// markedFork is what a recall before this one left in the manifest for a
// transcript whose first record was a queue-operation: its whole length
// consumed, no row, the verdict fork, and one more in the fork counter.
func markedFork(t *testing.T, idx, path string) {
	t.Helper()
	markedLeftOut(t, idx, path, record.VerdictFork, filter.Fork, 0)
}

// markedLeftOut marks path as left out whole with verdict, counted under
// reason; a feature other than 0 is written as the text rules the index
// was built under.
func markedLeftOut(t *testing.T, idx, path, verdict string, reason filter.Reason, feature uint32) {
	t.Helper()
	m, err := store.Open(idx).Manifest()
	if err != nil {
		t.Fatal(err)
	}
	if feature != 0 {
		m.Feature = feature
	}
	st := &record.FileState{Path: path, Gen: m.NextGen, Kind: record.KindMain, Verdict: verdict,
		Session: filepath.Base(path[:len(path)-len(".jsonl")])}
	m.NextGen++
	if fs, err := transcript.StatFile(path); err == nil {
		st.Dev, st.Ino, st.Size, st.MtimeNs, st.Offset = fs.Dev, fs.Ino, fs.Size, fs.MtimeNs, fs.Size
	} else {
		st.Gone = true
	}
	m.SetFile(path, st)
	m.Excluded[reason.String()]++
	if err := storetest.With(idx, func(w *store.Writer) error { return w.CommitManifest(m) }); err != nil {
		t.Fatal(err)
	}
}

// TestUpgradeReadsTranscriptsLeftOutAsForks: an index whose manifest
// marks transcripts as forks (an earlier recall's rule for files that
// open with queue-operation, as VS Code and remote sessions do) gains
// their rows on the next run, and the fork count goes with them; a
// marked transcript that is gone stays as it was, and no other row is
// lost.
func TestUpgradeReadsTranscriptsLeftOutAsForks(t *testing.T) {
	src := copyTree(t, "../testdata/transcripts/conformance/projects")
	vscode := filepath.Join(src, "-Users-ben-code-site", "c0000006-0000-4000-8000-000000000006.jsonl")
	remote := filepath.Join(src, "-home-user-ratelimit", "c0000008-0000-4000-8000-000000000008.jsonl")
	gone := filepath.Join(src, "-home-user-ratelimit", "c00000ff-0000-4000-8000-0000000000ff.jsonl")
	hold := t.TempDir()
	for _, p := range []string{vscode, remote} { // kept aside while the "old" index is built
		if err := os.Rename(p, filepath.Join(hold, filepath.Base(p))); err != nil {
			t.Fatal(err)
		}
	}
	idx := t.TempDir()
	runIndex(t, src, idx, "")
	before := len(liveRows(t, idx))
	for _, p := range []string{vscode, remote} {
		if err := os.Rename(filepath.Join(hold, filepath.Base(p)), p); err != nil {
			t.Fatal(err)
		}
		markedFork(t, idx, p)
	}
	markedFork(t, idx, gone) // deleted before this recall could read it

	var notices []string
	sum, err := Run(Options{Config: Config{Sources: []string{src}, IndexDir: idx}, Notice: func(s string) { notices = append(notices, s) }})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Recovered != 2 || len(notices) == 0 {
		t.Errorf("recovered %d transcripts, notices %q; want the two still on disk, said once", sum.Recovered, notices)
	}
	rows := liveRows(t, idx)
	sessions := map[string]int{}
	for _, r := range rows {
		sessions[r.Session]++
	}
	if sessions["c0000006-0000-4000-8000-000000000006"] != 3 || sessions["c0000008-0000-4000-8000-000000000008"] != 3 {
		t.Errorf("rows of the recovered sessions: %v; want each prompt, reply and title", sessions)
	}
	if len(rows) != before+6 {
		t.Errorf("%d rows, want the %d before and the 6 recovered", len(rows), before)
	}
	m, err := store.Open(idx).Manifest()
	if err != nil {
		t.Fatal(err)
	}
	if n := m.Excluded[filter.Fork.String()]; n != 1 {
		t.Errorf("fork count %d, want 1: the gone transcript alone", n)
	}
	if st := m.File(gone); st == nil || st.Verdict != record.VerdictFork {
		t.Errorf("the gone transcript's entry: %+v", st)
	}
	if again := runIndex(t, src, idx, ""); again.Recovered != 0 || again.RowsAdded != 0 {
		t.Errorf("second run recovered %d, added %d rows", again.Recovered, again.RowsAdded)
	}
}

// TestUpgradeReadsFilesTakenForBinary: before the tolerant rules, a text
// line that is not JSON on top (a comment a person added when sharing the
// file) made the whole file "binary", never read again; the first run
// under the new rules reads it, and a file that really is binary stays
// skipped.
func TestUpgradeReadsFilesTakenForBinary(t *testing.T) {
	src := copyTree(t, "../testdata/transcripts/conformance/projects")
	shared := filepath.Join(src, "-home-dev-shared", "c0000018-0000-4000-8000-000000000018.jsonl")
	junk := filepath.Join(src, "-home-dev-junk", "c0000023-0000-4000-8000-000000000023.jsonl")
	hold := filepath.Join(t.TempDir(), "shared.jsonl")
	if err := os.Rename(shared, hold); err != nil {
		t.Fatal(err)
	}
	idx := t.TempDir()
	runIndex(t, src, idx, "") // junk is judged binary by these rules too
	if err := os.Rename(hold, shared); err != nil {
		t.Fatal(err)
	}
	markedLeftOut(t, idx, shared, record.VerdictBinary, filter.Binary, 2)
	sum := runIndex(t, src, idx, "")
	if sum.Recovered != 2 {
		t.Errorf("judged %d files again, want both marked binary", sum.Recovered)
	}
	found := 0
	for _, r := range liveRows(t, idx) {
		if r.Session == "c0000018-0000-4000-8000-000000000018" {
			found++
		}
	}
	if found != 2 {
		t.Errorf("%d rows of the shared transcript, want its prompt and reply", found)
	}
	m, err := store.Open(idx).Manifest()
	if err != nil {
		t.Fatal(err)
	}
	if st := m.File(junk); st == nil || st.Verdict != record.VerdictBinary || m.Excluded[filter.Binary.String()] != 1 {
		t.Errorf("the binary file: %+v, binary count %d", st, m.Excluded[filter.Binary.String()])
	}
	if again := runIndex(t, src, idx, ""); again.Recovered != 0 {
		t.Errorf("the next run judged %d files again", again.Recovered)
	}
}

// TestUpgradeReadsTitlesOfLinesReadBefore: an index built under rules
// that kept no titles gains, on its first run under these, the titles of
// the lines it had read, once, and nothing else of them again.
func TestUpgradeReadsTitlesOfLinesReadBefore(t *testing.T) {
	src := t.TempDir()
	dir := filepath.Join(src, "-home-dev-notes")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "d0000001-0000-4000-8000-000000000001.jsonl")
	title := `{"type":"ai-title","sessionId":"d0000001-0000-4000-8000-000000000001","aiTitle":"Quarterly notes cleanup"}`
	hidden := `{"type":"xx-title","sessionId":"d0000001-0000-4000-8000-000000000001","aiTitle":"Quarterly notes cleanup"}`
	body := `{"type":"user","sessionId":"d0000001-0000-4000-8000-000000000001","cwd":"/home/dev/notes","uuid":"d0000001-0000-4000-8000-0000000000a1","timestamp":"2026-06-01T09:00:00.000Z","entrypoint":"cli","message":{"role":"user","content":"Merge the quarterly notes into one file per team."}}` + "\n" +
		hidden + "\n" +
		`{"type":"api-request-shape","shape":"` + strings.Repeat("x", 8<<10) + `"}` + "\n" // past the tail fingerprint
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	idx := t.TempDir()
	runIndex(t, src, idx, "")
	// The title was there when an earlier recall read the file; it kept
	// none. Same bytes but the title's type, same length.
	if err := os.WriteFile(path, []byte(strings.Replace(body, hidden, title, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	runIndex(t, src, idx, "")
	markedLeftOut(t, idx, filepath.Join(src, "gone.jsonl"), record.VerdictFork, filter.Fork, 2) // built under rules v2
	runIndex(t, src, idx, "")
	runIndex(t, src, idx, "")
	var titles, prompts int
	for _, r := range liveRows(t, idx) {
		switch r.Type {
		case record.TypeTitle:
			titles++
			if r.Text != "Quarterly notes cleanup" || r.Role != record.TitleAI || r.Entrypoint != "cli" {
				t.Errorf("title row %+v", r)
			}
		case record.TypeUser:
			prompts++
		}
	}
	if titles != 1 || prompts != 1 {
		t.Errorf("%d title rows and %d prompts, want one of each", titles, prompts)
	}
}
