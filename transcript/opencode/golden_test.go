package opencode

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/recall-dev/recall/filter"
	"github.com/recall-dev/recall/record"
)

var update = flag.Bool("update", false, "rewrite testdata/transcripts/opencode/golden.tsv")

// TestGolden reads every fixture (the database built from opencode.sql
// and each session of the JSON storage) as recall finds them, and
// compares their rows, and what each read left out, with golden.tsv.
func TestGolden(t *testing.T) {
	root := fixtureRoot(t)
	var b strings.Builder
	b.WriteString("# file\tsession\ttimestamp\ttype\trole\ttext\tproject\tline\tagent_id\tentrypoint\tagent\tuuid\n")
	found := Discover(root, func(s string) { t.Errorf("warning: %s", s) })
	if len(found) != 4 {
		t.Fatalf("found %d stores, want the database and 3 sessions", len(found))
	}
	for _, tr := range found {
		res := read(t, testFormat(), tr, record.FileState{})
		rel, _ := filepath.Rel(root, tr.Path)
		for _, r := range res.Rows {
			if !utf8.ValidString(r.Text) {
				t.Errorf("%s: row text not UTF-8: %q", rel, r.Text)
			}
			fmt.Fprintf(&b, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\n", rel, r.Session, r.Timestamp, r.Type, r.Role,
				goldenText(r.Text), esc(r.Project), r.Line, r.AgentID, r.Entrypoint, r.Agent, r.UUID)
		}
		fmt.Fprintf(&b, "# %s: session %q, project %q, cursor %d;%s\n", rel, res.Session, res.Project, res.Offset, counts(res.Counts))
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
		t.Fatalf("%v (run go test -update to write it)", err)
	}
	if got != string(want) {
		t.Errorf("rows differ from %s (go test -update rewrites it):\n%s", golden, diffLines(string(want), got))
	}
}

// esc escapes what a TSV field cannot hold.
func esc(s string) string {
	return strings.NewReplacer(`\`, `\\`, "\t", `\t`, "\n", `\n`, "\r", `\r`).Replace(s)
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

func counts(c [16]int64) string {
	var b strings.Builder
	for _, r := range append([]filter.Reason{filter.Kept}, filter.Reasons()...) {
		if c[r] > 0 {
			fmt.Fprintf(&b, " %s=%d", r, c[r])
		}
	}
	return b.String()
}

// diffLines shows the lines of got that want lacks and the other way.
func diffLines(want, got string) string {
	w, g := map[string]bool{}, map[string]bool{}
	for _, l := range strings.Split(want, "\n") {
		w[l] = true
	}
	for _, l := range strings.Split(got, "\n") {
		g[l] = true
	}
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
