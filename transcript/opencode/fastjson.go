package opencode

import (
	"encoding/json"
	"unicode/utf8"

	"github.com/recall-dev/recall/transcript/jsonscan"
)

// A fast decoder of parts and messages.
//
// encoding/json validated every byte of a part's data with a state
// function per byte and then decoded it by reflection: a tool part's data
// holds the call's whole output, which makes no row, and decoding was
// most of a database read's time. This decoder walks the object once,
// decoding the members rows need into partData or messageInfo and
// skipping (and validating, strictly: a part encoding/json rejects must
// still be rejected) the rest with jsonscan.ValidValue, long strings
// eight bytes at a time.
//
// It gives up (ok false) on whatever it does not decode as encoding/json
// would: data that is not a valid JSON object (so that encoding/json's
// error is the one returned, nesting past its limit too) and a key with
// an escape or a byte past ASCII; the caller then decodes with
// encoding/json. The rest
// follows encoding/json exactly: keys match a member case-insensitively,
// a later duplicate replaces a string and merges into an object, a value
// of another type (or null) leaves a member as it was, and millis,
// jsonBool and json.RawMessage get every value through their
// UnmarshalJSON. FuzzFastDecode holds it to encoding/json.

// walkObject walks the JSON object starting at b[i] ('{'), checking it as
// encoding/json does: for each member, fn gets its key (without quotes,
// still escaped) and where its value starts, and returns where the value
// ends (ok false: give up). It returns the index just past the object.
func walkObject(b []byte, i, depth int, fn func(key []byte, i, depth int) (int, bool)) (int, bool) {
	if depth >= jsonscan.MaxDepth {
		return 0, false
	}
	w := jsonscan.WalkValidObject(b, i)
	for {
		key, at, more := w.Key()
		if !more {
			return w.End()
		}
		end, ok := fn(key, at, depth+1)
		if !ok {
			return 0, false
		}
		w.Skipped(end)
	}
}

// member is the one of names that key names, as encoding/json matches a
// key to a struct field: exactly, else ignoring ASCII case; "" for none.
// ok is false for a key this cannot judge (an escape, a byte past ASCII:
// encoding/json folds some of those to ASCII letters).
func member(key []byte, names []string) (name string, ok bool) {
	if !jsonscan.PlainKey(key) {
		return "", false
	}
	if f := jsonscan.FieldIndex(key, names); f >= 0 {
		return names[f], true
	}
	return "", true
}

// str decodes the value at b[i] into *dst if it is a string, and skips
// any other (encoding/json leaves a string member as it was for null or
// a value of another type).
func str(b []byte, i, depth int, dst *string) (int, bool) {
	if i >= len(b) || b[i] != '"' {
		return jsonscan.ValidValue(b, i, depth)
	}
	end, escaped, ok := jsonscan.ValidString(b, i)
	if !ok {
		return 0, false
	}
	inner := b[i+1 : end-1]
	if !escaped && utf8.Valid(inner) {
		*dst = string(inner)
		return end, true
	}
	s, ok := jsonscan.Unquote(inner)
	if !ok {
		return 0, false
	}
	*dst = s
	return end, true
}

// unmarshaler gives the value at b[i], whatever its type, to u, as
// encoding/json does.
func unmarshaler(b []byte, i, depth int, u json.Unmarshaler) (int, bool) {
	end, ok := jsonscan.ValidValue(b, i, depth)
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
		return jsonscan.ValidValue(b, i, depth)
	}
	return walkObject(b, i, depth, fn)
}

// topObject walks data, which must be one JSON object and nothing else.
func topObject(data []byte, fn func(key []byte, i, depth int) (int, bool)) bool {
	i := jsonscan.SkipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return false
	}
	end, ok := walkObject(data, i, 0, fn)
	return ok && jsonscan.SkipSpace(data, end) == len(data)
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
				return jsonscan.ValidValue(data, i, depth)
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
		return jsonscan.ValidValue(data, i, depth)
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
				return jsonscan.ValidValue(data, i, depth)
			})
		case "summary":
			return unmarshaler(data, i, depth, &m.Summary)
		case "id":
			return str(data, i, depth, &m.ID)
		case "sessionID":
			return str(data, i, depth, &m.SessionID)
		}
		return jsonscan.ValidValue(data, i, depth)
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
		return jsonscan.ValidValue(b, i, depth)
	})
}
