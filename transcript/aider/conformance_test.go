package aider

import (
	"fmt"
	"strings"
	"testing"

	"github.com/recall-dev/recall/filter"
	"github.com/recall-dev/recall/record"
	"github.com/recall-dev/recall/transcript"
)

// session1 starts a session the way Aider does: a blank line, the
// header, a blank line and the command line it ran.
const session1 = "\n# aider chat started at 2025-03-14 09:26:53\n\n> /usr/bin/aider --model sonnet  \n> Aider v0.82.2  \n"

// tail ends a history after the message under test, so that it is
// whole: the next prompt's blank line and the prompt itself, whose row
// the cases leave out (it is held: nothing follows it).
const tail = "\n#### end  \n"

// short is a row as the conformance cases spell it.
func short(r transcript.Extracted) string {
	return fmt.Sprintf("%s@%d: %s", r.Type, r.Line, r.Text)
}

// TestRecordClasses reads one class of record at a time, after a
// session header, and checks the rows it makes (or the reason it makes
// none, counted).
func TestRecordClasses(t *testing.T) {
	type drops map[filter.Reason]int64
	tests := []struct {
		name  string
		lines string // after session1 (lines 1-5)
		want  []string
		drops drops // beyond the noise of session1's output (2)
	}{
		{"prompt", "\n#### fix the failing login test  \n", []string{"user@7: fix the failing login test"}, nil},
		{"multi-line prompt", "\n#### first line of the prompt  \n####   \n#### and a third line  \n",
			[]string{"user@7: first line of the prompt\n\nand a third line"}, nil},
		{"blank prompt", "\n#### <blank>  \n", nil, drops{filter.Noise: 1}},
		{"--watch-files question", "\n#### Find the \"AI\" comments below (marked with █) in the code files I've shared with you.  \n" +
			"#### They contain my questions that I need you to answer and other instructions for you.  \n####   \n" +
			"#### src/index.ts:  \n#### ⋮  \n#### │// export * from './old.ts';  \n#### █// AI? What is this fp lib missing?  \n",
			[]string{"user@7: // AI? What is this fp lib missing?"}, nil},
		{"--watch-files instructions", "\n#### I've written your instructions in comments in the code and marked them with \"ai\"  \n" +
			"#### You can see the \"AI\" comments shown below (marked with █).  \n" +
			"#### Find them in the code files I've shared with you, and follow their instructions.  \n####   \n" +
			"#### app.py:  \n#### █# make this retry with backoff, ai!  \n#### │def fetch():  \n",
			[]string{"user@7: # make this retry with backoff, ai!"}, nil},
		{"--watch-files prompt with no comment left", "\n#### Find the \"AI\" comments below (marked with █) in the code files I've shared with you.  \n",
			nil, drops{filter.Noise: 1}},
		{"short prompt", "\n#### hi  \n", nil, drops{filter.TooShort: 1}},
		{"reply", "\n#### explain the retry loop please  \n\nThe loop retries three times.\n\nThen it gives up.\n\n",
			[]string{"user@7: explain the retry loop please", "assistant@9: The loop retries three times.\n\nThen it gives up."}, nil},
		{"reply with fenced # and > lines",
			"\nHere is the change:\n\n```python\n# a comment\n#### not a prompt  \n> not output\n```\n\nDone with it.\n\n",
			[]string{"assistant@7: Here is the change:\n\n```python\n# a comment\n#### not a prompt  \n> not output\n```\n\nDone with it."}, nil},
		{"reply with a tag fence", "\nThe edit:\n\n<source>python\n> still code\n</source>\n",
			[]string{"assistant@7: The edit:\n\n<source>python\n> still code\n</source>"}, nil},
		{"reply with a heading", "\nThe plan has two steps.\n\n#### Step one\n\nRename the handler.\n",
			[]string{"assistant@7: The plan has two steps.\n\n#### Step one\n\nRename the handler."}, nil},
		{"reply quoting a header", "\nAider writes a line like this one:\n# aider chat started at the start of a run\n",
			[]string{"assistant@7: Aider writes a line like this one:\n# aider chat started at the start of a run"}, nil},
		{"reply cut short in a fence, then a prompt",
			"\nHere:\n\n```python\ndef f(\n\n\n#### finish it, you were cut off  \n",
			[]string{"assistant@7: Here:\n\n```python\ndef f(", "user@13: finish it, you were cut off"}, nil},
		{"reply with a fence left open, then the token report",
			"\nOpeners:\n   ```bash\n\n> Tokens: 2.1k sent, 50 received.\nCost: $0.01 message, $0.01 session.  \n",
			[]string{"assistant@7: Openers:\n   ```bash"}, drops{filter.Noise: 1}},
		{"output chatter", "> Added app.py to the chat.  \n> Warning: it's best to only add files that need changes  \n", nil, drops{filter.Noise: 2}},
		{"token report", "> Tokens: 4.2k sent, 312 received.\nCost: $0.02 message, $0.02 session.  \n", nil, drops{filter.Noise: 1}},
		{"edit applied", "> Applied edit to app/routes.py  \n", []string{"tool@6: Edit: app/routes.py"}, nil},
		{"commit", "> Commit 3f9a2c1 feat: Add /healthz endpoint  \n", []string{"tool@6: Commit: 3f9a2c1 feat: Add /healthz endpoint"}, nil},
		{"commit of two lines", "> Commit 3f9a2c1 feat: Add /healthz\nbuild: pin flask  \n", []string{"tool@6: Commit: 3f9a2c1 feat: Add /healthz"}, nil},
		{"not a commit", "> Committing app.py before applying edits.  \n> Commit message: none  \n", nil, drops{filter.Noise: 2}},
		{"shell command run", "> Running make deploy  \n", []string{"tool@6: Run: make deploy"}, nil},
		{"page scraped", "> Scraping https://example.com/docs...  \n> ... added to chat.  \n", []string{"tool@6: Web: https://example.com/docs"}, drops{filter.Noise: 1}},
		{"output of several lines", "\n#### /test pytest  \n> ===== test session starts =====\nplatform linux\n\n>       assert x == 1\nE       AssertionError\n\n===== 1 failed in 0.1s =====  \n",
			[]string{"tool@7: Test: pytest"}, drops{filter.Noise: 2}},
		{"a padded subject of several lines",
			"> npm install   \nnpm run build  \n> Run shell commands? (Y)es/(N)o/(D)on't ask again [Yes]: y  \n",
			nil, drops{filter.Noise: 2}},
		{"instructions typed to the output", "> Add the output to the chat?\n(y/n/instructions) fix only the flaky test  \n",
			[]string{"user@7: fix only the flaky test"}, nil},
		{"no instructions", "> Add the output to the chat?\n(y/n/instructions) y  \n", nil, drops{filter.Noise: 1}},
		{"/run", "\n#### /run go test ./...  \n", []string{"tool@7: Run: go test ./..."}, nil},
		{"!", "\n#### !git status  \n", []string{"tool@7: Run: git status"}, nil},
		{"/test", "\n#### /test pytest -x  \n", []string{"tool@7: Test: pytest -x"}, nil},
		{"/git", "\n#### /git log -3  \n", []string{"tool@7: Git: log -3"}, nil},
		{"/ru (a prefix of /run alone)", "\n#### /ru ls -la  \n", []string{"tool@7: Run: ls -la"}, nil},
		{"/r (a prefix of several)", "\n#### /r ls -la  \n", nil, drops{filter.Noise: 1}},
		{"/add", "\n#### /add app/models.py  \n> Added app/models.py to the chat  \n", nil, drops{filter.Noise: 2}},
		{"/ex", "\n#### /ex  \n", nil, drops{filter.Noise: 1}},
		{"not a command", "\n#### /Users/dev/app.py what is this  \n", nil, drops{filter.Noise: 1}},
		{"/ask and the prompt Aider writes again",
			"\n#### /ask why is the cookie not secure?  \n\n#### why is the cookie not secure?  \n",
			[]string{"user@9: why is the cookie not secure?"}, drops{filter.Copy: 1}},
		{"/code alone", "\n#### /code  \n", nil, drops{filter.Noise: 1}},
		{"/help and the prompt Aider writes for it",
			"\n#### /help how do I stop auto commits?  \n\n#### # Question: how do I stop auto commits?  \n####   \n#### # Relevant docs:  \n",
			[]string{"user@7: how do I stop auto commits?"}, drops{filter.Noise: 1}},
		{"a lint reflection", "\n#### # Fix any errors below, if possible.  \n####   \n#### app.py:3:1: F401 unused import  \n", nil, drops{filter.Noise: 1}},
		{"a confirmation Aider typed", "\n#### Run shell commands? (Y)es/(N)o/(A)ll/(S)kip all/(D)on't ask again [Yes]: a  \n", nil, drops{filter.Noise: 1}},
		{"a secret", "\n#### deploy with ghp_Ab12Cd34Ef56Gh78Ij90Kl12Mn34Op56Qr78 now  \n",
			[]string{"user@7: deploy with [REDACTED:github-pat] now"}, nil},
		{"crlf", "\r\n#### explain the retry loop please  \r\n\r\nIt retries.  \r\nThree times.\r\n\r\n",
			[]string{"user@7: explain the retry loop please", "assistant@9: It retries.  \nThree times."}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := readAll(t, writeTemp(t, session1+tt.lines+tail))
			var got []string
			for _, r := range res.Rows {
				got = append(got, short(r))
				if r.Session == "" || r.UUID == "" || r.Entrypoint != "aider" || r.Agent != "aider" || r.Timestamp != "2025-03-14T07:26:53.000Z" {
					t.Errorf("row %+v", r.Row)
				}
			}
			if strings.Join(got, "\n---\n") != strings.Join(tt.want, "\n---\n") {
				t.Errorf("rows:\n%s\nwant:\n%s", strings.Join(got, "\n---\n"), strings.Join(tt.want, "\n---\n"))
			}
			want := drops{filter.Noise: 2} // session1's output
			for r, n := range tt.drops {
				want[r] += n
			}
			for _, r := range filter.Reasons() {
				if res.Counts[r] != want[r] {
					t.Errorf("%s: %d, want %d", r, res.Counts[r], want[r])
				}
			}
			if res.BadLines != 0 {
				t.Errorf("bad lines: %s", res.Warning)
			}
		})
	}
}

// TestBeforeFirstSession: what comes before the first session header
// (a history cut at its start) belongs to no session and makes no row.
func TestBeforeFirstSession(t *testing.T) {
	res := readAll(t, writeTemp(t, "-*- mode: fundamental -*-\n> Applied edit to a.py  \n\n#### a prompt of no session at all  \n"+session1+tail))
	if len(res.Rows) != 0 || res.Counts[filter.Noise] != 5 {
		t.Fatalf("rows %v, noise %d; want none and 5", res.Rows, res.Counts[filter.Noise])
	}
}

// TestBadHeader: a header whose time is no time is a bad line; what
// follows stays in the session before it.
func TestBadHeader(t *testing.T) {
	res := readAll(t, writeTemp(t, session1+"\n# aider chat started at 2025-02-30 10:00:00\n\n#### still the first session here  \n"+tail))
	if res.BadLines != 1 || !strings.Contains(res.Warning, ":7:") {
		t.Fatalf("bad lines %d (%q), want line 7", res.BadLines, res.Warning)
	}
	if len(res.Rows) != 1 || res.Rows[0].Timestamp != "2025-03-14T07:26:53.000Z" {
		t.Fatalf("rows %+v", res.Rows)
	}
}

// TestSessions: each header starts a session with its own id and time;
// two started in the same second differ.
func TestSessions(t *testing.T) {
	text := session1 + "\n#### the first session's prompt  \n" +
		"\n# aider chat started at 2025-03-14 10:00:00\n\n#### the second session's prompt  \n" +
		"\n# aider chat started at 2025-03-14 10:00:00\n\n#### the third session's prompt  \n" + tail
	res := readAll(t, writeTemp(t, text))
	if len(res.Rows) != 3 {
		t.Fatalf("%d rows, want 3", len(res.Rows))
	}
	a, b, c := res.Rows[0], res.Rows[1], res.Rows[2]
	if a.Session == b.Session || b.Session == c.Session || a.Session == c.Session {
		t.Errorf("sessions %s %s %s: want three", a.Session, b.Session, c.Session)
	}
	if b.Timestamp != "2025-03-14T08:00:00.000Z" || c.Timestamp != b.Timestamp {
		t.Errorf("times %s %s", b.Timestamp, c.Timestamp)
	}
	if !strings.HasPrefix(c.Session, "aider-20250314T080000Z-") || res.Session != c.Session {
		t.Errorf("session %s, read ends in %s", c.Session, res.Session)
	}
}

// TestHeldAtEnd: the last message of a history is not known to be
// whole: the read stops before it and the next read gives it again.
func TestHeldAtEnd(t *testing.T) {
	head := session1 + "\n#### the last prompt for now  \n"
	path := writeTemp(t, head+"\nA reply still being written.\n\nIts second paragraph.\n")
	res := readAll(t, path)
	if len(res.Rows) != 1 || res.Offset != int64(len(head)+1) || res.Lines != 8 {
		t.Fatalf("rows %d, offset %d, lines %d; want 1, %d, 8", len(res.Rows), res.Offset, res.Lines, len(head)+1)
	}
	appendTo(t, path, "\n> Tokens: 1k sent, 20 received.  \n")
	res = readFrom(t, path, next(record.FileState{}, res))
	if len(res.Rows) != 1 || short(res.Rows[0]) != "assistant@9: A reply still being written.\n\nIts second paragraph." {
		t.Fatalf("rows %v", res.Rows)
	}
}

// TestNotUTF8: bytes that are not UTF-8 are replaced in a row's text,
// wherever they are: another agent's text file is taken for binary only
// for a NUL byte, never for such bytes in its first 4 KiB (an Aider run
// with another --encoding writes them).
func TestNotUTF8(t *testing.T) {
	pad := "\nA reply long enough to push what follows past the first 4 KiB: " + strings.Repeat("x", 4200) + "\n"
	res := readAll(t, writeTemp(t, session1+pad+"\n#### what is \xff\xfe in this file?  \n"+tail))
	if len(res.Rows) != 2 || res.Rows[1].Text != "what is \ufffd in this file?" {
		t.Fatalf("rows %v", res.Rows)
	}
	res = readAll(t, writeTemp(t, session1+"\n#### what is \xff\xfe in this file?  \n"+tail))
	if res.Binary || len(res.Rows) != 1 || res.Rows[0].Text != "what is \ufffd in this file?" {
		t.Errorf("a history not UTF-8 in its first 4 KiB: binary %v, rows %v", res.Binary, res.Rows)
	}
	res = readAll(t, writeTemp(t, session1+"\n#### a NUL \x00 byte  \n"+tail))
	if !res.Binary {
		t.Errorf("a history with a NUL byte in its first 4 KiB is read as text")
	}
}
