// Package hint is recall's prompt hint: the prompt a person just typed is
// searched against their past sessions (all but the running session's
// lineage), and when one past session answers it clearly better than the
// rest, a short context block names it, quotes the messages that match
// with their transcript:line and gives the `recall show` command for
// more. When no session clears the bar the hint says nothing: an unwanted
// hint costs tokens and attention on every turn.
//
// The bar (Bar) is two tests: the best session must hold most of the
// prompt's weight (its IDF mass: rare words count more) in one passage,
// and it must lead the second session by a margin. The quick judge
// (QuickJudge) measures both from the term index alone, so a prompt costs
// milliseconds; a search runs only for a session that cleared the bar,
// for the messages to quote. The bar was chosen on the relevance sets,
// prompts with an answer and prompts about new work (cmd/recall-eval
// --hints, docs/hints.md).
package hint

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/recall-dev/recall/store/snapshot"

	"github.com/recall-dev/recall/hint/judge"
	"github.com/recall-dev/recall/rank"
	"github.com/recall-dev/recall/render"
	"github.com/recall-dev/recall/search"
)

// Bar is what a past session must clear (judge.Bar).
type Bar = judge.Bar

// DefaultBar is the bar the hook uses (judge.DefaultBar).
var DefaultBar = judge.DefaultBar

// maxPromptWords bounds the words of a prompt that are searched.
const maxPromptWords = judge.MaxPromptWords

// Hint is a session that cleared the bar, or why none did: the judge's
// measures, and the session hinted with the messages it quotes.
type Hint struct {
	judge.Measures
	Session render.JSONSession // the session hinted (Shown)
}

// Skip says why a prompt is never hinted ("" when it may be): judge.Skip.
func Skip(prompt string) string { return judge.Skip(prompt) }

// Options say what to search and how.
type Options struct {
	Prompt string
	// Cwd is the session's working directory: its project ranks first
	// among equals.
	Cwd string
	// Current is the running session, Exclude its lineage: neither is
	// ever hinted.
	Current string
	Exclude []string
	// Now is the clock for recency ("" the real one; the eval fixes it).
	Now string
	Bar Bar
	// IncludeHeadless lets headless runs answer too.
	IncludeHeadless bool
}

// Find judges the prompt with the quick judge (QuickJudge) over snap's
// term index and, when a session clears the bar, searches that session
// for the messages the hint quotes. Without a usable term index it judges
// by a search (FindBySearch) and says so in Why.
func Find(snap *snapshot.Snapshot, o Options) (*Hint, error) {
	if why := Skip(o.Prompt); why != "" {
		return &Hint{Measures: judge.Measures{Why: "not searched: " + why}}, nil
	}
	segs, err := snap.TermSegments()
	if err != nil || len(segs) == 0 {
		h, serr := FindBySearch(snap, o)
		if serr == nil && err != nil {
			h.Why += " (judged by a search: " + err.Error() + ")"
		}
		return h, serr
	}
	exclude := o.Exclude
	if o.Current != "" {
		exclude = append(slices.Clip(exclude), o.Current)
	}
	h := &Hint{Measures: *judge.QuickJudge(judge.OpenedAll(segs), judge.QuickOptions{Prompt: o.Prompt, Exclude: exclude, IncludeHeadless: o.IncludeHeadless, Dead: snap.Dead}, o.Bar)}
	if !h.Shown {
		return h, nil
	}
	res, out, err := search1(snap, o, []string{h.Best})
	if err != nil {
		return nil, err
	}
	if len(res.Sessions) == 0 {
		h.Shown = false
		h.Why = "silent: the search found none of the prompt's words in " + judge.Short(h.Best) + " (" + h.Why + ")"
		return h, nil
	}
	h.Session = render.JSON(res, out)[0]
	return h, nil
}

// FindBySearch searches the prompt in snap and judges the result against
// the bar: the hint as it was before the quick judge, kept for an index
// without a term index and to compare the two (recall-eval --hint-judge).
func FindBySearch(snap *snapshot.Snapshot, o Options) (*Hint, error) {
	if why := Skip(o.Prompt); why != "" {
		return &Hint{Measures: judge.Measures{Why: "not searched: " + why}}, nil
	}
	res, out, err := search1(snap, o, nil)
	if err != nil {
		return nil, err
	}
	h := judgeSearch(res, o.Bar)
	if h.Best != "" {
		js := render.JSON(res, out)
		h.Session = js[0]
	}
	return h, nil
}

// search1 searches the prompt's words (in sessions, when given) for the
// three best sessions and their three best messages.
func search1(snap *snapshot.Snapshot, o Options, sessions []string) (*search.Result, search.Output, error) {
	words := strings.Fields(o.Prompt)
	if len(words) > maxPromptWords {
		words = words[:maxPromptWords]
	}
	limit, messages, width := 3, 3, 200
	p := search.Params{
		Terms: words, Limit: &limit, Messages: &messages, Context: &width, Now: o.Now, Sessions: sessions,
		Cwd: o.Cwd, CurrentSession: o.Current, ExcludeSessions: o.Exclude, IncludeHeadless: o.IncludeHeadless,
	}
	req, err := p.Request()
	if err != nil {
		return nil, search.Output{}, err
	}
	out, err := p.Output()
	if err != nil {
		return nil, search.Output{}, err
	}
	res, err := search.Run(snap, req)
	return res, out, err
}

// judgeSearch measures the search's result against the bar.
func judgeSearch(res *search.Result, bar Bar) *Hint {
	h := &Hint{Measures: judge.Measures{Terms: len(res.Ranked.Terms)}}
	if len(res.Sessions) == 0 {
		h.Verdict(bar)
		return h
	}
	best := &res.Sessions[0]
	h.Best = best.ID
	h.Cover = Coverage(best, rank.IDFs(res.Ranked))
	h.Lead = 1e9
	if len(res.Sessions) > 1 {
		h.Second = res.Sessions[1].ID
		if s2 := res.Sessions[1].Score; s2 > 0 {
			h.Lead = best.Score / s2
		}
	}
	h.Verdict(bar)
	return h
}

// Coverage is the share of the query's IDF mass (idf, per positive term)
// that s's best passage holds: the matched message that holds the most,
// with the matched messages right before and after it in its transcript
// (a prompt and its reply).
func Coverage(s *rank.Session, idf []float64) float64 {
	total := 0.0
	for _, v := range idf {
		total += v
	}
	if total <= 0 {
		return 0
	}
	type place struct {
		source  string
		ordinal int
	}
	terms := map[place][]bool{}
	for i := range s.Messages {
		m := &s.Messages[i]
		if m.Score <= 0 {
			continue
		}
		has := make([]bool, len(idf))
		for _, hit := range m.Hits {
			if hit.Term >= 0 && hit.Term < len(idf) {
				has[hit.Term] = true
			}
		}
		terms[place{m.Source, m.Ordinal}] = has
	}
	best := 0.0
	for at := range terms {
		got := 0.0
		for t := range idf {
			for d := -1; d <= 1; d++ {
				if has, ok := terms[place{at.source, at.ordinal + d}]; ok && (d == 0 || at.ordinal != 0) && has[t] {
					got += idf[t]
					break
				}
			}
		}
		best = max(best, got/total)
	}
	return best
}

// maxSnippet bounds each quoted message, in characters, so that a hint
// stays a few hundred tokens.
const maxSnippet = 220

// Write formats a shown hint as the context block the hook prints:
// bounded (three messages of at most maxSnippet characters), terminal
// safe (render.SafeText), its rows already redacted by the indexer.
func Write(h *Hint) string {
	if h == nil || !h.Shown {
		return ""
	}
	s := &h.Session
	var b strings.Builder
	b.WriteString("<recall-hint>\n")
	b.WriteString("recall: a past session may already hold the answer to this prompt.\n")
	title := s.Title
	if title == "" {
		title = "untitled"
	}
	fmt.Fprintf(&b, "Session %s %q, project %s, %s\n", s.SessionID, clip(title, 80), render.Safe(s.Project), day(s.LastTimestamp))
	first := ""
	for i, m := range s.Messages {
		if i >= 3 {
			break
		}
		ev := fmt.Sprintf("%s:%d", m.Source, m.Line)
		if first == "" {
			first = ev
		}
		fmt.Fprintf(&b, "- [%s] %s\n  %s\n", m.Type, render.Safe(ev), clip(m.Snippet, maxSnippet))
	}
	if first == "" {
		first = s.SessionID
	}
	fmt.Fprintf(&b, "More: recall show %s -C 5 (or the recall MCP tool show)\n", render.Safe(first))
	b.WriteString("</recall-hint>\n")
	return b.String()
}

// clip keeps the first n characters of s on one line, terminal safe.
func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		s = string(r[:n-1]) + "…"
	}
	return render.Safe(s)
}

// day is an RFC 3339 time's date, or the text as it is.
func day(ts string) string {
	if t, err := time.Parse(time.RFC3339Nano, ts); err == nil {
		return t.Local().Format("2006-01-02")
	}
	return render.Safe(ts)
}
