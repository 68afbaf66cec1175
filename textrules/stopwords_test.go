package textrules

import (
	"strings"
	"testing"
)

func TestStopWordsAreLowerCase(t *testing.T) {
	for w := range stopWords {
		if w != strings.ToLower(w) || strings.ContainsAny(w, " \t") {
			t.Errorf("stop word %q is not a lower-case single word", w)
		}
	}
	for _, w := range []string{"how", "did", "we", "the", "a", "an", "is", "what", "to", "of", "in", "for",
		"and", "or", "it", "on", "with", "was", "do", "does", "i", "you", "my", "our", "that", "this", "be",
		"are", "when", "where", "why", "which", "can", "should", "would", "could", "about", "from", "at", "by", "as"} {
		if !IsStopWord(w) {
			t.Errorf("%q from the issue's list is not a stop word", w)
		}
	}
	for _, w := range []string{"jwt", "test", "get", "not", "run"} {
		if IsStopWord(w) {
			t.Errorf("topic word %q is a stop word", w)
		}
	}
}
