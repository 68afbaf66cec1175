package gemini

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// A JSON scanner for session records, in place of encoding/json.
//
// Most of a session file's bytes are what makes no row: the results a
// message's tool calls hold, its thoughts, its tokens. encoding/json
// went over each of those bytes several times (a validation pass and a
// decoding pass per Unmarshal, and an Unmarshal per level: the record,
// its toolCalls, each call), a state function per byte; it was three
// quarters of the reader's time. A line is now validated once, as
// encoding/json validates it (the same grammar and nesting limit), while
// its top-level members are picked out; the values recall reads are then
// walked without validating them again, and every other value is
// skipped with byte searches.
//
// The results are encoding/json's (FuzzScanMatchesJSON holds them to
// it): a line it rejects is decoded by it, for its error; a member whose
// key is escaped or not ASCII (which encoding/json matches to a field by
// Unicode case folding) sends its object to encoding/json; keys match
// fields case-insensitively and the last of a repeated key wins, as
// encoding/json decodes them into a struct.

// maxDepth is encoding/json's nesting limit: deeper is not valid JSON.
const maxDepth = 10000

// recordFields are rawRecord's members, in the order of fieldsOf's out.
var recordFields = []string{"id", "type", "timestamp", "content", "displayContent", "toolCalls",
	"sessionId", "projectHash", "startTime", "summary", "messages", "$set", "$rewindTo"}

// scanRecord decodes raw (a trimmed line starting with '{') into r as
// json.Unmarshal does. valid is false when raw is not one valid JSON
// value; plain is false when a key needs encoding/json's matching.
func scanRecord(raw []byte, r *rawRecord) (valid, plain bool) {
	var out [13][]byte
	end, valid, plain := validObject(raw, 0, 1, recordFields, out[:])
	if !valid || skipSpace(raw, end) != len(raw) {
		return false, false
	}
	if !plain {
		return true, false
	}
	*r = rawRecord{ID: out[0], Type: out[1], Timestamp: out[2], Content: out[3], DisplayContent: out[4],
		ToolCalls: out[5], SessionID: out[6], ProjectHash: out[7], StartTime: out[8], Summary: out[9],
		Messages: out[10], Set: out[11], RewindTo: out[12]}
	return true, true
}

// validObject validates the object at b[i] (b[i] is '{'), at nesting
// depth depth, storing the value of each member whose key is one of
// fields (case-insensitively) in out. It returns the object's end;
// plain is false when some key is escaped or not ASCII.
func validObject(b []byte, i, depth int, fields []string, out [][]byte) (end int, valid, plain bool) {
	if depth > maxDepth {
		return 0, false, false
	}
	plain = true
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1, true, plain
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return 0, false, false
		}
		kend, ok := validString(b, i)
		if !ok {
			return 0, false, false
		}
		key := b[i+1 : kend-1]
		i = skipSpace(b, kend)
		if i >= len(b) || b[i] != ':' {
			return 0, false, false
		}
		vstart := skipSpace(b, i+1)
		vend, ok := validValue(b, vstart, depth)
		if !ok {
			return 0, false, false
		}
		if plain && len(fields) > 0 {
			if !plainKey(key) {
				plain = false
			} else if f := fieldOf(key, fields); f >= 0 {
				out[f] = b[vstart:vend]
			}
		}
		i = skipSpace(b, vend)
		if i >= len(b) {
			return 0, false, false
		}
		switch b[i] {
		case '}':
			return i + 1, true, plain
		case ',':
			i = skipSpace(b, i+1)
		default:
			return 0, false, false
		}
	}
}

// validArray validates the array at b[i] (b[i] is '[').
func validArray(b []byte, i, depth int) (end int, valid bool) {
	if depth > maxDepth {
		return 0, false
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return i + 1, true
	}
	for {
		end, ok := validValue(b, i, depth)
		if !ok {
			return 0, false
		}
		i = skipSpace(b, end)
		if i >= len(b) {
			return 0, false
		}
		switch b[i] {
		case ']':
			return i + 1, true
		case ',':
			i = skipSpace(b, i+1)
		default:
			return 0, false
		}
	}
}

// validValue validates the value at b[i], within containers nested
// depth deep, and returns its end.
func validValue(b []byte, i, depth int) (end int, valid bool) {
	if i >= len(b) {
		return 0, false
	}
	switch c := b[i]; {
	case c == '"':
		return validString(b, i)
	case c == '{':
		end, valid, _ = validObject(b, i, depth+1, nil, nil)
		return end, valid
	case c == '[':
		return validArray(b, i, depth+1)
	case c == '-' || '0' <= c && c <= '9':
		return validNumber(b, i)
	case c == 't':
		return literal(b, i, "true")
	case c == 'f':
		return literal(b, i, "false")
	case c == 'n':
		return literal(b, i, "null")
	}
	return 0, false
}

func literal(b []byte, i int, lit string) (int, bool) {
	if len(b)-i >= len(lit) && string(b[i:i+len(lit)]) == lit {
		return i + len(lit), true
	}
	return 0, false
}

// validNumber validates a JSON number at b[i]:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
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
		return 0, false
	}
	if i < len(b) && b[i] == '.' {
		j := digits(b, i+1)
		if j == i+1 {
			return 0, false
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
			return 0, false
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

// validString validates the string at b[i] (b[i] is '"') and returns
// its end (after the closing quote): no control character, and only
// JSON's escapes. Bytes that are not UTF-8 are valid (decoding makes
// them U+FFFD).
func validString(b []byte, i int) (int, bool) {
	i++
	for {
		i += stringRun(b[i:])
		if i >= len(b) {
			return 0, false
		}
		switch c := b[i]; {
		case c == '"':
			return i + 1, true
		case c == '\\':
			if i+1 >= len(b) {
				return 0, false
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if hex4(b[i+2:]) < 0 {
					return 0, false
				}
				i += 6
			default:
				return 0, false
			}
		default: // a control character
			return 0, false
		}
	}
}

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// stringRun is the length of the run at the start of s of bytes a
// string holds as they are: all but a quote, a backslash and a control
// character. It tests eight bytes at a time.
func stringRun(s []byte) int {
	n := 0
	for ; n+16 <= len(s); n += 16 {
		// Nonzero in the high bit of some byte when a byte of x is
		// below 0x20, a backslash or a quote. x ^ '\\' and x ^ '"' have
		// x's high bits (those of bytes of 0x80 and up, cleared).
		x := binary.LittleEndian.Uint64(s[n:])
		y := binary.LittleEndian.Uint64(s[n+8:])
		hx := ((x - ones*0x20) | (x ^ ones*'\\' - ones) | (x ^ ones*'"' - ones)) &^ x
		hy := ((y - ones*0x20) | (y ^ ones*'\\' - ones) | (y ^ ones*'"' - ones)) &^ y
		if (hx|hy)&highs != 0 {
			break
		}
	}
	for ; n < len(s); n++ {
		if c := s[n]; c < ' ' || c == '\\' || c == '"' {
			break
		}
	}
	return n
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// plainKey reports whether a raw key is ASCII without escapes: one whose
// field encoding/json finds by ASCII case folding.
func plainKey(key []byte) bool {
	for _, c := range key {
		if c >= utf8.RuneSelf || c == '\\' {
			return false
		}
	}
	return true
}

// fieldOf is the index of the field a plain key names (ASCII case
// folded), -1 for none.
func fieldOf(key []byte, fields []string) int {
	for f, name := range fields {
		if len(name) == len(key) && (string(key) == name || equalFoldASCII(key, name)) {
			return f
		}
	}
	return -1
}

func equalFoldASCII(key []byte, name string) bool {
	for i := range len(key) {
		a, b := key[i], name[i]
		if 'A' <= a && a <= 'Z' {
			a += 'a' - 'A'
		}
		if 'A' <= b && b <= 'Z' {
			b += 'a' - 'A'
		}
		if a != b {
			return false
		}
	}
	return true
}

// The walks below read values the line's validation has already
// checked; on anything they do not expect (which valid JSON does not
// hold) they report failure, and the caller decodes with encoding/json.

// fieldsOf reads the members of a validated object into out as
// json.Unmarshal does into a struct of json.RawMessage fields: ok is
// false when raw is not an object or a key needs encoding/json.
func fieldsOf(raw []byte, fields []string, out [][]byte) bool {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return false
	}
	_, ok := fieldsAt(raw, i, fields, out)
	return ok
}

// fieldsAt is fieldsOf of the object at raw[i] (raw[i] is '{'), and
// the object's end.
func fieldsAt(raw []byte, i int, fields []string, out [][]byte) (end int, ok bool) {
	i = skipSpace(raw, i+1)
	if i < len(raw) && raw[i] == '}' {
		return i + 1, true
	}
	for {
		if i >= len(raw) || raw[i] != '"' {
			return 0, false
		}
		kend := skipString(raw, i)
		if kend < 0 {
			return 0, false
		}
		key := raw[i+1 : kend-1]
		if !plainKey(key) {
			return 0, false
		}
		i = skipSpace(raw, kend)
		if i >= len(raw) || raw[i] != ':' {
			return 0, false
		}
		vstart := skipSpace(raw, i+1)
		vend := skipValue(raw, vstart)
		if vend < 0 {
			return 0, false
		}
		if f := fieldOf(key, fields); f >= 0 {
			out[f] = raw[vstart:vend]
		}
		i = skipSpace(raw, vend)
		if i >= len(raw) {
			return 0, false
		}
		switch raw[i] {
		case '}':
			return i + 1, true
		case ',':
			i = skipSpace(raw, i+1)
		default:
			return 0, false
		}
	}
}

// elements calls fn with each element of a validated array; false when
// raw is not an array.
func elements(raw []byte, fn func(val []byte)) bool {
	return elementsAt(raw, func(raw []byte, i int) int {
		end := skipValue(raw, i)
		if end >= 0 {
			fn(raw[i:end])
		}
		return end
	})
}

// elementsAt calls fn with the start of each element of a validated
// array; fn reads it and returns its end (-1: not valid). It is false
// when raw is not an array.
func elementsAt(raw []byte, fn func(raw []byte, i int) (end int)) bool {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '[' {
		return false
	}
	i = skipSpace(raw, i+1)
	if i < len(raw) && raw[i] == ']' {
		return true
	}
	for {
		if i >= len(raw) {
			return false
		}
		end := fn(raw, i)
		if end <= i {
			return false
		}
		i = skipSpace(raw, end)
		if i >= len(raw) {
			return false
		}
		switch raw[i] {
		case ']':
			return true
		case ',':
			i = skipSpace(raw, i+1)
		default:
			return false
		}
	}
}

// skipString is the end of the validated string at b[i], -1 if none.
func skipString(b []byte, i int) int {
	for j := i + 1; ; {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return -1
		}
		j += k
		bs := 0
		for p := j - 1; p > i && b[p] == '\\'; p-- {
			bs++
		}
		if bs%2 == 0 {
			return j + 1
		}
		j++
	}
}

// skipValue is the end of the validated value at b[i], -1 if none.
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				j = skipString(b, j)
				if j < 0 {
					return -1
				}
				j--
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\t' &&
		b[j] != '\n' && b[j] != '\r' {
		j++
	}
	if j == i {
		return -1
	}
	return j
}

// decodeString is json.Unmarshal of a validated raw string into a
// string: as it is when it has no escape and is UTF-8, else unquoted as
// encoding/json does (invalid UTF-8 and lone surrogates become U+FFFD).
func decodeString(raw []byte) string {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return ""
	}
	inner := raw[1 : len(raw)-1]
	if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return string(inner)
	}
	if s, ok := unquote(inner); ok {
		return s
	}
	var s string
	if !unmarshal(raw, &s) {
		return ""
	}
	return s
}

// unmarshal is json.Unmarshal, for what the scanner leaves to it: v
// (a pointer) is copied to the heap there, so that the values the
// scanner fills stay on the stack.
//
//go:noinline
func unmarshal[T any](raw []byte, v *T) bool {
	p := new(T)
	*p = *v
	if json.Unmarshal(raw, p) != nil {
		return false
	}
	*v = *p
	return true
}

// unquote decodes the inside of a JSON string.
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
		case c == '\\':
			if r+1 >= len(s) {
				return "", false
			}
			if e := shortEscape[s[r+1]]; e != 0 {
				b.WriteByte(e)
				r += 2
				continue
			}
			if s[r+1] != 'u' {
				return "", false
			}
			rr := hex4(s[r+2:])
			if rr < 0 {
				return "", false
			}
			r += 6
			if utf16.IsSurrogate(rr) {
				// A pair when another \u escape completes it; else the
				// lone surrogate is U+FFFD and the next escape stands
				// on its own.
				dec := unicode.ReplacementChar
				if r+6 <= len(s) && s[r] == '\\' && s[r+1] == 'u' {
					if rr1 := hex4(s[r+2:]); rr1 >= 0 {
						if d := utf16.DecodeRune(rr, rr1); d != unicode.ReplacementChar {
							dec = d
							r += 6
						}
					}
				}
				rr = dec
			}
			b.WriteRune(rr)
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
// other than a backslash or quote: bytes copied as they are.
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
