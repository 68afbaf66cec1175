// Command recall-hint is the prompt hint's UserPromptSubmit hook: what
// `recall install --hints` runs on every prompt when it sits beside
// recall. Claude Code waits for it, so it links only what judging a
// prompt needs (the term index, the text rules and the quick judge) and
// starts in about the time of an empty Go program; most prompts end
// here, silent. It hands the prompt to `recall hook` (the full recall,
// beside it) when that one is needed: for a hint that cleared the bar
// (the full recall searches that session for the messages to quote),
// for a running session whose lineage was never read, for any other
// event, and whenever the index cannot be read this way. Like `recall
// hook` it always exits 0 and logs one line to hook.log.
package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/recall-dev/recall/hint/judge"
	"github.com/recall-dev/recall/internal/hooklog"
	"github.com/recall-dev/recall/internal/indexdir"
	"github.com/recall-dev/recall/internal/rawfile"
	"github.com/recall-dev/recall/lineage/state"
	"github.com/recall-dev/recall/store/terms"
	"github.com/recall-dev/recall/transcript/jsonscan"
	"golang.org/x/sys/unix"
)

func main() {
	// A prompt's work is bounded (MaxPromptWords words, the postings of
	// the uncommon ones): collecting garbage would only cost time.
	debug.SetGCPercent(-1)
	os.Exit(run(invocation{
		args: os.Args[1:], stdin: payloadSource(os.Stdin), stdinTimeout: stdinTimeout, stdout: os.Stdout, stderr: os.Stderr,
		recall: besideThis("recall"), now: time.Now, delegate: runRecallHook,
	}))
}

// besideThis is the path of name in this binary's folder, found when
// asked (most prompts never hand off).
func besideThis(name string) func() string {
	return func() string {
		exe, _ := os.Executable()
		return filepath.Join(filepath.Dir(exe), name)
	}
}

// invocation is one run's world, so tests can run it in process.
type invocation struct {
	args  []string
	stdin io.Reader
	// stdinTimeout bounds the wait for a complete payload.
	stdinTimeout   time.Duration
	stdout, stderr io.Writer
	// recall finds the full recall, beside this binary.
	recall func() string
	now    func() time.Time
	// delegate runs `recall hook args…` with the payload on its stdin.
	delegate func(inv invocation, payload []byte) error
}

// payload is what this hook reads of Claude Code's JSON.
type payload struct {
	SessionID      string
	TranscriptPath string
	HookEventName  string
	Prompt         string
}

// decodePayload reads the payload's members this hook needs, as
// json.Unmarshal into payload would with its keys as Claude Code writes
// them (a member repeated: the last; null: none), with the shared JSON
// scanner instead of encoding/json: its package start-up and reflection
// were a tenth of this hook's time beyond a bare Go start.
func decodePayload(data []byte) (payload, error) {
	var p payload
	if !jsonscan.Valid(data) {
		return p, errors.New("not valid JSON")
	}
	fields := map[string]*string{"session_id": &p.SessionID, "transcript_path": &p.TranscriptPath,
		"hook_event_name": &p.HookEventName, "prompt": &p.Prompt}
	w := jsonscan.WalkValidObject(data, 0)
	for {
		rawKey, val, ok := w.Next()
		if !ok {
			break
		}
		key, _ := jsonscan.Unquote(rawKey) // checked by the walk
		field := fields[key]
		if field == nil || string(val) == "null" {
			continue
		}
		v, ok := jsonscan.DecodeString(val)
		if !ok {
			return p, fmt.Errorf("%s is not a string", key)
		}
		*field = v
	}
	if _, ended := w.End(); !ended {
		return p, errors.New("not a JSON object")
	}
	return p, nil
}

// maxPayloadBytes bounds what is read of stdin (claude.MaxPayloadBytes).
const maxPayloadBytes = 4 << 20

// stdinTimeout bounds the wait for the payload, as recall hook's does:
// Claude Code writes it at once and closes stdin, so it matters only
// when stdin is an open, silent pipe. A prompt must never wait on recall.
const stdinTimeout = 2 * time.Second

// payloadSource is what to read the payload from: stdin, or nothing when
// it is a terminal (someone ran recall-hint by hand), where a read would
// wait for a person (claude.PayloadReader).
func payloadSource(stdin *os.File) io.Reader {
	if info, err := stdin.Stat(); err != nil || info.Mode()&os.ModeCharDevice != 0 {
		return strings.NewReader("")
	}
	return stdin
}

// readPayload reads r to its end, at most maxPayloadBytes, giving up
// after timeout. A file (stdin as Claude Code gives it: a pipe) is read
// by waiting on it with poll in this goroutine: a reading goroutine and
// a timer would start runtime threads, a tenth of this hook's time.
func readPayload(r io.Reader, timeout time.Duration) ([]byte, error) {
	if f, ok := r.(*os.File); ok {
		return readPolled(f, timeout)
	}
	type result struct {
		data []byte
		err  error
	}
	done := make(chan result, 1)
	go func() {
		data, err := io.ReadAll(io.LimitReader(r, maxPayloadBytes))
		done <- result{data, err}
	}()
	select {
	case res := <-done:
		if res.err != nil {
			return nil, fmt.Errorf("read the payload: %w", res.err)
		}
		return res.data, nil
	case <-time.After(timeout):
		return nil, errNoPayload(timeout)
	}
}

func errNoPayload(timeout time.Duration) error {
	return fmt.Errorf("no complete payload on stdin after %v", timeout)
}

// readPolled reads f to its end, at most maxPayloadBytes, waiting for
// each read with poll for at most timeout in all. A file poll cannot
// wait on (a regular file) reads as ready at once.
func readPolled(f *os.File, timeout time.Duration) ([]byte, error) {
	deadline := time.Now().Add(timeout)
	fd := int(f.Fd())
	data := make([]byte, 0, 4<<10) // a prompt's payload, most often; grown for a longer one
	for len(data) < maxPayloadBytes {
		left := time.Until(deadline)
		if left <= 0 {
			return nil, errNoPayload(timeout)
		}
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		n, err := unix.Poll(fds, int(left.Milliseconds())+1)
		if errors.Is(err, unix.EINTR) || err == nil && n == 0 {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("wait for the payload: %w", err)
		}
		if len(data) == cap(data) {
			data = slices.Grow(data, len(data))
		}
		got, err := unix.Read(fd, data[len(data):min(cap(data), maxPayloadBytes)])
		switch {
		case errors.Is(err, unix.EINTR), errors.Is(err, unix.EAGAIN):
			continue
		case err != nil:
			return nil, fmt.Errorf("read the payload: %w", err)
		case got == 0:
			return data, nil
		}
		data = data[:len(data)+got]
	}
	return data, nil
}

// handOff is why the prompt goes to the full recall.
type handOff struct{ why string }

func (h handOff) Error() string { return h.why }

func run(inv invocation) int {
	indexDir := indexDirOf(inv.args)
	data, err := readPayload(inv.stdin, inv.stdinTimeout)
	if err != nil {
		logLine(inv, indexDir, payload{}, "no hint: "+err.Error())
		return 0
	}
	p, err := decodePayload(data)
	if err != nil {
		// The full hook reads what it can of a payload and logs why.
		return delegated(inv, data, indexDir, p, "the payload does not decode: "+err.Error())
	}
	outcome, err := judgeSafely(indexDir, p)
	var h handOff
	if errors.As(err, &h) {
		return delegated(inv, data, indexDir, p, h.why)
	}
	logLine(inv, indexDir, p, outcome)
	return 0
}

// judgeSafely is judgePrompt, with a panic (a bug: the readers keep
// within the mapping whatever the segments hold) handed to recall
// instead of failing the hook.
func judgeSafely(indexDir string, p payload) (outcome string, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = handOff{fmt.Sprintf("internal error: %v", r)}
		}
	}()
	return judgePrompt(indexDir, p)
}

// indexDirOf is --index-dir DIR (or =DIR) among args, else
// $RECALL_INDEX_DIR, else the default, as recall reads them.
func indexDirOf(args []string) string {
	dir := os.Getenv("RECALL_INDEX_DIR")
	for i, a := range args {
		if v, ok := strings.CutPrefix(a, "--index-dir="); ok {
			dir = v
		} else if a == "--index-dir" && i+1 < len(args) {
			dir = args[i+1]
		}
	}
	if dir == "" {
		dir, _ = indexdir.Default()
	}
	if abs, err := filepath.Abs(dir); err == nil && dir != "" {
		dir = abs
	}
	return dir
}

// judgePrompt judges p's prompt and says what it did, or returns a
// handOff when the full recall must answer.
func judgePrompt(indexDir string, p payload) (string, error) {
	if p.HookEventName != "UserPromptSubmit" {
		return "", handOff{"the " + p.HookEventName + " event is the full recall's"}
	}
	if why := judge.Skip(p.Prompt); why != "" {
		return "no hint: not searched: " + why, nil
	}
	exclude, err := runningLineage(indexDir, p)
	if err != nil {
		return "", err
	}
	view, err := terms.ReadView(indexDir)
	if err != nil {
		return "", handOff{err.Error()}
	}
	// The lexicon looks the words up in the sealed segments at once; an
	// index too small to have one, or one whose lexicon is unusable, is
	// looked up segment by segment, to the same verdict.
	lex, err := terms.OpenLexicon(indexDir)
	note := ""
	if err != nil {
		lex = nil
		if !errors.Is(err, fs.ErrNotExist) {
			note = " (" + err.Error() + ": words looked up in each segment)"
		}
	}
	segs, err := judgedSegments(indexDir, view, lex)
	if err != nil {
		return "", handOff{err.Error()}
	}
	dead := func(gen uint32) bool { return view.Dead[gen] }
	m := judge.QuickJudge(segs, judge.QuickOptions{Prompt: p.Prompt, Exclude: exclude, Dead: dead, Early: true, Lexicon: lex}, judge.DefaultBar)
	if m.Unread != nil {
		return "", handOff{m.Unread.Error()}
	}
	if lex != nil && lex.Err() != nil {
		return "", handOff{lex.Err().Error()} // its lookups may have found less than it holds
	}
	if m.Shown {
		return "", handOff{m.Why}
	}
	return "no hint: " + m.Why + note, nil
}

// judgedSegments are the view's segments for the judge. One the lexicon
// covers (by name and size) is opened only if the judge reads it; the
// others are opened now. They stay mapped until the process exits, a
// moment later: unmapping them would only cost time. Opened unverified:
// a hint this judge would show goes to recall, which judges again from
// checked segments, and damage elsewhere can only keep it silent
// (terms.OpenUnverified).
func judgedSegments(indexDir string, view *terms.View, lex *terms.Lexicon) ([]*judge.Segment, error) {
	segs := make([]*judge.Segment, 0, len(view.Segments))
	for _, ref := range view.Segments {
		open := func() (*terms.Segment, error) { return terms.OpenUnverified(indexDir, ref) }
		if li := lexiconIndex(indexDir, ref, lex); li >= 0 {
			ls := lex.Segments[li]
			file := &segmentFile{path: ref.Path(indexDir), size: ls.Size}
			segs = append(segs, judge.Deferred(li, ls.Rows, ls.RawBytes, open, file.readAt))
			continue
		}
		s, err := open()
		if err != nil {
			return nil, err
		}
		segs = append(segs, judge.Opened(s))
	}
	return segs, nil
}

// segmentFile reads postings in a segment's file where the lexicon
// places them, through one descriptor opened on first use: a system call
// a list, where opening the segment maps it and reads its header and
// offset tables.
type segmentFile struct {
	path string
	size uint64 // as the lexicon knows it
	f    *rawfile.File
}

func (s *segmentFile) readAt(off int64, n int) ([]byte, error) {
	if s.f == nil {
		f, err := rawfile.OpenFile(s.path)
		if err != nil {
			return nil, err
		}
		if uint64(f.Size) != s.size {
			f.Close()
			return nil, fmt.Errorf("%s: %d bytes, where the term lexicon has %d", s.path, f.Size, s.size)
		}
		s.f = f // open until the process exits, a moment later
	}
	return s.f.ReadAt(off, n)
}

// lexiconIndex is the lexicon's index of the segment of ref, when it
// names it with the size its file has; else -1. (A segment rebuilt under
// its name drops the lexicon: store.dropDamaged.)
func lexiconIndex(indexDir string, ref terms.Ref, lex *terms.Lexicon) int {
	if lex == nil {
		return -1
	}
	li := lex.Index(ref.Name)
	if li < 0 {
		return -1
	}
	var st unix.Stat_t
	if unix.Stat(ref.Path(indexDir), &st) != nil || uint64(st.Size) != lex.Segments[li].Size {
		return -1
	}
	return li
}

// runningLineage is the running session and the sessions it descends
// from, as the full recall last read them (lineage/state). A session
// whose transcript exists but was never read goes to the full recall,
// which reads it and keeps what it found; one with no transcript yet has
// copied nothing.
func runningLineage(indexDir string, p payload) ([]string, error) {
	if p.SessionID == "" || p.TranscriptPath == "" {
		return nil, handOff{"no running session or transcript named"}
	}
	if _, err := os.Stat(p.TranscriptPath); errors.Is(err, os.ErrNotExist) {
		return []string{p.SessionID}, nil
	}
	st := state.Load(indexDir, p.SessionID)
	if st == nil || st.Path != p.TranscriptPath {
		return nil, handOff{"the running session's lineage was not read yet"}
	}
	return append([]string{p.SessionID}, st.Sessions...), nil
}

// delegated hands the payload to `recall hook` and exits as it does.
func delegated(inv invocation, data []byte, indexDir string, p payload, why string) int {
	if err := inv.delegate(inv, data); err != nil {
		logLine(inv, indexDir, p, "no hint: recall hook did not run ("+err.Error()+"); it was asked because "+why)
	}
	return 0
}

// runRecallHook runs the full recall's hook on the payload, its output
// this process's.
func runRecallHook(inv invocation, data []byte) error {
	cmd := exec.Command(inv.recall(), append([]string{"hook"}, inv.args...)...)
	cmd.Stdin = bytes.NewReader(data)
	cmd.Stdout, cmd.Stderr = inv.stdout, inv.stderr
	return cmd.Run()
}

// logLine appends one line to hook.log as recall hook writes it
// (hooklog).
func logLine(inv invocation, indexDir string, p payload, outcome string) {
	line := hooklog.Line(inv.now(), p.HookEventName, [][2]string{{"session", p.SessionID}}, outcome+" (recall-hint)", nil)
	if err := hooklog.Append(indexDir, line); err != nil {
		fmt.Fprintln(inv.stderr, "recall-hint:", err)
	}
}
