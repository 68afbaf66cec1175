package textrules

import (
	"strings"
	"unicode"
)

// ackWords are words that, alone or together, say nothing but "go on".
// A message made only of them (at most maxAckWords words) is an
// acknowledgement: "ok", "yes please", "ok thanks, continue".
var ackWords = map[string]bool{
	"ok": true, "okay": true, "k": true, "kk": true, "yes": true, "yep": true, "yup": true,
	"yeah": true, "y": true, "no": true, "nope": true, "sure": true, "thanks": true,
	"thank": true, "you": true, "thx": true, "ty": true, "cool": true, "great": true,
	"nice": true, "perfect": true, "good": true, "fine": true, "awesome": true,
	"excellent": true, "continue": true, "proceed": true, "go": true, "on": true,
	"ahead": true, "please": true, "pls": true, "done": true, "lgtm": true,
	"right": true, "correct": true, "agreed": true, "got": true, "it": true,
	"sounds": true, "looks": true, "so": true, "much": true, "very": true,
	"alright": true, "all": true, "and": true, "then": true, "now": true, "do": true,
	"that": true, "understood": true, "noted": true, "wonderful": true, "amazing": true,
}

// maxAckWords bounds how long a run of acknowledgement words may be; a
// longer message built only of them is rare enough to keep.
const maxAckWords = 6

// ackPhrases are assistant stock replies that carry no content of their
// own. They count only as the whole message (after normalising case,
// punctuation and spaces), never as a prefix: "Let me check the JWT
// middleware" is kept.
var ackPhrases = map[string]bool{
	"i'll help with that":       true,
	"i'll help you with that":   true,
	"i can help with that":      true,
	"i can help you with that":  true,
	"let me help you with that": true,
	"let me help with that":     true,
	"happy to help":             true,
	"sure i can help with that": true,
	"sure i'll help with that":  true,
	"let me take a look":        true,
	"let me check":              true,
	"let me look":               true,
	"let me look into it":       true,
	"let me look into that":     true,
	"i'll take a look":          true,
	"let me do that":            true,
	"i'll do that":              true,
	"you're welcome":            true,
	"you're right":              true,
	"got it":                    true,
	"done":                      true,
	"all done":                  true,
	"understood":                true,
	"will do":                   true,
	"no problem":                true,
	"sounds good":               true,
	"looks good":                true,
	"looks good to me":          true,
	"makes sense":               true,
	"good idea":                 true,
	"great question":            true,
	"perfect thanks":            true,
	"thank you":                 true,
	"thanks for the help":       true,
	"thank you for the help":    true,
	"thanks that works":         true,
	"that works":                true,
	"that worked":               true,
	"it works":                  true,
	"it works now":              true,
	"let's do it":               true,
	"let's go":                  true,
	"go for it":                 true,
	"keep going":                true,
	"carry on":                  true,
	"please continue":           true,
}

// IsAcknowledgement reports whether text is only an acknowledgement.
// Such messages are dropped at index time and weigh nothing in ranking.
func IsAcknowledgement(text string) bool {
	norm := normaliseAck(text)
	if norm == "" {
		return false
	}
	if ackPhrases[norm] {
		return true
	}
	// Too many words or one that is not an acknowledgement's: walked
	// without a slice of the words (18 MB per 1 GB index).
	n := 0
	for w := range strings.FieldsSeq(norm) {
		n++
		if n > maxAckWords || !ackWords[strings.Trim(w, "'")] {
			return false
		}
	}
	return true
}

// MaxAckBytes is the length of the longest text IsAcknowledgement may
// accept: acknowledgements are short.
const MaxAckBytes = 64

// normaliseAck lowercases, drops punctuation other than apostrophes (so
// "I'll" survives) and folds runs of spaces.
func normaliseAck(text string) string {
	if len(text) > MaxAckBytes {
		return "" // acknowledgements are short; skip the work for the rest
	}
	var b strings.Builder
	space := false
	for _, r := range strings.ToLower(text) {
		switch {
		case r == '\'' || r == '’':
			b.WriteByte('\'')
			space = false
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			b.WriteRune(r)
			space = false
		default:
			space = true
		}
	}
	return b.String()
}
