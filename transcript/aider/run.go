package aider

import (
	"bytes"
	"io"
	"slices"
	"strings"

	"github.com/recall-dev/recall/transcript"
)

// A run of Aider with --message (or --message-file) sends one prompt and
// exits: no one types into it, like `claude -p`, so its rows are a
// headless run's. The history says so only in the command line Aider
// logs as a session's first output (main.py: io.tool_output(cmd_line,
// log_only=True), " ".join(sys.argv)), so the parser reads it there
// (runEntrypoint), and a read that continues a session finds that line
// again (continuedRun).

// messageFlags are Aider's options that run one prompt and exit
// (aider/args.py: --message, its aliases --msg and -m, and
// --message-file, -f).
var messageFlags = [...]string{"--message", "--msg", "-m", "--message-file", "-f"}

// runEntrypoint is the entrypoint of a session whose first message
// starts with line.
func runEntrypoint(line string) string {
	if isOutputLine(line) && messageRun(outputText(line)) {
		return headlessEntrypoint
	}
	return entrypoint
}

// messageRun reports whether text is the command line of a run with a
// message flag: a word that runs Aider among its first three (a path to
// aider, or python -m aider), and the flag among the words after it,
// alone or with its value after "=".
func messageRun(text string) bool {
	words := strings.Fields(text)
	at := slices.IndexFunc(words, isAiderProgram)
	if at < 0 || at > 2 {
		return false
	}
	for _, w := range words[at+1:] {
		name, _, _ := strings.Cut(w, "=")
		if slices.Contains(messageFlags[:], name) {
			return true
		}
	}
	return false
}

// isAiderProgram reports whether a command line's word runs Aider: its
// last path element is aider (aider.exe on Windows), as the program or
// as the module after python's -m.
func isAiderProgram(w string) bool {
	base := strings.ToLower(w[strings.LastIndexAny(w, `/\`)+1:])
	return strings.TrimSuffix(base, ".exe") == "aider"
}

// firstLookBack is the window before a read's offset first searched for
// the header of the session the read continues; each next one is twice
// as long, up to maxLookBack (reading at most twice that in all). A
// session longer than that is taken for an interactive one: a run with
// a message sends one prompt, and a watcher reads a long interactive
// session again at every append, so the bound keeps that cheap.
const (
	firstLookBack = 16 << 10
	maxLookBack   = 1 << 20
)

// continuedRun is, for a read of the history at path that starts at
// offset inside a session, that session's rows' entrypoint, whether its
// first message is still to come, and its last reply: what the parser
// knew when the read before stopped, found again from the session's
// header and the lines after it up to offset.
func continuedRun(path string, offset int64) (entry string, atStart bool, lastReply string) {
	f, err := transcript.OpenRegular(path)
	if err != nil {
		return entrypoint, false, ""
	}
	defer f.Close()
	for back := int64(firstLookBack); back <= maxLookBack; back *= 2 {
		base := max(offset-back, 0)
		buf := make([]byte, offset-base)
		if _, err := f.ReadAt(buf, base); err != nil && err != io.EOF {
			return entrypoint, false, ""
		}
		if after, ok := afterLastHeader(buf, base == 0); ok {
			entry, atStart = firstMessageRun(after)
			return entry, atStart, lastReplyOf(after)
		}
		if base == 0 {
			break
		}
	}
	return entrypoint, false, ""
}

// lastReplyOf is the last reply of b, the lines of a session after its
// header, read by a parser that makes no rows.
func lastReplyOf(b []byte) string {
	p := &parser{dry: true, session: "replay", project: "replay"}
	n := 0
	for len(b) > 0 {
		var line []byte
		line, b, _ = bytes.Cut(b, []byte("\n"))
		n++
		_ = p.Line(nil, line, n)
	}
	p.flush(nil)
	return p.lastReply
}

// afterLastHeader is what follows the last session header in b (whole
// lines; b starts a line when atStart, else its first line is cut and
// skipped).
func afterLastHeader(b []byte, atStart bool) ([]byte, bool) {
	for end := len(b); end > 0; {
		i := bytes.LastIndex(b[:end], []byte(headerPrefix))
		if i < 0 {
			return nil, false
		}
		end = i
		if i > 0 && b[i-1] != '\n' || i == 0 && !atStart {
			continue
		}
		line, rest, _ := bytes.Cut(b[i:], []byte("\n"))
		if _, ok := headerTime(strings.TrimSuffix(string(line), "\r")); ok {
			return rest, true
		}
	}
	return nil, false
}

// firstMessageRun is the entrypoint the first non-blank line of b, the
// lines after a session's header, gives the session, and whether there
// is none yet.
func firstMessageRun(b []byte) (entry string, atStart bool) {
	for len(b) > 0 {
		var line []byte
		line, b, _ = bytes.Cut(b, []byte("\n"))
		if s := strings.TrimSuffix(string(line), "\r"); !isBlank(s) {
			return runEntrypoint(s), false
		}
	}
	return entrypoint, true
}
