package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recall-dev/recall/evalcorpus"
)

// shownSession and otherSession are the sessions of showScenario.
var (
	shownSession = sessionID('a')
	otherSession = sessionID('b')
)

// showScenario indexes two sessions: one of eight messages in project
// dir (lines 1–9; line 4 is the tool's output, which is not indexed), one
// older in another project.
func showScenario(t *testing.T) (*scenario, string) {
	t.Helper()
	project := t.TempDir()
	a := startAt("2026-03-01T10:00:00Z").
		user("How should we implement JWT authentication for the checkout API?").
		assistant("I'll implement JWT authentication with a middleware that validates the bearer token.").
		bash("go test ./auth/...", "ok").
		assistant("The middleware is in place and the auth tests pass.").
		user("Now add refresh tokens, stored in an httpOnly cookie.").
		assistant("Refresh tokens now rotate on every use and live in an httpOnly cookie.").
		user("Document the token lifetimes in the README please.").
		assistant("The README now lists the access and refresh token lifetimes.").
		session(shownSession, project)
	b := startAt("2026-02-01T09:00:00Z").
		user("Why does the blog build fail on the image pipeline?").
		assistant("The image pipeline fails because sharp is missing from the lockfile.").
		session(otherSession, "/home/dev/src/blog")
	return newScenario(t, a, b), project
}

type shownJSON struct {
	SessionID        string `json:"session_id"`
	Project          string `json:"project"`
	Source           string `json:"source"`
	TranscriptExists bool   `json:"transcript_exists"`
	Total            int    `json:"messages_total"`
	FirstShown       int    `json:"first_shown"`
	Messages         []struct {
		Type, Role, Text, Source string
		Line                     int
		Hit                      bool
		Highlights               [][2]int
	} `json:"messages"`
}

func parseShown(t *testing.T, r runResult) shownJSON {
	t.Helper()
	if r.code != 0 {
		t.Fatalf("show: exit %d, stderr %q", r.code, r.stderr)
	}
	var sh shownJSON
	if err := json.Unmarshal([]byte(r.stdout), &sh); err != nil {
		t.Fatalf("show --json: %v: %s", err, r.stdout)
	}
	return sh
}

func (sh shownJSON) lines() []int {
	out := make([]int, len(sh.Messages))
	for i, m := range sh.Messages {
		out[i] = m.Line
	}
	return out
}

func (sh shownJSON) hitLine() int {
	for _, m := range sh.Messages {
		if m.Hit {
			return m.Line
		}
	}
	return 0
}

func TestShowCommand(t *testing.T) {
	sc, project := showScenario(t)
	transcript := filepath.Join(sc.projects, evalcorpus.ProjectSlug(project), shownSession+".jsonl")
	tests := []struct {
		name  string
		args  []string
		lines []int // lines of the messages shown
		hit   int
	}{
		{"prefix and line", []string{shownSession[:6] + ":6", "-C", "1"}, []int{5, 6, 7}, 6},
		{"evidence path", []string{transcript + ":9", "-C", "2"}, []int{7, 8, 9}, 9},
		{"transcript's base name", []string{filepath.Base(transcript) + ":9", "-C", "2"}, []int{7, 8, 9}, 9},
		{"line without a message", []string{shownSession + ":4", "-C", "0"}, []int{5}, 5},
		{"no line: the start", []string{shownSession[:4], "-C", "1"}, []int{1, 2, 3}, 0},
		{"query centres", []string{shownSession[:4], "--query", "httpOnly cookie", "-C", "0"}, []int{6}, 6},
		{"full", []string{shownSession[:4], "--full"}, []int{1, 2, 3, 5, 6, 7, 8, 9}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sh := parseShown(t, sc.run("", append([]string{"show", "--json", "--no-update"}, tt.args...)...))
			if got := sh.lines(); !equalInts(got, tt.lines) || sh.hitLine() != tt.hit {
				t.Errorf("lines %v hit %d, want %v hit %d", got, sh.hitLine(), tt.lines, tt.hit)
			}
			if sh.SessionID != shownSession || sh.Project != project || sh.Total != 8 || !sh.TranscriptExists || sh.Source != transcript {
				t.Errorf("header %+v", sh)
			}
			for _, m := range sh.Messages {
				if m.Source != transcript || m.Line < 1 || m.Text == "" {
					t.Errorf("message without evidence: %+v", m)
				}
			}
		})
	}
	q := parseShown(t, sc.run("", "show", "--json", "--no-update", shownSession+":7", "-C", "0", "--query", "cookie"))
	if m := q.Messages[0]; len(m.Highlights) != 1 || m.Text[m.Highlights[0][0]:m.Highlights[0][1]] != "cookie" {
		t.Errorf("highlights %v in %q", m.Highlights, m.Text)
	}
	if r := sc.run("", "show", "--no-update", shownSession+":4", "-C", "0"); !strings.Contains(r.stderr, "line 4 holds no indexed message") {
		t.Errorf("no note for a line without a message: %q", r.stderr)
	}
	md := sc.run("", "show", "--no-update", "--format", "markdown", shownSession[:4], "-C", "0", "--query", "refresh")
	if !strings.HasPrefix(md.stdout, "<!-- recall-output -->\n## recall show: session `"+shownSession+"`") || !strings.Contains(md.stdout, transcript+":6`") {
		t.Errorf("markdown:\n%s", md.stdout)
	}
	human := sc.run("", "show", "--no-update", "--color", "never", shownSession[:4]+":6", "-C", "1")
	for _, want := range []string{"[1/1] aaaaaaa • " + project + " | 8 messages", "> [user]", transcript + ":6", "\n      Now add refresh tokens", "… 3 earlier messages", "… 2 more messages after"} {
		if !strings.Contains(human.stdout, want) {
			t.Errorf("human output lacks %q:\n%s", want, human.stdout)
		}
	}
}

func TestShowCommandErrors(t *testing.T) {
	sc, _ := showScenario(t)
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"unknown id", []string{"zzz"}, 1, `no indexed session has an id starting with "zzz" (` + "`recall sessions` lists them)"},
		{"unknown path", []string{"/no/such.jsonl:3"}, 1, "no indexed transcript /no/such.jsonl"},
		{"empty id", []string{""}, 2, "give a session id"},
		{"negative context", []string{shownSession, "--context=-1"}, 2, "must not be negative"},
	}
	for _, tt := range tests {
		r := sc.run("", append([]string{"show", "--no-update"}, tt.args...)...)
		if r.code != tt.code || r.stdout != "" || !strings.Contains(r.stderr, tt.stderr) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want %d and %q", tt.name, r.code, r.stdout, r.stderr, tt.code, tt.stderr)
		}
	}

	// A prefix of two sessions is refused, naming both.
	twins := newScenario(t,
		startAt("2026-03-01T10:00:00Z").user("the first of two sessions with alike ids").session("abcd0000-0000-4000-8000-000000000001", "/p"),
		startAt("2026-03-02T10:00:00Z").user("the second of two sessions with alike ids").session("abcd0000-0000-4000-8000-000000000002", "/p"))
	r := twins.run("", "show", "--no-update", "abcd")
	if r.code != 2 || !strings.Contains(r.stderr, `session id prefix "abcd" names 2 sessions (abcd0000-0000-4000-8000-000000000001, abcd0000-0000-4000-8000-000000000002)`) {
		t.Errorf("ambiguous prefix: exit %d, stderr %q", r.code, r.stderr)
	}
	if r := twins.run("", "show", "--no-update", "abcd0000-0000-4000-8000-000000000002"); r.code != 0 || !strings.Contains(r.stdout, "the second of two") {
		t.Errorf("whole id: exit %d, stderr %q", r.code, r.stderr)
	}
}

func TestSessionsCommand(t *testing.T) {
	sc, project := showScenario(t)
	r := sc.run("", "sessions", "--json", "--no-update")
	if r.code != 0 {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	type listed struct {
		SessionID        string `json:"session_id"`
		Project          string `json:"project"`
		FirstPrompt      string `json:"first_prompt"`
		FirstTimestamp   string `json:"first_timestamp"`
		LastTimestamp    string `json:"last_timestamp"`
		Messages         int    `json:"messages"`
		TranscriptExists bool   `json:"transcript_exists"`
	}
	var got []listed
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var s listed
		if err := json.Unmarshal([]byte(line), &s); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		got = append(got, s)
	}
	if len(got) != 2 || got[0].SessionID != shownSession || got[1].SessionID != otherSession {
		t.Fatalf("sessions %+v, want newest first", got)
	}
	a := got[0]
	if a.Project != project || a.Messages != 8 || a.FirstPrompt != "How should we implement JWT authentication for the checkout API?" ||
		a.FirstTimestamp != "2026-03-01T10:00:00.000Z" || a.LastTimestamp != "2026-03-01T10:07:00.000Z" || !a.TranscriptExists {
		t.Errorf("first session %+v", a)
	}
	if r := sc.run("", "sessions", "--no-update", "-p", "blog", "--color", "never"); r.code != 0 || strings.Contains(r.stdout, shownSession) ||
		!strings.Contains(r.stdout, otherSession+"  /home/dev/src/blog  2 messages\n    Why does the blog build fail") {
		t.Errorf("--project blog: exit %d\n%s", r.code, r.stdout)
	}
	if r := sc.run("", "sessions", "--no-update", "--since", "2026-02-15", "--until", "2026-03-05", "-l"); r.code != 2 {
		t.Errorf("an unknown flag: exit %d", r.code)
	}
	if r := sc.run("", "sessions", "--no-update", "--json", "--since", "2026-02-15", "-n", "1"); r.code != 0 || strings.Count(r.stdout, "\n") != 1 || !strings.Contains(r.stdout, shownSession) {
		t.Errorf("--since: exit %d %q", r.code, r.stdout)
	}
	none := sc.run("", "sessions", "--no-update", "-p", "nosuchproj")
	if none.code != 1 || none.stdout != "" || !strings.Contains(none.stderr, "recall: no indexed session is in project nosuchproj (`recall sessions` lists them)") {
		t.Errorf("no session: exit %d, stdout %q, stderr %q", none.code, none.stdout, none.stderr)
	}
}

func TestResumeCommand(t *testing.T) {
	sc, project := showScenario(t)
	r := sc.run("", "resume", shownSession[:5])
	if want := "cd " + project + " && claude --resume " + shownSession + "\n"; r.code != 0 || r.stdout != want {
		t.Errorf("resume: exit %d, stdout %q, stderr %q; want %q", r.code, r.stdout, r.stderr, want)
	}
	// The other session's project does not exist here: the command is
	// printed all the same, with why it cannot run yet; --exec refuses.
	if r := sc.run("", "resume", otherSession); r.code != 0 || r.stdout != "cd /home/dev/src/blog && claude --resume "+otherSession+"\n" ||
		!strings.Contains(r.stderr, "project directory /home/dev/src/blog no longer exists") {
		t.Errorf("missing project: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if r := sc.run("", "resume", "--exec", otherSession); r.code != 2 || r.stdout != "" || !strings.Contains(r.stderr, "no longer exists") {
		t.Errorf("missing project, --exec: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}

	// --exec runs claude --resume in the project, with recall's streams.
	calls := fakeClaudeOnPath(t)
	r = sc.run("", "resume", "--exec", shownSession[:5])
	if r.code != 0 {
		t.Fatalf("resume --exec: exit %d, stderr %q", r.code, r.stderr)
	}
	if got := calls(); len(got) != 1 || got[0] != project+": --resume "+shownSession {
		t.Errorf("claude ran as %q", got)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// fakeClaudeOnPath puts a claude CLI stand-in first on PATH that records,
// one call per line, its working directory and arguments ("dir: args"),
// and returns a reader of the calls. Tests never run a real claude.
func fakeClaudeOnPath(t *testing.T) func() []string {
	t.Helper()
	dir := t.TempDir()
	log := filepath.Join(dir, "calls")
	script := "#!/bin/sh\nprintf '%s: %s\\n' \"$PWD\" \"$*\" >> '" + log + "'\n"
	if err := os.WriteFile(filepath.Join(dir, "claude"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return func() []string {
		data, err := os.ReadFile(log)
		if os.IsNotExist(err) {
			return nil
		}
		if err != nil {
			t.Fatal(err)
		}
		return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	}
}
