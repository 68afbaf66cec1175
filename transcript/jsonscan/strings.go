package jsonscan

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// ones and highs are the bytes 0x01 and 0x80 in each byte of a word:
// (x - ones) &^ x & highs is nonzero when a byte of x is zero, and its
// lowest set bit marks the first such byte (a borrow sets only bits
// above it).
const ones, highs = 0x0101010101010101, 0x8080808080808080

// quoteWords is how many eight-byte words StringEnd tests before it
// hands a string over to bytes.IndexByte.
const quoteWords = 4

// StringEnd returns the index just past the string starting at b[i]
// ('"'): past the first quote that an even run of backslashes (or none)
// precedes; -1 when the string does not end. It checks nothing else, for
// strings already validated or walks that check only structure.
//
// Most strings of a transcript line are keys, ids and short values (a
// quote every 15 bytes on average): it tests their first words itself,
// eight bytes at a time, since a call of bytes.IndexByte per string cost
// more than the search; a longer string is searched by IndexByte, which
// is faster per byte.
func StringEnd(b []byte, i int) int {
	j := i + 1
	w := 0
	for {
		if j+8 > len(b) {
			for ; j < len(b) && b[j] != '"'; j++ {
			}
			if j == len(b) {
				return -1
			}
		} else if w < quoteWords {
			q := binary.LittleEndian.Uint64(b[j:]) ^ ones*'"'
			m := (q - ones) &^ q & highs // lowest set bit: the first quote
			if m == 0 {
				j += 8
				w++
				continue
			}
			j += bits.TrailingZeros64(m) >> 3
		} else {
			k := bytes.IndexByte(b[j:], '"')
			if k < 0 {
				return -1
			}
			j += k
		}
		// b[j] is a quote: escaped if an odd number of backslashes
		// precede it.
		if b[j-1] != '\\' || evenBackslashes(b, i, j) {
			return j + 1
		}
		j++
	}
}

// evenBackslashes reports whether an even number of backslashes precede
// b[j], counting back no further than b[i+1].
func evenBackslashes(b []byte, i, j int) bool {
	n := 0
	for p := j - 1; p > i && b[p] == '\\'; p-- {
		n++
	}
	return n%2 == 0
}

// ValidString returns the index just past the string starting at b[i]
// ('"'), checked as encoding/json checks it: no control character and
// only JSON's escapes (bytes that are not UTF-8 are valid: decoding makes
// them U+FFFD). escaped reports whether it holds an escape, which
// decoding must undo; ok is false when it is not a valid string.
func ValidString(b []byte, i int) (end int, escaped, ok bool) {
	i++
	for {
		i = specialByte(b, i)
		if i >= len(b) {
			return 0, false, false
		}
		switch b[i] {
		case '"':
			return i + 1, escaped, true
		case '\\':
			n := escapeLen(b[i:])
			if n == 0 {
				return 0, false, false
			}
			escaped = true
			i += n
		default: // a control character
			return 0, false, false
		}
	}
}

// specialByte returns the index of the first byte at or after b[i] that
// a string does not hold as it is (a quote, a backslash or a control
// character), len(b) for none. It tests eight bytes at a time and finds
// the byte in its word by the word's lowest flagged bit: the text of a
// string rarely ends within a few bytes, and past ASCII (which strings
// hold as it is) the search does not stop.
func specialByte(b []byte, i int) int {
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		// Nonzero in the high bit of each byte below 0x20, a backslash
		// or a quote (and maybe above the first: only the lowest counts);
		// &^ x clears the bytes of 0x80 and up.
		m := ((x - ones*0x20) | (x ^ ones*'\\' - ones) | (x ^ ones*'"' - ones)) &^ x & highs
		if m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	for ; i < len(b); i++ {
		if c := b[i]; c < ' ' || c == '\\' || c == '"' {
			return i
		}
	}
	return i
}

// escapeLen is the length of the valid escape sequence at the start of s
// (s[0] is '\\'), 0 when it is not one.
func escapeLen(s []byte) int {
	switch {
	case len(s) < 2:
		return 0
	case shortEscape[s[1]] != 0:
		return 2
	case s[1] == 'u' && hex4(s[2:]) >= 0:
		return 6
	}
	return 0
}

// DecodeString decodes a raw JSON string value (with its quotes) as
// json.Unmarshal into a string does. A string without escapes and with
// valid UTF-8 is taken as it is, unchecked: raw is a string validated
// before, or found by a walk (which reads only structure); the rest are
// unquoted (Unquote). ok is false for a value that is not a string, and
// for an escape or control character JSON does not allow.
func DecodeString(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	inner := raw[1 : len(raw)-1]
	if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return string(inner), true
	}
	return Unquote(inner)
}

// Unquote decodes s, the inside of a JSON string, as json.Unmarshal does,
// in one pass: it rejects control characters, unescaped quotes and bad
// escapes, and turns invalid UTF-8 and lone surrogates into U+FFFD. Most
// texts hold a newline escape, and encoding/json's validation and
// unquoting (two passes, a state function per byte) were a fifth of the
// Claude Code reader's time.
func Unquote(s []byte) (string, bool) {
	var b strings.Builder
	b.Grow(len(s))
	for r := 0; r < len(s); {
		n := plainRun(s[r:])
		if n > 0 {
			b.Write(s[r : r+n])
			r += n
			continue
		}
		switch c := s[r]; {
		case c == '\\' && r+1 < len(s) && shortEscape[s[r+1]] != 0:
			// \n, \t, \", \\ and the other one-letter escapes, most of
			// a text's escapes, without unescape's general case.
			b.WriteByte(shortEscape[s[r+1]])
			r += 2
		case c == '\\':
			w, adv, ok := unescape(s[r:])
			if !ok {
				return "", false
			}
			b.Write(w.bytes[:w.n])
			r += adv
		case c == '"' || c < ' ':
			return "", false
		default: // not ASCII
			rr, size := utf8.DecodeRune(s[r:])
			b.WriteRune(rr) // U+FFFD for an invalid byte, as encoding/json
			r += size
		}
	}
	return b.String(), true
}

// plainRun is the length of the run of printable ASCII at the start of s
// other than a backslash or quote: bytes copied as they are. It tests
// eight bytes at a time.
func plainRun(s []byte) int {
	n := 0
	for ; n+8 <= len(s); n += 8 {
		x := binary.LittleEndian.Uint64(s[n:])
		// Each is nonzero in the high bit of some byte when a byte of x
		// is below 0x20, a backslash or a quote (x's own high bits are
		// bytes of 0x80 and up).
		control := (x - ones*0x20) &^ x
		bs := x ^ ones*'\\'
		backslash := (bs - ones) &^ bs
		q := x ^ ones*'"'
		quote := (q - ones) &^ q
		if (control|backslash|quote|x)&highs != 0 {
			break
		}
	}
	for ; n < len(s); n++ {
		if c := s[n]; c < ' ' || c >= utf8.RuneSelf || c == '\\' || c == '"' {
			break
		}
	}
	return n
}

// shortEscape is what each one-letter escape (the letter after the
// backslash) stands for, 0 for the others.
var shortEscape = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// escaped is what one escape sequence decodes to.
type escaped struct {
	bytes [2 * utf8.UTFMax]byte
	n     int
}

// unescape decodes the escape sequence at the start of s (s[0] is '\\'):
// what it stands for and how many bytes of s it takes.
func unescape(s []byte) (escaped, int, bool) {
	var e escaped
	if len(s) < 2 {
		return e, 0, false
	}
	if c := shortEscape[s[1]]; c != 0 {
		e.bytes[0], e.n = c, 1
		return e, 2, true
	}
	if s[1] != 'u' {
		return e, 0, false
	}
	rr := hex4(s[2:])
	if rr < 0 {
		return e, 0, false
	}
	if !utf16.IsSurrogate(rr) {
		e.n = utf8.EncodeRune(e.bytes[:], rr)
		return e, 6, true
	}
	// A pair when another \u escape completes it; otherwise the lone
	// surrogate becomes U+FFFD and the next escape stands on its own.
	if len(s) >= 12 && s[6] == '\\' && s[7] == 'u' {
		if rr1 := hex4(s[8:]); rr1 >= 0 {
			if dec := utf16.DecodeRune(rr, rr1); dec != unicode.ReplacementChar {
				e.n = utf8.EncodeRune(e.bytes[:], dec)
				return e, 12, true
			}
		}
	}
	e.n = utf8.EncodeRune(e.bytes[:], unicode.ReplacementChar)
	return e, 6, true
}

// hex4 reads four hex digits, or returns -1.
func hex4(s []byte) rune {
	if len(s) < 4 {
		return -1
	}
	var r rune
	for _, c := range s[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}
