package aider

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recall-dev/recall/record"
	"github.com/recall-dev/recall/transcript"
)

// histories are the fixtures' histories: the projects' and the real one.
func histories(t testing.TB) []string {
	t.Helper()
	var out []string
	for _, tr := range Discover(filepath.Join(fixtures, "projects"), func(s string) { t.Error(s) }) {
		out = append(out, tr.Path)
	}
	return append(out, mustAbs(t, publicHistory))
}

// readGrowing writes data to a new history in the pieces cuts makes
// (offsets, increasing), reading it after each, and returns the rows of
// all the reads, the last read's result, and the result of one read of
// the whole file it grew to. It checks that each read after the first
// continues the same file (no rewrite).
func readGrowing(t testing.TB, data []byte, cuts []int) (rows []transcript.Extracted, last, whole transcript.Result) {
	t.Helper()
	path := writeTemp(t, "")
	var state record.FileState
	prev := 0
	for _, cut := range append(cuts, len(data)) {
		if cut < prev || cut > len(data) {
			continue
		}
		appendTo(t, path, string(data[prev:cut]))
		prev = cut
		last = readFrom(t, path, state)
		if last.Rewritten || last.Binary {
			t.Fatalf("read up to %d: rewritten %v, binary %v", cut, last.Rewritten, last.Binary)
		}
		rows = append(rows, last.Rows...)
		state = next(state, last)
	}
	return rows, last, readAll(t, path)
}

// TestSplitAnywhere reads each history as it grows, a line at a time,
// and in pieces cut anywhere (lines written in parts): the rows, their
// keys and identities, and where the reads end, are those of one read
// of the whole file.
func TestSplitAnywhere(t *testing.T) {
	for _, path := range histories(t) {
		t.Run(filepath.Base(filepath.Dir(path)), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			// Line by line.
			var cuts []int
			for i, c := range data {
				if c == '\n' {
					cuts = append(cuts, i+1)
				}
			}
			if testing.Short() && len(cuts) > 2000 {
				cuts = cuts[:2000] // the rest in one piece
			}
			rows, last, whole := readGrowing(t, data, cuts)
			checkSame(t, "line by line", rows, last, whole)
			// Anywhere, lines in parts.
			r := rand.New(rand.NewPCG(1, uint64(len(data))))
			cuts = cuts[:0]
			for at := 0; at < len(data); at += 1 + r.IntN(3000) {
				cuts = append(cuts, at)
			}
			rows, last, whole = readGrowing(t, data, cuts)
			checkSame(t, "in pieces", rows, last, whole)
		})
	}
}

// checkSame checks that rows, read in parts the last of which was last,
// are those of one read of the whole file.
func checkSame(t testing.TB, how string, rows []transcript.Extracted, last, whole transcript.Result) {
	t.Helper()
	if got, want := rowsTSV(rows), rowsTSV(whole.Rows); got != want {
		gl, wl := strings.Split(got, "\n"), strings.Split(want, "\n")
		for i := range min(len(gl), len(wl)) {
			if gl[i] != wl[i] {
				t.Fatalf("%s: row %d:\n got %.300s\nwant %.300s", how, i+1, gl[i], wl[i])
			}
		}
		t.Fatalf("%s: %d rows, want %d", how, len(gl)-1, len(wl)-1)
	}
	if last.Offset != whole.Offset || last.Lines != whole.Lines || last.Session != whole.Session || last.Project != whole.Project {
		t.Fatalf("%s: ends at %d, line %d, %s; want %d, %d, %s", how, last.Offset, last.Lines, last.Session,
			whole.Offset, whole.Lines, whole.Session)
	}
}

// TestIncremental reads a history, then the lines appended to it: the
// second read gives exactly the new rows, in the same session and
// project, and a third read of nothing new gives none.
func TestIncremental(t *testing.T) {
	first := session1 + "\n#### add a /healthz endpoint to the app  \n\nAdded it to `app/routes.py`.\n\n> Applied edit to app/routes.py  \n"
	second := "> Commit 3f9a2c1 feat: Add /healthz endpoint  \n\n#### now document it in the README  \n\nDocumented under *Operations*.\n\n> Tokens: 1k sent, 20 received.  \n"
	path := writeTemp(t, first)
	res1 := readAll(t, path)
	appendTo(t, path, second)
	res2 := readFrom(t, path, next(record.FileState{}, res1))
	whole := readAll(t, path)

	got := rowsTSV(append(append([]transcript.Extracted(nil), res1.Rows...), res2.Rows...))
	if want := rowsTSV(whole.Rows); got != want {
		t.Fatalf("rows read in two parts:\n%s\nwant:\n%s", got, want)
	}
	if len(res1.Rows) != 2 || len(res2.Rows) != 4 { // the edit's row is made once the next line shows it whole
		t.Fatalf("%d rows, then %d; want 2, then 4", len(res1.Rows), len(res2.Rows))
	}
	if res2.Session != res1.Session || res2.Project != res1.Project || res2.Rows[0].Session != res1.Session ||
		res2.Rows[0].Project != filepath.Dir(mustAbs(t, path)) {
		t.Errorf("second read in %s %s, first in %s %s", res2.Session, res2.Project, res1.Session, res1.Project)
	}
	res3 := readFrom(t, path, next(next(record.FileState{}, res1), res2))
	if len(res3.Rows) != 0 || res3.Offset != res2.Offset {
		t.Errorf("a read of nothing new gave %d rows, offset %d (was %d)", len(res3.Rows), res3.Offset, res2.Offset)
	}
}

// TestSkippedLongLine: a line too long to read (over
// transcript.MaxLineBytes) ends the message it was in, whose rows are
// made; what follows reads on.
func TestSkippedLongLine(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 16 MiB line")
	}
	long := bytes.Repeat([]byte("y"), transcript.MaxLineBytes+1)
	text := session1 + "\nA reply before a pasted log.\n" + string(long) + "\n\n#### and a prompt after it  \n" + tail
	res := readAll(t, writeTemp(t, text))
	if res.TooLong != 1 || len(res.Rows) != 2 || short(res.Rows[0]) != "assistant@7: A reply before a pasted log." ||
		short(res.Rows[1]) != "user@10: and a prompt after it" {
		t.Fatalf("too long %d, rows %v", res.TooLong, res.Rows)
	}
}
