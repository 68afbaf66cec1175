package indexer

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/recall-dev/recall/store/manifest"

	"github.com/recall-dev/recall/record"
	"github.com/recall-dev/recall/store"
	"github.com/recall-dev/recall/store/storetest"
)

// The corpus of the forget-for-good scenarios: a secret session A in a
// project of its own (with a subagent), a fork F of A in another project
// (copies of A's messages under their uuids, and a message of its own),
// and an unrelated session B. A's messages before forgetCut are its old
// ones, the one after it is new.
const (
	sessA       = "a1a1a1a1-0000-4000-8000-00000000000a"
	sessB       = "b2b2b2b2-0000-4000-8000-00000000000b"
	sessF       = "f3f3f3f3-0000-4000-8000-00000000000f"
	projA       = "/home/dev/src/zanzibarsecret"
	projB       = "/home/dev/src/openbook"
	forgetCutAt = "2026-04-10T00:00:00Z"
)

type forgetCorpus struct {
	src, idx       string
	pathA, subA    string
	pathB, pathF   string
	slugA, slugB   string
	oldText, newAt string
}

func line(session, uuid, ts, cwd, text string, sidechain bool) string {
	rec := map[string]any{"type": "user", "uuid": uuid, "sessionId": session, "timestamp": ts, "cwd": cwd,
		"isSidechain": sidechain, "message": map[string]any{"role": "user", "content": text}}
	b, _ := json.Marshal(rec)
	return string(b) + "\n"
}

func newForgetCorpus(t *testing.T) *forgetCorpus {
	t.Helper()
	c := &forgetCorpus{src: t.TempDir(), idx: t.TempDir(), slugA: "-home-dev-src-zanzibarsecret", slugB: "-home-dev-src-openbook"}
	for _, d := range []string{filepath.Join(c.src, c.slugA, sessA, "subagents"), filepath.Join(c.src, c.slugB)} {
		must(t, os.MkdirAll(d, 0o755))
	}
	c.pathA = filepath.Join(c.src, c.slugA, sessA+".jsonl")
	c.subA = filepath.Join(c.src, c.slugA, sessA, "subagents", "agent-a0000000000000009.jsonl")
	c.pathB = filepath.Join(c.src, c.slugB, sessB+".jsonl")
	c.pathF = filepath.Join(c.src, c.slugB, sessF+".jsonl")
	appendText(t, c.pathA,
		line(sessA, "aaaa0000-0000-4000-8000-000000000001", "2026-04-01T10:00:00.000Z", projA, "the quokkaflux launch codes for the billing vault", false)+
			line(sessA, "aaaa0000-0000-4000-8000-000000000002", "2026-04-02T10:00:00.000Z", projA, "rotate the quokkaflux vault keys every week", false)+
			line(sessA, "aaaa0000-0000-4000-8000-000000000003", "2026-04-20T10:00:00.000Z", projA, "a later wombatglide note written after the cut", false))
	appendText(t, c.subA, line(sessA, "aaaa0000-0000-4000-8000-000000000009", "2026-04-01T11:00:00.000Z", projA, "subagent quokkaflux inventory of the vault", true))
	appendText(t, c.pathB, line(sessB, "bbbb0000-0000-4000-8000-000000000001", "2026-04-03T10:00:00.000Z", projB, "an unrelated zebrafrost cache question", false))
	// The fork: A's first two messages copied under their uuids, then
	// its own; made after A (later creation time: file times are
	// coarse), as a fork is, so A owns the messages it wrote.
	time.Sleep(30 * time.Millisecond)
	appendText(t, c.pathF,
		line(sessF, "aaaa0000-0000-4000-8000-000000000001", "2026-04-01T10:00:00.000Z", projB, "the quokkaflux launch codes for the billing vault", false)+
			line(sessF, "aaaa0000-0000-4000-8000-000000000002", "2026-04-02T10:00:00.000Z", projB, "rotate the quokkaflux vault keys every week", false)+
			line(sessF, "ffff0000-0000-4000-8000-000000000001", "2026-04-21T10:00:00.000Z", projB, "the fork's own ocelotdrift question", false))
	runIndex(t, c.src, c.idx, "")
	return c
}

func (c *forgetCorpus) opts() Options {
	return Options{Config: Config{IndexDir: c.idx, Sources: []string{c.src}}}
}

// forgotten lists the index files that hold any of needles (indexHolds:
// every file, zstd files decompressed, the term vocabulary's folded
// tokens included).
func forgottenLeft(t *testing.T, idx string, needles ...string) []string {
	t.Helper()
	var out []string
	for _, n := range needles {
		for _, f := range indexHolds(t, idx, n) {
			out = append(out, fmt.Sprintf("%s holds %q", f, n))
		}
	}
	return out
}

// TestForgetIsForGood: what `recall forget` removed stays removed through
// every way the index reads transcripts again (a rebuild, the recovery of
// a lost manifest, a repair of damaged rows, a transcript found again
// under a new path, new transcripts of a forgotten project, a search's
// update), and no file of the index holds the forgotten session's id, its
// transcripts' paths, its project's path (when forgotten whole) or its
// text; what was not forgotten stays (issue 23).
func TestForgetIsForGood(t *testing.T) {
	type selector struct {
		sel ForgetSelector
		// gone must be absent from every index file; kept present.
		gone, kept func(c *forgetCorpus) []string
	}
	cut, _ := time.Parse(time.RFC3339, forgetCutAt)
	selectors := map[string]selector{
		"session": {
			sel:  ForgetSelector{Session: sessA[:8]},
			gone: func(c *forgetCorpus) []string { return []string{sessA, c.pathA, c.subA, "quokkaflux", "wombatglide"} },
			kept: func(c *forgetCorpus) []string { return []string{"zebrafrost", "ocelotdrift", sessB} },
		},
		"project path": {
			sel: ForgetSelector{Project: projA},
			gone: func(c *forgetCorpus) []string {
				return []string{sessA, c.pathA, c.subA, projA, "quokkaflux", "wombatglide", "kestrelnova"}
			},
			kept: func(c *forgetCorpus) []string { return []string{"zebrafrost", "ocelotdrift", projB} },
		},
		"project fragment": {
			sel: ForgetSelector{Project: "ZanzibarSec"},
			gone: func(c *forgetCorpus) []string {
				return []string{sessA, c.pathA, projA, "quokkaflux", "wombatglide", "kestrelnova"}
			},
			kept: func(c *forgetCorpus) []string { return []string{"zebrafrost", "ocelotdrift"} },
		},
		"session before a date": {
			sel:  ForgetSelector{Session: sessA, Before: cut},
			gone: func(c *forgetCorpus) []string { return []string{c.subA, "quokkaflux"} },
			kept: func(c *forgetCorpus) []string { return []string{"wombatglide", "zebrafrost", "ocelotdrift"} },
		},
		"before a date": {
			sel:  ForgetSelector{Before: cut},
			gone: func(c *forgetCorpus) []string { return []string{"quokkaflux", "zebrafrost", c.pathB} },
			kept: func(c *forgetCorpus) []string { return []string{"wombatglide", "ocelotdrift"} },
		},
	}
	afters := map[string]func(t *testing.T, c *forgetCorpus){
		"nothing": func(t *testing.T, c *forgetCorpus) {},
		"index run": func(t *testing.T, c *forgetCorpus) {
			runIndex(t, c.src, c.idx, "")
		},
		"search's update": func(t *testing.T, c *forgetCorpus) {
			if _, _, err := Update(Options{Config: Config{IndexDir: c.idx, Sources: []string{c.src}}, Quick: true}); err != nil {
				t.Fatal(err)
			}
		},
		"rebuild": func(t *testing.T, c *forgetCorpus) {
			if _, err := Rebuild(c.opts(), true); err != nil {
				t.Fatal(err)
			}
		},
		"manifest lost": func(t *testing.T, c *forgetCorpus) {
			must(t, os.Remove(filepath.Join(c.idx, manifest.Name)))
			must(t, os.Remove(filepath.Join(c.idx, manifest.JournalName)))
			runIndex(t, c.src, c.idx, "")
		},
		"block records lost": func(t *testing.T, c *forgetCorpus) {
			m, err := store.Open(c.idx).Manifest()
			must(t, err)
			must(t, os.Remove(filepath.Join(c.idx, m.BlocksName())))
			runIndex(t, c.src, c.idx, "")
		},
		"repair of a damaged block": func(t *testing.T, c *forgetCorpus) {
			storetest.FlipBlockByte(t, c.idx, 0)
			if _, err := Run(Options{Config: Config{IndexDir: c.idx, Sources: []string{c.src}}, Repair: true}); err != nil {
				t.Fatal(err)
			}
		},
		"moved to a new path": func(t *testing.T, c *forgetCorpus) {
			moved := filepath.Join(c.src, "-elsewhere")
			must(t, os.MkdirAll(moved, 0o755))
			must(t, os.Rename(c.pathA, filepath.Join(moved, filepath.Base(c.pathA))))
			runIndex(t, c.src, c.idx, "")
			must(t, os.Rename(filepath.Join(moved, filepath.Base(c.pathA)), c.pathA))
			runIndex(t, c.src, c.idx, "")
		},
		"the session goes on": func(t *testing.T, c *forgetCorpus) {
			appendText(t, c.pathA, line(sessA, "aaaa0000-0000-4000-8000-000000000004", "2026-03-30T10:00:00.000Z", projA, "a quokkaflux aside appended late", false))
			runIndex(t, c.src, c.idx, "")
		},
		"a new session in the project": func(t *testing.T, c *forgetCorpus) {
			p := filepath.Join(c.src, c.slugA, "c4c4c4c4-0000-4000-8000-00000000000c.jsonl")
			appendText(t, p, line("c4c4c4c4-0000-4000-8000-00000000000c", "cccc0000-0000-4000-8000-000000000001", "2026-03-30T10:00:00.000Z", projA, "a kestrelnova question from a new session", false))
			runIndex(t, c.src, c.idx, "")
			runIndex(t, c.src, c.idx, "")
		},
	}
	for sname, s := range selectors {
		for aname, after := range afters {
			t.Run(sname+"/"+aname, func(t *testing.T) {
				c := newForgetCorpus(t)
				for _, want := range []string{sessA, c.pathA, projA, "quokkaflux", "wombatglide"} {
					if len(indexHolds(t, c.idx, want)) == 0 {
						t.Fatalf("%q is not in the index to begin with", want)
					}
				}
				rep, err := Forget(c.opts(), s.sel, false)
				if err != nil {
					t.Fatalf("forget: %v", err)
				}
				if rep.Rows == 0 {
					t.Fatal("forget removed nothing")
				}
				after(t, c)
				if left := forgottenLeft(t, c.idx, s.gone(c)...); len(left) > 0 {
					t.Errorf("forgotten bytes left:\n  %s", strings.Join(left, "\n  "))
				}
				for _, want := range s.kept(c) {
					if len(indexHolds(t, c.idx, want)) == 0 {
						t.Errorf("%q, not forgotten, is gone", want)
					}
				}
				if d, err := store.Open(c.idx).Verify(); err != nil || !d.None() {
					t.Errorf("the index does not verify: %+v, %v", d, err)
				}
				// The keys file holds one record per row kept (each row
				// of this corpus has a uuid), none of a forgotten row.
				m, err := store.Open(c.idx).Manifest()
				must(t, err)
				if recs, rows := (m.KeysBytes-16)/12, len(liveRows(t, c.idx)); recs != int64(rows) {
					t.Errorf("the keys file holds %d records for %d rows", recs, rows)
				}
			})
		}
	}
}

// TestForgetUndo: `recall forget --undo` with the forget's options takes
// it back while the transcripts exist: the next run reads them again, the
// rows come back, and the tombstone holds no rule any more.
func TestForgetUndo(t *testing.T) {
	cut, _ := time.Parse(time.RFC3339, forgetCutAt)
	cases := map[string]struct {
		forget ForgetSelector
		undo   UndoSelector
		back   []string
	}{
		"session":               {ForgetSelector{Session: sessA}, UndoSelector{Session: sessA[:10]}, []string{"quokkaflux", "wombatglide", "subagent quokkaflux"}},
		"project":               {ForgetSelector{Project: projA}, UndoSelector{Project: projA}, []string{"quokkaflux", "wombatglide"}},
		"session before a date": {ForgetSelector{Session: sessA, Before: cut}, UndoSelector{Session: sessA, Before: cut}, []string{"quokkaflux vault keys", "subagent quokkaflux"}},
		"before a date":         {ForgetSelector{Before: cut}, UndoSelector{All: true}, []string{"quokkaflux", "zebrafrost"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := newForgetCorpus(t)
			if _, err := Forget(c.opts(), tc.forget, false); err != nil {
				t.Fatal(err)
			}
			if _, err := Undo(c.opts(), UndoSelector{Session: sessB}, false); err == nil {
				t.Error("undoing a forget that was not made is not an error")
			}
			rep, err := Undo(c.opts(), tc.undo, false)
			if err != nil || rep.Rules != 1 {
				t.Fatalf("undo = %+v, %v", rep, err)
			}
			runIndex(t, c.src, c.idx, "")
			for _, want := range tc.back {
				if len(indexHolds(t, c.idx, want)) == 0 {
					t.Errorf("%q did not come back after the undo", want)
				}
			}
			tomb, err := store.Open(c.idx).Tombstone()
			must(t, err)
			if n := len(tomb.Rules); n != 0 {
				t.Errorf("the tombstone keeps %d rules after the undo and a run", n)
			}
			if d, err := store.Open(c.idx).Verify(); err != nil || !d.None() {
				t.Errorf("the index does not verify: %+v, %v", d, err)
			}
			// Each row once: the undo read the transcripts again as new
			// generations, and the old ones' rows are not doubled.
			seen := map[string]int{}
			for _, r := range liveRows(t, c.idx) {
				seen[r.Source+"\x00"+r.Text]++
			}
			for k, n := range seen {
				if n > 1 {
					t.Errorf("%q is indexed %d times", k, n)
				}
			}
		})
	}
}

// TestForgetKilledAfterItsRuleIsFinishedByTheNextRun: a forget killed
// after it wrote its rule, before its compaction, is finished by the
// next run of any kind, a search's update included.
func TestForgetKilledAfterItsRuleIsFinishedByTheNextRun(t *testing.T) {
	c := newForgetCorpus(t)
	before := map[string][]byte{}
	entries, err := os.ReadDir(c.idx)
	must(t, err)
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(c.idx, e.Name()))
		must(t, err)
		before[e.Name()] = data
	}
	if _, err := Forget(c.opts(), ForgetSelector{Session: sessA}, false); err != nil {
		t.Fatal(err)
	}
	// The index as it was, with the rule: a forget killed after writing
	// its rule.
	entries, err = os.ReadDir(c.idx)
	must(t, err)
	for _, e := range entries {
		if e.Name() != "forgotten-v1.tsv" {
			must(t, os.Remove(filepath.Join(c.idx, e.Name())))
		}
	}
	for name, data := range before {
		must(t, os.WriteFile(filepath.Join(c.idx, name), data, 0o600))
	}
	if len(indexHolds(t, c.idx, "quokkaflux")) == 0 {
		t.Fatal("the setup did not bring the rows back")
	}
	if _, _, err := Update(Options{Config: Config{IndexDir: c.idx, Sources: []string{c.src}}, Quick: true}); err != nil {
		t.Fatal(err)
	}
	if left := forgottenLeft(t, c.idx, sessA, "quokkaflux", c.pathA); len(left) > 0 {
		t.Errorf("the next run did not finish the forget:\n  %s", strings.Join(left, "\n  "))
	}
}

// TestOlderForgetsMoveToTheTombstone: an index whose forget an older
// recall made (the manifest kept the sealed transcripts, their session id
// and path, as VerdictForgotten entries) loses those entries to rules of
// the tombstone at the next sweep, and the transcripts stay out.
func TestOlderForgetsMoveToTheTombstone(t *testing.T) {
	c := newForgetCorpus(t)
	m, err := store.Open(c.idx).Manifest()
	must(t, err)
	for _, st := range m.Files() {
		if st.Session == sessA {
			st.Verdict = record.VerdictForgotten
			st.Rows = 0
		}
	}
	must(t, storetest.With(c.idx, func(w *store.Writer) error {
		return w.CompactDropping(m, func(r *record.Row) bool { return r.Session == sessA }, nil)
	}))
	if len(indexHolds(t, c.idx, sessA)) == 0 {
		t.Fatal("the older forget's manifest does not name the session")
	}
	runIndex(t, c.src, c.idx, "")
	if left := forgottenLeft(t, c.idx, sessA, c.pathA, "wombatglide"); len(left) > 0 {
		t.Errorf("after the sweep:\n  %s", strings.Join(left, "\n  "))
	}
	tomb, err := store.Open(c.idx).Tombstone()
	must(t, err)
	if n := tomb.Counts().Sessions; n != 1 {
		t.Errorf("the tombstone holds %d session rules, want 1", n)
	}
}
