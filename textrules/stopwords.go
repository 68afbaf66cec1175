package textrules

import "strings"

// stopWords are dropped from the positional words of a natural-language
// question. The list is small on purpose: pronouns, articles, auxiliaries,
// question words, quantifiers and prepositions that carry no topic, their
// common contractions, plus a few conversational words ("remember",
// "please") people put in questions to an assistant. Words that may name a
// topic (get, set, run, test, not, after, before, may) are not in it.
var stopWords = map[string]bool{
	"a": true, "about": true, "all": true, "also": true, "am": true, "an": true,
	"and": true, "any": true, "are": true, "aren't": true, "as": true, "at": true,
	"be": true, "been": true, "being": true, "both": true, "but": true, "by": true,
	"can": true, "can't": true, "could": true, "did": true, "didn't": true,
	"do": true, "does": true, "doesn't": true, "doing": true, "don't": true,
	"each": true, "either": true, "ever": true, "for": true, "from": true,
	"had": true, "has": true, "hasn't": true, "have": true, "haven't": true,
	"having": true, "he": true, "he's": true, "her": true, "hers": true,
	"herself": true, "him": true, "himself": true, "his": true, "how": true,
	"how's": true, "i": true, "i'd": true, "i'll": true, "i'm": true, "i've": true,
	"if": true, "in": true, "into": true, "is": true, "isn't": true, "it": true,
	"it's": true, "its": true, "itself": true, "just": true, "let's": true,
	"many": true, "me": true, "might": true, "much": true, "must": true,
	"my": true, "myself": true, "of": true, "on": true, "or": true, "our": true,
	"ours": true, "ourselves": true, "please": true, "remember": true,
	"she": true, "she's": true, "should": true, "so": true, "some": true,
	"such": true, "than": true, "that": true, "that's": true, "the": true,
	"their": true, "theirs": true, "them": true, "themselves": true,
	"then": true, "there": true, "there's": true, "these": true, "they": true,
	"they're": true, "this": true, "those": true, "to": true, "too": true,
	"us": true, "very": true, "was": true, "wasn't": true, "we": true,
	"we'd": true, "we'll": true, "we're": true, "we've": true, "were": true,
	"weren't": true, "what": true, "what's": true, "when": true, "where": true,
	"where's": true, "whether": true, "which": true, "while": true, "who": true,
	"who's": true, "whom": true, "whose": true, "why": true, "will": true,
	"with": true, "won't": true, "would": true, "wouldn't": true, "you": true,
	"you'd": true, "you're": true, "you've": true, "your": true, "yours": true,
	"yourself": true,
}

// IsStopWord reports whether word (any case) is in the stop-word list.
// A typographic apostrophe counts as a straight one ("what’s").
func IsStopWord(word string) bool {
	return stopWords[strings.ReplaceAll(strings.ToLower(word), "’", "'")]
}
