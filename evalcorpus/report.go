package evalcorpus

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Metrics are the ranking figures over a set of queries.
type Metrics struct {
	Queries int
	Hit1    float64 // share of queries with a target first
	Hit5    float64 // share with a target in the first five
	MRR     float64 // mean of 1/rank, 0 for a target not listed
}

func ofKind(kind string) func(Outcome) bool {
	return func(o Outcome) bool { return kind == "" || o.Query.Kind == kind }
}

func facing(role Role) func(Outcome) bool {
	return func(o Outcome) bool { return slices.Contains(o.Faces, role) }
}

func (r *Report) outcomes(keep func(Outcome) bool) []Outcome {
	var out []Outcome
	for _, o := range r.Outcomes {
		if keep(o) {
			out = append(out, o)
		}
	}
	return out
}

func metricsOf(outcomes []Outcome, rankOf func(Outcome) int) Metrics {
	m := Metrics{Queries: len(outcomes)}
	for _, o := range outcomes {
		rank := rankOf(o)
		if rank == 1 {
			m.Hit1++
		}
		if rank >= 1 && rank <= 5 {
			m.Hit5++
		}
		if rank > 0 {
			m.MRR += 1 / float64(rank)
		}
	}
	if m.Queries > 0 {
		n := float64(m.Queries)
		m.Hit1, m.Hit5, m.MRR = m.Hit1/n, m.Hit5/n, m.MRR/n
	}
	return m
}

// Format renders the report as results.txt: deterministic (no timings,
// no paths) and line-oriented, so a ranking change shows up as a small
// diff in review.
func (r *Report) Format() string {
	var b strings.Builder
	b.WriteString("# recall ranking eval: where the target session of each query in queries.tsv ranks.\n")
	b.WriteString("# Written by `go run ./cmd/recall-eval --write`; `make eval` compares against it.\n")
	fmt.Fprintf(&b, "# corpus: seed %d, %d topics, %d sessions in %d projects; %d queries; now %s\n",
		r.Config.Seed, len(r.Config.Topics), r.Sessions, r.Projects, len(r.Outcomes), r.Config.Now.Format("2006-01-02T15:04:05Z07:00"))
	b.WriteString("# classic: the same matches ordered as the classic tool did (most matches first, newer first), no recall cutoff.\n\n")
	r.writeMetrics(&b)
	r.writeLeaks(&b)
	r.writeCopies(&b)
	r.writeWrongFirst(&b)
	r.writeMisses(&b)
	return b.String()
}

// metricRow is one line of the figures table: a label and which queries
// it covers.
type metricRow struct {
	label string
	keep  func(Outcome) bool
}

func metricRows() []metricRow {
	rows := []metricRow{{"all", ofKind("")}, {KindKeyword, ofKind(KindKeyword)}, {KindQuestion, ofKind(KindQuestion)}}
	for _, role := range []Role{RolePassing, RoleFork, RoleTwin, RoleNoise, RoleEcho, RoleStale} {
		rows = append(rows, metricRow{"vs " + string(role), facing(role)})
	}
	return rows
}

func (r *Report) writeMetrics(b *strings.Builder) {
	fmt.Fprintf(b, "%-12s %7s %7s %7s %7s   %-23s\n", "queries", "n", "hit@1", "hit@5", "MRR", "classic hit@1 hit@5 MRR")
	for _, row := range metricRows() {
		sel := r.outcomes(row.keep)
		m := metricsOf(sel, func(o Outcome) int { return o.Rank })
		c := metricsOf(sel, func(o Outcome) int { return o.ClassicRank })
		fmt.Fprintf(b, "%-12s %7d %7.3f %7.3f %7.3f   %7.3f %5.3f %5.3f\n", row.label, m.Queries, m.Hit1, m.Hit5, m.MRR, c.Hit1, c.Hit5, c.MRR)
	}
}

// writeLeaks counts the queries whose results show their topic's own text
// from a session where only noise or a recall echo held it.
func (r *Report) writeLeaks(b *strings.Builder) {
	for _, role := range []Role{RoleNoise, RoleEcho} {
		faced, leaked := 0, 0
		for _, o := range r.Outcomes {
			if slices.Contains(o.Faces, role) {
				faced++
			}
			if slices.Contains(o.Leaks, role) {
				leaked++
			}
		}
		fmt.Fprintf(b, "\n%s distractor's topic text shown: %d of %d queries whose topic has one", role, leaked, faced)
	}
	b.WriteString("\n")
	for _, o := range r.Outcomes {
		for _, role := range o.Leaks {
			fmt.Fprintf(b, "  %s text shown for: %s -> %s\n", role, o.Query.display(), o.Query.Topic)
		}
	}
}

// writeCopies counts the queries that list a target and its fork as two
// results: the duplicate collapse missed them.
func (r *Report) writeCopies(b *strings.Builder) {
	faced, apart := 0, 0
	for _, o := range r.Outcomes {
		if slices.Contains(o.Faces, RoleFork) {
			faced++
			if o.Copies > 1 {
				apart++
			}
		}
	}
	fmt.Fprintf(b, "fork listed apart from its target: %d of %d queries whose topic has one\n", apart, faced)
	for _, o := range r.Outcomes {
		if o.Copies > 1 {
			fmt.Fprintf(b, "  fork listed apart for: %s -> %s\n", o.Query.display(), o.Query.Topic)
		}
	}
}

// writeWrongFirst counts, for the queries whose first result is not a
// target, what that first result was: the distractor kind that beat it.
func (r *Report) writeWrongFirst(b *strings.Builder) {
	counts := map[Role]int{}
	for _, o := range r.Outcomes {
		if o.Rank != 1 && len(o.Above) > 0 {
			counts[o.Above[0].Role]++
		}
	}
	if len(counts) == 0 {
		return
	}
	roles := make([]Role, 0, len(counts))
	for role := range counts {
		roles = append(roles, role)
	}
	slices.SortFunc(roles, func(a, c Role) int {
		return cmp.Or(cmp.Compare(counts[c], counts[a]), cmp.Compare(a, c))
	})
	b.WriteString("\nranked first instead of a target:")
	for _, role := range roles {
		fmt.Fprintf(b, " %s %d", role, counts[role])
	}
	b.WriteString("\n")
}

func (r *Report) writeMisses(b *strings.Builder) {
	b.WriteString("\nmisses (target not first): rank, kind, query [flags] -> topic | ranked above it\n")
	for _, o := range r.Outcomes {
		if o.Rank == 1 {
			continue
		}
		rank := "-"
		if o.Rank > 0 {
			rank = fmt.Sprint(o.Rank)
		}
		fmt.Fprintf(b, "%4s  %-8s  %s -> %s | %s\n", rank, o.Query.Kind, o.Query.display(), o.Query.Topic, describeAbove(o.Above))
	}
}

// display is the query with its flags, as the report shows it.
func (q *Query) display() string {
	if q.Flags == "" {
		return q.Text
	}
	return q.Text + " [" + q.Flags + "]"
}

func describeAbove(above []SessionInfo) string {
	if len(above) == 0 {
		return "(nothing)"
	}
	parts := make([]string, len(above))
	for i, s := range above {
		parts[i] = string(s.Role)
		if s.Topic != "" {
			parts[i] += "(" + s.Topic + ")"
		}
	}
	return strings.Join(parts, ", ")
}

// LineDiff compares two texts line by line and returns the differing lines,
// "-" for lines only in old and "+" for lines only in new, in order; it is
// empty when they are equal.
func LineDiff(old, new string) string {
	a, c := strings.Split(old, "\n"), strings.Split(new, "\n")
	lcs := lcsTable(a, c)
	var b strings.Builder
	i, j := 0, 0
	for i < len(a) || j < len(c) {
		switch {
		case i < len(a) && j < len(c) && a[i] == c[j]:
			i, j = i+1, j+1
		case i < len(a) && (j == len(c) || lcs[i+1][j] >= lcs[i][j+1]):
			fmt.Fprintf(&b, "-%s\n", a[i])
			i++
		default:
			fmt.Fprintf(&b, "+%s\n", c[j])
			j++
		}
	}
	return b.String()
}

// lcsTable[i][j] is the length of the longest common subsequence of a[i:]
// and c[j:]. Result files are a few hundred lines, so the quadratic table
// is small.
func lcsTable(a, c []string) [][]int {
	t := make([][]int, len(a)+1)
	for i := range t {
		t[i] = make([]int, len(c)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(c) - 1; j >= 0; j-- {
			if a[i] == c[j] {
				t[i][j] = t[i+1][j+1] + 1
			} else {
				t[i][j] = max(t[i+1][j], t[i][j+1])
			}
		}
	}
	return t
}

// Paths says how recall ranked the queries, one line per path: from the
// term index, or by reading every row, for a query the term index does
// not serve or because it could not answer (the reason, which a freshly
// built index should never give).
func (r *Report) Paths() []string {
	index := 0
	read := map[string]int{}
	for _, o := range r.Outcomes {
		if o.TermIndex {
			index++
		} else {
			read[o.Fallback]++
		}
	}
	lines := []string{fmt.Sprintf("%d of %d queries ranked from the term index", index, len(r.Outcomes))}
	if n := read[""]; n > 0 {
		lines = append(lines, fmt.Sprintf("%d read every row: a query the term index does not serve", n))
	}
	reasons := make([]string, 0, len(read))
	for why := range read {
		if why != "" {
			reasons = append(reasons, why)
		}
	}
	slices.Sort(reasons)
	for _, why := range reasons {
		lines = append(lines, fmt.Sprintf("%d read every row: %s", read[why], why))
	}
	return lines
}
