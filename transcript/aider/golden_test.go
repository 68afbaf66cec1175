package aider

import (
	"bufio"
	"flag"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/recall-dev/recall/transcript"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// goldenRow is a row as the golden files hold it: the columns a source
// decides (contract: Session, Timestamp, Type, Role, Text, Project,
// Line, AgentID, Entrypoint, Agent). A session id ends in a hash of the
// history's absolute path, which differs from checkout to checkout: it
// is written with "h<n>" for the n-th session id of its file instead
// (identity_test.go checks the ids themselves), and the project relative
// to the fixtures.
var fixturesDir = func() string {
	abs, _ := filepath.Abs(fixtures)
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real
	}
	return abs
}()

func goldenRow(r transcript.Extracted, sessions map[string]string, text string) string {
	short, ok := sessions[r.Session]
	if !ok {
		prefix := r.Session
		if i := strings.LastIndexByte(prefix, '-'); i > 0 {
			prefix = prefix[:i]
		}
		short = fmt.Sprintf("%s-h%d", prefix, len(sessions)+1)
		sessions[r.Session] = short
	}
	project := strings.Replace(r.Project, fixturesDir, "$FIXTURES", 1)
	return strings.Join([]string{short, r.Timestamp, r.Type, r.Role, esc(text), esc(project),
		fmt.Sprint(r.Line), r.AgentID, r.Entrypoint, r.Agent}, "\t")
}

// TestGolden reads every history of the fixtures' projects and compares
// their rows with golden.tsv (a text over 4 KiB as its digest).
func TestGolden(t *testing.T) {
	var b strings.Builder
	for _, tr := range Discover(filepath.Join(fixtures, "projects"), func(s string) { t.Error(s) }) {
		rel, _ := filepath.Rel(mustAbs(t, fixtures), tr.Path)
		fmt.Fprintf(&b, "# %s\n", rel)
		res := readAll(t, tr.Path)
		sessions := map[string]string{}
		for _, r := range res.Rows {
			b.WriteString(goldenRow(r, sessions, digest(r.Text, 4096)) + "\n")
		}
		fmt.Fprintf(&b, "# bad lines %d, offset %d of %d, lines %d\n", res.BadLines, res.Offset, tr.Stat.Size, res.Lines)
	}
	compareGolden(t, filepath.Join(fixtures, "golden.tsv"), b.String())
}

// TestPublicGolden compares the rows of the real history with
// public.golden.tsv, each text as its first 120 characters, its length
// and its CRC: the file stays small and its diffs readable, and any
// change to a text shows.
func TestPublicGolden(t *testing.T) {
	res := readAll(t, publicHistory)
	var b strings.Builder
	sessions := map[string]string{}
	for _, r := range res.Rows {
		b.WriteString(goldenRow(r, sessions, digest(r.Text, 120)) + "\n")
	}
	compareGolden(t, filepath.Join(fixtures, "public.golden.tsv"), b.String())
}

// digest is text, or for a text over n bytes its first n, its length
// and its CRC.
func digest(text string, n int) string {
	if len(text) <= n {
		return text
	}
	return fmt.Sprintf("%s… [%d bytes, crc %08x]", cutRunes(text, n), len(text), crc32.ChecksumIEEE([]byte(text)))
}

func compareGolden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update writes it)", err)
	}
	if got != string(want) {
		gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		for i := 0; i < max(len(gl), len(wl)); i++ {
			var g, w string
			if i < len(gl) {
				g = gl[i]
			}
			if i < len(wl) {
				w = wl[i]
			}
			if g != w {
				t.Fatalf("%s differs at line %d (go test -update rewrites it):\nwant: %s\ngot:  %s", path, i+1, w, g)
			}
		}
	}
}

// mustAbs is path made absolute, with no link in it.
func mustAbs(t testing.TB, path string) string {
	t.Helper()
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real
	}
	return abs
}

// headerLine matches a session header as Aider writes it.
var headerLine = regexp.MustCompile(`^# aider chat started at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d\s*$`)

// sessionsOf drives a parser over the history at path line by line and
// lists the sessions it enters, in order.
func sessionsOf(t testing.TB, path string) (sessions []string, headers int) {
	t.Helper()
	tr := transcriptOf(t, path)
	w := transcript.Work{T: tr}
	p := Format().NewParser(w)
	b := transcript.NewBuilder(w, "aider")
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	n := 0
	for sc.Scan() {
		n++
		if headerLine.Match(sc.Bytes()) {
			headers++
		}
		_ = p.Line(b, sc.Bytes(), n)
		if s, _ := p.Where(); s != "" && (len(sessions) == 0 || sessions[len(sessions)-1] != s) {
			sessions = append(sessions, s)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return sessions, headers
}

// TestPublicSessions checks that every session of the real history is
// found, each under an id of its own, and that its rows are in those.
func TestPublicSessions(t *testing.T) {
	sessions, headers := sessionsOf(t, publicHistory)
	if headers != 78 || len(sessions) != headers {
		t.Fatalf("%d headers, %d sessions found; want 78 of each", headers, len(sessions))
	}
	seen := map[string]bool{}
	for _, s := range sessions {
		if seen[s] {
			t.Errorf("session id %s given twice", s)
		}
		seen[s] = true
	}
	res := readAll(t, publicHistory)
	if res.BadLines != 0 || len(res.Rows) < 150 {
		t.Fatalf("%d bad lines (%s), %d rows", res.BadLines, res.Warning, len(res.Rows))
	}
	for _, r := range res.Rows {
		if !seen[r.Session] {
			t.Errorf("row of line %d in session %s, which no header started", r.Line, r.Session)
		}
	}
	checkNoOutput(t, res.Rows)
}

// checkNoOutput checks that no row holds a line Aider wrote as its own
// output (a "> " line ended by Aider's line break, a token report), nor
// a prompt line, and that no reply holds a "> " line outside its code
// blocks: the messages were cut where they end.
func checkNoOutput(t *testing.T, rows []transcript.Extracted) {
	t.Helper()
	for _, r := range rows {
		if !utf8.ValidString(r.Text) {
			t.Errorf("line %d: text is not UTF-8", r.Line)
		}
		if r.Type == "tool" {
			continue
		}
		var f fence
		open := false
		for _, line := range strings.Split(r.Text, "\n") {
			switch {
			case isOutputLine(line) && (endsEntry(line) || isUsageReport(line)):
				t.Errorf("%s row of line %d holds Aider's output %q", r.Type, r.Line, line)
			case isPromptLine(line) && endsEntry(line):
				t.Errorf("%s row of line %d holds a prompt line %q", r.Type, r.Line, line)
			case r.Type == "assistant" && !open && isOutputLine(line):
				t.Errorf("reply of line %d holds %q outside a code block", r.Line, line)
			}
			if open && f.closedBy(line) {
				open = false
			} else if !open {
				f, open = openFence(line)
			}
		}
	}
}
