package opencode

import (
	"bufio"
	"database/sql"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recall-dev/recall/record"
	"github.com/recall-dev/recall/transcript"

	_ "modernc.org/sqlite" // the driver: the tests build databases, and read them in process
)

// fixtures is OpenCode's data folder of the tests, less its database,
// which opencode.sql there builds (buildDB).
const fixtures = "../../testdata/transcripts/opencode"

// fixtureT is the time the fixtures' times are counted from (ms), and
// testNow the tests' clock: five minutes into ses_beta's running turn.
const (
	fixtureT = 1795000000000
	testNow  = fixtureT + 400_000
)

func clockAt(ms int64) func() int64 { return func() int64 { return ms } }

// testFormat is Format with the tests' clock.
func testFormat() transcript.Format { return newFormat(clockAt(testNow)) }

// openRW opens the database at path read-write, in WAL mode as OpenCode
// does, creating it.
func openRW(t testing.TB, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(WAL)&_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	return db
}

// buildDB makes the database at path from the SQL text script.
func buildDB(t testing.TB, path, script string) {
	t.Helper()
	db := openRW(t, path)
	defer db.Close()
	if _, err := db.Exec(script); err != nil {
		t.Fatalf("build %s: %v", path, err)
	}
}

func execSQL(t testing.TB, db *sql.DB, q string, args ...any) {
	t.Helper()
	if _, err := db.Exec(q, args...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

// fixtureRoot copies the fixtures' data folder into a temporary one and
// builds its opencode.db there.
func fixtureRoot(t testing.TB) string {
	t.Helper()
	root := t.TempDir()
	err := filepath.WalkDir(fixtures, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(fixtures, path)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(root, rel), 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(root, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	script, err := os.ReadFile(filepath.Join(root, "opencode.sql"))
	if err != nil {
		t.Fatal(err)
	}
	buildDB(t, filepath.Join(root, "opencode.db"), string(script))
	return root
}

// dbTranscriptOf is the Transcript of the database at path.
func dbTranscriptOf(t testing.TB, path string) transcript.Transcript {
	t.Helper()
	tr, ok := dbTranscript(path, func(s string) { t.Fatal(s) })
	if !ok {
		t.Fatalf("no database at %s", path)
	}
	return tr
}

// read reads tr with f from state (its Path and Gen set here).
func read(t testing.TB, f transcript.Format, tr transcript.Transcript, state record.FileState) transcript.Result {
	t.Helper()
	state.Path, state.Gen = tr.Path, max(state.Gen, 1)
	res := transcript.ReadFormat(f, transcript.Work{T: tr, State: state}, "", bufio.NewReaderSize(nil, 1<<16))
	if res.Err != nil {
		t.Fatalf("read %s: %v", tr.Path, res.Err)
	}
	return res
}

// stateAfter is the file state a read leaves, for the next read.
func stateAfter(res transcript.Result) record.FileState {
	return record.FileState{Path: res.Work.T.Path, Gen: res.Work.State.Gen, Offset: res.Offset, Lines: res.Lines,
		Session: res.Session, Project: res.Project, Tail: res.Tail}
}

// texts lists rows as "type/role: text" lines.
func texts(rows []transcript.Extracted) []string {
	var out []string
	for _, r := range rows {
		out = append(out, r.Type+"/"+r.Role+": "+r.Text)
	}
	return out
}

// keySet is the keys of rows.
func keySet(rows []transcript.Extracted) map[uint64]bool {
	out := map[uint64]bool{}
	for _, r := range rows {
		out[r.Key] = true
	}
	return out
}

// fresh is the rows whose keys are not in seen: what the committer
// keeps of a read.
func fresh(rows []transcript.Extracted, seen map[uint64]bool) []transcript.Extracted {
	var out []transcript.Extracted
	for _, r := range rows {
		if !seen[r.Key] {
			out = append(out, r)
		}
	}
	return out
}

func joinLines(lines []string) string { return strings.Join(lines, "\n") }
