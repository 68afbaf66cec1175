package filter

import (
	"path/filepath"
	"strings"
	"time"
	"unicode"
)

// The windowed recall cutoff.
//
// A session in which recall (or the classic `memory search`) ran holds
// echoes of what was recalled: the tool output, then the assistant quoting
// it. The classic tool dropped every message at or before the last recall,
// which also threw away the real work done earlier in the session. recall
// drops only the event itself and the messages inside a window after it
// that share words with what was recalled.

// Window bounds what follows a recall event: messages within Duration of
// it, or among the next Messages rows of the same transcript.
type Window struct {
	Duration time.Duration
	Messages int
}

// DefaultWindow is 10 minutes or 5 messages.
func DefaultWindow() Window { return Window{Duration: 10 * time.Minute, Messages: 5} }

// RecallEvent is a message or tool call that ran or quoted recall.
type RecallEvent struct {
	Time     time.Time
	Source   string
	Line     int
	Ordinal  int      // position among the rows of Source
	Words    []string // what was recalled, lowercased, for the shared-word test
	Recalled bool     // Words came from a recall command's own query
}

// recallPhrases are the classic tool's command and the phrasing its skill
// used, lowercased; the same list the classic pipeline detected, minus the
// bare "I'll search" (which also opens "I'll search the codebase for…").
var recallPhrases = []string{
	"memory search",
	"memory recall",
	"i'll search my memory",
	"i'll search the memory",
	"i'll search my past sessions",
	"i'll search the past sessions",
	"i'll search my history",
	"i'll search the history",
	"go back to a memory",
}

// DetectRecallEvent reports whether a row (by role and text) ran or quoted
// recall, and what was recalled. It runs on every row that mentions recall
// or memory, so it uses plain string search, not regular expressions.
func DetectRecallEvent(role, text string) ([]string, bool) {
	if role == "tool" {
		return detectToolEvent(text)
	}
	lower := strings.ToLower(text)
	if end := phraseEnd(lower); end >= 0 {
		return contentWords(text[end:]), true
	}
	if args, ok := quotedInvocation(text); ok {
		return queryWords(args), true
	}
	return nil, false
}

// phraseEnd returns where the first recall phrase ends, or -1.
func phraseEnd(lower string) int {
	best := -1
	for _, p := range recallPhrases {
		if i := strings.Index(lower, p); i >= 0 && (best < 0 || i+len(p) < best) {
			best = i + len(p)
		}
	}
	if i := strings.Index(lower, "did you remember"); i >= 0 {
		if j := strings.Index(lower[i:], "talked about"); j >= 0 && (best < 0 || i+j+len("talked about") < best) {
			best = i + j + len("talked about")
		}
	}
	return best
}

// recallInvocation finds recall run as a command in a shell line: the
// first word of a command (after any VAR=value assignments), by name or by
// path ("~/go/bin/recall"). It returns the arguments up to the end of that
// command. "recall search …" is the same command.
func recallInvocation(line string) (string, bool) {
	for _, cmd := range strings.FieldsFunc(line, func(r rune) bool {
		return r == '|' || r == ';' || r == '&' || r == '(' || r == ')' || r == '\n' || r == '`'
	}) {
		words := strings.Fields(cmd)
		for len(words) > 0 && strings.Contains(words[0], "=") {
			words = words[1:]
		}
		if len(words) == 0 || filepath.Base(words[0]) != "recall" {
			continue
		}
		args := words[1:]
		if len(args) > 0 && args[0] == "search" {
			args = args[1:]
		}
		return strings.Join(args, " "), true
	}
	return "", false
}

// quotedInvocation finds recall quoted as inline code in prose:
// "I ran `recall jwt auth`".
func quotedInvocation(text string) (string, bool) {
	i := strings.Index(text, "`recall ")
	if i < 0 {
		return "", false
	}
	rest := text[i+1:]
	if j := strings.IndexByte(rest, '`'); j >= 0 {
		rest = rest[:j]
	}
	return recallInvocation(rest)
}

func detectToolEvent(text string) ([]string, bool) {
	name, args, _ := strings.Cut(text, ": ")
	if strings.Contains(strings.ToLower(name), "recall") {
		return queryWords(args), true // an MCP tool of recall's
	}
	if name != "Bash" {
		return nil, false
	}
	if q, ok := recallInvocation(args); ok {
		return queryWords(q), true
	}
	if end := phraseEnd(strings.ToLower(args)); end >= 0 {
		return queryWords(args[end:]), true
	}
	return nil, false
}

// queryWords takes the words of a recall command line: flags are dropped,
// flag values and positional words kept (both are what was looked for).
func queryWords(args string) []string {
	var out []string
	for _, f := range strings.Fields(args) {
		if strings.HasPrefix(f, "-") {
			continue
		}
		out = append(out, contentWords(f)...)
	}
	return out
}

// contentWords lowercases text and keeps the words of three letters or more
// that are not stop words.
func contentWords(text string) []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_'
	}) {
		if len(w) < 3 || IsStopWord(w) || seen[w] || w == "recall" {
			continue
		}
		seen[w] = true
		out = append(out, w)
	}
	return out
}

// InWindow reports whether a message at time t, the ordinal-th row of
// source, falls in the window after event e: within w.Duration after it,
// or among the w.Messages rows that follow it in the same transcript.
// Messages before the event never do.
func (e *RecallEvent) InWindow(w Window, t time.Time, source string, ordinal int) bool {
	if source == e.Source && ordinal > e.Ordinal && ordinal-e.Ordinal <= w.Messages {
		return true
	}
	if t.IsZero() || e.Time.IsZero() {
		return false
	}
	return !t.Before(e.Time) && t.Sub(e.Time) <= w.Duration
}

// SharesWords reports whether text mentions any of the recalled words.
// An event whose query is unknown shares with everything in its window.
func (e *RecallEvent) SharesWords(text string) bool {
	if len(e.Words) == 0 {
		return true
	}
	lower := strings.ToLower(text)
	for _, w := range e.Words {
		if strings.Contains(lower, w) {
			return true
		}
	}
	return false
}
