package benchgen

import (
	"strconv"
	"unicode/utf8"
)

// jsonWriter builds one JSON value by appending to a byte slice. The
// generator writes gigabytes, and encoding/json with reflection and
// HTML escaping is several times slower than this; it would also turn
// '<' into \u003c, which Claude Code (JavaScript JSON.stringify) never
// does, so raw greps over the files would behave unlike real ones.
//
// Commas are handled by needComma: every key or value first writes a
// separator when the previous token in the same container needs one.
type jsonWriter struct {
	b         []byte
	needComma bool
}

func (w *jsonWriter) reset() {
	w.b = w.b[:0]
	w.needComma = false
}

func (w *jsonWriter) sep() {
	if w.needComma {
		w.b = append(w.b, ',')
	}
}

func (w *jsonWriter) openObject() {
	w.sep()
	w.b = append(w.b, '{')
	w.needComma = false
}

func (w *jsonWriter) closeObject() {
	w.b = append(w.b, '}')
	w.needComma = true
}

func (w *jsonWriter) openArray() {
	w.sep()
	w.b = append(w.b, '[')
	w.needComma = false
}

func (w *jsonWriter) closeArray() {
	w.b = append(w.b, ']')
	w.needComma = true
}

// key writes `"k":`; the next value follows without a comma.
func (w *jsonWriter) key(k string) {
	w.sep()
	w.b = appendJSONString(w.b, k)
	w.b = append(w.b, ':')
	w.needComma = false
}

func (w *jsonWriter) stringValue(v string) {
	w.sep()
	w.b = appendJSONString(w.b, v)
	w.needComma = true
}

func (w *jsonWriter) str(k, v string) {
	w.key(k)
	w.stringValue(v)
}

// strOrNull writes null for an empty string (parentUuid at a root).
func (w *jsonWriter) strOrNull(k, v string) {
	if v == "" {
		w.null(k)
		return
	}
	w.str(k, v)
}

func (w *jsonWriter) int(k string, v int64) {
	w.key(k)
	w.b = strconv.AppendInt(w.b, v, 10)
	w.needComma = true
}

func (w *jsonWriter) float(k string, v float64) {
	w.key(k)
	w.b = strconv.AppendFloat(w.b, v, 'f', -1, 64)
	w.needComma = true
}

func (w *jsonWriter) bool(k string, v bool) {
	w.key(k)
	w.b = strconv.AppendBool(w.b, v)
	w.needComma = true
}

func (w *jsonWriter) null(k string) {
	w.key(k)
	w.b = append(w.b, "null"...)
	w.needComma = true
}

// object writes `"k":{` ; the caller fills it and calls closeObject.
func (w *jsonWriter) object(k string) {
	w.key(k)
	w.openObject()
}

// array writes `"k":[` ; the caller fills it and calls closeArray.
func (w *jsonWriter) array(k string) {
	w.key(k)
	w.openArray()
}

// emptyArray writes `"k":[]`.
func (w *jsonWriter) emptyArray(k string) {
	w.array(k)
	w.closeArray()
}

// strings writes `"k":["a","b"]`.
func (w *jsonWriter) strings(k string, vs []string) {
	w.array(k)
	for _, v := range vs {
		w.stringValue(v)
	}
	w.closeArray()
}

const hexDigits = "0123456789abcdef"

// jsonSafe marks the ASCII bytes that can be copied into a JSON string
// as they are. Like JSON.stringify, '<', '>' and '&' are left alone.
var jsonSafe = func() (t [utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// appendJSONString appends s as a quoted JSON string. Runs of safe bytes
// are copied in one append; invalid UTF-8 becomes U+FFFD so every line
// stays valid JSON whatever text the source tree holds.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if jsonSafe[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			b = appendEscapedASCII(b, c)
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i++
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

func appendEscapedASCII(b []byte, c byte) []byte {
	switch c {
	case '"':
		return append(b, '\\', '"')
	case '\\':
		return append(b, '\\', '\\')
	case '\n':
		return append(b, '\\', 'n')
	case '\r':
		return append(b, '\\', 'r')
	case '\t':
		return append(b, '\\', 't')
	}
	return append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
}
