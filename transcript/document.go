package transcript

import (
	"bufio"
	"bytes"
	"encoding/json"
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
	f       *os.File
	Lines   *LineCounter
	Decoder *json.Decoder
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
	lc := &LineCounter{r: br, line: 1}
	return &Document{f: f, Lines: lc, Decoder: json.NewDecoder(lc)}, nil
}

// Close closes the file.
func (d *Document) Close() error { return d.f.Close() }

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
