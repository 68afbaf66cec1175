package evalcorpus

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/recall-dev/recall/store/snapshot"

	"github.com/recall-dev/recall/hint"
)

// The hint evaluation asks whether the prompt hint (package hint) is
// right when it speaks and silent when it has nothing: prompts whose
// answer is in a known past session (the relevance sets' queries, typed
// as prompts) and prompts about new work no session holds (the
// hint-negatives file, and the real set's questions asked of an index
// from which their answer session is left out).

// HintCase is one prompt of the hint evaluation.
type HintCase struct {
	Set    string // generated, hard, new-work, real, real-removed
	Prompt string
	Cwd    string
	// Targets answer it; none: no past session does.
	Targets []string
	// Exclude is left out of the search, as a running session's lineage
	// is (the real set's negatives leave the answer out).
	Exclude []string
	Now     string
}

// HintOutcome is how the hint did on one case.
type HintOutcome struct {
	Case HintCase
	Hint *hint.Hint // with the bar's measures, shown or not
	Err  string
}

// Shown reports whether the hint spoke, and Right whether it named a
// target.
func (o HintOutcome) Shown() bool { return o.Hint != nil && o.Hint.Shown }

// Right reports whether a shown hint names one of the case's targets.
func (o HintOutcome) Right() bool {
	return o.Shown() && slices.Contains(o.Case.Targets, o.Hint.Best)
}

// ReadHintNegatives reads prompts about new work, one a line; blank lines
// and # comments are skipped.
func ReadHintNegatives(path string) ([]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line != "" && !strings.HasPrefix(line, "#") {
			out = append(out, line)
		}
	}
	return out, sc.Err()
}

// HintCorpus generates cfg's corpus with the hard scripts in workDir,
// indexes it and lists the cases of the generated set, the hard set and
// the new-work prompts (asked from the generated corpus's projects).
func HintCorpus(workDir string, cfg Config, queries []Query, scripts []Script, hard []HardQuery, negatives []string) (*snapshot.Snapshot, []HintCase, []HintCase, error) {
	corpus, err := Generate(workDir, cfg)
	if err != nil {
		return nil, nil, nil, err
	}
	byName := map[string]string{}
	for _, s := range scripts {
		if err := s.Session.Write(corpus.ProjectsDir); err != nil {
			return nil, nil, nil, fmt.Errorf("write script %s: %w", s.Name, err)
		}
		byName[s.Name] = s.Session.ID
	}
	snap, err := buildIndex(corpus.ProjectsDir, filepath.Join(workDir, "index"))
	if err != nil {
		return nil, nil, nil, err
	}
	now := cfg.Now.Format(time.RFC3339)
	var cases []HintCase
	for _, q := range queries {
		if q.Topic == "" || len(q.Require)+len(q.Exclude) > 0 {
			continue // a prompt is words typed, not flags
		}
		cases = append(cases, HintCase{Set: "generated", Prompt: q.Text, Cwd: q.Cwd, Targets: corpus.Targets(q.Topic), Now: now})
	}
	for _, q := range hard {
		if len(q.Require)+len(q.Exclude) > 0 {
			continue
		}
		c := HintCase{Set: "hard", Prompt: q.Text, Cwd: q.Cwd, Now: now}
		for _, t := range q.Targets {
			c.Targets = append(c.Targets, byName[t])
		}
		cases = append(cases, c)
	}
	for _, p := range negatives {
		cases = append(cases, HintCase{Set: "new-work", Prompt: p, Now: now})
	}
	return snap, cases, removed(cases), nil
}

// removed are the answerable cases again, each asked of the index with
// its answer sessions left out (set "<set>-removed"): prompts close to
// what the corpus holds that no session answers any more, the hardest
// test of the hint's silence.
func removed(cases []HintCase) []HintCase {
	var out []HintCase
	for _, c := range cases {
		if len(c.Targets) == 0 {
			continue
		}
		c.Set += "-removed"
		c.Exclude, c.Targets = c.Targets, nil
		out = append(out, c)
	}
	return out
}

// RealHintCases are the real set's questions twice, as they are (their
// answer is in the index) and with their answer sessions left out (no
// session holds the answer any more), and the new-work prompts.
func RealHintCases(qs []RealQuestion, negatives []string, now time.Time) []HintCase {
	var out []HintCase
	at := now.Format(time.RFC3339)
	for _, q := range qs {
		if q.Class == headlessClass {
			continue
		}
		out = append(out, HintCase{Set: "real", Prompt: q.Query, Targets: q.Sessions, Now: at})
	}
	for _, p := range negatives {
		out = append(out, HintCase{Set: "new-work", Prompt: p, Now: at})
	}
	return append(out, removed(out)...)
}

// RealHintCorpus indexes the real transcript tree into workDir and
// returns it with the clock its questions are asked at (two weeks after
// its newest message, as EvaluateReal).
func RealHintCorpus(projectsDir, workDir string) (*snapshot.Snapshot, time.Time, error) {
	snap, err := indexReal(projectsDir, workDir)
	if err != nil {
		return nil, time.Time{}, err
	}
	_, newest, err := sessionDocs(snap)
	if err != nil {
		snap.Close()
		return nil, time.Time{}, err
	}
	return snap, newest.Add(14 * 24 * time.Hour), nil
}

// EvaluateHints runs every case against snap with bar, judged as the
// hook judges (hint.Find).
func EvaluateHints(snap *snapshot.Snapshot, cases []HintCase, bar hint.Bar) []HintOutcome {
	return evaluateWith(hint.Find, snap, cases, bar)
}

// EvaluateHintsBySearch is EvaluateHints with the search's judge
// (hint.FindBySearch), to compare the two.
func EvaluateHintsBySearch(snap *snapshot.Snapshot, cases []HintCase, bar hint.Bar) []HintOutcome {
	return evaluateWith(hint.FindBySearch, snap, cases, bar)
}

func evaluateWith(find func(*snapshot.Snapshot, hint.Options) (*hint.Hint, error), snap *snapshot.Snapshot, cases []HintCase, bar hint.Bar) []HintOutcome {
	out := make([]HintOutcome, 0, len(cases))
	for _, c := range cases {
		h, err := find(snap, hint.Options{Prompt: c.Prompt, Cwd: c.Cwd, Exclude: c.Exclude, Now: c.Now, Bar: bar})
		o := HintOutcome{Case: c, Hint: h}
		if err != nil {
			o.Err = err.Error()
		}
		out = append(out, o)
	}
	return out
}

// Rejudge judges every outcome's measures under bar.
func Rejudge(outcomes []HintOutcome, bar hint.Bar) []HintOutcome {
	out := make([]HintOutcome, len(outcomes))
	for i, o := range outcomes {
		out[i] = o
		if o.Hint != nil {
			h := *o.Hint
			h.Verdict(bar)
			out[i].Hint = &h
		}
	}
	return out
}

// HintRow is one set's figures.
type HintRow struct {
	Set                      string
	Answerable               bool
	Cases, Right, Wrong, Not int // answerable: shown and right, shown and wrong, not shown
	Silent, Spoke            int // no answer: silent, shown
}

// Precision is the share of shown hints that named the answer.
func (r HintRow) Precision() float64 { return ratio(r.Right, r.Right+r.Wrong) }

// Recall is the share of answerable prompts hinted right.
func (r HintRow) Shown() float64 { return ratio(r.Right+r.Wrong, r.Cases) }

// Silence is the share of prompts without an answer left silent.
func (r HintRow) Silence() float64 { return ratio(r.Silent, r.Cases) }

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// HintRows sums outcomes per set, in the order the sets first appear.
func HintRows(outcomes []HintOutcome) []HintRow {
	var rows []HintRow
	at := map[string]int{}
	for _, o := range outcomes {
		i, ok := at[o.Case.Set]
		if !ok {
			i = len(rows)
			at[o.Case.Set] = i
			rows = append(rows, HintRow{Set: o.Case.Set, Answerable: len(o.Case.Targets) > 0})
		}
		r := &rows[i]
		r.Cases++
		switch {
		case r.Answerable && o.Right():
			r.Right++
		case r.Answerable && o.Shown():
			r.Wrong++
		case r.Answerable:
			r.Not++
		case o.Shown():
			r.Spoke++
		default:
			r.Silent++
		}
	}
	return rows
}

// FormatHints is the table of HintRows, then the wrong hints and the
// hints given where no session answers, with why they cleared the bar.
func FormatHints(outcomes []HintOutcome, bar hint.Bar, misses bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "hint bar: cover %.2f, lead %.2f, min terms %d\n", bar.Cover, bar.Lead, bar.MinTerms)
	fmt.Fprintf(&b, "%-18s %6s %7s %7s %9s %10s %8s\n", "set", "cases", "right", "wrong", "silent", "precision", "shown")
	for _, r := range HintRows(outcomes) {
		if r.Answerable {
			fmt.Fprintf(&b, "%-18s %6d %7d %7d %9d %9.1f%% %7.1f%%\n", r.Set, r.Cases, r.Right, r.Wrong, r.Not, 100*r.Precision(), 100*r.Shown())
		} else {
			fmt.Fprintf(&b, "%-18s %6d %7s %7d %9d %10s %7.1f%%  (silent %.1f%%)\n", r.Set, r.Cases, "-", r.Spoke, r.Silent, "-", 100*ratio(r.Spoke, r.Cases), 100*r.Silence())
		}
	}
	var wrong []string
	for _, o := range outcomes {
		if o.Err != "" {
			wrong = append(wrong, fmt.Sprintf("  error  [%s] %q: %s", o.Case.Set, o.Case.Prompt, o.Err))
			continue
		}
		if o.Shown() && !o.Right() {
			wrong = append(wrong, fmt.Sprintf("  wrong  [%s] %q → %s: %s", o.Case.Set, clipText(o.Case.Prompt, 70), o.Hint.Best[:min(8, len(o.Hint.Best))], o.Hint.Why))
		}
	}
	sort.Strings(wrong)
	if misses && len(wrong) > 0 {
		b.WriteString("hints that named no answer:\n")
		b.WriteString(strings.Join(wrong, "\n") + "\n")
	}
	return b.String()
}

func clipText(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// SweepHints prints the figures of each bar of a grid over the measures
// outcomes recorded (run once with a bar that shows everything), to
// choose the bar: per bar, the answerable sets' precision and shown
// share, and the new-work sets' silence.
func SweepHints(outcomes []HintOutcome, covers, leads []float64, minTerms int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-6s %-6s", "cover", "lead")
	sets := HintRows(outcomes)
	for _, r := range sets {
		if r.Answerable {
			fmt.Fprintf(&b, " %18s", r.Set+" prec/shown")
		} else {
			fmt.Fprintf(&b, " %14s", r.Set+" silent")
		}
	}
	b.WriteString("\n")
	for _, c := range covers {
		for _, l := range leads {
			rebar := make([]HintOutcome, len(outcomes))
			for i, o := range outcomes {
				rebar[i] = o
				if o.Hint == nil {
					continue
				}
				h := *o.Hint
				h.Verdict(hint.Bar{Cover: c, Lead: l, MinTerms: minTerms})
				rebar[i].Hint = &h
			}
			fmt.Fprintf(&b, "%-6.2f %-6.2f", c, l)
			for _, r := range HintRows(rebar) {
				if r.Answerable {
					fmt.Fprintf(&b, " %8.1f%% / %5.1f%%", 100*r.Precision(), 100*r.Shown())
				} else {
					fmt.Fprintf(&b, " %13.1f%%", 100*r.Silence())
				}
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}
