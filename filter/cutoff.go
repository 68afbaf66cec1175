package filter

import (
	"regexp"
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
	LineEnd  int      // last line of the Messages rows after it in Source
	Words    []string // what was recalled, lowercased, for the shared-word test
	Recalled bool     // Words came from a recall command's own query
}

// recallCommand finds recall run as a command in a shell line: at the start
// or after a pipe, &&, ;, a subshell or a path ("~/go/bin/recall").
var recallCommand = regexp.MustCompile(`(?:^|[|;&(\s/])recall(?:\s+search)?\s+([^|;&]*)`)

// memorySearch is the classic tool's command and the phrasing its skill
// used; the same list the classic pipeline detected.
var recallPhrases = regexp.MustCompile(`(?i)memory search|memory recall|i'll search (?:my|the) (?:memory|past sessions|history)|go back to a memory|did you remember.*talked about`)

// DetectRecallEvent reports whether a row (by role and text) ran or quoted
// recall, and what was recalled.
func DetectRecallEvent(role, text string) ([]string, bool) {
	if role == "tool" {
		return detectToolEvent(text)
	}
	if loc := recallPhrases.FindStringIndex(text); loc != nil {
		return contentWords(text[loc[1]:]), true
	}
	if m := recallCommand.FindStringSubmatch(text); m != nil && strings.Contains(text, "`") {
		return queryWords(m[1]), true
	}
	return nil, false
}

func detectToolEvent(text string) ([]string, bool) {
	name, args, _ := strings.Cut(text, ": ")
	if strings.Contains(strings.ToLower(name), "recall") {
		return queryWords(args), true // an MCP tool of recall's
	}
	if name != "Bash" {
		return nil, false
	}
	if m := recallCommand.FindStringSubmatch(args); m != nil {
		return queryWords(m[1]), true
	}
	if loc := recallPhrases.FindStringIndex(args); loc != nil {
		return queryWords(args[loc[1]:]), true
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

// InWindow reports whether a message at time t, line in source, falls in
// the window after event e. Messages before the event never do.
func (e *RecallEvent) InWindow(w Window, t time.Time, source string, line int) bool {
	if source == e.Source && line > e.Line && line <= e.LineEnd {
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
