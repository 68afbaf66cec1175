package rank

import (
	"strings"

	"github.com/recall-dev/recall/textrules"
)

// Form is how a hit matched its term, as the query language classifies it
// (textrules.Form; the search copies it into each Hit).
type Form = textrules.Form

// The forms of a hit.
const (
	FormWord   = textrules.FormWord
	FormInside = textrules.FormInside // "lock" in "deadlock"
	FormAccent = textrules.FormAccent
	FormStem   = textrules.FormStem
)

// Hit weights. An exact hit where a word starts counts one; the other
// forms count less, in eighths (FormUnits), so that the term index can add
// them up in integers:
//
//   - inside a word 5/8: "lock" inside "deadlock" or "art" inside "start"
//     is as often another word as the same one, while a hit that starts a
//     word ("painting" for paint) nearly always is the word;
//   - accents folded 6/8: "češtiny" for cestiny is the same word typed
//     without its accents, but an exact spelling is the surer match;
//   - word form 4/8: "Translate" for translated is the same word, in
//     another form, and the weakest evidence of the three.
//
// An exact substring hit always weighs more than a word-form hit.
const (
	unitsPerHit  = 8
	insideUnits  = 5
	accentUnits  = 6
	stemUnits    = 4
	minFormUnits = stemUnits
)

// FormUnits is a hit's weight, in eighths of an exact hit at a word start.
func FormUnits(f Form) int {
	switch f {
	case FormInside:
		return insideUnits
	case FormAccent:
		return accentUnits
	case FormStem:
		return stemUnits
	}
	return unitsPerHit
}

// MaxFormUnits is the most a hit of any form weighs: what the term index
// counts for a hit whose form it cannot know.
const MaxFormUnits = unitsPerHit

// formWeight is FormUnits as a fraction of an exact hit.
func formWeight(f Form) float64 { return float64(FormUnits(f)) / unitsPerHit }

// Tool rows hold what a call touched ("Edit: /src/pricing.ts", "Bash: go
// test ./..."): a hit there on a path, command or identifier is precise.
// But commands also carry prose: a prompt handed to another model's CLI
// (`gemini -p "You are a senior reviewer…"`), a commit message, a heredoc.
// Such a row repeats the conversation's words without being where the
// conversation happened, and with BM25's bonus for short texts it would
// outrank the messages it quotes. Hits inside that prose weigh
// toolProseWeight of their form's weight.
const toolProseWeight = 0.25

// minProseSpaces is how many spaces a quoted argument holds before it is
// prose (four words or more): a quoted path, pattern or flag value has
// fewer.
const minProseSpaces = 3

// proseSpans returns the parts of a tool row's text that are prose passed
// to the command: the bodies of heredocs, and quoted strings ("…" or '…')
// of four words or more. A quote that does not close runs to the end of
// the text: tool rows are cut at 400 characters, often inside a quoted
// prompt.
func proseSpans(text string) []textrules.Span {
	var spans []textrules.Span
	for i := 0; i < len(text); i++ {
		switch c := text[i]; c {
		case '<':
			if end, body, ok := heredoc(text, i); ok {
				spans = append(spans, textrules.Span{Start: body, End: end})
				i = end
			}
		case '"', '\'':
			if c == '\'' && i > 0 && isAlnum(text[i-1]) {
				continue // an apostrophe: "user's", "don't"
			}
			end := closingQuote(text, i+1, c)
			if strings.Count(text[i+1:end], " ") >= minProseSpaces {
				spans = append(spans, textrules.Span{Start: i + 1, End: end})
			}
			i = end
		}
	}
	return spans
}

// closingQuote returns where the quote opened before from closes (the
// closing quote's index), or len(text). Inside double quotes a backslash
// escapes the next byte, as in a shell.
func closingQuote(text string, from int, quote byte) int {
	for j := from; j < len(text); j++ {
		switch text[j] {
		case '\\':
			if quote == '"' {
				j++
			}
		case quote:
			if quote == '\'' && j+1 < len(text) && isAlnum(text[j+1]) {
				continue // an apostrophe inside the quoted words
			}
			return j
		}
	}
	return len(text)
}

func isAlnum(c byte) bool {
	return 'a' <= c|0x20 && c|0x20 <= 'z' || '0' <= c && c <= '9' || c >= 0x80
}

// heredoc reads a here-document marker (<<EOF, <<-'EOF', <<"END") at i and
// returns where its body starts (after the marker's line) and ends (at the
// line holding only the delimiter, or the end of the text).
func heredoc(text string, i int) (end, body int, ok bool) {
	if !strings.HasPrefix(text[i:], "<<") || strings.HasPrefix(text[i:], "<<<") {
		return 0, 0, false
	}
	j := i + 2
	if j < len(text) && (text[j] == '-' || text[j] == '~') {
		j++
	}
	for j < len(text) && text[j] == ' ' {
		j++
	}
	quote := byte(0)
	if j < len(text) && (text[j] == '\'' || text[j] == '"') {
		quote = text[j]
		j++
	}
	start := j
	for j < len(text) && (text[j] == '_' || 'A' <= text[j] && text[j] <= 'Z' || 'a' <= text[j] && text[j] <= 'z' || '0' <= text[j] && text[j] <= '9') {
		j++
	}
	delim := text[start:j]
	if delim == "" || quote != 0 && (j >= len(text) || text[j] != quote) {
		return 0, 0, false
	}
	nl := strings.IndexByte(text[j:], '\n')
	if nl < 0 {
		return 0, 0, false
	}
	body = j + nl + 1
	for at := body; at < len(text); {
		lineEnd := strings.IndexByte(text[at:], '\n')
		if lineEnd < 0 {
			lineEnd = len(text)
		} else {
			lineEnd += at
		}
		if strings.TrimSpace(text[at:lineEnd]) == delim {
			return at, body, true
		}
		at = lineEnd + 1
	}
	return len(text), body, true
}

// inSpans reports whether offset at lies in one of spans, which are
// sorted and do not overlap; i is where to start looking, and the index
// to start from next time is returned (offsets come in order).
func inSpans(spans []textrules.Span, i, at int) (bool, int) {
	for i < len(spans) && spans[i].End <= at {
		i++
	}
	return i < len(spans) && spans[i].Start <= at, i
}
