package aider

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The command line Aider logs at a session's start says whether the run
// had a message to send (no one typing) or was interactive.
func TestMessageRun(t *testing.T) {
	tests := []struct {
		line string
		want bool
	}{
		{"/Users/dev/.venv/bin/aider --model gpt-4o-mini --map 1024 --msg hi", true},
		{"/Users/dev/.venv/bin/aider --edit-format ask --msg which files do i edit to change the default colors", true},
		{"aider --message=fix the failing test", true},
		{"aider -m 'add a README'", true},
		{"aider --message-file prompt.txt src/app.py", true},
		{"aider -f prompt.txt", true},
		{`C:\Users\dev\AppData\Roaming\Python\Scripts\aider.exe --msg hi`, true},
		{"/usr/bin/python3 -m aider --msg hi", true},
		{"/Users/dev/.venv/bin/aider", false},
		{"/Users/dev/.venv/bin/aider --lint --commit", false},
		{"/Users/dev/.venv/bin/aider aider/commands.py", false},
		{"/Users/dev/.venv/bin/aider --mini", false},
		{"/Users/dev/.venv/bin/aider --exit --yes", false},
		{"Aider v0.50.2-dev", false},
		{"Models: gpt-4o with diff edit format, weak model gpt-4o-mini", false},
		{"/venv/bin/python -m pip install --upgrade aider-chat -m x", false},
		{"Added aider/main.py to the chat -m", false},
		{"", false},
	}
	for _, tc := range tests {
		if got := messageRun(tc.line); got != tc.want {
			t.Errorf("messageRun(%q) = %v, want %v", tc.line, got, tc.want)
		}
	}
}

// A read that continues a session finds its header again before the
// offset and reads the entrypoint from the line after it, as a whole
// read does; a session whose header lies further back than maxLookBack
// is taken for an interactive one.
func TestContinuedRun(t *testing.T) {
	const (
		header   = "# aider chat started at 2024-08-06 11:00:08\n\n"
		msgRun   = "> /Users/dev/.venv/bin/aider --edit-format ask --msg hi  \n"
		typed    = "> /Users/dev/.venv/bin/aider  \n"
		exchange = "#### hi  \n\nHello! How can I help?\n\n"
	)
	long := strings.Repeat("Aider's reply goes on and on.\n", maxLookBack/30+1)
	tests := []struct {
		name, before, after string
		entry               string
		atStart             bool
	}{
		{"message run", header + msgRun + exchange, "#### more  \n", headlessEntrypoint, false},
		{"interactive run", header + typed + exchange, "#### more  \n", entrypoint, false},
		{"first message still to come", header, msgRun, entrypoint, true},
		{"the last of two sessions", header + typed + exchange + header + msgRun, exchange, headlessEntrypoint, false},
		{"header line split by CRLF", strings.ReplaceAll(header+msgRun, "\n", "\r\n"), "#### more  \r\n", headlessEntrypoint, false},
		{"a quoted header is no header", header + msgRun + "    # aider chat started at 2024-08-06 11:05:00\n", exchange, headlessEntrypoint, false},
		{"no header at all", exchange, exchange, entrypoint, false},
		{"header beyond the look-back", header + msgRun + long, exchange, entrypoint, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), historyName)
			if err := os.WriteFile(path, []byte(tc.before+tc.after), 0o644); err != nil {
				t.Fatal(err)
			}
			entry, atStart, _ := continuedRun(path, int64(len(tc.before)))
			if entry != tc.entry || atStart != tc.atStart {
				t.Errorf("continuedRun = %q, %v; want %q, %v", entry, atStart, tc.entry, tc.atStart)
			}
		})
	}
	if entry, atStart, reply := continuedRun(filepath.Join(t.TempDir(), "missing"), 10); entry != entrypoint || atStart || reply != "" {
		t.Errorf("missing file: %q, %v", entry, atStart)
	}
}
