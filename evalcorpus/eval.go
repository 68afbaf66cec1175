package evalcorpus

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/recall-dev/recall/store/snapshot"

	"github.com/recall-dev/recall/indexer"
	"github.com/recall-dev/recall/rank"
	"github.com/recall-dev/recall/search"
	"github.com/recall-dev/recall/store"
)

// Outcome is how one query did.
type Outcome struct {
	Query Query
	// Rank is the 1-based position of the first result that is a target
	// (the topic's target or one of its forks); 0 when none is listed.
	Rank int
	// Above lists the sessions ranked above that result (all results when
	// none is a target), best first, at most maxAbove of them.
	Above []SessionInfo
	// ClassicRank is Rank under the classic tool's order (classicOrder).
	ClassicRank int
	// Copies counts the results that are a target or a fork of it: more
	// than one means a fork was not collapsed into its target.
	Copies int
	// Faces lists the kinds of distractor the query's topic has.
	Faces []Role
	// Leaks names the distractors (noise, echo) of the query's topic whose
	// matched messages show the topic's own text: text the indexer or the
	// recall cutoff should have dropped.
	Leaks []Role
	// TermIndex: recall ranked from the term index (Fallback empty) or
	// read every row (Fallback says why, when the term index could have
	// answered), as search.Stats reports.
	TermIndex bool
	Fallback  string
}

// maxAbove bounds the sessions a miss reports as ranked above the target.
const maxAbove = 3

// Report is the result of one evaluation.
type Report struct {
	Config   Config
	Sessions int
	Projects int
	Outcomes []Outcome
}

// Evaluate generates cfg's corpus in workDir (which must be empty or
// missing), indexes it with the indexer the CLI uses and runs every query
// as the CLI does: search.Params with the CLI's defaults, then search.Run.
func Evaluate(workDir string, cfg Config, queries []Query) (*Report, error) {
	if err := CheckQueries(queries, cfg.Topics); err != nil {
		return nil, err
	}
	corpus, err := Generate(workDir, cfg)
	if err != nil {
		return nil, err
	}
	snap, err := buildIndex(corpus.ProjectsDir, filepath.Join(workDir, "index"))
	if err != nil {
		return nil, err
	}
	defer snap.Close()
	rep := &Report{Config: cfg, Sessions: len(corpus.Sessions), Projects: corpus.Projects()}
	e := evaluation{snap: snap, corpus: corpus, info: sessionIndex(corpus), topics: topicIndex(cfg.Topics), now: cfg.Now}
	for _, q := range queries {
		o, err := e.run(q)
		if err != nil {
			return nil, fmt.Errorf("queries line %d (%q): %w", q.Line, q.Text, err)
		}
		rep.Outcomes = append(rep.Outcomes, o)
	}
	return rep, nil
}

// evaluation holds what running one query needs.
type evaluation struct {
	snap   *snapshot.Snapshot
	corpus *Corpus
	info   map[string]SessionInfo
	topics map[string]Topic
	now    time.Time
}

func (e *evaluation) run(q Query) (Outcome, error) {
	params := q.Params(e.now)
	req, err := params.Request()
	if err != nil {
		return Outcome{}, err
	}
	res, err := search.Run(e.snap, req)
	if err != nil {
		return Outcome{}, err
	}
	targets := e.corpus.Targets(q.Topic)
	o := outcome(q, res.Sessions, targets, e.info)
	o.Leaks = leaks(res.Sessions, e.topics[q.Topic], e.info)
	o.Faces = e.corpus.Distractors(q.Topic)
	o.TermIndex = res.Stats.TermIndex
	if res.Stats.Fallback != nil {
		o.Fallback = res.Stats.Fallback.Error()
	}

	// The classic tool ordered every matching session, with no cutoff.
	all := 0
	params.NoRecallCutoff, params.Limit = true, &all
	if req, err = params.Request(); err != nil {
		return Outcome{}, err
	}
	classic, err := search.Run(e.snap, req)
	if err != nil {
		return Outcome{}, err
	}
	o.ClassicRank = firstTarget(classicOrder(classic.Sessions), targets)
	return o, nil
}

func topicIndex(topics []Topic) map[string]Topic {
	m := make(map[string]Topic, len(topics))
	for _, t := range topics {
		m[t.ID] = t
	}
	return m
}

// buildIndex indexes the projects tree into indexDir and opens it.
func buildIndex(projectsDir, indexDir string) (*snapshot.Snapshot, error) {
	if err := os.MkdirAll(indexDir, 0o700); err != nil {
		return nil, fmt.Errorf("create index dir: %w", err)
	}
	var warnings []string
	_, err := indexer.Run(indexer.Options{
		Config: indexer.Config{Sources: []string{projectsDir}, IndexDir: indexDir},
		Warn:   func(s string) { warnings = append(warnings, s) },
	})
	if err != nil {
		return nil, fmt.Errorf("index corpus: %w", err)
	}
	if len(warnings) > 0 {
		// A generated corpus must index cleanly; a warning means the
		// generator wrote something the indexer could not read.
		return nil, fmt.Errorf("index corpus: %d warnings, first: %s", len(warnings), warnings[0])
	}
	snap, err := store.Open(indexDir).Snapshot()
	if err != nil {
		return nil, fmt.Errorf("open index: %w", err)
	}
	return snap, nil
}

func sessionIndex(c *Corpus) map[string]SessionInfo {
	m := make(map[string]SessionInfo, len(c.Sessions))
	for _, s := range c.Sessions {
		m[s.ID] = s
	}
	return m
}

// outcome finds the first target among the ranked sessions.
func outcome(q Query, ranked []rank.Session, targets []string, info map[string]SessionInfo) Outcome {
	o := Outcome{Query: q, Rank: firstTarget(ranked, targets)}
	for _, s := range ranked {
		if slices.Contains(targets, s.ID) {
			o.Copies++
		}
	}
	for i, s := range ranked {
		if i+1 == o.Rank || len(o.Above) == maxAbove {
			break
		}
		o.Above = append(o.Above, describe(s.ID, info))
	}
	return o
}

// firstTarget is the 1-based rank of the first target, 0 if none.
func firstTarget(ranked []rank.Session, targets []string) int {
	for i, s := range ranked {
		if slices.Contains(targets, s.ID) {
			return i + 1
		}
	}
	return 0
}

// classicOrder orders sessions as the classic tool's stage 4 did (seed
// report): most matched messages first, newer first on ties. It runs on
// recall's own matches without the recall cutoff, so it isolates what
// ranking adds; it keeps recall's duplicate collapse and noise filtering,
// so it flatters the classic tool a little.
func classicOrder(sessions []rank.Session) []rank.Session {
	out := slices.Clone(sessions)
	slices.SortStableFunc(out, func(a, b rank.Session) int {
		return cmp.Or(cmp.Compare(b.Matches, a.Matches), b.Last.Compare(a.Last), strings.Compare(a.ID, b.ID))
	})
	return out
}

// leaks reports the noise and echo distractors of topic t whose matched
// messages carry t's planted text (its first answer or its closing
// summary): the indexer should have dropped the noise, and the recall
// cutoff the echo.
func leaks(ranked []rank.Session, t Topic, info map[string]SessionInfo) []Role {
	var out []Role
	for _, s := range ranked {
		si := info[s.ID]
		if si.Topic != t.ID || (si.Role != RoleNoise && si.Role != RoleEcho) {
			continue
		}
		for _, m := range s.Messages {
			if strings.Contains(m.Text, t.Answer[0]) || strings.Contains(m.Text, t.Close) {
				out = append(out, si.Role)
				break
			}
		}
	}
	return out
}

// describe returns what a ranked session is; an id the generator did not
// write (which would be an indexer bug) is reported as such.
func describe(id string, info map[string]SessionInfo) SessionInfo {
	if s, ok := info[id]; ok {
		return s
	}
	return SessionInfo{ID: id, Role: "unknown"}
}
