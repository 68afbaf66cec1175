package evalcorpus

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/recall-dev/recall/store/snapshot"

	"github.com/recall-dev/recall/internal/errpath"
	"github.com/recall-dev/recall/rank"
	"github.com/recall-dev/recall/search"
)

// The hard relevance set: hand-written sessions (testdata/eval/hard.txt,
// script.go) searched among the generated corpus, with queries of the
// kinds the generated set does not have (testdata/eval/hard-queries.tsv):
// paraphrases, answers split between a prompt and its reply, answers
// spanning two sessions, questions naming a time, sessions in Czech
// searched with and without accents, tool-heavy sessions whose answer is
// in the conversation, queries with stray quotes, and long conversations
// between two people asked about in the words of a reading-comprehension
// benchmark, and two sessions a day apart that hold the same pasted
// brief but do other work (each must be found, and both listed when both
// answer). Each query names its class and the sessions that answer it,
// or the one message that does (HardQuery.Answer).
// A query the CLI refuses (an error) counts as a miss, and is listed.

// HardQuery is one line of hard-queries.tsv.
type HardQuery struct {
	Query            // Kind holds the class; Topic is unused
	Targets []string // script names of the sessions that answer it
	// All: every one of Targets must be listed (they were joined with
	// "+"), as when two sessions answer a query and both should be
	// shown; the rank is then that of the last of them, counting only
	// the other sessions above it (allTargets).
	All bool
	// Answer, when set, is part of the text of the message that answers,
	// in the one session of Targets (written session:text): the query
	// is then judged inside that session, by where the message ranks
	// among its matched messages, best first, as the CLI and the MCP
	// tools list them (the MCP tools show search.AgentMessages). A
	// session not shown at all is a miss.
	Answer string
}

// ReadHardQueries reads a hard-queries.tsv file: class, query, flags (as
// in queries.tsv; - for none) and the answering sessions' script names,
// comma-separated, tab-separated.
func ReadHardQueries(path string) ([]HardQuery, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read hard queries: %w", err)
	}
	defer f.Close()
	return ParseHardQueries(f, path)
}

// ParseHardQueries reads hard queries from r (name is for errors).
func ParseHardQueries(r io.Reader, name string) ([]HardQuery, error) {
	var out []HardQuery
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		text := sc.Text()
		if strings.TrimSpace(text) == "" || strings.HasPrefix(text, "#") {
			continue
		}
		fields := strings.Split(text, "\t")
		if len(fields) != 4 {
			return nil, fmt.Errorf("%s:%d: want 4 tab-separated fields (class, query, flags, sessions), got %d", name, n, len(fields))
		}
		q := HardQuery{Query: Query{Line: n, Kind: strings.TrimSpace(fields[0]), Text: fields[1]}}
		if q.Kind == "" || strings.TrimSpace(q.Text) == "" {
			return nil, fmt.Errorf("%s:%d: empty class or query", name, n)
		}
		if flags := strings.TrimSpace(fields[2]); flags != "-" {
			q.Flags = flags
		}
		if err := q.parseFlags(); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, n, err)
		}
		sep := ","
		if strings.Contains(fields[3], "+") {
			if strings.Contains(fields[3], ",") {
				return nil, fmt.Errorf("%s:%d: sessions joined with both , and +", name, n)
			}
			sep, q.All = "+", true
		}
		for _, t := range strings.Split(fields[3], sep) {
			if t = strings.TrimSpace(t); t != "" {
				t, answer, _ := strings.Cut(t, ":")
				q.Targets = append(q.Targets, t)
				if answer != "" {
					q.Answer = answer
				}
			}
		}
		if len(q.Targets) == 0 {
			return nil, fmt.Errorf("%s:%d: no answering session", name, n)
		}
		if q.Answer != "" && len(q.Targets) > 1 {
			return nil, fmt.Errorf("%s:%d: an answering message (session:text) needs its session alone", name, n)
		}
		out = append(out, q)
	}
	if err := sc.Err(); err != nil {
		return nil, errpath.Wrap("read", name, err)
	}
	return out, nil
}

// HardOutcome is how one hard query did.
type HardOutcome struct {
	Query       HardQuery
	Rank        int    // 1-based rank of the first answering session, 0 none
	ClassicRank int    // the same under the classic order
	Err         string // the search's error, if the CLI would have refused the query
	Above       []string
	TermIndex   bool
}

// HardReport is the result of evaluating the hard set.
type HardReport struct {
	Config   Config
	Scripts  int
	Projects int
	Sessions int // of the whole corpus
	Outcomes []HardOutcome
}

// EvaluateHard generates cfg's corpus in workDir, adds the scripts to it,
// indexes it and runs every hard query as the CLI does.
func EvaluateHard(workDir string, cfg Config, scripts []Script, queries []HardQuery) (*HardReport, error) {
	byName := map[string]Script{}
	projects := map[string]bool{}
	for _, s := range scripts {
		byName[s.Name] = s
		projects[s.Project] = true
	}
	for _, q := range queries {
		for _, t := range q.Targets {
			if _, ok := byName[t]; !ok {
				return nil, fmt.Errorf("hard queries line %d: no session %s in the scripts", q.Line, t)
			}
		}
	}
	corpus, err := Generate(workDir, cfg)
	if err != nil {
		return nil, err
	}
	names := map[string]string{}
	for _, s := range scripts {
		if err := s.Session.Write(corpus.ProjectsDir); err != nil {
			return nil, fmt.Errorf("write script %s: %w", s.Name, err)
		}
		names[s.Session.ID] = s.Name
	}
	for _, info := range corpus.Sessions {
		names[info.ID] = string(info.Role)
	}
	snap, err := buildIndex(corpus.ProjectsDir, filepath.Join(workDir, "index"))
	if err != nil {
		return nil, err
	}
	defer snap.Close()
	rep := &HardReport{Config: cfg, Scripts: len(scripts), Projects: len(projects), Sessions: len(corpus.Sessions) + len(scripts)}
	for _, q := range queries {
		var targets []string
		for _, t := range q.Targets {
			targets = append(targets, byName[t].Session.ID)
		}
		o := HardOutcome{Query: q}
		params := q.Params(cfg.Now)
		res, err := runParams(snap, params)
		if err != nil {
			o.Err = err.Error()
			rep.Outcomes = append(rep.Outcomes, o)
			continue
		}
		o.TermIndex = res.Stats.TermIndex
		all := 0
		cparams := params
		cparams.NoRecallCutoff, cparams.Limit = true, &all
		classic, err := runParams(snap, cparams)
		if err != nil {
			return nil, fmt.Errorf("hard queries line %d: the classic order: %w", q.Line, err)
		}
		if q.Answer != "" {
			o.Rank, o.Above = lineRank(res.Sessions, targets[0], q.Answer)
			o.ClassicRank = classicLineRank(classic.Sessions, targets[0], q.Answer)
			rep.Outcomes = append(rep.Outcomes, o)
			continue
		}
		rankOf := firstTarget
		if q.All {
			rankOf = allTargets
		}
		o.Rank = rankOf(res.Sessions, targets)
		o.Above = aboveAnswer(res.Sessions, targets, q.All, names)
		o.ClassicRank = rankOf(classicOrder(classic.Sessions), targets)
		rep.Outcomes = append(rep.Outcomes, o)
	}
	return rep, nil
}

// allTargets is the rank of a query all of whose targets must be listed:
// 1 + the sessions that are not targets ranked above the last of them (1
// when they take the first places), 0 if one of them is not listed.
func allTargets(ranked []rank.Session, targets []string) int {
	found, others := 0, 0
	for _, s := range ranked {
		if !slices.Contains(targets, s.ID) {
			others++
			continue
		}
		if found++; found == len(targets) {
			return others + 1
		}
	}
	return 0
}

// aboveAnswer names the sessions ranked above the answer, at most
// maxAbove: above the first target, or, when all must be listed, the
// other sessions above the last target (all of them listed when a target
// is not).
func aboveAnswer(ranked []rank.Session, targets []string, all bool, names map[string]string) []string {
	var out []string
	found := 0
	for _, s := range ranked {
		if slices.Contains(targets, s.ID) {
			if found++; !all || found == len(targets) {
				break
			}
			continue
		}
		if len(out) == maxAbove {
			break
		}
		out = append(out, names[s.ID])
	}
	return out
}

// lineRank is where the first message holding line ranks among the
// matched messages of session id (1-based, best first), 0 when the
// session is not shown or the message did not match; above begins the
// messages ranked above it.
func lineRank(shown []rank.Session, id, line string) (place int, above []string) {
	for _, s := range shown {
		if s.ID != id {
			continue
		}
		for i, m := range s.Messages {
			if strings.Contains(m.Text, line) {
				return i + 1, above
			}
			if len(above) < maxAbove {
				above = append(above, m.Type+" "+strconv.Quote(firstWords(m.Text, lineWords)))
			}
		}
		return 0, above
	}
	return 0, nil
}

// classicLineRank is where the message holding line comes among the
// matched messages of session id in transcript order, as the classic
// tool printed them.
func classicLineRank(sessions []rank.Session, id, line string) int {
	for _, s := range sessions {
		if s.ID != id {
			continue
		}
		msgs := slices.Clone(s.Messages)
		slices.SortStableFunc(msgs, func(a, b rank.ScoredMessage) int {
			return cmp.Or(a.Timestamp.Compare(b.Timestamp), cmp.Compare(a.Line, b.Line))
		})
		for i, m := range msgs {
			if strings.Contains(m.Text, line) {
				return i + 1
			}
		}
	}
	return 0
}

// lineWords is how many words of a message ranked above an answering
// one the misses show.
const lineWords = 6

// firstWords returns the first n words of text, and "…" when it has more.
func firstWords(text string, n int) string {
	words := strings.Fields(text)
	if len(words) <= n {
		return strings.Join(words, " ")
	}
	return strings.Join(words[:n], " ") + " …"
}

// runParams runs a search as the CLI does: the request from params, then
// search.Run.
func runParams(snap *snapshot.Snapshot, params search.Params) (*search.Result, error) {
	req, err := params.Request()
	if err != nil {
		return nil, err
	}
	return search.Run(snap, req)
}

// Classes lists the classes of the outcomes in order of first appearance.
func (r *HardReport) Classes() []string {
	var out []string
	for _, o := range r.Outcomes {
		if !slices.Contains(out, o.Query.Kind) {
			out = append(out, o.Query.Kind)
		}
	}
	return out
}

// Metrics computes recall's figures over the queries of class ("" all).
func (r *HardReport) Metrics(class string) Metrics {
	return metricsOf(r.asOutcomes(class), func(o Outcome) int { return o.Rank })
}

// ClassicMetrics computes the classic order's figures over class.
func (r *HardReport) ClassicMetrics(class string) Metrics {
	return metricsOf(r.asOutcomes(class), func(o Outcome) int { return o.ClassicRank })
}

func (r *HardReport) asOutcomes(class string) []Outcome {
	var out []Outcome
	for _, o := range r.Outcomes {
		if class == "" || o.Query.Kind == class {
			out = append(out, Outcome{Query: o.Query.Query, Rank: o.Rank, ClassicRank: o.ClassicRank})
		}
	}
	return out
}

// Format renders the report as hard-results.txt, deterministic and
// line-oriented like results.txt.
func (r *HardReport) Format() string {
	var b strings.Builder
	b.WriteString("# recall ranking eval, hard set: where the answering sessions of each query in hard-queries.tsv rank.\n")
	b.WriteString("# Written by `go run ./cmd/recall-eval --write`; `make eval` compares against it.\n")
	fmt.Fprintf(&b, "# corpus: %d hand-written sessions (hard.txt) in %d projects among %d sessions in all (seed %d); %d queries; now %s\n",
		r.Scripts, r.Projects, r.Sessions, r.Config.Seed, len(r.Outcomes), r.Config.Now.Format("2006-01-02T15:04:05Z07:00"))
	b.WriteString("# classic: the same matches ordered as the classic tool did (most matches first, newer first), no recall cutoff.\n")
	b.WriteString("# errors: queries the CLI refused (exit 2); they count as misses.\n")
	b.WriteString("# A query naming its answering message (session:text) ranks that message among its session's, best first; its session not shown is a miss.\n\n")
	fmt.Fprintf(&b, "%-14s %4s %7s %7s %7s %6s   %-23s\n", "class", "n", "hit@1", "hit@5", "MRR", "errors", "classic hit@1 hit@5 MRR")
	for _, class := range append([]string{""}, r.Classes()...) {
		m, c := r.Metrics(class), r.ClassicMetrics(class)
		label := class
		if label == "" {
			label = "all"
		}
		fmt.Fprintf(&b, "%-14s %4d %7.3f %7.3f %7.3f %6d   %7.3f %5.3f %5.3f\n", label, m.Queries, m.Hit1, m.Hit5, m.MRR, r.errors(class), c.Hit1, c.Hit5, c.MRR)
	}
	b.WriteString("\nmisses (no answering session first): rank, class, query [flags] -> sessions | ranked above it\n")
	for _, o := range r.Outcomes {
		if o.Rank == 1 {
			continue
		}
		rank := "-"
		if o.Rank > 0 {
			rank = fmt.Sprint(o.Rank)
		}
		above := strings.Join(o.Above, ", ")
		if o.Err != "" {
			rank, above = "err", o.Err
		} else if above == "" {
			above = "(nothing)"
		}
		sep := ","
		if o.Query.All {
			sep = "+"
		}
		targets := strings.Join(o.Query.Targets, sep)
		if o.Query.Answer != "" {
			targets += ":" + o.Query.Answer
		}
		fmt.Fprintf(&b, "%4s  %-12s  %s -> %s | %s\n", rank, o.Query.Kind, o.Query.display(), targets, above)
	}
	return b.String()
}

func (r *HardReport) errors(class string) int {
	n := 0
	for _, o := range r.Outcomes {
		if o.Err != "" && (class == "" || o.Query.Kind == class) {
			n++
		}
	}
	return n
}

// Paths says how the hard queries were ranked: from the term index or by
// reading every row.
func (r *HardReport) Paths() []string {
	index, failed := 0, 0
	for _, o := range r.Outcomes {
		switch {
		case o.Err != "":
			failed++
		case o.TermIndex:
			index++
		}
	}
	return []string{fmt.Sprintf("hard set: %d of %d queries ranked from the term index, %d refused", index, len(r.Outcomes), failed)}
}
