package transcript

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"unicode/utf8"

	"github.com/recall-dev/recall/internal/errpath"
	"github.com/recall-dev/recall/record"
)

// Work is one transcript with new bytes to read.
type Work struct {
	T     Transcript
	State record.FileState // the state to continue from (Offset 0 for a new generation)
	// KeepSecrets keeps secrets in the rows (recall index --no-redact);
	// by default they are redacted (redact.go).
	KeepSecrets bool
	// Rows, if not nil, is a slice of a result the caller is done with:
	// the rows are appended to it instead of a new one (Result.Rows).
	Rows []Extracted
	// Tail, if it holds TailBytes, is a buffer the caller lends for the
	// read: the tail fingerprints are read into it instead of into a new
	// 4 KiB buffer per file (4% of the bytes a full index allocated).
	Tail []byte
}

// Result is what reading one transcript produced.
type Result struct {
	Work      Work
	Rows      []Extracted
	Counts    [16]int64
	Offset    int64 // new consumed offset
	Lines     int   // new consumed line count
	Session   string
	Project   string
	Current   bool // the file belongs to the running session: not consumed
	BytesRead int64
	BadLines  int
	Warning   string // first bad line, reported once per file
	Err       error  // the file could not be read; its state is not advanced
	// Rewritten: the bytes consumed before are not what the file holds
	// now (rewritten in place): nothing was read; read it as a new
	// generation.
	Rewritten bool
	Tail      record.Fingerprint // of the bytes that end at Offset
	TooLong   int                // lines over MaxLineBytes, skipped
	Binary    bool               // not JSON text: skipped whole
	// TitlesOnly: the rows are the titles of lines read before
	// (ReadTitles); the state is not advanced.
	TitlesOnly bool
}

// MaxRowText caps the text one row keeps: the first MaxRowText bytes (cut
// at a character boundary) and a marker saying how much was left out. A
// message that long is a pasted log or file; its start says what it was,
// and every search that reads it pays for its length.
const MaxRowText = 256 << 10

// capTexts applies MaxRowText to extracted rows.
func capTexts(rows []Extracted) {
	for i := range rows {
		t := rows[i].Text
		if len(t) <= MaxRowText {
			continue
		}
		cut := MaxRowText
		for cut > 0 && !utf8.RuneStart(t[cut]) {
			cut--
		}
		rows[i].Text = fmt.Sprintf("%s\n[… recall kept the first %d KiB of this %d-byte message]", t[:cut], MaxRowText>>10, len(t))
	}
}

// keyRows sets each row's identity, from its final text.
func keyRows(rows []Extracted) {
	for i := range rows {
		rows[i].Key = record.MessageKey(rows[i].UUID, rows[i].Block, rows[i].Text)
	}
}

// fillProject gives the rows read before the file named its working
// directory (title records come first in some files) the project the
// read found, so that a project filter finds them too.
func fillProject(rows []Extracted, project string) {
	if project == "" {
		return
	}
	for i := range rows {
		if rows[i].Project == "" {
			rows[i].Project = project
		}
	}
}

// looksBinary reports whether a file starting with br's next bytes is
// not text at all: a NUL byte in its first 4 KiB (no JSON text holds
// one), or bytes there that are not UTF-8 on no line that starts like a
// JSON object. A text line that is not JSON (a "// Source: …" comment a
// person put on top when sharing the file) makes one bad line, counted
// and reported, never a skipped file. It only peeks.
func looksBinary(br *bufio.Reader) bool {
	head, _ := br.Peek(binaryPeek)
	if len(head) == 0 {
		return false
	}
	if bytes.IndexByte(head, 0) >= 0 {
		return true
	}
	if validUTF8Head(head) {
		return false
	}
	for line := range bytes.SplitSeq(head, []byte{'\n'}) {
		if bytes.HasPrefix(bytes.TrimLeft(line, " \t\r\ufeff"), []byte{'{'}) {
			return false
		}
	}
	return true
}

// holdsNUL reports whether the next bytes of br (binaryPeek of them)
// hold a NUL byte: another agent's text file (an Aider history in a
// legacy encoding) may hold bytes that are not UTF-8 and is still text,
// but no text file holds a NUL.
func holdsNUL(br *bufio.Reader) bool {
	head, _ := br.Peek(binaryPeek)
	return bytes.IndexByte(head, 0) >= 0
}

// binaryPeek is how much of a new file looksBinary judges.
const binaryPeek = 4 << 10

// validUTF8Head reports whether head is UTF-8 but for a character the
// peek cut short at its end.
func validUTF8Head(head []byte) bool {
	if utf8.Valid(head) {
		return true
	}
	for cut := 1; cut < utf8.UTFMax && cut < len(head); cut++ {
		if utf8.RuneStart(head[len(head)-cut]) {
			return utf8.Valid(head[:len(head)-cut])
		}
	}
	return false
}

// ReadBufferSize is the reader's buffer. Lines longer than it (api-request
// records can be megabytes) are assembled in a growing slice.
const ReadBufferSize = 1 << 20

// Read reads the complete lines after w.state.Offset. A last line
// without its '\n' is still being written and is left for next time. br is
// the calling worker's reader, reused from file to file.
func Read(w Work, current string, br *bufio.Reader) Result {
	return readLines(w, current, br, func(*Builder) lineSink {
		return &lineExtractor{kind: w.T.Kind, source: w.T.Path, session: w.State.Session,
			agent: w.T.Agent, project: w.State.Project, gen: w.State.Gen, keepSecrets: w.KeepSecrets, rows: w.Rows[:0]}
	}, "")
}

// lineSink is what turns a file's lines into rows: Claude Code's
// lineExtractor, or another agent's LineParser with its Builder.
type lineSink interface {
	add(line []byte, n int) error
	where() (session, project string)
}

func (x *lineExtractor) where() (session, project string) { return x.session, x.project }

// readLines reads the lines of w's file after its offset into the sink
// newSink makes (given the Builder of agent's rows, unused by Claude
// Code's own reader).
func readLines(w Work, current string, br *bufio.Reader, newSink func(*Builder) lineSink, agent string) Result {
	if w.T.Session != "" && w.T.Session == current {
		res := Result{Work: w, Offset: w.State.Offset, Lines: w.State.Lines, Session: w.State.Session, Project: w.State.Project, Current: true}
		res.Work.Rows, res.Work.Tail = nil, nil
		return res
	}
	f, err := OpenRegular(w.T.Path) // its errors name the path
	if err != nil {
		return Result{Work: w, Err: err}
	}
	defer f.Close()
	if w.State.Tail.Len > 0 {
		if fp, err := fingerprintAt(f, w.State.Offset, w.State.Tail.Len, w.Tail); err != nil || fp != w.State.Tail {
			return Result{Work: w, Offset: w.State.Offset, Lines: w.State.Lines, Rewritten: true} // the bytes consumed are not there any more
		}
	}
	if _, err := f.Seek(w.State.Offset, io.SeekStart); err != nil {
		return Result{Work: w, Err: err} // a *fs.PathError: "seek PATH: …"
	}
	br.Reset(f)
	res := scanFrom(w, current, br, newSink, agent)
	res.Tail, _ = fingerprintAt(f, res.Offset, int32(min(res.Offset, TailBytes)), w.Tail)
	return res
}

// scanFrom reads the lines br holds (those after w.State.Offset) into
// the sink newSink makes.
func scanFrom(w Work, current string, br *bufio.Reader, newSink func(*Builder) lineSink, agent string) Result {
	res := Result{Work: w, Offset: w.State.Offset, Lines: w.State.Lines,
		Session: w.State.Session, Project: w.State.Project}
	res.Work.Rows, res.Work.Tail = nil, nil // the rows are res.Rows now; the buffer is the caller's again
	var b *Builder
	if agent != "" {
		b = NewBuilder(w, agent)
	}
	sink := newSink(b)
	if w.State.Offset == 0 && (b == nil && looksBinary(br) || b != nil && holdsNUL(br)) {
		res.Binary = true
		res.Offset = w.T.Stat.Size // never read again, unless replaced
		return res
	}
	res.Err = ScanLines(br, MaxLineBytes, func(line []byte, tooLong int64) bool {
		res.Lines++
		if tooLong > 0 {
			res.Offset += tooLong + 1
			res.TooLong++
			if res.Warning == "" {
				res.Warning = fmt.Sprintf("%s:%d: skipped a line of %d bytes (over %d MiB)", w.T.Path, res.Lines, tooLong, MaxLineBytes>>20)
			}
			return true
		}
		res.Offset += int64(len(line)) + 1
		return res.handleLine(sink, line, current)
	})
	if ps, ok := sink.(parserSink); ok && !res.Current {
		if h, ok := ps.p.(Holder); ok {
			lines, n := h.Held()
			res.Lines, res.Offset = res.Lines-lines, res.Offset-n
		}
	}
	res.BytesRead = res.Offset - w.State.Offset
	if b != nil {
		b.finish(&res)
	} else {
		x := sink.(*lineExtractor)
		capTexts(x.rows)
		keyRows(x.rows)
		fillProject(x.rows, x.project)
		res.Rows, res.Counts = x.rows, x.counts
	}
	res.Session, res.Project = sink.where()
	return res
}

// ReadTitles reads the title records of a transcript's lines up to
// w.State.Offset: an index built under rules that kept no titles consumed
// them without one, and its first run under these rules gives them their
// rows. Nothing else of those lines makes a row again, and the state is
// not advanced (Result.TitlesOnly).
func ReadTitles(w Work, br *bufio.Reader) Result {
	res := Result{Work: w, Offset: w.State.Offset, Lines: w.State.Lines, Session: w.State.Session,
		Project: w.State.Project, TitlesOnly: true}
	res.Work.Rows, res.Work.Tail = nil, nil
	f, err := OpenRegular(w.T.Path)
	if err != nil {
		res.Err = err
		return res
	}
	defer f.Close()
	x := &lineExtractor{kind: w.T.Kind, source: w.T.Path, session: res.Session, agent: w.T.Agent,
		project: res.Project, gen: w.State.Gen, keepSecrets: w.KeepSecrets, rows: w.Rows[:0], titlesOnly: true}
	br.Reset(io.LimitReader(f, w.State.Offset))
	lineNo := 0
	res.Err = ScanLines(br, MaxLineBytes, func(line []byte, tooLong int64) bool {
		lineNo++
		if tooLong == 0 {
			if lineNo == 1 {
				line = bytes.TrimPrefix(line, []byte(utf8BOM))
			}
			_ = x.add(line, lineNo) // bad lines were counted when first read
		}
		return true
	})
	res.Rows = x.rows
	return res
}

// handleLine feeds one line to the extractor. It returns false to stop
// reading the file (the running session). No line is judged by its
// place: forks are found by their copied messages (the committer drops
// those as copies) and headless runs by their entrypoint, kept and
// marked in every row.
func (res *Result) handleLine(x lineSink, line []byte, current string) bool {
	if res.Lines == 1 && res.Work.State.Offset == 0 {
		line = bytes.TrimPrefix(line, []byte(utf8BOM)) // an editor's byte order mark
	}
	if err := x.add(line, res.Lines); err != nil {
		res.BadLines++
		if res.Warning == "" {
			res.Warning = badLineError(res.Work.T.Path, res.Lines, err)
			if _, other := x.(parserSink); other {
				res.Warning = fmt.Sprintf("%s:%d: skipped a line recall cannot read (%s)", res.Work.T.Path, res.Lines, shortError(err))
			}
		}
	}
	if session, _ := x.where(); current != "" && session == current {
		res.Current = true
		return false
	}
	return true
}

// utf8BOM is the byte order mark some editors put at a file's start.
const utf8BOM = "\ufeff"

// TailBytes is how much of a transcript's consumed end is fingerprinted:
// a line or two of a real transcript, read with one pread when the file
// has changed.
const TailBytes = 4 << 10

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// fingerprintAt fingerprints the n bytes of f that end at off, read
// into scratch if it is large enough.
func fingerprintAt(f *os.File, off int64, n int32, scratch []byte) (record.Fingerprint, error) {
	if n <= 0 || int64(n) > off {
		return record.Fingerprint{}, nil
	}
	buf := scratch[:0]
	if int64(cap(buf)) < int64(n) {
		buf = make([]byte, n)
	}
	buf = buf[:n]
	if _, err := f.ReadAt(buf, off-int64(n)); err != nil {
		return record.Fingerprint{}, errpath.Wrap("read", f.Name(), err) // io.EOF names no path
	}
	return record.Fingerprint{CRC: crc32.Checksum(buf, castagnoli), Len: n}, nil
}

// MaxLineBytes bounds the line a transcript may hold: a longer one (a
// pasted log of hundreds of megabytes, a binary file with no newline) is
// skipped as it streams past, never held in memory, and counted.
const MaxLineBytes = 16 << 20

// ScanLines calls fn for each complete line of br (without its '\n') until
// fn returns false or the input ends. A trailing partial line is not passed.
// A line over maxLine bytes is passed as nil with its length in tooLong.
// Another agent's reader that reads lines again itself (to rebuild its
// state from those read before) splits them with it, as reads do.
func ScanLines(br *bufio.Reader, maxLine int, fn func(line []byte, tooLong int64) bool) error {
	var long []byte
	var skipped int64 // bytes of an over-long line streamed past so far
	for {
		chunk, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			if skipped > 0 || len(long)+len(chunk) > maxLine {
				skipped += int64(len(long) + len(chunk))
				long = long[:0]
				continue
			}
			long = append(long, chunk...)
			continue
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read: %w", err)
		}
		if skipped > 0 || len(long)+len(chunk)-1 > maxLine {
			n := skipped + int64(len(long)+len(chunk)) - 1
			skipped, long = 0, long[:0]
			if !fn(nil, n) {
				return nil
			}
			continue
		}
		line := chunk[:len(chunk)-1]
		if len(long) > 0 {
			line = append(long, line...)
			long = long[:0]
		}
		if !fn(line, 0) {
			return nil
		}
	}
}

// LineOffset returns the byte offset just after the first lines lines of
// the file at path, and how many complete lines it found (fewer when the
// file is shorter). It streams: memory does not grow with line length.
func LineOffset(path string, lines int) (offset int64, found int, err error) {
	f, err := OpenRegular(path)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64<<10)
	for found < lines {
		chunk, err := br.ReadSlice('\n')
		offset += int64(len(chunk))
		switch {
		case err == nil:
			found++
		case errors.Is(err, bufio.ErrBufferFull):
		case err == io.EOF:
			return offset - int64(len(chunk)), found, nil
		default:
			return 0, found, errpath.Wrap("read", path, err)
		}
	}
	return offset, found, nil
}
