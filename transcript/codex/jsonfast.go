package codex

import "github.com/recall-dev/recall/transcript/jsonscan"

// A rollout line that makes a row was decoded with encoding/json three
// times over (the envelope, its payload, the message's content), each
// call validating its whole input again, state function by state
// function: that was most of the reader's time. The records are now
// read by hand, in the common case only:
//
//   - jsonscan.Valid checks a line once, as json.Valid does; a line it
//     rejects is decoded by encoding/json, which reports the same error
//     as before;
//   - the decoders below (envelope, item, event, content) read the
//     members of a checked line's objects into the same structs
//     json.Unmarshal fills, and give up (ok false) on anything unusual:
//     a key with an escape or a byte that is not ASCII, a key that only
//     case-folds to a field's name, a field given twice, a value of
//     another type than the field's. The caller then decodes that value
//     with encoding/json as before, so every unusual line reads exactly
//     as it did (FuzzFastDecode holds the decoders to encoding/json).

// field reports which of names key is (its index), -1 for none; ok is
// false when key is not plain ASCII or only case-folds to one of names
// (encoding/json would take it: the caller lets it).
func field(key []byte, names []string) (int, bool) {
	if !jsonscan.PlainKey(key) {
		return -1, false
	}
	f := jsonscan.FieldIndex(key, names)
	if f >= 0 && string(key) != names[f] {
		return -1, false
	}
	return f, true
}

// fields decodes the members of the valid object obj that names name:
// each string field's value (a JSON string; null leaves it ""), each raw
// field's value as it is written. ok is false for what encoding/json
// would read otherwise than this does, or fail on.
func fields(obj []byte, names []string, isString uint32, strs []*string, raws []*[]byte) bool {
	var seen uint32
	w := jsonscan.WalkObject(obj, 0)
	for {
		key, val, ok := w.Next()
		if !ok {
			return !w.Failed()
		}
		f, ok := field(key, names)
		if !ok {
			return false
		}
		if f < 0 {
			continue
		}
		if seen&(1<<f) != 0 {
			return false // given twice
		}
		seen |= 1 << f
		if isString&(1<<f) == 0 {
			*raws[f] = val
			continue
		}
		switch val[0] {
		case 'n':
		case '"':
			s, ok := jsonscan.DecodeString(val)
			*strs[f] = s
			if !ok {
				return false
			}
		default:
			return false // another type
		}
	}
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
	w := jsonscan.WalkArray(content, 0)
	for {
		val, ok := w.Next()
		if !ok {
			return parts, !w.Failed()
		}
		var part contentPart
		switch val[0] {
		case 'n':
		case '{':
			if !fields(val, partFields, 1<<0|1<<1, []*string{&part.Type, &part.Text}, []*[]byte{nil, nil}) {
				return parts, false
			}
		default:
			return parts, false
		}
		parts = append(parts, part)
	}
}
