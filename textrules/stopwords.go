package textrules

import "strings"

// stopWords are dropped from the positional words of a natural-language
// question. The list is small on purpose: pronouns, articles, auxiliaries,
// question words and prepositions that carry no topic, plus a few
// conversational words ("remember", "please") people put in questions to
// an assistant. Words that may name a topic (get, set, run, test, not) are
// not in it.
var stopWords = map[string]bool{
	"a": true, "about": true, "am": true, "an": true, "and": true, "are": true,
	"as": true, "at": true, "be": true, "been": true, "by": true, "can": true,
	"could": true, "did": true, "do": true, "does": true, "for": true,
	"from": true, "had": true, "has": true, "have": true, "he": true,
	"her": true, "his": true, "how": true, "i": true, "i'm": true, "if": true,
	"in": true, "into": true, "is": true, "it": true, "it's": true, "its": true,
	"let's": true, "me": true, "my": true, "of": true, "on": true, "or": true,
	"our": true, "please": true, "remember": true, "she": true, "should": true,
	"so": true, "that": true, "the": true, "their": true, "them": true,
	"then": true, "there": true, "these": true, "they": true, "this": true,
	"those": true, "to": true, "us": true, "was": true, "we": true,
	"we're": true, "were": true, "what": true, "what's": true, "when": true,
	"where": true, "which": true, "who": true, "why": true, "with": true,
	"would": true, "you": true, "your": true,
}

// IsStopWord reports whether word (any case) is in the stop-word list.
// A typographic apostrophe counts as a straight one ("what’s").
func IsStopWord(word string) bool {
	return stopWords[strings.ReplaceAll(strings.ToLower(word), "’", "'")]
}
