// Package judge is the prompt hint's verdict, in a package that links
// little (the term index and the text rules): the bar a past session
// must clear, the measures it is judged by, and the quick judge that
// takes them from the term index alone. The hook's own small binary
// (cmd/recall-hint) answers most prompts with it; package hint adds the
// search that quotes a hinted session's messages.
package judge

import (
	"fmt"
	"strings"
	"unicode"
)

// Bar is what a past session must clear for a hint to be shown.
type Bar struct {
	// Cover is the least share of the query's IDF mass the best
	// session's best message and its neighbours must hold (0–1).
	Cover float64
	// Lead is how many times the second session's score the best
	// session's must be.
	Lead float64
	// MinTerms is the fewest positive words a prompt must have: one word
	// says too little of what is asked.
	MinTerms int
}

// DefaultBar is the bar the hook uses (chosen for the quick judge on the
// relevance sets: docs/hints.md).
var DefaultBar = Bar{Cover: 0.6, Lead: 1.5, MinTerms: 2}

// MaxPromptWords bounds the words of a prompt that are searched: a pasted
// log or file says little of what is asked, and every word costs.
const MaxPromptWords = 40

// Measures are what a prompt was judged by, and the verdict.
type Measures struct {
	Shown bool
	// Why says why the hint was shown or not, in one line (--explain).
	Why string
	// The measures the bar tests.
	Cover, Lead float64
	Terms       int
	// Best is the best session's id, shown or not ("" none); Second the
	// runner-up's.
	Best, Second string
	// Bounded: no session was ranked, and Cover is the most any passage
	// could hold (QuickOptions.Early), below the bar.
	Bounded bool
	// Unread is why a segment the judge needed could not be opened (a
	// Deferred one): the measures leave it out, and are not to be
	// trusted for a verdict.
	Unread error
}

// Skip says why a prompt is never hinted ("" when it may be): a slash
// command, a scheduled task's or a subagent's notification, a message
// from another session, an empty prompt.
func Skip(prompt string) string {
	p := strings.TrimLeftFunc(prompt, unicode.IsSpace)
	switch {
	case p == "":
		return "empty prompt"
	case strings.HasPrefix(p, "/"):
		return "slash command"
	case strings.HasPrefix(p, "!"):
		return "shell command"
	}
	for _, tag := range []string{"<task-notification>", "<teammate-message", "<agent-message", "<command-name>", "<command-message>", "<local-command-", "<bash-input>", "<scheduled-task"} {
		if strings.Contains(p, tag) {
			return "notification (" + strings.Trim(tag, "<>") + ")"
		}
	}
	return ""
}

// Verdict judges h's measures against bar: it sets Shown and Why. (The
// eval measures once and judges under many bars.)
func (h *Measures) Verdict(bar Bar) {
	h.Shown = false
	if h.Terms < max(bar.MinTerms, 1) {
		h.Why = fmt.Sprintf("silent: %d search word(s) in the prompt, want %d", h.Terms, max(bar.MinTerms, 1))
		return
	}
	if h.Bounded {
		h.Why = fmt.Sprintf("silent: no passage can hold %.0f%% of the prompt's weight (at most %.0f%%)", 100*bar.Cover, 100*h.Cover)
		return
	}
	if h.Best == "" {
		h.Why = "silent: no past session matches"
		return
	}
	lead := "no other session matches"
	if h.Second != "" {
		lead = fmt.Sprintf("%.2f× the next session's score (%s)", h.Lead, Short(h.Second))
	}
	switch {
	case h.Cover < bar.Cover:
		h.Why = fmt.Sprintf("silent: the best session (%s) holds %.0f%% of the prompt's weight in one place, want %.0f%%", Short(h.Best), 100*h.Cover, 100*bar.Cover)
	case h.Lead < bar.Lead:
		h.Why = fmt.Sprintf("silent: the best session (%s) scores only %s, want %.2f×", Short(h.Best), lead, bar.Lead)
	default:
		h.Shown = true
		h.Why = fmt.Sprintf("shown: %s holds %.0f%% of the prompt's weight in one place (want %.0f%%) and scores %s (want %.2f×)",
			Short(h.Best), 100*h.Cover, 100*bar.Cover, lead, bar.Lead)
	}
}

// Short is a session id's first eight characters, as results name them,
// terminal safe: an id comes from a transcript, and Why reaches a
// terminal (--explain) and hook.log; a byte that is not printable ASCII
// is shown as '?'.
func Short(id string) string {
	b := []byte(id[:min(len(id), 8)])
	for i, c := range b {
		if c < ' ' || c > '~' {
			b[i] = '?'
		}
	}
	return string(b)
}
