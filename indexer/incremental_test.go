package indexer

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/recall-dev/recall/store/manifest"

	"github.com/recall-dev/recall/record"
	"github.com/recall-dev/recall/store"
)

const testSession = "55555555-5555-4555-8555-555555555555"

// promptLine is a typed-prompt transcript line.
func promptLine(n int, text string) string {
	rec := map[string]any{
		"type": "user", "uuid": fmt.Sprintf("bbbbbbbb-0000-4000-8000-%012d", n),
		"sessionId": testSession, "timestamp": fmt.Sprintf("2026-04-01T10:%02d:00.000Z", n%60),
		"cwd": "/home/dev/src/inc", "message": map[string]any{"role": "user", "content": text},
	}
	b, _ := json.Marshal(rec)
	return string(b) + "\n"
}

func newSessionFile(t *testing.T) (src, path string) {
	t.Helper()
	src = t.TempDir()
	dir := filepath.Join(src, "-home-dev-src-inc")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return src, filepath.Join(dir, testSession+".jsonl")
}

func appendText(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
}

func texts(rows []record.Row) map[string]int {
	out := map[string]int{}
	for _, r := range rows {
		out[r.Text]++
	}
	return out
}

func TestNoChangeReadsNothing(t *testing.T) {
	src := copyTree(t, fixtureRoot)
	idx := t.TempDir()
	runIndex(t, src, idx, "")
	before, _ := os.Stat(filepath.Join(idx, manifest.Name))
	sum := runIndex(t, src, idx, "")
	if sum.FilesRead != 0 || sum.BytesRead != 0 || sum.RowsAdded != 0 {
		t.Fatalf("second run read %d files, %d bytes, added %d rows", sum.FilesRead, sum.BytesRead, sum.RowsAdded)
	}
	after, _ := os.Stat(filepath.Join(idx, manifest.Name))
	if !after.ModTime().Equal(before.ModTime()) {
		t.Error("manifest rewritten although nothing changed")
	}
}

func TestAppendAddsExactlyTheNewRows(t *testing.T) {
	src, path := newSessionFile(t)
	idx := t.TempDir()
	appendText(t, path, promptLine(1, "first prompt about caching layers")+promptLine(2, "second prompt about cache eviction"))
	runIndex(t, src, idx, "")
	appendText(t, path, promptLine(3, "third prompt about LRU policies"))
	sum := runIndex(t, src, idx, "")
	if sum.RowsAdded != 1 {
		t.Fatalf("append added %d rows, want 1", sum.RowsAdded)
	}
	got := texts(liveRows(t, idx))
	want := map[string]int{"first prompt about caching layers": 1, "second prompt about cache eviction": 1, "third prompt about LRU policies": 1}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("rows = %v, want %v", got, want)
	}
}

func TestPartialLineWaitsForItsEnd(t *testing.T) {
	src, path := newSessionFile(t)
	idx := t.TempDir()
	line := promptLine(1, "a prompt written in two pieces")
	appendText(t, path, line[:20])
	if sum := runIndex(t, src, idx, ""); sum.RowsAdded != 0 || sum.BadLines != 0 {
		t.Fatalf("partial line: %d rows, %d bad lines", sum.RowsAdded, sum.BadLines)
	}
	appendText(t, path, line[20:])
	if sum := runIndex(t, src, idx, ""); sum.RowsAdded != 1 || sum.BadLines != 0 {
		t.Fatalf("completed line: %d rows, %d bad lines", sum.RowsAdded, sum.BadLines)
	}
	rows := liveRows(t, idx)
	if len(rows) != 1 || rows[0].Line != 1 {
		t.Fatalf("rows = %+v", rows)
	}
}

func TestShrunkTranscriptIsReadAgain(t *testing.T) {
	src, path := newSessionFile(t)
	idx := t.TempDir()
	appendText(t, path, promptLine(1, "original prompt number one")+promptLine(2, "original prompt number two"))
	runIndex(t, src, idx, "")
	if err := os.WriteFile(path, []byte(promptLine(3, "rewritten shorter content")), 0o644); err != nil {
		t.Fatal(err)
	}
	sum := runIndex(t, src, idx, "")
	if sum.Replaced != 1 {
		t.Errorf("Replaced = %d, want 1", sum.Replaced)
	}
	got := texts(liveRows(t, idx))
	if len(got) != 1 || got["rewritten shorter content"] != 1 {
		t.Fatalf("rows after shrink = %v", got)
	}
	if !sum.Compacted {
		t.Error("dead rows left in the rows file (no compaction)")
	}
}

func TestReplacedTranscriptIsReadAgain(t *testing.T) {
	src, path := newSessionFile(t)
	idx := t.TempDir()
	appendText(t, path, promptLine(1, "before replacement, first")+promptLine(2, "before replacement, second"))
	runIndex(t, src, idx, "")
	tmp := path + ".new"
	content := promptLine(1, "before replacement, first") + promptLine(2, "after replacement, changed") + promptLine(3, "after replacement, added")
	if err := os.WriteFile(tmp, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
	runIndex(t, src, idx, "")
	got := texts(liveRows(t, idx))
	want := map[string]int{"before replacement, first": 1, "after replacement, changed": 1, "after replacement, added": 1}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("rows = %v, want %v", got, want)
	}
}

func TestDeletedTranscriptKeepsItsRows(t *testing.T) {
	src, path := newSessionFile(t)
	idx := t.TempDir()
	appendText(t, path, promptLine(1, "a prompt that must outlive its transcript"))
	runIndex(t, src, idx, "")
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	sum := runIndex(t, src, idx, "")
	if sum.Gone != 1 {
		t.Errorf("Gone = %d, want 1", sum.Gone)
	}
	if got := texts(liveRows(t, idx)); got["a prompt that must outlive its transcript"] != 1 {
		t.Fatalf("rows after deletion = %v", got)
	}
	m, _ := store.Open(idx).Manifest()
	if st := m.File(path); st == nil || !st.Gone {
		t.Fatalf("manifest does not mark the transcript gone: %+v", st)
	}
}

// TestTornTailIsCutBack: bytes past the committed lengths (a crash after
// appending, before the manifest commit) are discarded by the next writer,
// and readers never see them.
func TestTornTailIsCutBack(t *testing.T) {
	src, path := newSessionFile(t)
	idx := t.TempDir()
	appendText(t, path, promptLine(1, "committed before the crash"))
	runIndex(t, src, idx, "")
	m, _ := store.Open(idx).Manifest()
	for _, name := range []string{m.RowsName(), m.BlocksName(), m.KeysName()} {
		appendText(t, filepath.Join(idx, name), "torn garbage from a crash")
	}
	if got := texts(liveRows(t, idx)); len(got) != 1 {
		t.Fatalf("reader saw %v before repair", got)
	}
	appendText(t, path, promptLine(2, "written after the crash"))
	runIndex(t, src, idx, "")
	got := texts(liveRows(t, idx))
	want := map[string]int{"committed before the crash": 1, "written after the crash": 1}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("rows = %v, want %v", got, want)
	}
}

func TestRebuildRefusesToDropWithoutYes(t *testing.T) {
	src, path := newSessionFile(t)
	idx := t.TempDir()
	appendText(t, path, promptLine(1, "only copy lives in the index"))
	runIndex(t, src, idx, "")
	os.Remove(path)
	opts := Options{Config: Config{Sources: []string{src}, IndexDir: idx}}
	if _, err := Rebuild(opts, false); err == nil {
		t.Fatal("rebuild without --yes dropped rows silently")
	}
	if got := texts(liveRows(t, idx)); len(got) != 1 {
		t.Fatalf("refused rebuild changed the index: %v", got)
	}
	if _, err := Rebuild(opts, true); err != nil {
		t.Fatal(err)
	}
	if got := texts(liveRows(t, idx)); len(got) != 0 {
		t.Fatalf("rebuild --yes kept %v", got)
	}
}

// A reader that opened the index before a compaction keeps reading the
// files it opened, rows and recall events alike.
func TestSnapshotSurvivesCompaction(t *testing.T) {
	src, path := newSessionFile(t)
	idx := t.TempDir()
	appendText(t, path, promptLine(1, "first prompt before the rewrite")+promptLine(2, "I'll search my memory for the cache eviction work"))
	runIndex(t, src, idx, "")
	snap, err := store.Open(idx).Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	if err := os.WriteFile(path, []byte(promptLine(3, "rewritten, which forces a compaction")), 0o644); err != nil {
		t.Fatal(err)
	}
	if sum := runIndex(t, src, idx, ""); !sum.Compacted {
		t.Fatal("no compaction happened")
	}
	n := 0
	if err := snap.EachRow(func(*record.Row) error { n++; return nil }); err != nil || n != 2 {
		t.Fatalf("old snapshot read %d rows, err %v", n, err)
	}
	events, err := snap.Events()
	if err != nil || len(events[testSession]) != 1 {
		t.Fatalf("old snapshot events %v, err %v", events, err)
	}
}

// TestCompactionWaitsForItsShare: a replaced transcript whose old rows
// are a small share of the index leaves them hidden, not compacted away
// at once (a compaction rewrites the whole index, inside whatever run met
// the replacement); once dead rows reach the share, the run compacts.
func TestCompactionWaitsForItsShare(t *testing.T) {
	src, big := newSessionFile(t)
	idx := t.TempDir()
	var text strings.Builder
	for n := 1; n <= 40; n++ {
		text.WriteString(promptLine(n, fmt.Sprintf("prompt %d of the long session", n)))
	}
	appendText(t, big, text.String())
	small := filepath.Join(filepath.Dir(big), "66666666-6666-4666-8666-666666666666.jsonl")
	appendText(t, small, strings.ReplaceAll(promptLine(100, "the small session before its rewrite"), testSession, "66666666-6666-4666-8666-666666666666"))
	runIndex(t, src, idx, "")

	rewrite := func(path, line string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(line), 0o644); err != nil { // shorter: read again
			t.Fatal(err)
		}
	}
	rewrite(small, strings.ReplaceAll(promptLine(101, "the small session after its rewrite, about retries"), testSession, "66666666-6666-4666-8666-666666666666"))
	sum := runIndex(t, src, idx, "")
	if sum.Replaced != 1 || sum.Compacted {
		t.Fatalf("one row of 41 dead: Replaced %d, Compacted %v; want 1, false", sum.Replaced, sum.Compacted)
	}
	got := texts(liveRows(t, idx))
	if got["the small session before its rewrite"] != 0 || got["the small session after its rewrite, about retries"] != 1 {
		t.Fatalf("rows after the rewrite: %v", got)
	}
	if m, err := store.Open(idx).Manifest(); err != nil || m.DeadRows() != 1 {
		t.Fatalf("dead rows %d (%v), want 1 hidden until a compaction", m.DeadRows(), err)
	}

	rewrite(big, promptLine(200, "the long session cut to one prompt"))
	sum = runIndex(t, src, idx, "")
	if !sum.Compacted {
		t.Fatal("41 of 43 rows dead and no compaction")
	}
	if m, err := store.Open(idx).Manifest(); err != nil || m.DeadRows() != 0 {
		t.Fatalf("after the compaction: %d dead rows (%v)", m.DeadRows(), err)
	}
	got = texts(liveRows(t, idx))
	if len(got) != 2 || got["the small session after its rewrite, about retries"] != 1 || got["the long session cut to one prompt"] != 1 {
		t.Fatalf("rows after the compaction: %v", got)
	}
}

// SessionEvents, which a ranked search asks session by session, gives
// each session what Events gives it, a rewritten transcript's hidden
// events left out as Events leaves them out.
func TestSessionEventsAgreeWithEvents(t *testing.T) {
	src, path := newSessionFile(t)
	idx := t.TempDir()
	other := "77777777-7777-4777-8777-777777777777"
	otherPath := filepath.Join(filepath.Dir(path), other+".jsonl")
	var text strings.Builder
	for n := 10; n < 60; n++ { // enough rows that the rewrite below leaves a small dead share, not compacted
		text.WriteString(promptLine(n, fmt.Sprintf("prompt %d of the long session", n)))
	}
	appendText(t, path, promptLine(1, "first prompt")+promptLine(2, "I'll search my memory for the cache eviction work")+text.String())
	appendText(t, otherPath, strings.ReplaceAll(promptLine(3, "let me check my memory about the retry loop")+
		promptLine(4, "I'll search my memory for the flaky scheduler test"), testSession, other))
	runIndex(t, src, idx, "")
	// Rewritten shorter: its old rows and their event are hidden, not gone.
	if err := os.WriteFile(otherPath, []byte(strings.ReplaceAll(promptLine(5, "rewritten without recall"), testSession, other)), 0o644); err != nil {
		t.Fatal(err)
	}
	if sum := runIndex(t, src, idx, ""); sum.Replaced != 1 || sum.Compacted {
		t.Fatalf("Replaced %d, Compacted %v: the test needs hidden rows", sum.Replaced, sum.Compacted)
	}
	snap, err := store.Open(idx).Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	all, err := snap.Events()
	if err != nil {
		t.Fatal(err)
	}
	if len(all[testSession]) != 1 {
		t.Fatalf("the test needs a recall event in %s: %v", testSession, all)
	}
	for _, id := range []string{testSession, other, "no-such-session"} {
		got, err := snap.SessionEvents(id)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, all[id]) {
			t.Errorf("SessionEvents(%s) = %v, Events has %v", id, got, all[id])
		}
	}
}
