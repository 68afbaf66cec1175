package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Transcript text never reaches the terminal raw (issue 10): every escape
// sequence and control character a message (or a project path) holds is
// shown as a visible symbol in human and markdown output, piped or
// coloured, while recall's own colours still work; JSON keeps the text
// exactly.

// hostileTexts are what a transcript can hold that a terminal would obey.
var hostileTexts = []struct{ name, text string }{
	{"clear screen", "payload one \x1b[2J\x1b[H cleared"},
	{"window title", "payload two \x1b]0;pwned\x07 titled"},
	{"OSC 8 link", "payload three \x1b]8;;https://evil.example\x1b\\click me\x1b]8;;\x1b\\ linked"},
	{"C1 controls", "payload four \u009b31m red \u009d0;t\u009c done"},
	{"C0 and DEL", "payload five \r overwritten \b\b back \x00 nul \x7f del \x07 bell"},
}

// recallStyles are the escape sequences recall itself writes with colour.
var recallStyles = []string{"\x1b[1m", "\x1b[2m", "\x1b[1;31m", "\x1b[0m"}

// assertNoRawControls fails when out holds a control a terminal acts on,
// once recall's own styles are set aside.
func assertNoRawControls(t *testing.T, what, out string) {
	t.Helper()
	for _, s := range recallStyles {
		out = strings.ReplaceAll(out, s, "")
	}
	for i, r := range out {
		if r < 0x20 && r != '\n' && r != '\t' || r == 0x7f || r >= 0x80 && r <= 0x9f {
			t.Errorf("%s: raw control %U at byte %d:\n%q", what, r, i, out)
			return
		}
	}
}

func hostileScenario(t *testing.T) *scenario {
	t.Helper()
	conv := startAt("2026-03-01T10:00:00Z")
	for _, h := range hostileTexts {
		conv.user(h.text).assistant("noted: " + h.text)
	}
	return newScenario(t, conv.session(sessionID('e'), "/tmp/evil\x1b[31mproject\x07"))
}

func TestOutputNeutralisesTerminalControls(t *testing.T) {
	sc := hostileScenario(t)
	id := sessionID('e')
	runs := [][]string{
		{"payload"},
		{"payload", "--format", "markdown"},
		{"payload", "--explain"},
		{"show", id, "--full"},
		{"show", id, "--full", "--query", "payload"},
		{"show", id, "--full", "--format", "markdown"},
		{"sessions"},
		{"sessions", "--format", "markdown"},
	}
	for _, args := range runs {
		for _, color := range []string{"never", "always"} {
			what := fmt.Sprintf("recall %s --color %s", strings.Join(args, " "), color)
			if args[len(args)-1] == "markdown" && color == "always" {
				continue // markdown is never coloured
			}
			cargs := append([]string{"--no-update", "-n", "50", "--color", color}, args...)
			if args[0] == "show" || args[0] == "sessions" {
				cargs = append([]string{args[0], "--no-update", "--color", color}, args[1:]...)
			}
			if args[0] == "sessions" {
				cargs = append(cargs, "-n", "0")
			}
			r := sc.run("", cargs...)
			if r.code != 0 {
				t.Fatalf("%s: exit %d, stderr %q", what, r.code, r.stderr)
			}
			assertNoRawControls(t, what, r.stdout)
			assertNoRawControls(t, what+" (stderr)", r.stderr)
			if !strings.Contains(r.stdout, "␛") && args[0] != "sessions" {
				t.Errorf("%s: the escape is not shown as ␛:\n%s", what, r.stdout)
			}
			if color == "always" && args[0] != "sessions" && !strings.Contains(r.stdout, "\x1b[1m") {
				t.Errorf("%s: recall's own colours are gone:\n%q", what, r.stdout)
			}
		}
	}
	// Highlights are recall's colour around the match, the rest neutralised.
	r := sc.run("", "--no-update", "--color", "always", "-n", "50", "payload")
	if !strings.Contains(r.stdout, "\x1b[1;31mpayload\x1b[0m") {
		t.Errorf("matches are not highlighted:\n%q", r.stdout)
	}
	if !strings.Contains(r.stdout, "/tmp/evil␛[31mproject␇") {
		t.Errorf("the project path is not shown neutralised:\n%q", r.stdout)
	}
}

// JSON carries the text exactly, escaped by JSON.
func TestJSONKeepsExactText(t *testing.T) {
	sc := hostileScenario(t)
	want := map[string]bool{}
	for _, h := range hostileTexts {
		want[h.text] = true
	}
	r := sc.run("", "--no-update", "--json", "-n", "50", "-m", "50", "payload")
	for _, res := range parseResults(t, r.stdout) {
		for _, m := range res.Messages {
			if m.Type == "user" && !want[m.Text] {
				t.Errorf("search --json changed the text: %q", m.Text)
			}
		}
	}
	sh := parseShown(t, sc.run("", "show", "--no-update", "--json", "--full", sessionID('e')))
	found := 0
	for _, m := range sh.Messages {
		if want[m.Text] {
			found++
		}
	}
	if found != len(hostileTexts) || sh.Project != "/tmp/evil\x1b[31mproject\x07" {
		t.Errorf("show --json kept %d of %d texts exactly; project %q", found, len(hostileTexts), sh.Project)
	}
	var listed struct {
		FirstPrompt string `json:"first_prompt"`
	}
	r = sc.run("", "sessions", "--no-update", "--json")
	if err := json.Unmarshal([]byte(r.stdout), &listed); err != nil || !strings.Contains(listed.FirstPrompt, "\x1b[2J") {
		t.Errorf("sessions --json: %v %q", err, listed.FirstPrompt)
	}
}

// A filter that matches no indexed session says so on stderr, exit 1.
func TestNoMatchHints(t *testing.T) {
	sc, _ := showScenario(t)
	outside := t.TempDir() // no git repository above a temp dir
	tests := []struct {
		name   string
		dir    string
		args   []string
		stderr []string
	}{
		{"unknown project", "", []string{"jwt", "--project", "nosuchproj"},
			[]string{"recall: no indexed session is in project nosuchproj (`recall sessions` lists them)\n"}},
		{"unknown session", "", []string{"jwt", "--session", "zzz"},
			[]string{"recall: no indexed session id starts with zzz (`recall sessions` lists them)\n"}},
		{"current session", "", []string{"jwt", "--session", shownSession[:6], "--current-session", shownSession},
			[]string{"is the current session, which searches never show"}},
		{"project . outside git", outside, []string{"-v", "jwt", "--project", "."},
			[]string{"recall: --project .: " + outside + " is in no git repository; using the directory itself\n",
				"recall: no indexed session is in project . (" + outside + ")"}},
	}
	for _, tt := range tests {
		r := sc.run(tt.dir, append([]string{"--no-update"}, tt.args...)...)
		if r.code != 1 || r.stdout != "" {
			t.Errorf("%s: exit %d, stdout %q", tt.name, r.code, r.stdout)
		}
		for _, want := range tt.stderr {
			if !strings.Contains(r.stderr, want) {
				t.Errorf("%s: stderr %q lacks %q", tt.name, r.stderr, want)
			}
		}
	}
	// Words that match nothing in a project that exists: no hint.
	if r := sc.run("", "--no-update", "zzqxj", "--project", "blog"); r.code != 1 || r.stderr != "" {
		t.Errorf("no match in a known project: exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestDiagnosticsNeutraliseTerminalControls: stderr names files and
// quotes what the user typed; a file name or a query holding escape
// sequences must not reach the terminal raw either.
func TestDiagnosticsNeutraliseTerminalControls(t *testing.T) {
	src, idx := filepath.Join(t.TempDir(), "projects"), t.TempDir()
	project := filepath.Join(src, "-evil\x1b]0;pwned\x07")
	if err := os.MkdirAll(project, 0o755); err != nil {
		t.Fatal(err)
	}
	// A binary file named .jsonl is skipped with a warning naming it.
	if err := os.WriteFile(filepath.Join(project, "x\x1b[2J.jsonl"), []byte{0x89, 'P', 'N', 'G', 0, 0, '\n'}, 0o644); err != nil {
		t.Fatal(err)
	}
	dirs := []string{"--source", src, "--index-dir", idx}
	results := []runResult{
		runCLI(t, append([]string{"index"}, dirs...)...),
		runCLI(t, append([]string{"--no-update", "--project", "nosuch\x1b[2J", "x"}, dirs...)...),
		runCLI(t, append([]string{"--no-update", "-e", "a(\x1b[2J"}, dirs...)...),
	}
	for i, res := range results {
		if strings.ContainsAny(res.stderr, "\x1b\x07") {
			t.Errorf("run %d: stderr holds a raw control character: %q", i, res.stderr)
		}
	}
	if !strings.Contains(results[0].stderr, "␛") {
		t.Errorf("the skipped file's warning does not name it: %q", results[0].stderr)
	}
}
