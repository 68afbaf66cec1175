package textrules

import (
	"bytes"
	"unicode"
	"unicode/utf8"
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
// It allocates nothing: it runs on every short row an index adds.
func IsAcknowledgement(text string) bool {
	var buf [ackNormBytes]byte
	norm := appendNormalisedAck(buf[:0], text)
	if len(norm) == 0 {
		return false
	}
	if ackPhrases[string(norm)] {
		return true
	}
	// Too many words or one that is not an acknowledgement's. The words
	// of norm are separated by single spaces, none leading or trailing.
	for n := 1; ; n++ {
		w, rest, more := bytes.Cut(norm, []byte{' '})
		if n > maxAckWords || !ackWords[string(bytes.Trim(w, "'"))] {
			return false
		}
		if !more {
			return true
		}
		norm = rest
	}
}

// MaxAckBytes is the length of the longest text IsAcknowledgement may
// accept: acknowledgements are short.
const MaxAckBytes = 64

// ackNormBytes holds the normalised form of any text of MaxAckBytes: a
// rune of at most 4 bytes and a space for each byte.
const ackNormBytes = 5 * MaxAckBytes

// appendNormalisedAck appends text lowercased, without punctuation other
// than apostrophes (so "I'll" survives) and with runs of spaces folded;
// nothing for a text longer than MaxAckBytes. The runes are those of
// strings.ToLower(text): unicode.ToLower of each, U+FFFD for a byte that
// is not UTF-8.
func appendNormalisedAck(dst []byte, text string) []byte {
	if len(text) > MaxAckBytes {
		return dst // acknowledgements are short; skip the work for the rest
	}
	start := len(dst)
	space := false
	for _, r := range text {
		if r < utf8.RuneSelf {
			// ASCII, most of it: what unicode.ToLower, IsLetter and
			// IsDigit say of it, without their tables.
			c := byte(r)
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			switch {
			case c == '\'':
				dst = append(dst, c)
				space = false
			case 'a' <= c && c <= 'z' || '0' <= c && c <= '9':
				if space && len(dst) > start {
					dst = append(dst, ' ')
				}
				dst = append(dst, c)
				space = false
			default:
				space = true
			}
			continue
		}
		r = unicode.ToLower(r)
		switch {
		case r == '\'' || r == '’':
			dst = append(dst, '\'')
			space = false
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if space && len(dst) > start {
				dst = append(dst, ' ')
			}
			dst = utf8.AppendRune(dst, r)
			space = false
		default:
			space = true
		}
	}
	return dst
}
