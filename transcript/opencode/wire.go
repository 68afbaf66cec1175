package opencode

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/recall-dev/recall/filter"
	"github.com/recall-dev/recall/transcript"
)

// The wire carries one read of a database from recall-opencode, which
// links SQLite, to the process that indexes, which does not: the rows
// the emitter made there, as the calls it made on its sink, in order,
// then the read's cursor. It starts with wireMagic and its version;
// each record is an op byte and its fields: a string or bytes as a
// uvarint length and the bytes, a number as a varint.
const (
	wireMagic   = "RCOC"
	wireVersion = 1

	opText  = 'T' // Meta, role, text
	opTool  = 'U' // Meta, name, input
	opTitle = 'I' // Meta, kind, title
	opDrop  = 'D' // reason
	opEnd   = 'E' // cursor: the read is whole

	// maxWireField bounds one field: a part is read whole up to
	// limits.partBytes (16 MiB), so no text is longer.
	maxWireField = 64 << 20
)

// wireWriter is the rowSink of recall-opencode: it writes each call to
// w. Redact keeps the text as it is: the indexing process redacts the
// project folders it is given (decodeWire), as it redacts the texts.
type wireWriter struct {
	w   *bufio.Writer
	buf []byte
	err error // the first write error: later calls write nothing
}

func newWireWriter(w io.Writer) *wireWriter {
	ww := &wireWriter{w: bufio.NewWriterSize(w, 64<<10)}
	ww.buf = append(append(ww.buf[:0], wireMagic...), wireVersion)
	ww.flushRecord()
	return ww
}

func (ww *wireWriter) Text(m transcript.Meta, role, text string) {
	ww.record(opText, m, role, text)
}

func (ww *wireWriter) Tool(m transcript.Meta, name string, input []byte) {
	ww.record(opTool, m, name, string(input))
}

func (ww *wireWriter) Title(m transcript.Meta, kind, title string) {
	ww.record(opTitle, m, kind, title)
}

func (ww *wireWriter) Drop(reason filter.Reason) {
	ww.buf = binary.AppendUvarint(append(ww.buf[:0], opDrop), uint64(reason))
	ww.flushRecord()
}

func (ww *wireWriter) Redact(text string) string { return text }

// end writes the cursor and flushes: the read is whole.
func (ww *wireWriter) end(cursor int64) error {
	ww.buf = binary.AppendVarint(append(ww.buf[:0], opEnd), cursor)
	ww.flushRecord()
	if ww.err == nil {
		ww.err = ww.w.Flush()
	}
	return ww.err
}

func (ww *wireWriter) record(op byte, m transcript.Meta, name, text string) {
	b := append(ww.buf[:0], op)
	for _, s := range [...]string{m.Session, m.Project, m.Timestamp, m.UUID, m.Subagent, m.Entrypoint} {
		b = appendWireString(b, s)
	}
	b = binary.AppendVarint(b, int64(m.Line))
	b = binary.AppendVarint(b, int64(m.Block))
	b = appendWireString(b, name)
	ww.buf = appendWireString(b, text)
	ww.flushRecord()
}

func (ww *wireWriter) flushRecord() {
	if ww.err == nil {
		_, ww.err = ww.w.Write(ww.buf)
	}
}

func appendWireString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

// errWireCut is a wire that ended before its cursor: recall-opencode
// stopped on the way (its exit status says why).
var errWireCut = errors.New("recall-opencode's output ended before the read did")

// decodeWire reads a wire into b and returns its cursor. A wire is
// hostile as any input: a field over maxWireField, an op or a reason it
// does not know, or a wire cut short is an error, and b's rows are then
// not used (a failed read keeps none).
func decodeWire(r *bufio.Reader, b *transcript.Builder) (int64, error) {
	d := wireDecoder{r: r, projects: map[string]string{}}
	if err := d.header(); err != nil {
		return 0, err
	}
	for {
		op, err := r.ReadByte()
		if err != nil {
			return 0, d.cut(err)
		}
		switch op {
		case opText, opTool, opTitle:
			if err := d.call(op, b); err != nil {
				return 0, err
			}
		case opDrop:
			reason, err := binary.ReadUvarint(r)
			if err != nil {
				return 0, d.cut(err)
			}
			if reason > 255 || !filter.Reason(reason).Valid() {
				return 0, fmt.Errorf("recall-opencode's output: reason %d is none recall knows", reason)
			}
			b.Drop(filter.Reason(reason))
		case opEnd:
			cursor, err := binary.ReadVarint(r)
			if err != nil {
				return 0, d.cut(err)
			}
			return cursor, nil
		default:
			return 0, fmt.Errorf("recall-opencode's output: record %q is none recall knows", op)
		}
	}
}

// wireDecoder is one decodeWire's state.
type wireDecoder struct {
	r *bufio.Reader
	// projects are the project folders redacted, by the folder given: a
	// session's rows all give the same.
	projects map[string]string
}

func (d *wireDecoder) header() error {
	var h [len(wireMagic) + 1]byte
	if _, err := io.ReadFull(d.r, h[:]); err != nil {
		return d.cut(err)
	}
	if string(h[:len(wireMagic)]) != wireMagic || h[len(wireMagic)] != wireVersion {
		return errors.New("recall-opencode's output is not of this recall's version: install both from one build")
	}
	return nil
}

// cut is err, or errWireCut where the wire ended.
func (d *wireDecoder) cut(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return errWireCut
	}
	return fmt.Errorf("read recall-opencode's output: %w", err)
}

// call reads one row's record and makes the call it stands for on b.
func (d *wireDecoder) call(op byte, b *transcript.Builder) error {
	var f [8]string
	for i := range 6 {
		s, err := d.string()
		if err != nil {
			return err
		}
		f[i] = s
	}
	line, err := binary.ReadVarint(d.r)
	if err != nil {
		return d.cut(err)
	}
	block, err := binary.ReadVarint(d.r)
	if err != nil {
		return d.cut(err)
	}
	for i := 6; i < 8; i++ {
		if f[i], err = d.string(); err != nil {
			return err
		}
	}
	m := transcript.Meta{Session: f[0], Project: d.project(f[1], b), Timestamp: f[2], UUID: f[3],
		Subagent: f[4], Entrypoint: f[5], Line: int(line), Block: int(block)}
	switch op {
	case opText:
		b.Text(m, f[6], f[7])
	case opTool:
		b.Tool(m, f[6], []byte(f[7]))
	default:
		b.Title(m, f[6], f[7])
	}
	return nil
}

// project is dir redacted, as the emitter redacts it in process.
func (d *wireDecoder) project(dir string, b *transcript.Builder) string {
	if dir == "" {
		return ""
	}
	p, ok := d.projects[dir]
	if !ok {
		p = b.Redact(dir)
		d.projects[dir] = p
	}
	return p
}

func (d *wireDecoder) string() (string, error) {
	n, err := binary.ReadUvarint(d.r)
	if err != nil {
		return "", d.cut(err)
	}
	if n > maxWireField {
		return "", fmt.Errorf("recall-opencode's output: a field of %d bytes, over the %d a row may hold", n, maxWireField)
	}
	if n == 0 {
		return "", nil
	}
	if n <= 64<<10 {
		buf := make([]byte, n)
		if _, err := io.ReadFull(d.r, buf); err != nil {
			return "", d.cut(err)
		}
		return string(buf), nil
	}
	// A long field grows with what arrives, not with the length it
	// claims: a wire cut short costs what it holds.
	var sb strings.Builder
	if _, err := io.CopyN(&sb, d.r, int64(n)); err != nil {
		return "", d.cut(err)
	}
	return sb.String(), nil
}
