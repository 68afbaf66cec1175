package gemini

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/recall-dev/recall/record"
	"github.com/recall-dev/recall/transcript"
)

// mainSession is the fixtures' main session, relative to .gemini.
var mainSession = filepath.Join("tmp", "webapp", "chats", "session-2026-03-01T10-00-1f2e3d4c.jsonl")

// fixtureLines are the lines of a fixture file, each without its '\n'.
func fixtureLines(t testing.TB, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range bytes.SplitAfter(data, []byte("\n")) {
		if len(l) > 0 {
			out = append(out, string(bytes.TrimSuffix(l, []byte("\n"))))
		}
	}
	return out
}

// rowID is what a row must keep across reads.
type rowID struct {
	key   uint64
	line  int
	block int
	uuid  string
	text  string
}

func ids(rows []transcript.Extracted) []rowID {
	out := make([]rowID, len(rows))
	for i, r := range rows {
		out[i] = rowID{r.Key, r.Line, r.Block, r.UUID, r.Text}
	}
	return out
}

// TestIncremental reads the main session in two parts, split between two
// messages, and checks that the second read continues the first: its
// rows are exactly those the whole file makes after the first read's,
// in the same session and project.
func TestIncremental(t *testing.T) {
	gemini := copyTree(t)
	path := filepath.Join(gemini, mainSession)
	lines := fixtureLines(t, path)
	whole := read(t, mainFile(path), record.FileState{})

	const split = 12 // after the prompt that references @src/limits.ts
	writeLines(t, path, lines[:split]...)
	first := read(t, mainFile(path), record.FileState{})
	appendLines(t, path, lines[split:]...)
	second := read(t, mainFile(path), next(first))

	if second.Err != nil || second.Rewritten {
		t.Fatalf("second read: %v, rewritten %v", second.Err, second.Rewritten)
	}
	if second.Session != first.Session || second.Project != first.Project || second.Session != whole.Session || second.Project == "" {
		t.Errorf("second read in %q %q, first %q %q", second.Session, second.Project, first.Session, first.Project)
	}
	if second.Lines != len(lines) || second.Offset != whole.Offset {
		t.Errorf("second read ends at line %d, offset %d; want %d, %d", second.Lines, second.Offset, len(lines), whole.Offset)
	}
	got := append(ids(first.Rows), ids(second.Rows)...)
	if want := ids(whole.Rows); !slices.Equal(got, want) {
		t.Errorf("two reads made\n%s%s\nthe whole file\n%s", rowsOf(first.Rows), rowsOf(second.Rows), rowsOf(whole.Rows))
	}
	for _, r := range second.Rows {
		if r.Session != first.Session || r.Project != first.Project {
			t.Errorf("row %q in %q %q", r.Text, r.Session, r.Project)
		}
	}
}

// TestIncrementalUpdate splits the main session between two versions
// of one message: the second read gives the message's rows again, with
// the keys the first read's have (the committer leaves them out as
// copies), and the tool call its new version adds.
func TestIncrementalUpdate(t *testing.T) {
	gemini := copyTree(t)
	path := filepath.Join(gemini, mainSession)
	lines := fixtureLines(t, path)
	whole := read(t, mainFile(path), record.FileState{})

	const split = 5 // after the first version of the message a0000002
	writeLines(t, path, lines[:split]...)
	first := read(t, mainFile(path), record.FileState{})
	appendLines(t, path, lines[split:]...)
	second := read(t, mainFile(path), next(first))

	keys := map[uint64]bool{}
	for _, r := range append(slices.Clone(first.Rows), second.Rows...) {
		keys[r.Key] = true
	}
	for _, r := range whole.Rows {
		if !keys[r.Key] {
			t.Errorf("row %q of the whole file made by neither read", r.Text)
		}
		delete(keys, r.Key)
	}
	if len(keys) > 0 {
		t.Errorf("%d rows made by the reads and not by the whole file", len(keys))
	}
	again := 0
	for _, r := range second.Rows {
		for _, f := range first.Rows {
			if r.Key == f.Key {
				again++
			}
		}
	}
	if again != 1 {
		t.Errorf("%d rows of the first read made again, want the reply's text", again)
	}
}

// TestTruncatedLastLine checks that a last line without its '\n' is left
// for the next read, which reads it once it ends.
func TestTruncatedLastLine(t *testing.T) {
	gemini := copyTree(t)
	path := filepath.Join(gemini, "tmp", "old-tool", "chats", "session-2026-01-05T08-30-77aa88bb.jsonl")
	first := read(t, mainFile(path), record.FileState{})
	for _, r := range first.Rows {
		if r.UUID == "e0000010" {
			t.Fatal("the unfinished last line made a row")
		}
	}
	appendLines(t, path, "")
	second := read(t, mainFile(path), next(first))
	if len(second.Rows) != 1 || second.Rows[0].UUID != "e0000010" || second.Session != first.Session || second.Project != "/home/dev/old-tool" {
		t.Errorf("second read: session %q project %q rows\n%s", second.Session, second.Project, rowsOf(second.Rows))
	}
}

// TestIdentity checks message identity across files: a legacy session
// and the .jsonl it was rewritten as give their messages the same keys,
// a session file moved gives the same keys, and two messages with the
// same text give different ones.
func TestIdentity(t *testing.T) {
	chats := filepath.Join(fixtureGemini, "tmp", "webapp", "chats")
	legacy := read(t, mainFile(filepath.Join(chats, "session-2026-02-20T09-15-5a6b7c8d.json")), record.FileState{})
	lines := read(t, mainFile(filepath.Join(chats, "session-2026-02-20T09-15-5a6b7c8d.jsonl")), record.FileState{})
	keys := map[uint64]bool{}
	for _, r := range lines.Rows {
		keys[r.Key] = true
	}
	if len(legacy.Rows) == 0 {
		t.Fatal("the legacy session made no rows")
	}
	for _, r := range legacy.Rows {
		if !keys[r.Key] {
			t.Errorf("legacy row %s %q has no copy in the rewritten session", r.Type, r.Text)
		}
	}
	if legacy.Session != lines.Session {
		t.Errorf("legacy session %q, rewritten %q", legacy.Session, lines.Session)
	}

	orig := read(t, mainFile(filepath.Join(fixtureGemini, mainSession)), record.FileState{})
	moved := filepath.Join(t.TempDir(), "elsewhere", "session-moved.jsonl")
	if err := os.MkdirAll(filepath.Dir(moved), 0o755); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(fixtureGemini, mainSession))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(moved, data, 0o644); err != nil {
		t.Fatal(err)
	}
	again := read(t, mainFile(moved), record.FileState{})
	a, b := ids(orig.Rows), ids(again.Rows)
	for i := range a {
		a[i].line, b[i].line = 0, 0
	}
	if !slices.Equal(a, b) {
		t.Errorf("the moved file's rows differ:\n%s\n%s", rowsOf(orig.Rows), rowsOf(again.Rows))
	}

	var same []transcript.Extracted
	for _, r := range orig.Rows {
		if r.Text == "run the tests again please" {
			same = append(same, r)
		}
	}
	if len(same) != 2 || same[0].Key == same[1].Key || same[0].Key == 0 {
		t.Errorf("the two prompts of the same text: %d rows, keys equal", len(same))
	}
}
