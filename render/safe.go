package render

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Transcript text never reaches a terminal raw: a message can hold escape
// sequences (ESC[2J clears the screen, ESC]0;…BEL retitles the window,
// ESC]8;;URL ESC\ makes a link) that a terminal would obey. Human and
// markdown output pass every piece of text that comes from an index row
// (messages, projects, paths, ids) through Safe or SafeText; recall's own
// colours are added afterwards. JSON output keeps the exact text, escaped
// by JSON.
//
// A neutralised control shows as its Unicode control picture: ESC as ␛,
// BEL as ␇, NUL as ␀, DEL as ␡, a carriage return as ␍ (U+2400 + the
// code, U+2421 for DEL). C1 controls (U+0080–U+009F), which have no
// picture, show as \u009b-style escapes. Bytes that are not UTF-8 show as
// U+FFFD.

// Safe makes s printable on one line: every control character, newlines
// and tabs included, is shown as a visible symbol.
func Safe(s string) string { return neutralise(s, false) }

// SafeText makes multi-line text printable: newlines and tabs are kept,
// every other control character is shown as a visible symbol.
func SafeText(s string) string { return neutralise(s, true) }

func neutralise(s string, keepLayout bool) string {
	if isPlain(s, keepLayout) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteRune(utf8.RuneError)
		case keepLayout && (r == '\n' || r == '\t'):
			b.WriteRune(r)
		case r < 0x20:
			b.WriteRune(0x2400 + r)
		case r == 0x7f:
			b.WriteRune(0x2421)
		case r >= 0x80 && r <= 0x9f:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// isPlain reports whether s needs no change: valid UTF-8 with no control
// character (but newlines and tabs when keepLayout).
func isPlain(s string, keepLayout bool) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 {
			return utf8.ValidString(s[i:]) && !hasC1(s[i:])
		}
		if c < 0x20 && !(keepLayout && (c == '\n' || c == '\t')) || c == 0x7f {
			return false
		}
	}
	return true
}

// hasC1 reports whether s holds a C1 control (U+0080–U+009F, encoded
// 0xC2 0x80–0x9F) or any ASCII control.
func hasC1(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == 0xc2 && i+1 < len(s) && s[i+1] >= 0x80 && s[i+1] <= 0x9f {
			return true
		}
		if c < 0x20 || c == 0x7f {
			return true
		}
	}
	return false
}
