package claude

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Object is a JSON object that keeps its members in file order, so that
// rewriting settings.json leaves every other tool's settings where the user
// (or Claude Code) put them. Values are *Object, []any, string, json.Number,
// bool or nil.
type Object struct {
	members []member
}

type member struct {
	key   string
	value any
}

// Len is the number of members.
func (o *Object) Len() int { return len(o.members) }

// Keys lists the member names in order.
func (o *Object) Keys() []string {
	keys := make([]string, len(o.members))
	for i, m := range o.members {
		keys[i] = m.key
	}
	return keys
}

// Get returns the value of key. With duplicate keys the last one wins, as
// in JavaScript's JSON.parse, which is what Claude Code reads with.
func (o *Object) Get(key string) (any, bool) {
	for i := len(o.members) - 1; i >= 0; i-- {
		if o.members[i].key == key {
			return o.members[i].value, true
		}
	}
	return nil, false
}

// Set replaces the value of key in place, or appends key at the end.
func (o *Object) Set(key string, value any) {
	for i := len(o.members) - 1; i >= 0; i-- {
		if o.members[i].key == key {
			o.members[i].value = value
			return
		}
	}
	o.members = append(o.members, member{key: key, value: value})
}

// Delete removes every member named key.
func (o *Object) Delete(key string) {
	kept := o.members[:0]
	for _, m := range o.members {
		if m.key != key {
			kept = append(kept, m)
		}
	}
	o.members = kept
}

// parseJSON decodes one JSON document into order-preserving values and
// refuses anything after it.
func parseJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber() // keep numbers exactly as written (1.0 stays 1.0)
	v, err := decodeValue(dec)
	if err != nil {
		return nil, describeSyntaxError(data, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		if err == nil {
			err = errors.New("more than one JSON value")
		}
		return nil, describeSyntaxError(data, err)
	}
	return v, nil
}

func decodeValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch tok {
	case json.Delim('{'):
		return decodeObject(dec)
	case json.Delim('['):
		return decodeArray(dec)
	}
	return tok, nil
}

func decodeObject(dec *json.Decoder) (*Object, error) {
	obj := &Object{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string) // the decoder only yields string keys here
		value, err := decodeValue(dec)
		if err != nil {
			return nil, err
		}
		obj.members = append(obj.members, member{key: key, value: value})
	}
	_, err := dec.Token() // the closing '}'
	return obj, err
}

func decodeArray(dec *json.Decoder) ([]any, error) {
	arr := []any{}
	for dec.More() {
		value, err := decodeValue(dec)
		if err != nil {
			return nil, err
		}
		arr = append(arr, value)
	}
	_, err := dec.Token() // the closing ']'
	return arr, err
}

// describeSyntaxError adds the line number, which is what a person fixing
// settings.json by hand needs. (Not the column: the decoder's offset is
// sometimes at the bad character and sometimes just past it.)
func describeSyntaxError(data []byte, err error) error {
	var syn *json.SyntaxError
	if !errors.As(err, &syn) {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return errors.New("unexpected end of JSON")
		}
		return err
	}
	before := data[:min(int(syn.Offset), len(data))]
	return fmt.Errorf("line %d: %w", bytes.Count(before, []byte("\n"))+1, err)
}

// encodeJSON writes v with one indent unit per level, in the layout of
// JavaScript's JSON.stringify(v, null, indent), which is how Claude Code
// writes settings.json. HTML characters are not escaped: hook commands
// often contain "&&" and "<".
func encodeJSON(v any, indent string) ([]byte, error) {
	e := &jsonEncoder{indent: indent}
	e.scalar = json.NewEncoder(&e.scratch)
	e.scalar.SetEscapeHTML(false)
	if err := e.value(v, 0); err != nil {
		return nil, err
	}
	return e.out.Bytes(), nil
}

type jsonEncoder struct {
	indent  string
	out     bytes.Buffer
	scratch bytes.Buffer
	scalar  *json.Encoder
}

func (e *jsonEncoder) value(v any, depth int) error {
	switch v := v.(type) {
	case *Object:
		return e.object(v, depth)
	case []any:
		return e.array(v, depth)
	}
	return e.leaf(v)
}

func (e *jsonEncoder) object(o *Object, depth int) error {
	if o.Len() == 0 {
		e.out.WriteString("{}")
		return nil
	}
	e.out.WriteByte('{')
	for i, m := range o.members {
		e.separator(i, depth+1)
		if err := e.leaf(m.key); err != nil {
			return err
		}
		e.out.WriteString(": ")
		if err := e.value(m.value, depth+1); err != nil {
			return err
		}
	}
	e.newline(depth)
	e.out.WriteByte('}')
	return nil
}

func (e *jsonEncoder) array(a []any, depth int) error {
	if len(a) == 0 {
		e.out.WriteString("[]")
		return nil
	}
	e.out.WriteByte('[')
	for i, v := range a {
		e.separator(i, depth+1)
		if err := e.value(v, depth+1); err != nil {
			return err
		}
	}
	e.newline(depth)
	e.out.WriteByte(']')
	return nil
}

func (e *jsonEncoder) separator(index, depth int) {
	if index > 0 {
		e.out.WriteByte(',')
	}
	e.newline(depth)
}

func (e *jsonEncoder) newline(depth int) {
	e.out.WriteByte('\n')
	e.out.WriteString(strings.Repeat(e.indent, depth))
}

func (e *jsonEncoder) leaf(v any) error {
	e.scratch.Reset()
	if err := e.scalar.Encode(v); err != nil {
		return fmt.Errorf("encode %v: %w", v, err)
	}
	e.out.Write(bytes.TrimSuffix(e.scratch.Bytes(), []byte("\n")))
	return nil
}

// detectIndent returns the indent unit of an existing file (the leading
// whitespace of its first indented line), so a file written with tabs or
// four spaces keeps them. Files with no indented line get two spaces.
func detectIndent(data []byte) string {
	for _, line := range bytes.Split(data, []byte("\n"))[1:] {
		trimmed := bytes.TrimLeft(line, " \t")
		if ws := line[:len(line)-len(trimmed)]; len(ws) > 0 && len(trimmed) > 0 {
			return string(ws)
		}
	}
	return "  "
}
