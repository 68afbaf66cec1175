package evalcorpus

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode"

	"github.com/recall-dev/recall/store/snapshot"

	"github.com/recall-dev/recall/indexer"
	"github.com/recall-dev/recall/internal/errpath"
	"github.com/recall-dev/recall/record"
	"github.com/recall-dev/recall/search"
	"github.com/recall-dev/recall/store"
)

// A real relevance set is a tree of transcripts as people's machines
// wrote them (not generated here, and not in the repository: real
// sessions carry their authors' licences) and a list of questions typed
// about them, each with the session or sessions that answer it. recall is
// measured against BM25 over whole sessions, the baseline the issues
// state: each session's indexed text as one document.

// RealQuestion is one line of a real relevance set.
type RealQuestion struct {
	Query    string
	Sessions []string // the sessions that answer it (a comma-separated column)
	Class    string   // "nl" (a question in words), "kw" (search words), or the note's first word
	Note     string
}

// ReadRealQuestions reads a TSV of query, session id(s), note; a header
// line (query, sessionId, …) and # comments are skipped. The note's first
// word, before a ';', is the question's class; the class "headless" asks
// about a headless run, and is searched with --include-headless.
func ReadRealQuestions(path string) ([]RealQuestion, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, errpath.Wrap("read", path, err)
	}
	var out []RealQuestion
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) < 2 {
			return nil, fmt.Errorf("%s:%d: want query, session ids and a note", path, n)
		}
		if f[0] == "query" {
			continue // the header
		}
		q := RealQuestion{Query: f[0], Sessions: strings.Split(f[1], ",")}
		if len(f) > 2 {
			q.Note = f[2]
			class, _, _ := strings.Cut(f[2], ";")
			q.Class = strings.TrimSpace(class)
		}
		if q.Class == "" {
			q.Class = "all"
		}
		out = append(out, q)
	}
	return out, sc.Err()
}

// headlessClass is the class of questions about headless runs.
const headlessClass = "headless"

// indexReal indexes a real transcript tree into workDir/index and opens
// it.
func indexReal(projectsDir, workDir string) (*snapshot.Snapshot, error) {
	var warnings int
	return indexRealCounting(projectsDir, workDir, &warnings)
}

// indexRealCounting is indexReal counting the indexer's warnings: real
// transcripts have bad lines, which the indexer skips and counts.
func indexRealCounting(projectsDir, workDir string, warnings *int) (*snapshot.Snapshot, error) {
	indexDir := filepath.Join(workDir, "index")
	if err := os.MkdirAll(indexDir, 0o700); err != nil {
		return nil, fmt.Errorf("create index dir: %w", err)
	}
	if _, err := indexer.Run(indexer.Options{
		Config: indexer.Config{Sources: []string{projectsDir}, IndexDir: indexDir},
		Warn:   func(string) { *warnings++ },
	}); err != nil {
		return nil, fmt.Errorf("index %s: %w", projectsDir, err)
	}
	snap, err := store.Open(indexDir).Snapshot()
	if err != nil {
		return nil, fmt.Errorf("open index: %w", err)
	}
	return snap, nil
}

// RealOutcome is where one real question's answer ranked.
type RealOutcome struct {
	Question RealQuestion
	Rank     int // of the first answering session among those shown (0: not shown)
	BM25Rank int // the same in the BM25 baseline's order
	Above    []string
	Err      string
}

// RealReport holds the outcomes of a real relevance set.
type RealReport struct {
	Sessions, Rows int
	Warnings       int
	Now            time.Time
	Outcomes       []RealOutcome
}

// EvaluateReal indexes projectsDir into workDir and asks every question
// as `recall "<query>"` would, with the clock two weeks after the newest
// indexed message (the questions are typed weeks later), and ranks the
// same sessions by BM25 over their whole text.
func EvaluateReal(projectsDir, workDir string, qs []RealQuestion) (*RealReport, error) {
	rep := &RealReport{}
	snap, err := indexRealCounting(projectsDir, workDir, &rep.Warnings)
	if err != nil {
		return nil, err
	}
	defer snap.Close()
	docs, newest, err := sessionDocs(snap)
	if err != nil {
		return nil, err
	}
	rep.Sessions = len(docs)
	rep.Now = newest.Add(14 * 24 * time.Hour)
	bm := newBM25(docs)
	for _, q := range qs {
		o := RealOutcome{Question: q, BM25Rank: rankIn(bm.rank(q.Query), q.Sessions)}
		res, err := runParams(snap, search.Params{Terms: []string{q.Query}, Now: rep.Now.Format(time.RFC3339),
			IncludeHeadless: q.Class == headlessClass})
		if err != nil {
			o.Err = err.Error()
		} else {
			ids := make([]string, len(res.Sessions))
			for i, s := range res.Sessions {
				ids[i] = s.ID
			}
			o.Rank = rankIn(ids, q.Sessions)
			for _, id := range ids {
				if slices.Contains(q.Sessions, id) || len(o.Above) == maxAbove {
					break
				}
				o.Above = append(o.Above, shortSession(id))
			}
		}
		rep.Outcomes = append(rep.Outcomes, o)
	}
	return rep, nil
}

func shortSession(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

// rankIn is the 1-based place of the first of targets in ids, 0 if none
// is among the first search.DefaultSessions.
func rankIn(ids, targets []string) int {
	for i, id := range ids {
		if i == search.DefaultSessions {
			break
		}
		if slices.Contains(targets, id) {
			return i + 1
		}
	}
	return 0
}

// sessionDocs gathers every session's indexed text, headless runs
// included, and the newest row time.
func sessionDocs(snap *snapshot.Snapshot) (map[string]string, time.Time, error) {
	var b = map[string]*strings.Builder{}
	var newest time.Time
	err := snap.EachRow(func(r *record.Row) error {
		sb := b[r.Session]
		if sb == nil {
			sb = &strings.Builder{}
			b[r.Session] = sb
		}
		sb.WriteString(r.Text)
		sb.WriteByte('\n')
		if t, err := time.Parse(time.RFC3339Nano, r.Timestamp); err == nil && t.After(newest) {
			newest = t
		}
		return nil
	})
	docs := make(map[string]string, len(b))
	for id, sb := range b {
		docs[id] = sb.String()
	}
	return docs, newest, err
}

// bm25 ranks whole sessions by Okapi BM25 (k1 1.2, b 0.75) over
// lower-cased runs of letters and digits.
type bm25 struct {
	ids    []string
	tf     []map[string]int
	length []int
	df     map[string]int
	avg    float64
}

func bm25Tokens(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

func newBM25(docs map[string]string) *bm25 {
	m := &bm25{df: map[string]int{}}
	for id := range docs {
		m.ids = append(m.ids, id)
	}
	sort.Strings(m.ids)
	total := 0
	for _, id := range m.ids {
		tf := map[string]int{}
		toks := bm25Tokens(docs[id])
		for _, t := range toks {
			tf[t]++
		}
		for t := range tf {
			m.df[t]++
		}
		m.tf = append(m.tf, tf)
		m.length = append(m.length, len(toks))
		total += len(toks)
	}
	if len(m.ids) > 0 {
		m.avg = float64(total) / float64(len(m.ids))
	}
	return m
}

func (m *bm25) rank(query string) []string {
	const k1, b = 1.2, 0.75
	n := float64(len(m.ids))
	scores := make([]float64, len(m.ids))
	seen := map[string]bool{}
	for _, t := range bm25Tokens(query) {
		if seen[t] || m.df[t] == 0 {
			continue
		}
		seen[t] = true
		df := float64(m.df[t])
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		for i, tf := range m.tf {
			if f := float64(tf[t]); f > 0 {
				scores[i] += idf * f * (k1 + 1) / (f + k1*(1-b+b*float64(m.length[i])/m.avg))
			}
		}
	}
	order := make([]int, len(m.ids))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return scores[order[a]] > scores[order[b]] })
	var out []string
	for _, i := range order {
		if scores[i] > 0 {
			out = append(out, m.ids[i])
		}
	}
	return out
}

// Format renders the figures by class, recall against BM25, and the
// misses.
func (r *RealReport) Format() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# real relevance set: %d sessions indexed (%d indexing warnings), %d questions; now %s\n",
		r.Sessions, r.Warnings, len(r.Outcomes), r.Now.Format("2006-01-02"))
	fmt.Fprintf(&b, "%-10s %4s %7s %7s %7s %6s   %s\n", "class", "n", "hit@1", "hit@5", "MRR", "errors", "BM25 hit@1 hit@5 MRR")
	var classes []string
	for _, o := range r.Outcomes {
		if !slices.Contains(classes, o.Question.Class) {
			classes = append(classes, o.Question.Class)
		}
	}
	for _, class := range append([]string{""}, classes...) {
		var sel []Outcome
		var base []Outcome
		errs := 0
		for _, o := range r.Outcomes {
			if class != "" && o.Question.Class != class {
				continue
			}
			if o.Err != "" {
				errs++
			}
			sel = append(sel, Outcome{Rank: o.Rank})
			base = append(base, Outcome{Rank: o.BM25Rank})
		}
		m := metricsOf(sel, func(o Outcome) int { return o.Rank })
		bm := metricsOf(base, func(o Outcome) int { return o.Rank })
		label := class
		if label == "" {
			label = "all"
		}
		fmt.Fprintf(&b, "%-10s %4d %7.3f %7.3f %7.3f %6d   %.3f %.3f %.3f\n", label, m.Queries, m.Hit1, m.Hit5, m.MRR, errs, bm.Hit1, bm.Hit5, bm.MRR)
	}
	b.WriteString("\nmisses: rank (BM25 rank), query -> session | ranked above it\n")
	for _, o := range r.Outcomes {
		if o.Rank == 1 {
			continue
		}
		fmt.Fprintf(&b, "%3d (%2d) %s -> %s | %s%s\n", o.Rank, o.BM25Rank, o.Question.Query, shortSession(o.Question.Sessions[0]),
			strings.Join(o.Above, ", "), errNote(o.Err))
	}
	return b.String()
}

func errNote(err string) string {
	if err == "" {
		return ""
	}
	return " error: " + err
}
