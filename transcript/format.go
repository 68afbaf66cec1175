package transcript

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/klauspost/compress/zstd"
	"github.com/recall-dev/recall/record"
)

// A LineParser reads the lines of another agent's session file into rows,
// through a Builder that applies the hygiene every source shares. One
// lives per read of a file.
type LineParser interface {
	// Line reads line n (1-based, without its '\n'). An error marks a bad
	// line: skipped, counted, and the first of a file reported.
	Line(b *Builder, line []byte, n int) error
	// Where is the session and project the read is in after the lines
	// given: the file's state keeps them, and the next read of its new
	// lines starts a parser from them (Work.State.Session, .Project).
	Where() (session, project string)
}

// A Format is how one agent's session files are read.
type Format struct {
	Agent string
	// NewParser starts a parser for one read of w's file, continuing
	// from w.State (Session, Project, Lines) when Offset is not 0.
	NewParser func(w Work) LineParser
	// ReadAll reads a file that is not lines read from an offset (one
	// JSON document, a database) whole, through b: every file when
	// NewParser is nil, else those Whole picks. It returns the session
	// and project the file's state keeps, and a cursor the next read
	// gets back in w.State.Offset (a database's last change read; 0 to
	// read everything again: the rows read before are then left out as
	// copies by their keys).
	ReadAll func(w Work, b *Builder) (session, project string, cursor int64, err error)
	Whole   func(path string) bool
	// Dense marks files that are nearly all message text (Aider's
	// markdown history): their rows hold about as many bytes as the file,
	// where a JSONL transcript's hold a tenth. The indexer weighs them so
	// in what it reads ahead of its committer.
	Dense bool
}

// ReadAheadWeight is how many bytes of read-ahead a byte of the file at
// path counts for: DenseWeight for a dense format or a compressed file
// (ReadFormat decompresses a name ending in .zst), else 1.
func (f Format) ReadAheadWeight(path string) int64 {
	if f.Dense || strings.HasSuffix(path, ".zst") {
		return DenseWeight
	}
	return 1
}

// DenseWeight is how much more of rows a byte of a dense file holds
// than a byte of Claude Code's JSONL (Aider's history at 4 GB: 83 MB of
// rows and builders live for 64 MB of files read ahead, where Claude
// Code's transcripts hold about 10), and the most a compressed file
// (.zst) expands to.
const DenseWeight = 8

// ReadsWhole reports whether f reads the file at path through ReadAll:
// its state's offset is then the cursor ReadAll returned, not bytes.
func (f Format) ReadsWhole(path string) bool {
	return f.ReadAll != nil && (f.NewParser == nil || f.Whole != nil && f.Whole(path))
}

// A Holder is a LineParser that can hold back the last lines it was
// given: a message that goes on over lines (Aider's) is not known to be
// whole until a line of the next one. Held is how many of the last lines
// read (and their bytes, each '\n' counted) made no row yet: the read's
// offset stops before them, and the next read gives them again.
type Holder interface {
	Held() (lines int, bytes int64)
}

// maxWholeBytes bounds what a compressed session file may decompress to:
// a rollout is megabytes; more is not one (or is a zstd bomb), and is
// skipped as too long rather than held.
const maxWholeBytes = 1 << 30

// ReadFormat is Read for a session file of f's agent. A file read whole
// (f.ReadAll, or lines compressed with zstd: a name ending in .zst) is
// read again from its start whenever it changed, as a new generation
// (Result.Rewritten): the rows it had are left out as copies by their
// keys, so a file read again keeps exactly its rows.
func ReadFormat(f Format, w Work, current string, br *bufio.Reader) Result {
	if f.ReadsWhole(w.T.Path) {
		return readAll(f, w, current)
	}
	if strings.HasSuffix(w.T.Path, ".zst") {
		return readCompressed(f, w, current)
	}
	return readLines(w, current, br, func(b *Builder) lineSink { return parserSink{f.NewParser(w), b} }, f.Agent)
}

// parserSink feeds a LineParser the lines Read scans.
type parserSink struct {
	p LineParser
	b *Builder
}

func (s parserSink) add(line []byte, n int) error     { return s.p.Line(s.b, line, n) }
func (s parserSink) where() (session, project string) { return s.p.Where() }

// readAll reads a whole-document file through f.ReadAll.
func readAll(f Format, w Work, current string) Result {
	res := Result{Work: w, Session: w.State.Session, Project: w.State.Project}
	res.Work.Rows, res.Work.Tail = nil, nil
	if w.T.Session != "" && w.T.Session == current {
		res.Current = true
		return res
	}
	b := NewBuilder(w, f.Agent)
	session, project, cursor, err := f.ReadAll(w, b)
	if err != nil {
		res.Err = fmt.Errorf("read %s: %w", w.T.Path, err)
		return res
	}
	b.finish(&res)
	res.Session, res.Project = session, project
	res.Offset, res.BytesRead = cursor, w.T.Stat.Size
	return res
}

// readCompressed reads a zstd-compressed line file whole. Its state's
// Offset is the compressed size read: a file that changed since is read
// again from the start as a new generation.
func readCompressed(f Format, w Work, current string) Result {
	if w.State.Offset > 0 {
		return Result{Work: w, Rewritten: true, Offset: w.State.Offset, Lines: w.State.Lines}
	}
	file, err := OpenRegular(w.T.Path)
	if err != nil {
		return Result{Work: w, Err: err}
	}
	defer file.Close()
	dec, err := zstd.NewReader(file, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(maxWholeBytes))
	if err != nil {
		return Result{Work: w, Err: fmt.Errorf("read %s: %w", w.T.Path, err)}
	}
	defer dec.Close()
	res := scanFrom(w, current, bufio.NewReaderSize(io.LimitReader(dec, maxWholeBytes), ReadBufferSize),
		func(b *Builder) lineSink { return parserSink{f.NewParser(w), b} }, f.Agent)
	if res.Err != nil {
		res.Err = fmt.Errorf("read %s: %w", w.T.Path, res.Err)
	}
	st, err := StatFile(w.T.Path)
	if err == nil {
		res.Offset = st.Size
	}
	res.Tail = record.Fingerprint{}
	return res
}
