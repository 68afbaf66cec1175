package filter

import (
	"strings"
	"time"
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
