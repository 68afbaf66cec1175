package transcript

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
)

// Document is a session file that is one JSON document (a Gemini CLI
// chat of the older format, a rollout of the TypeScript Codex CLI), open
// for a streaming read: Decoder reads it a value at a time, so memory
// holds one message, not the file, and Lines tells the line a value
// starts on. The caller closes it.
type Document struct {
	f       *os.File // nil for one NewDocument reads
	Lines   *LineCounter
	Decoder *json.Decoder
}

// NewDocument reads a document from r (a fuzz test's bytes).
func NewDocument(r io.Reader) *Document {
	lc := &LineCounter{r: r, line: 1}
	return &Document{Lines: lc, Decoder: json.NewDecoder(lc)}
}

// OpenDocument opens the document at path. A file over limit bytes is
// an error: it is no session the agent wrote. A UTF-8 byte order mark
// is skipped.
func OpenDocument(path string, limit int64) (*Document, error) {
	f, err := OpenRegular(path)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("stat %s: %w", path, err)
	}
	if fi.Size() > limit {
		f.Close()
		return nil, fmt.Errorf("%d bytes, over the %d MiB a session document may take", fi.Size(), limit>>20)
	}
	br := bufio.NewReader(io.LimitReader(f, limit))
	if bom, _ := br.Peek(3); string(bom) == utf8BOM {
		_, _ = br.Discard(3)
	}
	d := NewDocument(br)
	d.f = f
	return d, nil
}

// Close closes the file.
func (d *Document) Close() error {
	if d.f == nil {
		return nil
	}
	return d.f.Close()
}

// ErrNotDocument is a session document that is not one JSON object.
var ErrNotDocument = errors.New("not a session document (a JSON object)")

// ReadObject reads the document, one JSON object, member by member in
// the order they come: member is given each key and value, but the
// member named array is read element by element, each element given to
// elem with the line it starts on (a row's Line, so that sed -n lands on
// it), so memory holds one element, not the file. An array member that
// is an object is an error; one that is null or another value holds no
// elements.
func (d *Document) ReadObject(array string, member func(key string, raw json.RawMessage), elem func(raw json.RawMessage, line int)) error {
	dec := d.Decoder
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return ErrNotDocument
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return fmt.Errorf("session document: %w", err)
		}
		key, _ := tok.(string)
		if key == array {
			if err := d.readArray(array, elem); err != nil {
				return err
			}
			continue
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return fmt.Errorf("session document: %s: %w", key, err)
		}
		member(key, raw)
	}
	return nil
}

// ErrNotArrayDocument is a document that is not one JSON array.
var ErrNotArrayDocument = errors.New("not a JSON array")

// ReadArray reads the document, one JSON array, element by element, as
// ReadObject reads its array member.
func (d *Document) ReadArray(elem func(raw json.RawMessage, line int)) error {
	if tok, err := d.Decoder.Token(); err != nil || tok != json.Delim('[') {
		return ErrNotArrayDocument
	}
	return d.readElements("array", elem)
}

// readArray reads the array member name, element by element.
func (d *Document) readArray(name string, elem func(raw json.RawMessage, line int)) error {
	dec := d.Decoder
	tok, err := dec.Token()
	if err != nil {
		return fmt.Errorf("session document: %s: %w", name, err)
	}
	if tok != json.Delim('[') {
		if delim, ok := tok.(json.Delim); ok && delim == '{' {
			return fmt.Errorf("session document: %s: an object, not an array", name)
		}
		return nil // null or another value: no elements
	}
	return d.readElements(name, elem)
}

// readElements reads the elements of an array whose '[' was read, and
// its ']'.
func (d *Document) readElements(name string, elem func(raw json.RawMessage, line int)) error {
	dec := d.Decoder
	for n := 1; dec.More(); n++ {
		line := d.Lines.LineAt(dec.InputOffset())
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return fmt.Errorf("session document: %s %d: %w", name, n, err)
		}
		elem(raw, line)
	}
	if _, err := dec.Token(); err != nil {
		return fmt.Errorf("session document: %s: %w", name, err)
	}
	return nil
}

// LineCounter counts the lines of what a decoder reads through it, to
// tell the line a value starts on. It keeps the bytes read from the
// last offset asked about on (the decoder's read-ahead, about one
// message), not the file.
type LineCounter struct {
	r    io.Reader
	buf  []byte // the bytes read from base on
	base int64  // offset of buf[0]
	line int    // line of base, from 1
}

func (c *LineCounter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.buf = append(c.buf, p[:n]...)
	return n, err
}

// LineAt is the line of the first byte at or after off that is not
// blank or a comma (the next value's start): off is the decoder's
// InputOffset, never less than the last asked about.
func (c *LineCounter) LineAt(off int64) int {
	k := int(off - c.base)
	if k < 0 || k > len(c.buf) {
		return c.line
	}
	for k < len(c.buf) && (c.buf[k] == ' ' || c.buf[k] == '\t' || c.buf[k] == '\r' || c.buf[k] == '\n' || c.buf[k] == ',') {
		k++
	}
	c.line += bytes.Count(c.buf[:k], []byte{'\n'})
	c.base += int64(k)
	c.buf = append(c.buf[:0], c.buf[k:]...)
	return c.line
}
