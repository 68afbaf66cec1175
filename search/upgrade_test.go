package search

import (
	"reflect"

	"github.com/recall-dev/recall/rank"
	"github.com/recall-dev/recall/transcript/agents"
	"os"
	"path/filepath"
	"testing"

	"github.com/recall-dev/recall/store/manifest"

	"github.com/recall-dev/recall/filter"
	"github.com/recall-dev/recall/indexer"
	"github.com/recall-dev/recall/query"
	"github.com/recall-dev/recall/record"
	"github.com/recall-dev/recall/store"
	"github.com/recall-dev/recall/textrules"
)

// upgradeCases are searches over the generated corpus of testdata/index-v1:
// plain words, OR, --require, --exclude, a phrase, a wildcard, a regex,
// whole words and a type filter.
func upgradeCases() []Request {
	return []Request{
		{Terms: []string{"secret"}},
		{Terms: []string{"crypto", "telemetry", "vendor"}},
		{Terms: []string{"server"}, Require: []string{"config"}},
		{Terms: []string{"buffer"}, Exclude: []string{"return"}},
		{Terms: []string{`"should be"`}},
		{Terms: []string{"sum_ary"}},
		{Terms: []string{"derive[sd]"}, Match: query.MatchOptions{Regex: true}},
		{Terms: []string{"master"}, Match: query.MatchOptions{Word: true}},
		{Terms: []string{"function"}, Types: []string{"user"}},
		{Terms: []string{"how did we implement the transcript summary?"}},
	}
}

// copyIndex copies an index directory's files into a new temporary one.
func copyIndex(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// checkSameAsFullScan runs every upgrade case both ways on the committed
// index of dir and requires identical sessions and scores. It returns how
// many searches the term index answered.
func checkSameAsFullScan(t *testing.T, dir string) (termIndex int) {
	t.Helper()
	termIndex, _ = checkAgentsSameAsFullScan(t, dir, func(*Request) {})
	return termIndex
}

// TestUpgradeFromFormatV1: an index written by recall 97be3e4 (format v1,
// no feature versions) is searched with the same results as a full scan,
// without trusting its derived files; the first `recall index`, with every
// transcript gone, rebuilds them from the rows and keeps every row.
func TestUpgradeFromFormatV1(t *testing.T) {
	dir := copyIndex(t, filepath.Join("..", "testdata", "index-v1"))
	before := liveRowTexts(t, dir)

	if n := checkSameAsFullScan(t, dir); n != 0 {
		t.Errorf("%d searches used the v1 term index, built under unrecorded rules", n)
	}
	snap, err := store.Open(dir).Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if snap.Stale() == "" || snap.SkipBlocks() {
		t.Errorf("a v1 snapshot is not stale: %q", snap.Stale())
	}
	snap.Close()

	var notices []string
	sum, err := indexer.Run(indexer.Options{
		Config: indexer.Config{IndexDir: dir, Sources: []string{t.TempDir()}},
		Notice: func(s string) { notices = append(notices, s) },
	})
	if err != nil {
		t.Fatalf("index: %v", err)
	}
	if sum.Rederived == "" || len(notices) != 1 {
		t.Errorf("the run did not say once why it rebuilt: %q, notices %q", sum.Rederived, notices)
	}
	m, err := store.Open(dir).Manifest()
	if err != nil {
		t.Fatal(err)
	}
	if m.Format != manifest.New().Format || m.Feature != textrules.FeatureVersion {
		t.Errorf("after index: format v%d, feature %d", m.Format, m.Feature)
	}
	if _, err := os.Stat(filepath.Join(dir, "manifest-v1.tsv")); !os.IsNotExist(err) {
		t.Errorf("the v1 manifest is still there: %v", err)
	}
	if after := liveRowTexts(t, dir); !equalCounts(before, after) {
		t.Errorf("rows changed: %d before, %d after", len(before), len(after))
	}
	if n := checkSameAsFullScan(t, dir); n == 0 {
		t.Error("after the rebuild no search used the term index")
	}
}

// accelerableRequest reports whether the term index could answer req's
// query shape (so a search that read rows must say why).
func accelerableRequest(req Request) bool {
	q, err := query.ParseQuery(req.Terms, req.Require, req.Exclude, req.Match)
	return err == nil && accelerable(q, &req)
}

// liveRowTexts counts the committed rows by their full TSV line.
func liveRowTexts(t *testing.T, dir string) map[string]int {
	t.Helper()
	snap, err := store.Open(dir).Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	out := map[string]int{}
	err = snap.EachRow(func(r *record.Row) error {
		if !snap.Dead(r.Gen) {
			r.Gen = 0 // a rebuild keeps generations; count rows by content
			out[string(r.AppendTSV(nil))]++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func equalCounts(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestAgentFilterOnIndexBeforeAgents: an index written by recall d8ce7b7,
// before rows named their agent, is read as Claude Code's without a
// rebuild. --agent claude answers from its term index exactly as a full
// scan does (and as no filter does), --agent codex finds nothing; after
// Codex rollouts are indexed into it, both agents still equal a full scan
// and neither sees the other's sessions.
func TestAgentFilterOnIndexBeforeAgents(t *testing.T) {
	dir := copyIndex(t, filepath.Join("..", "testdata", "index-d8ce7b7"))
	snap, err := store.Open(dir).Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if stale := snap.Stale(); stale != "" {
		t.Errorf("the d8ce7b7 index is stale (%s): adding a column must not force a rebuild", stale)
	}
	snap.Close()

	claude := func(r *Request) { r.Agents = []string{record.AgentClaude} }
	codex := func(r *Request) { r.Agents = []string{record.AgentCodex} }
	cases := len(upgradeCases())
	if used, found := checkAgentsSameAsFullScan(t, dir, claude); used == 0 || found != cases {
		t.Errorf("--agent claude: %d of %d searches used the old term index, %d found sessions", used, cases, found)
	}
	if _, found := checkAgentsSameAsFullScan(t, dir, codex); found != 0 {
		t.Errorf("--agent codex found sessions in %d searches of an index with no Codex rows", found)
	}
	plain := searchAll(t, dir, func(*Request) {})
	if got := searchAll(t, dir, claude); !reflect.DeepEqual(sessionIDLists(got), sessionIDLists(plain)) {
		t.Errorf("--agent claude over an index of Claude Code's rows differs from no filter:\n got %v\nwant %v", sessionIDLists(got), sessionIDLists(plain))
	}

	codexRoot := filepath.Join("..", "testdata", "transcripts", "codex")
	if _, err := indexer.Run(indexer.Options{Config: indexer.Config{
		IndexDir: dir,
		Sources:  []string{t.TempDir()},
		Agents:   []agents.Source{{Agent: record.AgentCodex, Path: codexRoot}},
	}}); err != nil {
		t.Fatalf("index the Codex rollouts: %v", err)
	}
	// Ranking statistics are the whole index's, so Claude Code's order may
	// move when Codex rows arrive; what must hold is full-scan equality and
	// that neither agent's search sees the other's sessions.
	checkAgentsSameAsFullScan(t, dir, claude)
	checkAgentsSameAsFullScan(t, dir, codex)
	for _, want := range []string{record.AgentClaude, record.AgentCodex} {
		only := func(r *Request) { r.Agents, r.Terms = []string{want}, []string{"rebuild", "checkout", "config"} }
		got := searchAll(t, dir, only)
		if len(got[0]) == 0 {
			t.Errorf("--agent %s finds none of its sessions", want)
		}
		for _, s := range got[0] {
			if s.Agent != want {
				t.Errorf("--agent %s found %s of agent %q", want, s.ID, s.Agent)
			}
		}
	}
}

// checkAgentsSameAsFullScan runs every upgrade case, changed by with, both
// ways and requires identical results. It returns how many used the term
// index and how many found a session.
func checkAgentsSameAsFullScan(t *testing.T, dir string, with func(*Request)) (termIndex, found int) {
	t.Helper()
	snap, err := store.Open(dir).Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	for _, req := range upgradeCases() {
		req.Now, req.Limit, req.Cutoff, req.Window = accelNow, 30, true, filter.DefaultWindow()
		with(&req)
		full := req
		full.FullScan = true
		want, err := Run(snap, full)
		if err != nil {
			t.Fatalf("%v %v full scan: %v", req.Agents, req.Terms, err)
		}
		got, err := Run(snap, req)
		if err != nil {
			t.Fatalf("%v %v: %v", req.Agents, req.Terms, err)
		}
		if len(want.Sessions) > 0 {
			found++
		}
		compareSessions(t, got.Sessions, want.Sessions)
		if got.Stats.TermIndex {
			termIndex++
		} else if got.Stats.Fallback == nil && accelerableRequest(req) {
			t.Errorf("%v %v read every row and says nothing about why", req.Agents, req.Terms)
		}
	}
	return termIndex, found
}

// searchAll runs every upgrade case, changed by with, and returns each
// one's sessions.
func searchAll(t *testing.T, dir string, with func(*Request)) [][]rank.Session {
	t.Helper()
	snap, err := store.Open(dir).Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	var out [][]rank.Session
	for _, req := range upgradeCases() {
		req.Now, req.Limit, req.Cutoff, req.Window = accelNow, 30, true, filter.DefaultWindow()
		with(&req)
		res, err := Run(snap, req)
		if err != nil {
			t.Fatalf("%v %v: %v", req.Agents, req.Terms, err)
		}
		out = append(out, res.Sessions)
	}
	return out
}

func sessionIDLists(results [][]rank.Session) [][]string {
	out := make([][]string, len(results))
	for i, ss := range results {
		out[i] = sessionIDs(ss)
	}
	return out
}
