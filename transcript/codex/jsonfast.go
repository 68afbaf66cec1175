package codex

import (
	"bytes"
	"encoding/binary"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// A rollout line that makes a row was decoded with encoding/json three
// times over (the envelope, its payload, the message's content), each
// call validating its whole input again, state function by state
// function: that was most of the reader's time. The records are now
// read by hand, in the common case only:
//
//   - validJSON checks a line once, as json.Valid does (FuzzValidJSON
//     holds it to it); a line it rejects is decoded by encoding/json,
//     which reports the same error as before;
//   - the decoders below (envelope, item, event, content) read the
//     members of a checked line's objects into the same structs
//     json.Unmarshal fills, and give up (ok false) on anything unusual:
//     a key with an escape or a byte that is not ASCII, a key that only
//     case-folds to a field's name, a field given twice, a value of
//     another type than the field's. The caller then decodes that value
//     with encoding/json as before, so every unusual line reads exactly
//     as it did (FuzzFastDecode holds the decoders to encoding/json).

// maxNesting is encoding/json's nesting limit: a value nested deeper is
// not valid JSON to it.
const maxNesting = 10000

// validJSON reports whether b is one JSON value, as json.Valid does
// (which does not check that strings are UTF-8).
func validJSON(b []byte) bool {
	i := skipWS(b, 0)
	i, ok := validValue(b, i, 0)
	if !ok {
		return false
	}
	return skipWS(b, i) == len(b)
}

// validValue checks the value at b[i:] (i past any space), nested depth
// containers deep; it returns where the value ends.
func validValue(b []byte, i, depth int) (int, bool) {
	if i >= len(b) {
		return i, false
	}
	switch c := b[i]; {
	case c == '"':
		return validString(b, i)
	case c == '{':
		if depth >= maxNesting {
			return i, false
		}
		i = skipWS(b, i+1)
		if i < len(b) && b[i] == '}' {
			return i + 1, true
		}
		for {
			if i >= len(b) || b[i] != '"' {
				return i, false
			}
			var ok bool
			if i, ok = validString(b, i); !ok {
				return i, false
			}
			if i = skipWS(b, i); i >= len(b) || b[i] != ':' {
				return i, false
			}
			if i, ok = validValue(b, skipWS(b, i+1), depth+1); !ok {
				return i, false
			}
			if i = skipWS(b, i); i >= len(b) {
				return i, false
			}
			switch b[i] {
			case ',':
				i = skipWS(b, i+1)
			case '}':
				return i + 1, true
			default:
				return i, false
			}
		}
	case c == '[':
		if depth >= maxNesting {
			return i, false
		}
		i = skipWS(b, i+1)
		if i < len(b) && b[i] == ']' {
			return i + 1, true
		}
		for {
			var ok bool
			if i, ok = validValue(b, i, depth+1); !ok {
				return i, false
			}
			if i = skipWS(b, i); i >= len(b) {
				return i, false
			}
			switch b[i] {
			case ',':
				i = skipWS(b, i+1)
			case ']':
				return i + 1, true
			default:
				return i, false
			}
		}
	case c == '-' || '0' <= c && c <= '9':
		return validNumber(b, i)
	case c == 't':
		return literal(b, i, "true")
	case c == 'f':
		return literal(b, i, "false")
	case c == 'n':
		return literal(b, i, "null")
	}
	return i, false
}

func literal(b []byte, i int, lit string) (int, bool) {
	if len(b)-i >= len(lit) && string(b[i:i+len(lit)]) == lit {
		return i + len(lit), true
	}
	return i, false
}

// validNumber checks the number at b[i:]: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
func validNumber(b []byte, i int) (int, bool) {
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		i = digits(b, i+1)
	default:
		return i, false
	}
	if i < len(b) && b[i] == '.' {
		j := digits(b, i+1)
		if j == i+1 {
			return j, false
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digits(b, i)
		if j == i {
			return j, false
		}
		i = j
	}
	return i, true
}

func digits(b []byte, i int) int {
	for i < len(b) && '0' <= b[i] && b[i] <= '9' {
		i++
	}
	return i
}

// validString checks the string at b[i:] (b[i] is '"'): no control
// character, only JSON's escapes. It returns where it ends.
func validString(b []byte, i int) (int, bool) {
	i++
	for {
		i += plainRun(b[i:])
		if i >= len(b) {
			return i, false
		}
		switch c := b[i]; {
		case c == '"':
			return i + 1, true
		case c == '\\':
			if i+1 >= len(b) {
				return i, false
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if hex4(b[i+2:]) < 0 {
					return i, false
				}
				i += 6
			default:
				return i, false
			}
		case c < ' ':
			return i, false
		default: // not ASCII: JSON takes any byte
			i++
		}
	}
}

func skipWS(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\r', '\n':
			i++
		default:
			return i
		}
	}
	return i
}

// The readers below take valid JSON (a line validJSON accepted, or a
// value of one).

// skipValid is where the valid value at b[i:] ends.
func skipValid(b []byte, i int) int {
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				i = stringEnd(b, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return i
	}
	for i < len(b) {
		switch b[i] {
		case ',', '}', ']', ' ', '\t', '\r', '\n':
			return i
		}
		i++
	}
	return i
}

// stringEnd is where the valid string at b[i:] ends.
func stringEnd(b []byte, i int) int {
	i++
	for i < len(b) {
		i += plainRun(b[i:])
		if i >= len(b) {
			break
		}
		switch b[i] {
		case '"':
			return i + 1
		case '\\':
			i += 2
		default:
			i++
		}
	}
	return len(b)
}

// eachMember calls fn with each member of the valid object obj: its key
// (without its quotes, as written) and its value. It stops at fn's
// false, and then returns false; a key with an escape or a byte that
// is not ASCII gives false too.
func eachMember(obj []byte, fn func(key, val []byte) bool) bool {
	i := skipWS(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return false
	}
	i = skipWS(obj, i+1)
	if i < len(obj) && obj[i] == '}' {
		return true
	}
	for i < len(obj) {
		end := stringEnd(obj, i)
		key := obj[i+1 : end-1]
		for _, c := range key {
			if c == '\\' || c >= utf8.RuneSelf {
				return false
			}
		}
		i = skipWS(obj, end)
		i = skipWS(obj, i+1) // past ':'
		vend := skipValid(obj, i)
		if !fn(key, obj[i:vend]) {
			return false
		}
		i = skipWS(obj, vend)
		if i >= len(obj) || obj[i] != ',' {
			return true
		}
		i = skipWS(obj, i+1)
	}
	return true
}

// field reports which of names key is (its index), -1 for none; ok is
// false when key only case-folds to one (encoding/json would take it:
// the caller lets it).
func field(key []byte, names []string) (int, bool) {
	for i, n := range names {
		if string(key) == n {
			return i, true
		}
	}
	for _, n := range names {
		if len(key) == len(n) && strings.EqualFold(string(key), n) {
			return -1, false
		}
	}
	return -1, true
}

// fields decodes the members of the valid object obj that names name:
// each string field's value (a JSON string; null leaves it ""), each raw
// field's value as it is written. ok is false for what encoding/json
// would read otherwise than this does, or fail on.
func fields(obj []byte, names []string, isString uint32, strs []*string, raws []*[]byte) bool {
	var seen uint32
	return eachMember(obj, func(key, val []byte) bool {
		f, ok := field(key, names)
		if !ok {
			return false
		}
		if f < 0 {
			return true
		}
		if seen&(1<<f) != 0 {
			return false // given twice
		}
		seen |= 1 << f
		if isString&(1<<f) == 0 {
			*raws[f] = val
			return true
		}
		switch val[0] {
		case 'n':
			return true
		case '"':
			s, ok := decodeString(val)
			*strs[f] = s
			return ok
		}
		return false // another type
	})
}

var envelopeFields = []string{"timestamp", "type", "payload", "metadata", "record_type", "id"}

// decodeEnvelope is json.Unmarshal(line, rec) for a valid line.
func decodeEnvelope(line []byte, rec *rolloutLine) bool {
	*rec = rolloutLine{}
	return fields(line, envelopeFields, 1<<1|1<<4,
		[]*string{nil, &rec.Type, nil, nil, &rec.RecordType, nil},
		[]*[]byte{(*[]byte)(&rec.Timestamp), nil, (*[]byte)(&rec.Payload), (*[]byte)(&rec.Metadata), nil, (*[]byte)(&rec.ID)})
}

var itemFields = []string{"type", "id", "role", "content", "name", "namespace", "arguments", "input", "call_id", "action"}

// decodeItem is json.Unmarshal(payload, it) for a valid object.
func decodeItem(payload []byte, it *responseItem) bool {
	*it = responseItem{}
	return fields(payload, itemFields, 1<<0|1<<2|1<<4|1<<5,
		[]*string{&it.Type, nil, &it.Role, nil, &it.Name, &it.Namespace, nil, nil, nil, nil},
		[]*[]byte{nil, (*[]byte)(&it.ID), nil, (*[]byte)(&it.Content), nil, nil, (*[]byte)(&it.Arguments),
			(*[]byte)(&it.Input), (*[]byte)(&it.CallID), (*[]byte)(&it.Action)})
}

var eventFields = []string{"type", "message", "kind"}

// decodeEvent is json.Unmarshal(payload, ev) for a valid object.
func decodeEvent(payload []byte, ev *eventMsg) bool {
	*ev = eventMsg{}
	return fields(payload, eventFields, 1<<0,
		[]*string{&ev.Type, nil, nil},
		[]*[]byte{nil, (*[]byte)(&ev.Message), (*[]byte)(&ev.Kind)})
}

var partFields = []string{"type", "text"}

// decodeParts is json.Unmarshal(content, &parts) for a valid array,
// appended to parts.
func decodeParts(content []byte, parts []contentPart) ([]contentPart, bool) {
	i := skipWS(content, 0)
	if i >= len(content) || content[i] != '[' {
		return parts, false
	}
	i = skipWS(content, i+1)
	if i < len(content) && content[i] == ']' {
		return parts, true
	}
	for i < len(content) {
		end := skipValid(content, i)
		var part contentPart
		switch content[i] {
		case 'n':
		case '{':
			if !fields(content[i:end], partFields, 1<<0|1<<1, []*string{&part.Type, &part.Text}, []*[]byte{nil, nil}) {
				return parts, false
			}
		default:
			return parts, false
		}
		parts = append(parts, part)
		i = skipWS(content, end)
		if i >= len(content) || content[i] != ',' {
			break
		}
		i = skipWS(content, i+1)
	}
	return parts, true
}

// decodeString decodes a valid raw JSON string, as json.Unmarshal into a
// string does: strings without escapes and with valid UTF-8 are taken as
// they are; the rest are unquoted, invalid UTF-8 and lone surrogates
// turned into U+FFFD. ok is false for what is no string.
func decodeString(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	inner := raw[1 : len(raw)-1]
	if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return string(inner), true
	}
	return unquote(inner)
}

// unquote decodes the inside of a valid JSON string in one pass (from
// transcript/jsonscan.go, held to encoding/json there by FuzzUnquote and
// here by FuzzFastDecode).
func unquote(s []byte) (string, bool) {
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

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// plainRun is the length of the run of printable ASCII at the start of s
// other than a backslash or quote, tested eight bytes at a time.
func plainRun(s []byte) int {
	n := 0
	for ; n+8 <= len(s); n += 8 {
		x := binary.LittleEndian.Uint64(s[n:])
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
