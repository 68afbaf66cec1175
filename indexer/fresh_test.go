package indexer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/recall-dev/recall/store/manifest"

	"github.com/recall-dev/recall/indexer/freshstate"
	"github.com/recall-dev/recall/store"
	"github.com/recall-dev/recall/store/storetest"
)

// claudeEnv is a Claude Code configuration folder (projects, history.jsonl,
// sessions) with an index, for the quick check's tests. Everything it
// creates is dated an hour back, so only what a test changes is recent.
type claudeEnv struct {
	cfg, root, idx string
	now            time.Time // the clock of the next run; zero means time.Now
	sweepEvery     time.Duration
	n              int
}

const (
	envProject = "-home-dev-app"
	envCwd     = "/home/dev/app"
	oldSession = "11111111-1111-4111-8111-111111111111"
)

func newClaudeEnv(t *testing.T) *claudeEnv {
	t.Helper()
	cfg := t.TempDir()
	e := &claudeEnv{cfg: cfg, root: filepath.Join(cfg, "projects"), idx: t.TempDir(), sweepEvery: 1000 * time.Hour}
	for _, d := range []string{filepath.Join(e.root, envProject), filepath.Join(cfg, "sessions")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	e.appendPrompt(t, oldSession, "an old session about the parser")
	e.appendHistory(t, oldSession)
	if err := os.MkdirAll(e.subagentDir(oldSession), 0o755); err != nil {
		t.Fatal(err)
	}
	e.appendLine(t, filepath.Join(e.subagentDir(oldSession), "agent-a0000000000000001.jsonl"), oldSession, "old subagent work", true)
	e.backdate(t)
	sum := e.run(t)
	if sum.Files != 2 {
		t.Fatalf("setup indexed %d transcripts, want 2", sum.Files)
	}
	return e
}

func (e *claudeEnv) mainPath(session string) string {
	return filepath.Join(e.root, envProject, session+".jsonl")
}

func (e *claudeEnv) subagentDir(session string) string {
	return filepath.Join(e.root, envProject, session, "subagents")
}

// appendPrompt appends a typed prompt to a session's main transcript.
func (e *claudeEnv) appendPrompt(t *testing.T, session, text string) {
	t.Helper()
	e.appendLine(t, e.mainPath(session), session, text, false)
}

func (e *claudeEnv) appendLine(t *testing.T, path, session, text string, sidechain bool) {
	t.Helper()
	e.n++
	rec := map[string]any{
		"type": "user", "uuid": fmt.Sprintf("cccccccc-0000-4000-8000-%012d", e.n), "isSidechain": sidechain,
		"sessionId": session, "timestamp": fmt.Sprintf("2026-04-01T10:%02d:00.000Z", e.n%60),
		"cwd": envCwd, "message": map[string]any{"role": "assistant", "content": text},
	}
	if !sidechain {
		rec["message"] = map[string]any{"role": "user", "content": text}
	} else {
		rec["type"], rec["agentId"] = "assistant", "a0000000000000001"
		rec["message"] = map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "text", "text": text}}}
	}
	b, _ := json.Marshal(rec)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	appendText(t, path, string(b)+"\n")
}

// appendHistory is what typing a prompt in session writes to history.jsonl.
func (e *claudeEnv) appendHistory(t *testing.T, session string) {
	t.Helper()
	b, _ := json.Marshal(map[string]any{"display": "a prompt", "pastedContents": map[string]any{},
		"timestamp": 1775037600000, "project": envCwd, "sessionId": session})
	appendText(t, filepath.Join(e.cfg, "history.jsonl"), string(b)+"\n")
}

// running marks a session as running (sessions/<pid>.json) or, with
// running false, ended.
func (e *claudeEnv) running(t *testing.T, session string, running bool) {
	t.Helper()
	path := filepath.Join(e.cfg, "sessions", "4242.json")
	if !running {
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
		return
	}
	b, _ := json.Marshal(map[string]any{"pid": 4242, "sessionId": session, "cwd": envCwd, "startedAt": 1775037600000})
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// backdate dates every file and folder of the configuration an hour
// back: quiet transcripts, folder mtimes no change can collide with.
func (e *claudeEnv) backdate(t *testing.T) {
	t.Helper()
	old := time.Now().Add(-time.Hour)
	var dirs []string
	err := filepath.WalkDir(e.cfg, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			dirs = append(dirs, path) // after their entries: creating those changed them
			return nil
		}
		return os.Chtimes(path, old, old)
	})
	if err != nil {
		t.Fatal(err)
	}
	for i := len(dirs) - 1; i >= 0; i-- {
		if err := os.Chtimes(dirs[i], old, old); err != nil {
			t.Fatal(err)
		}
	}
}

// run is a search's update: the quick check.
func (e *claudeEnv) run(t *testing.T) Summary {
	t.Helper()
	var warnings []string
	sum, err := Run(Options{
		Config:     Config{Sources: []string{e.root}, IndexDir: e.idx},
		Quick:      true,
		SweepEvery: e.sweepEvery,
		Clock: func() time.Time {
			if e.now.IsZero() {
				return time.Now()
			}
			return e.now
		},
		Warn: func(s string) { warnings = append(warnings, s) },
	})
	if err != nil {
		t.Fatalf("index: %v (warnings %q)", err, warnings)
	}
	return sum
}

// sweepNs is when the state says the last full sweep started.
func (e *claudeEnv) sweepNs(t *testing.T) int64 {
	t.Helper()
	s, err := freshstate.Read(store.Open(e.idx))
	if err != nil {
		t.Fatalf("no freshness state: %v", err)
	}
	return s.SweepNs
}

// quickRun runs the quick check and fails the test if it swept: a test
// of a signal must not pass because everything was stat'ed.
func (e *claudeEnv) quickRun(t *testing.T) Summary {
	t.Helper()
	before := e.sweepNs(t)
	sum := e.run(t)
	if after := e.sweepNs(t); after != before {
		t.Fatal("the run swept every transcript; the test wants the quick check")
	}
	return sum
}

func (e *claudeEnv) indexed(t *testing.T, text string) bool {
	t.Helper()
	return texts(liveRows(t, e.idx))[text] > 0
}

func (e *claudeEnv) mustIndex(t *testing.T, texts ...string) {
	t.Helper()
	for _, text := range texts {
		if !e.indexed(t, text) {
			t.Errorf("%q is not indexed after the quick check", text)
		}
	}
}

func TestQuickNoChangeCommitsNothing(t *testing.T) {
	e := newClaudeEnv(t)
	e.mustIndex(t, "an old session about the parser", "old subagent work")
	before, _ := store.Open(e.idx).ManifestID()
	sum := e.quickRun(t)
	after, _ := store.Open(e.idx).ManifestID()
	if before != after || sum.FilesRead != 0 || sum.Files != 2 {
		t.Errorf("no-change quick run: manifest %v → %v, read %d of %d files", before, after, sum.FilesRead, sum.Files)
	}
}

// Each way a transcript changes, seen by the quick check (each test also
// fails with the signal it relies on taken out: see docs/performance.md).
func TestQuickSeesEveryChange(t *testing.T) {
	const fresh = "22222222-2222-4222-8222-222222222222"
	cases := []struct {
		name   string
		change func(t *testing.T, e *claudeEnv)
		want   []string
	}{
		{"resume of an old session (history line)", func(t *testing.T, e *claudeEnv) {
			e.appendPrompt(t, oldSession, "resumed and asked about zebras")
			e.appendHistory(t, oldSession)
		}, []string{"resumed and asked about zebras"}},
		{"append to a running session (sessions/<pid>.json, no history)", func(t *testing.T, e *claudeEnv) {
			e.running(t, oldSession, true)
			e.appendPrompt(t, oldSession, "a headless resume while running")
		}, []string{"a headless resume while running"}},
		{"new transcript of a -p run (no history)", func(t *testing.T, e *claudeEnv) {
			e.appendPrompt(t, fresh, "a headless run about kiwis")
		}, []string{"a headless run about kiwis"}},
		{"new project folder", func(t *testing.T, e *claudeEnv) {
			path := filepath.Join(e.root, "-home-dev-other", fresh+".jsonl")
			e.appendLine(t, path, fresh, "a new project about lemons", false)
		}, []string{"a new project about lemons"}},
		{"new session folder with a subagent", func(t *testing.T, e *claudeEnv) {
			e.appendPrompt(t, fresh, "a session with agents")
			e.appendLine(t, filepath.Join(e.subagentDir(fresh), "agent-a0000000000000002.jsonl"), fresh, "a fresh subagent on mangoes", true)
		}, []string{"a session with agents", "a fresh subagent on mangoes"}},
		{"transcript replaced by a rename (no signal)", func(t *testing.T, e *claudeEnv) {
			tmp := filepath.Join(e.root, envProject, ".tmp-rewrite")
			e.appendLine(t, tmp, oldSession, "the rewritten old session", false)
			if err := os.Rename(tmp, e.mainPath(oldSession)); err != nil {
				t.Fatal(err)
			}
		}, []string{"the rewritten old session"}},
		{"subagent added to a running session", func(t *testing.T, e *claudeEnv) {
			e.running(t, oldSession, true)
			e.appendLine(t, filepath.Join(e.subagentDir(oldSession), "agent-a0000000000000003.jsonl"), oldSession, "a late subagent on figs", true)
		}, []string{"a late subagent on figs"}},
		{"subagent added in a resumed session (history line)", func(t *testing.T, e *claudeEnv) {
			e.appendHistory(t, oldSession)
			e.appendLine(t, filepath.Join(e.subagentDir(oldSession), "agent-a0000000000000001.jsonl"), oldSession, "more old subagent work", true)
		}, []string{"more old subagent work"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newClaudeEnv(t)
			c.change(t, e)
			e.quickRun(t)
			e.mustIndex(t, c.want...)
		})
	}
}

// A transcript written recently stays hot: lines appended after a run
// with no signal at all (a session that ended, a -p run) are read.
func TestQuickHotSetKeepsRecentTranscripts(t *testing.T) {
	const fresh = "33333333-3333-4333-8333-333333333333"
	e := newClaudeEnv(t)
	e.appendPrompt(t, fresh, "first headless turn")
	e.quickRun(t)
	e.appendPrompt(t, fresh, "last words before exit")
	e.quickRun(t)
	e.mustIndex(t, "first headless turn", "last words before exit")

	// Quiet for longer than HotKeep: it leaves the hot set.
	e.now = time.Now().Add(HotKeep + time.Minute)
	e.quickRun(t)
	s, _ := freshstate.Read(store.Open(e.idx))
	if _, hot := s.Hot[e.mainPath(fresh)]; hot {
		t.Error("a transcript quiet for longer than HotKeep is still hot")
	}
}

// The session that ran while it was current is read once it ends, even
// with no signal left: its file stays hot until its bytes are indexed.
func TestQuickReadsCurrentSessionAfterItEnds(t *testing.T) {
	const cur = "44444444-4444-4444-8444-444444444444"
	e := newClaudeEnv(t)
	e.running(t, cur, true)
	e.appendPrompt(t, cur, "said while current")
	var warnings []string
	_, err := Run(Options{Config: Config{Sources: []string{e.root}, IndexDir: e.idx, CurrentSession: cur},
		Quick: true, SweepEvery: e.sweepEvery, Warn: func(s string) { warnings = append(warnings, s) }})
	if err != nil {
		t.Fatal(err)
	}
	if e.indexed(t, "said while current") {
		t.Fatal("the current session was read")
	}
	e.running(t, cur, false)
	e.now = time.Now().Add(HotKeep + time.Hour) // long quiet, no signal left
	e.quickRun(t)
	e.mustIndex(t, "said while current")
}

// A sweep that leaves a quiet transcript unread because its session is
// current keeps it hot, so it is read once the session is no longer
// current, with no signal and however long after.
func TestSweepKeepsCurrentSessionHot(t *testing.T) {
	e := newClaudeEnv(t)
	e.appendPrompt(t, oldSession, "said in the old session while current")
	e.backdate(t)
	if err := storetest.With(e.idx, func(w *store.Writer) error { return freshstate.Remove(w) }); err != nil { // the next run sweeps
		t.Fatal(err)
	}
	_, err := Run(Options{Config: Config{Sources: []string{e.root}, IndexDir: e.idx, CurrentSession: oldSession},
		Quick: true, SweepEvery: e.sweepEvery})
	if err != nil {
		t.Fatal(err)
	}
	if e.indexed(t, "said in the old session while current") {
		t.Fatal("the current session was read")
	}
	e.now = time.Now().Add(HotKeep + time.Hour)
	e.quickRun(t)
	e.mustIndex(t, "said in the old session while current")
}

func TestQuickTruncationOfAHotTranscript(t *testing.T) {
	const fresh = "55555555-5555-4555-8555-555555555551"
	e := newClaudeEnv(t)
	e.appendPrompt(t, fresh, "a long first version of this transcript")
	e.appendPrompt(t, fresh, "and a second line to cut")
	e.quickRun(t)
	if err := os.Truncate(e.mainPath(fresh), 0); err != nil {
		t.Fatal(err)
	}
	e.appendPrompt(t, fresh, "rewritten from the start with other words")
	sum := e.quickRun(t)
	if sum.Replaced != 1 {
		t.Errorf("replaced %d transcripts, want 1", sum.Replaced)
	}
	e.mustIndex(t, "rewritten from the start with other words")
	if e.indexed(t, "and a second line to cut") {
		t.Error("rows of the truncated version are still live")
	}
}

func TestQuickDeletion(t *testing.T) {
	e := newClaudeEnv(t)
	// The cleanup sweep deletes a session with its folder.
	if err := os.RemoveAll(filepath.Join(e.root, envProject, oldSession)); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(e.mainPath(oldSession)); err != nil {
		t.Fatal(err)
	}
	sum := e.quickRun(t)
	if sum.Gone != 2 {
		t.Errorf("%d transcripts gone, want 2 (main and subagent)", sum.Gone)
	}
	e.mustIndex(t, "an old session about the parser", "old subagent work") // rows are kept
	m, err := store.Open(e.idx).Manifest()
	if err != nil {
		t.Fatal(err)
	}
	for path, st := range m.Files() {
		if !st.Gone {
			t.Errorf("%s not marked gone", path)
		}
	}

	// A whole project folder removed.
	e2 := newClaudeEnv(t)
	if err := os.RemoveAll(filepath.Join(e2.root, envProject)); err != nil {
		t.Fatal(err)
	}
	if sum := e2.quickRun(t); sum.Gone != 2 {
		t.Errorf("project folder removed: %d transcripts gone, want 2", sum.Gone)
	}
}

// What the quick check cannot see (an append to a quiet transcript of a
// session that is not running and wrote no history: `claude -p --resume`
// of an old session, a truncation of an old file) is indexed by the first
// run after SweepEvery: the documented staleness bound.
func TestQuickBackstopSweep(t *testing.T) {
	e := newClaudeEnv(t)
	e.sweepEvery = 10 * time.Minute
	e.appendPrompt(t, oldSession, "a headless resume nobody announced")
	e.quickRun(t)
	if e.indexed(t, "a headless resume nobody announced") {
		t.Fatal("seen before the sweep: a signal saw it, so this test no longer exercises the backstop")
	}
	e.now = time.Now().Add(10*time.Minute + time.Second)
	before := e.sweepNs(t)
	e.run(t)
	if e.sweepNs(t) == before {
		t.Fatal("no sweep after SweepEvery")
	}
	e.mustIndex(t, "a headless resume nobody announced")
}

// The state is a hint: a manifest it does not name (committed by another
// version, recovered, rebuilt) or a damaged state means a full sweep.
func TestQuickStateVoided(t *testing.T) {
	for _, name := range []string{"manifest replaced", "journal record by a run that kept no state", "state damaged"} {
		t.Run(name, func(t *testing.T) {
			e := newClaudeEnv(t)
			e.appendPrompt(t, oldSession, "unannounced line")
			path := filepath.Join(e.idx, "fresh-v2.tsv")
			before := e.sweepNs(t)
			switch name {
			case "journal record by a run that kept no state":
				m, err := store.Open(e.idx).OpenManifest()
				if err != nil {
					t.Fatal(err)
				}
				m.UpdatedNs++
				if err := storetest.With(e.idx, func(w *store.Writer) error { return w.CommitManifest(m) }); err != nil {
					t.Fatal(err)
				}
			case "manifest replaced":
				m, err := store.Open(e.idx).Manifest()
				if err != nil {
					t.Fatal(err)
				}
				if err := storetest.With(e.idx, func(w *store.Writer) error { return w.CommitManifest(m) }); err != nil {
					t.Fatal(err)
				}
			default:
				data, _ := os.ReadFile(path)
				data[len(data)/2] ^= 1
				if err := os.WriteFile(path, data, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			e.run(t)
			if e.sweepNs(t) == before {
				t.Error("the run trusted a void state")
			}
			e.mustIndex(t, "unannounced line")
		})
	}
}

// TestQuickOwnJournalCommitKeepsState: a quick run that commits an
// append as a journal record names the journal it wrote in the state, so
// the next run is quick again (and sees the next append).
func TestQuickOwnJournalCommitKeepsState(t *testing.T) {
	e := newClaudeEnv(t)
	cp, err := os.ReadFile(filepath.Join(e.idx, manifest.Name))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		text := fmt.Sprintf("resumed prompt number %d", i)
		e.appendPrompt(t, oldSession, text)
		e.appendHistory(t, oldSession)
		if sum := e.quickRun(t); sum.RowsAdded != 1 {
			t.Fatalf("append %d: %d rows added, want 1", i, sum.RowsAdded)
		}
		e.mustIndex(t, text)
	}
	if now, _ := os.ReadFile(filepath.Join(e.idx, manifest.Name)); !bytes.Equal(now, cp) {
		t.Error("the appends rewrote the checkpoint instead of appending to the journal")
	}
}

// TestQuickHistoryCutAndWrittenAgain: history.jsonl emptied and written
// again past the offset read last time (same inode, larger) would make
// the check read on from mid-file and skip the lines before the offset;
// the bytes before the offset are fingerprinted, so it sweeps instead.
// (Found in review: the resumed session's line was never read.)
func TestQuickHistoryCutAndWrittenAgain(t *testing.T) {
	e := newClaudeEnv(t)
	hp := filepath.Join(e.cfg, "history.jsonl")
	st, err := os.Stat(hp)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(hp, 0); err != nil {
		t.Fatal(err)
	}
	e.appendPrompt(t, oldSession, "resumed after history was cut")
	// The resume's line, now before the old offset (a typed prompt's line
	// differs from every earlier one: its time and text).
	appendText(t, hp, `{"display":"resume the parser work","pastedContents":{},"timestamp":1775041200000,"project":"`+envCwd+`","sessionId":"`+oldSession+`"}`+"\n")
	for i := 0; int64(i) < st.Size()/50+2; i++ {
		e.appendHistory(t, fmt.Sprintf("33333333-3333-4333-8333-%012d", i))
	}
	before := e.sweepNs(t)
	sum := e.run(t)
	if e.sweepNs(t) == before || !strings.Contains(sum.Sweep, "cut and written again") {
		t.Errorf("no sweep after history.jsonl was cut and written again (sweep reason %q)", sum.Sweep)
	}
	e.mustIndex(t, "resumed after history was cut")
}

// TestQuickSourceThroughSymlink: a source that is the projects folder
// under another name (a symlink to ~/.claude/projects) reads the signals
// of the folder it points into; a source that is no projects folder at
// all has none, and every run sweeps (-v says why). (Found in review: a
// running session quiet for 15 minutes was missed until the backstop.)
func TestQuickSourceThroughSymlink(t *testing.T) {
	e := newClaudeEnv(t)
	alias := filepath.Join(e.cfg, "alias")
	if err := os.Symlink(e.root, alias); err != nil {
		t.Fatal(err)
	}
	run := func(source string) Summary {
		sum, err := Run(Options{Config: Config{Sources: []string{source}, IndexDir: e.idx}, Quick: true, SweepEvery: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		return sum
	}
	run(alias) // sweeps: other sources than the state's
	e.running(t, oldSession, true)
	e.appendPrompt(t, oldSession, "typed into a running session")
	e.appendHistory(t, oldSession)
	if sum := run(alias); sum.Sweep != "" {
		t.Errorf("a source through a symlink swept: %s", sum.Sweep)
	}
	e.mustIndex(t, "typed into a running session")

	copyRoot := copyTree(t, e.root) // transcripts outside any Claude Code folder
	run(copyRoot)
	if sum := run(copyRoot); !strings.Contains(sum.Sweep, "not a Claude Code projects folder") {
		t.Errorf("a source without signals did not sweep (reason %q)", sum.Sweep)
	}
}
