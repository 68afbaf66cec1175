package aider

import (
	"strings"
	"time"
	"unicode/utf8"
)

// What a line of the history is, by how Aider writes it
// (InputOutput.append_chat_history and its callers, aider/io.py).

// headerPrefix starts the line that starts a session.
const headerPrefix = "# aider chat started at "

// headerTime is the time a session header holds, in text; ok is false
// for a line that is not a header: it must be the prefix and a time of
// exactly Aider's layout (digits where it writes digits), so a reply
// that quotes the prefix in prose or code is not taken for one.
func headerTime(line string) (string, bool) {
	rest, ok := strings.CutPrefix(line, headerPrefix)
	if !ok {
		return "", false
	}
	rest = strings.TrimRight(rest, " \t")
	if len(rest) != len(headerTimeLayout) {
		return "", false
	}
	for i := 0; i < len(rest); i++ {
		want := headerTimeLayout[i]
		if isDigit(want) != isDigit(rest[i]) || !isDigit(want) && want != rest[i] {
			return "", false
		}
	}
	return rest, true
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// parseHeaderTime reads a header's time in loc, the zone Aider wrote it
// in (datetime.now(): local time, no zone).
func parseHeaderTime(s string, loc *time.Location) (time.Time, error) {
	return time.ParseInLocation(headerTimeLayout, s, loc)
}

// isPromptLine reports whether line is a line of a prompt: "#### text"
// (user_input prefixes every line of the input with "#### ").
func isPromptLine(line string) bool {
	return strings.HasPrefix(line, "####") && (len(line) == 4 || line[4] == ' ')
}

// promptText is a prompt line's text: without the prefix and the line
// break Aider ends it with.
func promptText(line string) string {
	return strings.TrimRight(strings.TrimPrefix(line[4:], " "), " \t")
}

// isOutputLine reports whether line starts Aider's own output: "> text"
// (append_chat_history with blockquote), or ">" with spaces for an
// empty one. A line of ">>>>>>> REPLACE" (an edit block) is not.
func isOutputLine(line string) bool {
	return line == ">" || strings.HasPrefix(line, "> ")
}

// outputText is an output line's text.
func outputText(line string) string {
	return strings.TrimSpace(line[1:])
}

// isUsageReport reports whether line is the report of the tokens a
// reply took, which Aider writes after every one (Coder.show_usage_report:
// "Tokens: 1.2k sent, 345 received." and, on a line of its own, the
// cost): the line it starts is not Aider's line break.
func isUsageReport(line string) bool {
	return strings.HasPrefix(line, "> Tokens: ")
}

// endsEntry reports whether line ends as Aider ends what it writes with
// linebreak=True (a prompt, a line of output): the text, right-trimmed,
// then two spaces (a markdown line break). A line of spaces alone (a
// blank line of code in some output) does not.
func endsEntry(line string) bool {
	return strings.HasSuffix(line, "  ") && strings.TrimSpace(line) != ""
}

// isBlank reports whether line holds nothing but spaces.
func isBlank(line string) bool {
	for i := 0; i < len(line); i++ {
		switch c := line[i]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r':
		case c < utf8.RuneSelf:
			return false
		default:
			return strings.TrimSpace(line[i:]) == "" // a space of Unicode's (U+00A0, …)
		}
	}
	return true
}

// A fence is a code block open in a reply: its lines are the reply's
// whatever they start with. Aider's models write Markdown fences (```,
// ~~~, longer runs) and the tag fences Aider asks some of them for
// (base_coder.py all_fences: <source>, <code>, <pre>, <codeblock>,
// <sourcecode>; "<source>python" opens one).
type fence struct {
	char  byte   // '`' or '~'; 0 for a tag fence
	n     int    // the length of its run of char
	close string // a tag fence's closing tag ("</source>")
}

var fenceTags = [...]string{"source", "code", "pre", "codeblock", "sourcecode"}

// fenceOpens and fenceCloses are the tags of fenceTags as they open and
// close a fence ("<source>", "</source>").
var fenceOpens, fenceCloses = func() (opens, closes [len(fenceTags)]string) {
	for i, tag := range fenceTags {
		opens[i], closes[i] = "<"+tag+">", "</"+tag+">"
	}
	return opens, closes
}()

// openFence is the fence line opens, if it opens one.
func openFence(line string) (fence, bool) {
	t := strings.TrimLeft(line, " \t")
	if len(t) < 3 {
		return fence{}, false
	}
	switch t[0] {
	case '`', '~':
		c := t[0]
		if t[1] != c || t[2] != c {
			return fence{}, false
		}
		n := 3
		for n < len(t) && t[n] == c {
			n++
		}
		if c == '`' && strings.IndexByte(t[n:], '`') >= 0 {
			return fence{}, false // inline code on one line (CommonMark: no backtick in the info string)
		}
		return fence{char: c, n: n}, true
	case '<':
		for i, open := range fenceOpens {
			if strings.HasPrefix(t, open) && !strings.Contains(t, fenceCloses[i]) {
				return fence{close: fenceCloses[i]}, true
			}
		}
	}
	return fence{}, false
}

// closedBy reports whether line closes f: a run of at least as many of
// its character and nothing else, or its closing tag.
func (f fence) closedBy(line string) bool {
	t := strings.TrimSpace(line)
	if f.close != "" {
		return strings.HasPrefix(t, f.close)
	}
	if len(t) < f.n {
		return false
	}
	for i := 0; i < len(t); i++ {
		if t[i] != f.char {
			return false
		}
	}
	return true
}
