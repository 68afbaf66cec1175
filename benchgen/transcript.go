package benchgen

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/recall-dev/recall/internal/errpath"
)

// lineKind classifies written lines so the summary can show where the
// bytes go (tool results should dominate, human text be a few percent).
type lineKind int

const (
	kindPrompt        lineKind = iota // a typed user prompt
	kindAssistantText                 // an assistant text block
	kindToolUse
	kindToolResult
	kindThinking
	kindNoise // injected text that looks human but is not: echoes, caveats, notifications, synthetic turns
	kindMeta  // snapshots, system records, progress, attachments, side records
	numLineKinds
)

// LineKindNames labels Stats.BytesByKind.
func LineKindNames() [numLineKinds]string {
	return [numLineKinds]string{"prompt", "assistant-text", "tool-use", "tool-result", "thinking", "noise", "meta"}
}

// Stats counts what a generation wrote.
type Stats struct {
	Files       int // every file, transcripts or not
	Transcripts int // .jsonl files
	Sessions    int // top-level sessions, forks and headless runs included
	Subagents   int
	Forks       int
	Headless    int
	Lines       int64
	Bytes       int64 // all files
	// HumanTextBytes is the raw text of typed prompts and assistant text
	// blocks, the part a recall index is mainly about.
	HumanTextBytes int64
	HumanMessages  int64
	BytesByKind    [numLineKinds]int64
}

func (s *Stats) add(o *Stats) {
	s.Files += o.Files
	s.Transcripts += o.Transcripts
	s.Sessions += o.Sessions
	s.Subagents += o.Subagents
	s.Forks += o.Forks
	s.Headless += o.Headless
	s.Lines += o.Lines
	s.Bytes += o.Bytes
	s.HumanTextBytes += o.HumanTextBytes
	s.HumanMessages += o.HumanMessages
	for i := range s.BytesByKind {
		s.BytesByKind[i] += o.BytesByKind[i]
	}
}

// keptLine is a written line retained so a fork can copy it.
type keptLine struct {
	data []byte
	uuid string // empty for side records
	at   time.Time
	kind lineKind
}

// transcript is one .jsonl file being written.
type transcript struct {
	path  string
	file  *os.File
	w     *bufio.Writer
	bytes int64
	// keep retains every line for forks of this session.
	keep bool
	kept []keptLine
}

func createTranscript(path string, keep bool) (*transcript, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("create directory for %s: %w", path, err)
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, errpath.Wrap("create", path, err)
	}
	return &transcript{path: path, file: f, w: newBufferedWriter(f), keep: keep}, nil
}

func newBufferedWriter(f *os.File) *bufio.Writer { return bufio.NewWriterSize(f, 256<<10) }

// writeLine writes line (without its newline) and a newline.
func (t *transcript) writeLine(line []byte, uuid string, at time.Time, kind lineKind) error {
	if t.keep {
		t.kept = append(t.kept, keptLine{data: append([]byte(nil), line...), uuid: uuid, at: at, kind: kind})
	}
	if _, err := t.w.Write(line); err != nil {
		return errpath.Wrap("write", t.path, err)
	}
	if err := t.w.WriteByte('\n'); err != nil {
		return errpath.Wrap("write", t.path, err)
	}
	t.bytes += int64(len(line)) + 1
	return nil
}

func (t *transcript) close() error {
	if err := t.w.Flush(); err != nil {
		t.file.Close()
		return errpath.Wrap("write", t.path, err)
	}
	if err := t.file.Close(); err != nil {
		return errpath.Wrap("close", t.path, err)
	}
	return nil
}

// writeSmallFile writes a non-transcript file (meta.json, tool-results,
// memory notes) and returns its size.
func writeSmallFile(path string, data []byte) (int64, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return 0, fmt.Errorf("create directory for %s: %w", path, err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return 0, errpath.Wrap("write", path, err)
	}
	return int64(len(data)), nil
}
