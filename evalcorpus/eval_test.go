package evalcorpus

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

const queriesFile = "../testdata/eval/queries.tsv"

// sliceConfig is a third of the default corpus: every third topic and a
// third of the background, so tests run in a second or two.
func sliceConfig() Config {
	cfg := DefaultConfig()
	var topics []Topic
	for i, t := range cfg.Topics {
		if i%3 == 0 {
			topics = append(topics, t)
		}
	}
	cfg.Topics = topics
	cfg.Background /= 3
	return cfg
}

// queriesFor keeps the queries whose topic is in topics.
func queriesFor(t *testing.T, topics []Topic) []Query {
	t.Helper()
	all, err := ReadQueries(queriesFile)
	if err != nil {
		t.Fatal(err)
	}
	var out []Query
	for _, q := range all {
		if slices.ContainsFunc(topics, func(tp Topic) bool { return tp.ID == q.Topic }) {
			out = append(out, q)
		}
	}
	return out
}

// marshalAll renders every planned session, keyed by its path.
func marshalAll(t *testing.T, cfg Config) map[string][]byte {
	t.Helper()
	sessions, _, err := Plan(cfg)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for i := range sessions {
		data, err := sessions[i].Marshal()
		if err != nil {
			t.Fatal(err)
		}
		out[sessions[i].Path("")] = data
	}
	return out
}

func TestPlanIsDeterministic(t *testing.T) {
	cfg := sliceConfig()
	first, second := marshalAll(t, cfg), marshalAll(t, cfg)
	if len(first) != len(second) {
		t.Fatalf("two plans of one config: %d and %d sessions", len(first), len(second))
	}
	for path, data := range first {
		if !bytes.Equal(data, second[path]) {
			t.Fatalf("two plans of one config differ in %s", path)
		}
	}
	// The seed must matter, or the check above proves nothing.
	cfg.Seed++
	other := marshalAll(t, cfg)
	same := 0
	for path, data := range other {
		if bytes.Equal(data, first[path]) {
			same++
		}
	}
	if same == len(other) {
		t.Fatal("changing the seed changed nothing")
	}
}

func TestGenerateWritesTheSameTree(t *testing.T) {
	cfg := sliceConfig()
	a, b := t.TempDir(), t.TempDir()
	if _, err := Generate(a, cfg); err != nil {
		t.Fatal(err)
	}
	if _, err := Generate(b, cfg); err != nil {
		t.Fatal(err)
	}
	treeA, treeB := readTree(t, a), readTree(t, b)
	if len(treeA) == 0 || len(treeA) != len(treeB) {
		t.Fatalf("trees have %d and %d files", len(treeA), len(treeB))
	}
	for rel, data := range treeA {
		if !bytes.Equal(data, treeB[rel]) {
			t.Fatalf("%s differs between two generations", rel)
		}
	}
}

func readTree(t *testing.T, root string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		rel, _ := filepath.Rel(root, path)
		out[rel] = data
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// hit5Floor is the least hit@5 the slice may score. Measured on the
// slice (20 topics, 42 queries) when the eval was written: hit@5 1.000,
// hit@1 1.000, MRR 1.000. The floor sits 0.05 below the measured hit@5:
// three targets pushed out of the top five break it, so a ranking change
// that loses targets fails here while reshuffles within the top five do
// not; `make eval` reports the exact figures on the whole set.
const hit5Floor = 0.95

func TestEvalSliceMeetsFloor(t *testing.T) {
	cfg := sliceConfig()
	queries := queriesFor(t, cfg.Topics)
	if len(queries) != 42 {
		t.Fatalf("slice has %d queries; the floor was measured on 42: remeasure it", len(queries))
	}
	rep, err := Evaluate(t.TempDir(), cfg, queries)
	if err != nil {
		t.Fatal(err)
	}
	m := rep.Metrics("")
	t.Logf("slice: %d queries, hit@1 %.3f, hit@5 %.3f, MRR %.3f", m.Queries, m.Hit1, m.Hit5, m.MRR)
	if m.Hit5 < hit5Floor {
		t.Errorf("hit@5 %.3f fell below the floor %.3f:\n%s", m.Hit5, hit5Floor, rep.Format())
	}
	// The classic order is the control: if it scored as well, the corpus
	// would not tell good ranking from bad.
	if c := rep.ClassicMetrics(""); c.Hit1 >= m.Hit1 {
		t.Errorf("classic order hit@1 %.3f is not below recall's %.3f: the corpus does not discriminate", c.Hit1, m.Hit1)
	}
}

func TestTopicsAndQueriesAgree(t *testing.T) {
	topics := Topics()
	queries, err := ReadQueries(queriesFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckQueries(queries, topics); err != nil {
		t.Fatal(err)
	}
	if len(queries) < 100 {
		t.Errorf("%d queries, want at least 100", len(queries))
	}
	asked := map[string]int{}
	for _, q := range queries {
		asked[q.Topic]++
	}
	known := map[string]bool{}
	for _, p := range projects() {
		known[p.Dir] = true
	}
	seen := map[string]bool{}
	for _, tp := range topics {
		switch {
		case seen[tp.ID]:
			t.Errorf("topic %s defined twice", tp.ID)
		case asked[tp.ID] == 0:
			t.Errorf("topic %s has no query", tp.ID)
		case !known[tp.Project] || tp.Twin != "" && !known[tp.Twin]:
			t.Errorf("topic %s: unknown project", tp.ID)
		case tp.Twin == tp.Project:
			t.Errorf("topic %s: twin in its own project", tp.ID)
		case tp.Mention == "" || tp.Follow == "" || tp.Close == "" || len(tp.Answer) == 0:
			t.Errorf("topic %s: incomplete description", tp.ID)
		}
		seen[tp.ID] = true
	}
}

// Metrics computes recall's figures over the queries of kind ("" for all).
func (r *Report) Metrics(kind string) Metrics {
	return metricsOf(r.outcomes(ofKind(kind)), func(o Outcome) int { return o.Rank })
}

// ClassicMetrics computes the classic order's figures (classicOrder) over
// the queries of kind ("" for all).
func (r *Report) ClassicMetrics(kind string) Metrics {
	return metricsOf(r.outcomes(ofKind(kind)), func(o Outcome) int { return o.ClassicRank })
}
