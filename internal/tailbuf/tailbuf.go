// Package tailbuf keeps the end of what a child process writes to its
// stderr: enough to say why it failed, bounded whatever it writes.
package tailbuf

import "bytes"

// Buffer is an io.Writer that keeps the last Max bytes written to it.
type Buffer struct {
	Max int
	b   []byte
}

// Write keeps p's bytes, dropping the oldest past twice Max (so that a
// stream of small writes copies each byte a few times at most).
func (t *Buffer) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if len(t.b) > 2*t.Max {
		t.b = append(t.b[:0], t.b[len(t.b)-t.Max:]...)
	}
	return len(p), nil
}

// String is the last Max bytes written, invalid UTF-8 replaced.
func (t *Buffer) String() string {
	b := t.b
	if len(b) > t.Max {
		b = b[len(b)-t.Max:]
	}
	return string(bytes.ToValidUTF8(b, []byte("\uFFFD")))
}
