package transcript

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/bits"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// A minimal JSON scanner for transcript lines.
//
// encoding/json validates every byte of a line before decoding it, and an
// assistant line that writes a file carries the whole file in its input:
// most of the indexer's time went there. This scanner walks only the
// structure recall reads (top-level members, the message, its content
// blocks) and skips every other value with byte searches (strings are
// skipped to the next unescaped quote, eight bytes at a time and then
// with IndexByte). It is lenient: it checks structure, not every number
// and literal, and a differential fuzz test holds it to encoding/json's
// results on every line encoding/json accepts.

var errSyntax = errors.New("malformed JSON")

// eachMember calls fn with the raw key (without quotes, still escaped) and
// the raw value of each member of the object in b, in order. fn returns
// false to stop early. m (which may be nil) holds where values skipped
// before end.
func eachMember(b []byte, m *skipMemo, fn func(key, val []byte) bool) error {
	w := objectWalk{b: b}
	for {
		key, val, ok := w.next(m)
		if !ok {
			return w.err
		}
		if !fn(key, val) {
			return nil
		}
	}
}

// objectWalk is eachMember as a loop the caller writes (next), for the
// walks that run on every line: a call of fn per member cost more than
// the switch on its key.
type objectWalk struct {
	b       []byte
	i       int
	started bool
	err     error // why the walk stopped early: errSyntax, or nil
}

// next returns the raw key and value of the object's next member, or
// ok false at its end or at an error (w.err).
func (w *objectWalk) next(m *skipMemo) (key, val []byte, ok bool) {
	b, i := w.b, w.i
	if !w.started {
		w.started = true
		i = skipSpace(b, 0)
		if i >= len(b) || b[i] != '{' {
			return w.fail()
		}
		i = skipSpace(b, i+1)
		if i < len(b) && b[i] == '}' {
			return nil, nil, false
		}
	} else {
		i = skipSpace(b, i)
		if i >= len(b) {
			return w.fail()
		}
		if b[i] == '}' {
			return nil, nil, false
		}
		if b[i] != ',' {
			return w.fail()
		}
		i = skipSpace(b, i+1)
	}
	if i >= len(b) || b[i] != '"' {
		return w.fail()
	}
	kend := stringEnd(b, i)
	if kend < 0 {
		return w.fail()
	}
	key = b[i+1 : kend-1]
	i = skipSpace(b, kend)
	if i >= len(b) || b[i] != ':' {
		return w.fail()
	}
	vstart := skipSpace(b, i+1)
	vend, err := m.skipMember(key, b, vstart)
	if err != nil {
		return w.fail()
	}
	w.i = vend
	return key, b[vstart:vend], true
}

// rest returns what follows the object once the walk has reached its
// closing brace (nothing after an error).
func (w *objectWalk) rest() []byte {
	if w.err != nil || !w.started {
		return nil
	}
	i := skipSpace(w.b, w.i)
	if i < len(w.b) && w.b[i] == '}' {
		return w.b[i+1:]
	}
	return nil
}

func (w *objectWalk) fail() ([]byte, []byte, bool) {
	w.err = errSyntax
	w.i = len(w.b)
	return nil, nil, false
}

// eachElement calls fn with the raw value of each element of the array
// in b. m (which may be nil) holds where values skipped before end.
func eachElement(b []byte, m *skipMemo, fn func(val []byte) bool) error {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '[' {
		return errSyntax
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return nil
	}
	for {
		end, err := m.skipValue(b, i)
		if err != nil {
			return err
		}
		if !fn(b[i:end]) {
			return nil
		}
		i = skipSpace(b, end)
		if i >= len(b) {
			return errSyntax
		}
		if b[i] == ']' {
			return nil
		}
		if b[i] != ',' {
			return errSyntax
		}
		i = skipSpace(b, i+1)
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index just past the string starting at b[i] ('"').
func skipString(b []byte, i int) (int, error) {
	if end := stringEnd(b, i); end >= 0 {
		return end, nil
	}
	return 0, errSyntax
}

// ones and highs are the bytes 0x01 and 0x80 in each byte of a word:
// (x - ones) &^ x & highs is nonzero when a byte of x is zero, and its
// lowest set bit marks the first such byte (a borrow sets only bits
// above it).
const ones, highs = 0x0101010101010101, 0x8080808080808080

// quoteWords is how many eight-byte words stringEnd tests before it
// hands a string over to bytes.IndexByte.
const quoteWords = 4

// stringEnd returns the index just past the string starting at b[i]
// ('"'), or -1 when it does not end. Most strings of a transcript line
// are keys, ids and short values (a quote every 15 bytes on average): it
// tests their first words itself, eight bytes at a time, since a call of
// bytes.IndexByte per string cost more than the search; a longer string
// is searched by IndexByte, which is faster per byte.
func stringEnd(b []byte, i int) int {
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

// skipValue returns the index just past the value starting at b[i].
func skipValue(b []byte, i int) (int, error) {
	if i >= len(b) {
		return 0, errSyntax
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		return skipNested(b, i)
	default:
		j := i
		for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\t' && b[j] != '\n' && b[j] != '\r' {
			j++
		}
		if j == i {
			return 0, errSyntax
		}
		return j, nil
	}
}

// skipNested skips an object or array by counting brackets outside
// strings. In transcript JSON nearly every byte is inside a string, and
// the structure between two strings is a few bytes long: it is read a
// byte at a time, and each string skipped whole (stringEnd), instead of
// an IndexByte call to find each string's opening quote.
func skipNested(b []byte, i int) (int, error) {
	depth := 0
	for j := i; j < len(b); j++ {
		if !structural[b[j]] {
			continue
		}
		switch b[j] {
		case '"':
			end := stringEnd(b, j)
			if end < 0 {
				return 0, errSyntax
			}
			j = end - 1
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return j + 1, nil
			}
		}
	}
	return 0, errSyntax
}

// structural marks the bytes a nested value's scan acts on: quotes and
// brackets. One load tells the rest apart (a colon, a comma, a digit).
var structural = [256]bool{'"': true, '{': true, '[': true, '}': true, ']': true}

// skipMemo remembers where the values inside a line's message end, as
// the first walk over the line (parseRecord) skips the message: the walks
// into the message, its content and its blocks that follow find each
// value's end here instead of scanning its bytes again (a tool result's
// content was scanned four times). An end is the one skipNested or
// skipString would find from the same byte: both scan forward from the
// value's first byte only, and the message's scan meets each nested
// value's first byte outside any string, in the same state.
type skipMemo struct {
	ends []skippedValue
	// record is set during the first walk: a "message" member's value
	// is skipped recording what it holds.
	record bool
}

type skippedValue struct {
	at *byte // the value's first byte
	n  int   // its length
}

const (
	// memoDepth is how deep inside the message values are remembered:
	// message, content, block, a block's input or content.
	memoDepth = 4
	// memoStrings is the shortest string worth remembering.
	memoStrings = 32
	// memoEntries bounds the memo; past it values are scanned again (a
	// line of many thousand tiny blocks must not make lookups quadratic).
	memoEntries = 64
)

func (m *skipMemo) reset() { m.ends = m.ends[:0] }

// skipMember is skipValue for the value of member key. During the first
// walk nothing is looked up: the memo holds only values inside a message,
// never a top-level value.
func (m *skipMemo) skipMember(key, b []byte, i int) (int, error) {
	if m == nil || m.record {
		if i < len(b) && b[i] == '"' {
			return skipString(b, i)
		}
		if m != nil && string(key) == "message" && i < len(b) && (b[i] == '{' || b[i] == '[') {
			return m.skipRecording(b, i)
		}
		return skipValue(b, i)
	}
	return m.skipValue(b, i)
}

// skipValue returns the index just past the value starting at b[i],
// remembered or found.
func (m *skipMemo) skipValue(b []byte, i int) (int, error) {
	if m != nil && i < len(b) && (b[i] == '"' || b[i] == '{' || b[i] == '[') {
		at := &b[i]
		for _, e := range m.ends {
			if e.at == at {
				if i+e.n <= len(b) {
					return i + e.n, nil
				}
				break // ends past b: scan, and fail as a scan would
			}
		}
	}
	return skipValue(b, i)
}

func (m *skipMemo) remember(b []byte, start, end int) {
	if len(m.ends) < memoEntries {
		m.ends = append(m.ends, skippedValue{at: &b[start], n: end - start})
	}
}

// skipRecording is skipNested that remembers the objects and arrays it
// passes up to memoDepth deep, and the long strings inside them.
func (m *skipMemo) skipRecording(b []byte, i int) (int, error) {
	var open [memoDepth]int // where the open bracket at each depth is
	depth := 0
	for j := i; j < len(b); j++ {
		if !structural[b[j]] {
			continue
		}
		switch b[j] {
		case '"':
			end := stringEnd(b, j)
			if end < 0 {
				return 0, errSyntax
			}
			if depth < memoDepth && end-j >= memoStrings {
				m.remember(b, j, end)
			}
			j = end - 1
		case '{', '[':
			depth++
			if depth <= memoDepth {
				open[depth-1] = j
			}
		case '}', ']':
			if depth >= 2 && depth <= memoDepth {
				m.remember(b, open[depth-1], j+1)
			}
			depth--
			if depth == 0 {
				return j + 1, nil
			}
		}
	}
	return 0, errSyntax
}

// decodeString decodes a raw JSON string value. Strings without escapes
// and with valid UTF-8 are taken as they are; the rest are unquoted as
// encoding/json does (unquote), which rejects control characters and bad
// escapes and turns invalid UTF-8 and lone surrogates into U+FFFD.
func decodeString(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	inner := raw[1 : len(raw)-1]
	if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return string(inner), true
	}
	return unquote(raw)
}

// unquote is json.Unmarshal of raw into a string, in one pass: most text
// blocks hold a newline escape, and encoding/json's validation and
// unquoting (two passes, a state function per byte) were a fifth of the
// extractor's time. FuzzUnquote holds it to encoding/json.
func unquote(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	s := raw[1 : len(raw)-1]
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
// backslash) stands for, 0 for the others; as unescape decodes them.
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
	switch s[1] {
	case 'u':
		rr := hex4(s[2:])
		if rr < 0 {
			return e, 0, false
		}
		if !utf16.IsSurrogate(rr) {
			e.n = utf8.EncodeRune(e.bytes[:], rr)
			return e, 6, true
		}
		// A pair when another \u escape completes it; otherwise the
		// lone surrogate becomes U+FFFD and the next escape stands on
		// its own.
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
	default:
		return e, 0, false
	}
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

// decodeBool reads a raw JSON true.
func decodeBool(raw []byte) bool { return string(raw) == "true" }
