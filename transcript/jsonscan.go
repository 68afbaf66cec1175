package transcript

import (
	"bytes"
	"encoding/json"
	"errors"
	"unicode/utf8"
)

// A minimal JSON scanner for transcript lines.
//
// encoding/json validates every byte of a line before decoding it, and an
// assistant line that writes a file carries the whole file in its input:
// most of the indexer's time went there. This scanner walks only the
// structure recall reads (top-level members, the message, its content
// blocks) and skips every other value with byte searches (strings are
// skipped with IndexByte to the next unescaped quote). It is lenient: it
// checks structure, not every number and literal, and a differential fuzz
// test holds it to encoding/json's results on every line encoding/json
// accepts.

var errSyntax = errors.New("malformed JSON")

// eachMember calls fn with the raw key (without quotes, still escaped) and
// the raw value of each member of the object in b, in order. fn returns
// false to stop early.
func eachMember(b []byte, fn func(key, val []byte) bool) error {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return errSyntax
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return nil
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return errSyntax
		}
		kend, err := skipString(b, i)
		if err != nil {
			return err
		}
		key := b[i+1 : kend-1]
		i = skipSpace(b, kend)
		if i >= len(b) || b[i] != ':' {
			return errSyntax
		}
		vstart := skipSpace(b, i+1)
		vend, err := skipValue(b, vstart)
		if err != nil {
			return err
		}
		if !fn(key, b[vstart:vend]) {
			return nil
		}
		i = skipSpace(b, vend)
		if i >= len(b) {
			return errSyntax
		}
		if b[i] == '}' {
			return nil
		}
		if b[i] != ',' {
			return errSyntax
		}
		i = skipSpace(b, i+1)
	}
}

// eachElement calls fn with the raw value of each element of the array
// in b.
func eachElement(b []byte, fn func(val []byte) bool) error {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '[' {
		return errSyntax
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return nil
	}
	for {
		end, err := skipValue(b, i)
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
	j := i + 1
	for {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return 0, errSyntax
		}
		j += k
		// The quote is escaped if an odd number of backslashes precede it.
		n := 0
		for p := j - 1; p > i && b[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			return j + 1, nil
		}
		j++
	}
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
// strings. It jumps from string to string with IndexByte: in transcript
// JSON nearly every byte is inside a string, and the structure between two
// strings is a few bytes long.
func skipNested(b []byte, i int) (int, error) {
	depth := 0
	for j := i; j < len(b); {
		q := bytes.IndexByte(b[j:], '"')
		stop := len(b)
		if q >= 0 {
			stop = j + q
		}
		for ; j < stop; j++ {
			switch b[j] {
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1, nil
				}
			}
		}
		if q < 0 {
			break
		}
		end, err := skipString(b, stop)
		if err != nil {
			return 0, err
		}
		j = end
	}
	return 0, errSyntax
}

// decodeString decodes a raw JSON string value. Strings without escapes
// and with valid UTF-8 are taken as they are; the rest go through
// encoding/json so escapes and invalid bytes are handled exactly as it does.
func decodeString(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	inner := raw[1 : len(raw)-1]
	if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return string(inner), true
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// decodeBool reads a raw JSON true.
func decodeBool(raw []byte) bool { return string(raw) == "true" }
