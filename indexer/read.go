package indexer

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
)

// fileWork is one transcript with new bytes to read.
type fileWork struct {
	t     transcript
	state FileState // the state to continue from (Offset 0 for a new generation)
}

// fileResult is what reading one transcript produced.
type fileResult struct {
	work      fileWork
	rows      []extracted
	counts    [16]int64
	offset    int64 // new consumed offset
	lines     int   // new consumed line count
	session   string
	project   string
	fork      bool // first event is queue-operation
	current   bool // the file belongs to the running session: not consumed
	bytesRead int64
	badLines  int
	warning   string // first bad line, reported once per file
	err       error  // the file could not be read; its state is not advanced
}

// readBufferSize is the reader's buffer. Lines longer than it (api-request
// records can be megabytes) are assembled in a growing slice.
const readBufferSize = 1 << 20

// readTranscript reads the complete lines after w.state.Offset. A last line
// without its '\n' is still being written and is left for next time. br is
// the calling worker's reader, reused from file to file.
func readTranscript(w fileWork, current string, includeHeadless bool, br *bufio.Reader) fileResult {
	res := fileResult{work: w, offset: w.state.Offset, lines: w.state.Lines,
		session: w.state.Session, project: w.state.Project}
	if w.t.Session != "" && w.t.Session == current {
		res.current = true
		return res
	}
	f, err := os.Open(w.t.Path)
	if err != nil {
		res.err = fmt.Errorf("open %s: %w", w.t.Path, err)
		return res
	}
	defer f.Close()
	if _, err := f.Seek(w.state.Offset, io.SeekStart); err != nil {
		res.err = fmt.Errorf("seek %s: %w", w.t.Path, err)
		return res
	}
	x := &lineExtractor{kind: w.t.Kind, source: w.t.Path, session: res.session,
		agent: w.t.Agent, project: res.project, gen: w.state.Gen}
	br.Reset(f)
	res.err = scanLines(br, func(line []byte) bool {
		res.lines++
		res.offset += int64(len(line)) + 1
		return res.handleLine(x, line, current, includeHeadless)
	})
	res.bytesRead = res.offset - w.state.Offset
	res.rows, res.counts = x.rows, x.counts
	res.session, res.project = x.session, x.project
	return res
}

// handleLine feeds one line to the extractor. It returns false to stop
// reading the file (a fork, or the running session).
func (res *fileResult) handleLine(x *lineExtractor, line []byte, current string, includeHeadless bool) bool {
	if res.lines == 1 && res.work.t.Kind == KindMain && !includeHeadless {
		if typ, err := firstType(line); err == nil && typ == "queue-operation" {
			res.fork = true
			return false
		}
	}
	if err := x.add(line, res.lines); err != nil {
		res.badLines++
		if res.warning == "" {
			res.warning = badLineError(res.work.t.Path, res.lines, err)
		}
	}
	if current != "" && x.session == current {
		res.current = true
		return false
	}
	return true
}

// scanLines calls fn for each complete line of br (without its '\n') until
// fn returns false or the input ends. A trailing partial line is not passed.
func scanLines(br *bufio.Reader, fn func(line []byte) bool) error {
	var long []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			long = append(long, chunk...)
			continue
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read: %w", err)
		}
		line := chunk[:len(chunk)-1]
		if len(long) > 0 {
			line = append(long, line...)
			long = long[:0]
		}
		if !fn(line) {
			return nil
		}
	}
}
