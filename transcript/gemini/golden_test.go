package gemini

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/recall-dev/recall/record"
)

var update = flag.Bool("update", false, "rewrite testdata/transcripts/gemini/golden.tsv")

// TestGolden reads every fixture session as Discover finds it and
// compares its rows, and what each read left out, with golden.tsv.
func TestGolden(t *testing.T) {
	var b strings.Builder
	b.WriteString("# file\tsession\ttimestamp\ttype\trole\ttext\tproject\tline\tagent_id\tentrypoint\tagent\tuuid\n")
	found := Discover(fixtureGemini, func(s string) { t.Errorf("warning: %s", s) })
	if len(found) != 9 {
		t.Fatalf("found %d session files, want 9", len(found))
	}
	for _, tr := range found {
		res := read(t, tr, record.FileState{})
		if res.Err != nil {
			t.Fatalf("%s: %v", tr.Path, res.Err)
		}
		rel, _ := filepath.Rel(fixtureGemini, tr.Path)
		for _, r := range res.Rows {
			if !utf8.ValidString(r.Text) {
				t.Errorf("%s: row text not UTF-8: %q", rel, r.Text)
			}
			fmt.Fprintf(&b, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\n", rel, r.Session, r.Timestamp, r.Type, r.Role,
				goldenText(r.Text), esc(r.Project), r.Line, r.AgentID, r.Entrypoint, r.Agent, r.UUID)
		}
		fmt.Fprintf(&b, "# %s: session %q, project %q, lines %d, bad %d%s\n", rel, res.Session, res.Project, res.Lines,
			res.BadLines, counts(res.Counts))
	}
	got := b.String()
	if strings.Contains(got, "ghp_A1b2") {
		t.Error("the fixture's secret is in a row")
	}
	golden := filepath.Join(fixtures, "golden.tsv")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (go test -update writes it)", err)
	}
	if got != string(want) {
		t.Errorf("rows differ from %s (go test -update rewrites it):\n%s", golden, diffLines(string(want), got))
	}
}

// goldenText is a row's text for the golden file: a long one by its
// start, its end and its length.
func goldenText(s string) string {
	if len(s) <= 400 {
		return esc(s)
	}
	head, tail := s[:120], s[len(s)-120:]
	for !utf8.ValidString(head) {
		head = head[:len(head)-1]
	}
	for !utf8.ValidString(tail) {
		tail = tail[1:]
	}
	return esc(head) + fmt.Sprintf(" […%d bytes…] ", len(s)) + esc(tail)
}

// diffLines lists the lines only one of want and got has.
func diffLines(want, got string) string {
	in := func(s string) map[string]bool {
		m := map[string]bool{}
		for _, l := range strings.Split(s, "\n") {
			m[l] = true
		}
		return m
	}
	w, g := in(want), in(got)
	var b strings.Builder
	for _, l := range strings.Split(want, "\n") {
		if !g[l] {
			b.WriteString("- " + l + "\n")
		}
	}
	for _, l := range strings.Split(got, "\n") {
		if !w[l] {
			b.WriteString("+ " + l + "\n")
		}
	}
	return b.String()
}
