package gemini

import (
	"encoding/json"

	"github.com/recall-dev/recall/transcript/jsonscan"
)

// A JSON scanner for session records, in place of encoding/json.
//
// Most of a session file's bytes are what makes no row: the results a
// message's tool calls hold, its thoughts, its tokens. encoding/json
// went over each of those bytes several times (a validation pass and a
// decoding pass per Unmarshal, and an Unmarshal per level: the record,
// its toolCalls, each call), a state function per byte; it was three
// quarters of the reader's time. A line is now validated once, as
// encoding/json validates it (jsonscan.ValidValue: the same grammar and
// nesting limit), while its top-level members are picked out; the
// values recall reads are then walked without validating them again
// (jsonscan's walks), and every other value is skipped with byte
// searches.
//
// The results are encoding/json's (FuzzScanMatchesJSON holds them to
// it): a line it rejects is decoded by it, for its error; a member whose
// key is escaped or not ASCII (which encoding/json matches to a field by
// Unicode case folding) sends its object to encoding/json; keys match
// fields case-insensitively and the last of a repeated key wins, as
// encoding/json decodes them into a struct.

// recordFields are rawRecord's members, in the order of fieldsOf's out.
var recordFields = []string{"id", "type", "timestamp", "content", "displayContent", "toolCalls",
	"sessionId", "projectHash", "startTime", "summary", "messages", "$set", "$rewindTo"}

// scanRecord decodes raw (a trimmed line starting with '{') into r as
// json.Unmarshal does. valid is false when raw is not one valid JSON
// value; plain is false when a key needs encoding/json's matching.
func scanRecord(raw []byte, r *rawRecord) (valid, plain bool) {
	var out [13][]byte
	end, valid, plain := validObject(raw, recordFields, out[:])
	if !valid || jsonscan.SkipSpace(raw, end) != len(raw) {
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

// validObject validates the top-level object at the start of b, storing
// the value of each member whose key is one of fields (case-insensitively)
// in out. It returns the object's end; plain is false when some key is
// escaped or not ASCII.
func validObject(b []byte, fields []string, out [][]byte) (end int, valid, plain bool) {
	plain = true
	w := jsonscan.WalkValidObject(b, 0)
	for {
		key, at, ok := w.Key()
		if !ok {
			break
		}
		vend, ok := jsonscan.ValidValue(b, at, 1)
		if !ok {
			return 0, false, false
		}
		w.Skipped(vend)
		if !plain {
			continue
		}
		if !jsonscan.PlainKey(key) {
			plain = false
		} else if f := jsonscan.FieldIndex(key, fields); f >= 0 {
			out[f] = b[at:vend]
		}
	}
	if end, valid = w.End(); !valid {
		return 0, false, false
	}
	return end, true, plain
}

// The walks below read values the line's validation has already
// checked; on anything they do not expect (which valid JSON does not
// hold) they report failure, and the caller decodes with encoding/json.

// fieldsOf reads the members of a validated object into out as
// json.Unmarshal does into a struct of json.RawMessage fields: ok is
// false when raw is not an object or a key needs encoding/json.
func fieldsOf(raw []byte, fields []string, out [][]byte) bool {
	_, ok := fieldsAt(raw, 0, fields, out)
	return ok
}

// fieldsAt is fieldsOf of the object at raw[i] (raw[i] is '{'), and
// the object's end.
func fieldsAt(raw []byte, i int, fields []string, out [][]byte) (end int, ok bool) {
	w := jsonscan.WalkObject(raw, i)
	for {
		key, val, more := w.Next()
		if !more {
			return w.End()
		}
		if !jsonscan.PlainKey(key) {
			return 0, false
		}
		if f := jsonscan.FieldIndex(key, fields); f >= 0 {
			out[f] = val
		}
	}
}

// elements calls fn with each element of a validated array; false when
// raw is not an array.
func elements(raw []byte, fn func(val []byte)) bool {
	w := jsonscan.WalkArray(raw, 0)
	for {
		val, ok := w.Next()
		if !ok {
			return !w.Failed()
		}
		fn(val)
	}
}

// elementsAt calls fn with the start of each element of a validated
// array; fn reads it and returns its end (-1: not valid). It is false
// when raw is not an array.
func elementsAt(raw []byte, fn func(raw []byte, i int) (end int)) bool {
	w := jsonscan.WalkArray(raw, 0)
	for {
		at, ok := w.Elem()
		if !ok {
			return !w.Failed()
		}
		w.Skipped(fn(raw, at))
	}
}

// decodeString is json.Unmarshal of a validated raw string into a
// string: as it is when it has no escape and is UTF-8, else unquoted as
// encoding/json does (invalid UTF-8 and lone surrogates become U+FFFD).
// "" for a value that is not a string.
func decodeString(raw []byte) string {
	s, ok := jsonscan.DecodeString(raw)
	if ok || len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return s
	}
	// Not a valid string: what encoding/json makes of it.
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
