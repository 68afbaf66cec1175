package opencode

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math/bits"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// A fast decoder of parts and messages.
//
// encoding/json validated every byte of a part's data with a state
// function per byte and then decoded it by reflection: a tool part's data
// holds the call's whole output, which makes no row, and decoding was
// most of a database read's time. This decoder walks the object once,
// decoding the members rows need into partData or messageInfo and
// skipping (and validating, strictly: a part encoding/json rejects must
// still be rejected) the rest, long strings eight bytes at a time.
//
// It gives up (ok false) on whatever it does not decode as encoding/json
// would: data that is not a valid JSON object (so that encoding/json's
// error is the one returned), a key with an escape or a byte past ASCII
// that is not one of the members it knows, and nesting deeper than
// maxFastDepth; the caller then decodes with encoding/json. The rest
// follows encoding/json exactly: keys match a member case-insensitively,
// a later duplicate replaces a string and merges into an object, a value
// of another type (or null) leaves a member as it was, and millis,
// jsonBool and json.RawMessage get every value through their
// UnmarshalJSON. FuzzFastDecode holds it to encoding/json.

// maxFastDepth is the deepest nesting the fast decoder walks
// (encoding/json's limit is 10000: deeper data is left to it).
const maxFastDepth = 256

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

func skipWS(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// stringEnd returns the index just past the JSON string starting at b[i]
// ('"') and whether it holds an escape; ok is false when it is not a
// valid JSON string (a control character, a bad escape, no end). Runs of
// bytes other than a quote, a backslash or a control character are
// skipped eight at a time.
func stringEnd(b []byte, i int) (end int, escaped, ok bool) {
	i++
	for {
		for i+8 <= len(b) {
			x := binary.LittleEndian.Uint64(b[i:])
			// Nonzero in the high bit of the first byte of x that is below
			// 0x20, a backslash or a quote (bits above it may be set by
			// borrows: only the lowest counts).
			control := (x - ones*0x20) &^ x
			bs := x ^ ones*'\\'
			q := x ^ ones*'"'
			m := (control | (bs-ones)&^bs | (q-ones)&^q) & highs
			if m != 0 {
				i += bits.TrailingZeros64(m) / 8
				break
			}
			i += 8
		}
		if i >= len(b) {
			return 0, false, false
		}
		switch c := b[i]; {
		case c == '"':
			return i + 1, escaped, true
		case c == '\\':
			escaped = true
			if i+1 >= len(b) {
				return 0, false, false
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) || getu4(b[i:]) < 0 {
					return 0, false, false
				}
				i += 6
			default:
				return 0, false, false
			}
		case c < 0x20:
			return 0, false, false
		default:
			i++
		}
	}
}

// numberEnd returns the index just past the JSON number starting at b[i].
func numberEnd(b []byte, i int) (int, bool) {
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i >= len(b):
		return 0, false
	case b[i] == '0':
		i++
	case b[i] >= '1' && b[i] <= '9':
		i = digitsEnd(b, i)
	default:
		return 0, false
	}
	if i < len(b) && b[i] == '.' {
		j := digitsEnd(b, i+1)
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
		j := digitsEnd(b, i)
		if j == i {
			return 0, false
		}
		i = j
	}
	return i, true
}

func digitsEnd(b []byte, i int) int {
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}

// skipValue returns the index just past the JSON value starting at b[i],
// validating it; depth is how deep it is nested.
func skipValue(b []byte, i, depth int) (int, bool) {
	if i >= len(b) {
		return 0, false
	}
	switch c := b[i]; {
	case c == '"':
		end, _, ok := stringEnd(b, i)
		return end, ok
	case c == '{':
		return walkObject(b, i, depth, func(_ []byte, i, depth int) (int, bool) { return skipValue(b, i, depth) })
	case c == '[':
		return skipArray(b, i, depth)
	case c == 't':
		return literalEnd(b, i, "true")
	case c == 'f':
		return literalEnd(b, i, "false")
	case c == 'n':
		return literalEnd(b, i, "null")
	case c == '-' || c >= '0' && c <= '9':
		return numberEnd(b, i)
	}
	return 0, false
}

func literalEnd(b []byte, i int, lit string) (int, bool) {
	if len(b)-i >= len(lit) && string(b[i:i+len(lit)]) == lit {
		return i + len(lit), true
	}
	return 0, false
}

func skipArray(b []byte, i, depth int) (int, bool) {
	if depth >= maxFastDepth {
		return 0, false
	}
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == ']' {
		return i + 1, true
	}
	for {
		var ok bool
		if i, ok = skipValue(b, i, depth+1); !ok {
			return 0, false
		}
		i = skipWS(b, i)
		if i >= len(b) {
			return 0, false
		}
		switch b[i] {
		case ',':
			i = skipWS(b, i+1)
		case ']':
			return i + 1, true
		default:
			return 0, false
		}
	}
}

// walkObject walks the JSON object starting at b[i] ('{'): for each
// member, fn gets its key (without quotes, still escaped) and where its
// value starts, and returns where the value ends (ok false: give up).
// It returns the index just past the object.
func walkObject(b []byte, i, depth int, fn func(key []byte, i, depth int) (int, bool)) (int, bool) {
	if depth >= maxFastDepth {
		return 0, false
	}
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1, true
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return 0, false
		}
		end, _, ok := stringEnd(b, i)
		if !ok {
			return 0, false
		}
		key := b[i+1 : end-1]
		i = skipWS(b, end)
		if i >= len(b) || b[i] != ':' {
			return 0, false
		}
		i = skipWS(b, i+1)
		if i, ok = fn(key, i, depth+1); !ok {
			return 0, false
		}
		i = skipWS(b, i)
		if i >= len(b) {
			return 0, false
		}
		switch b[i] {
		case ',':
			i = skipWS(b, i+1)
		case '}':
			return i + 1, true
		default:
			return 0, false
		}
	}
}

// member is the one of names that key names, as encoding/json matches a
// key to a struct field: exactly, else ignoring ASCII case; "" for none.
// ok is false for a key this cannot judge (an escape, a byte past ASCII:
// encoding/json folds some of those to ASCII letters).
func member(key []byte, names []string) (name string, ok bool) {
	for _, n := range names {
		if string(key) == n {
			return n, true
		}
	}
	for _, c := range key {
		if c == '\\' || c >= utf8.RuneSelf {
			return "", false
		}
	}
	for _, n := range names {
		if len(n) == len(key) && bytes.EqualFold(key, []byte(n)) {
			return n, true
		}
	}
	return "", true
}

// str decodes the value at b[i] into *dst if it is a string, and skips
// any other (encoding/json leaves a string member as it was for null or
// a value of another type).
func str(b []byte, i, depth int, dst *string) (int, bool) {
	if i >= len(b) || b[i] != '"' {
		return skipValue(b, i, depth)
	}
	end, escaped, ok := stringEnd(b, i)
	if !ok {
		return 0, false
	}
	inner := b[i+1 : end-1]
	if !escaped && utf8.Valid(inner) {
		*dst = string(inner)
		return end, true
	}
	s, ok := unquote(inner)
	if !ok {
		return 0, false
	}
	*dst = s
	return end, true
}

// unmarshaler gives the value at b[i], whatever its type, to u, as
// encoding/json does.
func unmarshaler(b []byte, i, depth int, u json.Unmarshaler) (int, bool) {
	end, ok := skipValue(b, i, depth)
	if !ok || u.UnmarshalJSON(b[i:end]) != nil {
		return 0, false
	}
	return end, true
}

// object walks the value at b[i] with fn if it is an object, and skips
// any other (encoding/json leaves a struct member as it was for null or
// a value of another type; a second object merges into it).
func object(b []byte, i, depth int, fn func(key []byte, i, depth int) (int, bool)) (int, bool) {
	if i >= len(b) || b[i] != '{' {
		return skipValue(b, i, depth)
	}
	return walkObject(b, i, depth, fn)
}

// topObject walks data, which must be one JSON object and nothing else.
func topObject(data []byte, fn func(key []byte, i, depth int) (int, bool)) bool {
	i := skipWS(data, 0)
	if i >= len(data) || data[i] != '{' {
		return false
	}
	end, ok := walkObject(data, i, 0, fn)
	return ok && skipWS(data, end) == len(data)
}

var (
	partNames    = []string{"type", "text", "tool", "state", "time", "id", "messageID", "sessionID", "synthetic", "ignored"}
	stateNames   = []string{"status", "input", "time"}
	spanNames    = []string{"start", "end", "created", "updated", "completed"}
	messageNames = []string{"role", "time", "path", "summary", "id", "sessionID"}
	pathNames    = []string{"cwd"}
)

// fastPart decodes data into p as decodeObject would, or reports that it
// cannot (p is then partly written).
func fastPart(data []byte, p *partData) bool {
	return topObject(data, func(key []byte, i, depth int) (int, bool) {
		name, ok := member(key, partNames)
		if !ok {
			return 0, false
		}
		switch name {
		case "type":
			return str(data, i, depth, &p.Type)
		case "text":
			return str(data, i, depth, &p.Text)
		case "tool":
			return str(data, i, depth, &p.Tool)
		case "state":
			return object(data, i, depth, func(key []byte, i, depth int) (int, bool) {
				name, ok := member(key, stateNames)
				if !ok {
					return 0, false
				}
				switch name {
				case "status":
					return str(data, i, depth, &p.State.Status)
				case "input":
					return unmarshaler(data, i, depth, &p.State.Input)
				case "time":
					return fastSpan(data, i, depth, &p.State.Time)
				}
				return skipValue(data, i, depth)
			})
		case "time":
			return fastSpan(data, i, depth, &p.Time)
		case "id":
			return str(data, i, depth, &p.ID)
		case "messageID":
			return str(data, i, depth, &p.MessageID)
		case "sessionID":
			return str(data, i, depth, &p.SessionID)
		case "synthetic":
			return unmarshaler(data, i, depth, &p.Synthetic)
		case "ignored":
			return unmarshaler(data, i, depth, &p.Ignored)
		}
		return skipValue(data, i, depth)
	})
}

// fastMessage decodes data into m as decodeObject would, or reports that
// it cannot.
func fastMessage(data []byte, m *messageInfo) bool {
	return topObject(data, func(key []byte, i, depth int) (int, bool) {
		name, ok := member(key, messageNames)
		if !ok {
			return 0, false
		}
		switch name {
		case "role":
			return str(data, i, depth, &m.Role)
		case "time":
			return fastSpan(data, i, depth, &m.Time)
		case "path":
			return object(data, i, depth, func(key []byte, i, depth int) (int, bool) {
				name, ok := member(key, pathNames)
				if !ok {
					return 0, false
				}
				if name == "cwd" {
					return str(data, i, depth, &m.Path.Cwd)
				}
				return skipValue(data, i, depth)
			})
		case "summary":
			return unmarshaler(data, i, depth, &m.Summary)
		case "id":
			return str(data, i, depth, &m.ID)
		case "sessionID":
			return str(data, i, depth, &m.SessionID)
		}
		return skipValue(data, i, depth)
	})
}

func fastSpan(b []byte, i, depth int, s *span) (int, bool) {
	return object(b, i, depth, func(key []byte, i, depth int) (int, bool) {
		name, ok := member(key, spanNames)
		if !ok {
			return 0, false
		}
		switch name {
		case "start":
			return unmarshaler(b, i, depth, &s.Start)
		case "end":
			return unmarshaler(b, i, depth, &s.End)
		case "created":
			return unmarshaler(b, i, depth, &s.Created)
		case "updated":
			return unmarshaler(b, i, depth, &s.Updated)
		case "completed":
			return unmarshaler(b, i, depth, &s.Completed)
		}
		return skipValue(b, i, depth)
	})
}

// unquote decodes s, the inside of a valid JSON string, as encoding/json
// does (its unquoteBytes): invalid UTF-8 and lone surrogates become
// U+FFFD.
func unquote(s []byte) (string, bool) {
	var b strings.Builder
	b.Grow(len(s))
	for r := 0; r < len(s); {
		switch c := s[r]; {
		case c == '\\':
			if r+1 >= len(s) {
				return "", false
			}
			switch s[r+1] {
			case '"', '\\', '/', '\'':
				b.WriteByte(s[r+1])
				r += 2
			case 'b':
				b.WriteByte('\b')
				r += 2
			case 'f':
				b.WriteByte('\f')
				r += 2
			case 'n':
				b.WriteByte('\n')
				r += 2
			case 'r':
				b.WriteByte('\r')
				r += 2
			case 't':
				b.WriteByte('\t')
				r += 2
			case 'u':
				rr := getu4(s[r:])
				if rr < 0 {
					return "", false
				}
				r += 6
				if utf16.IsSurrogate(rr) {
					rr1 := getu4(s[r:])
					if dec := utf16.DecodeRune(rr, rr1); dec != unicode.ReplacementChar {
						r += 6
						b.WriteRune(dec)
						break
					}
					rr = unicode.ReplacementChar
				}
				b.WriteRune(rr)
			default:
				return "", false
			}
		case c == '"' || c < ' ':
			return "", false
		case c < utf8.RuneSelf:
			// A run of plain ASCII at once.
			n := r + 1
			for n < len(s) && s[n] >= ' ' && s[n] < utf8.RuneSelf && s[n] != '\\' && s[n] != '"' {
				n++
			}
			b.Write(s[r:n])
			r = n
		default:
			rr, size := utf8.DecodeRune(s[r:])
			r += size
			b.WriteRune(rr) // U+FFFD for an invalid byte
		}
	}
	return b.String(), true
}

// getu4 decodes \uXXXX from the start of s, or returns -1.
func getu4(s []byte) rune {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return -1
	}
	var r rune
	for _, c := range s[2:6] {
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
