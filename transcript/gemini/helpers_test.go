package gemini

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recall-dev/recall/filter"
	"github.com/recall-dev/recall/record"
	"github.com/recall-dev/recall/transcript"
)

// fixtures is the tests' home: Gemini CLI's folder is its .gemini.
const fixtures = "../../testdata/transcripts/gemini"

// fixtureGemini is the fixtures' Gemini CLI folder.
var fixtureGemini = filepath.Join(fixtures, "home", ".gemini")

// read reads t's file from st with ReadFormat, as the indexer does.
func read(t testing.TB, tr transcript.Transcript, st record.FileState) transcript.Result {
	t.Helper()
	st.Path = tr.Path
	if st.Gen == 0 {
		st.Gen = 1
	}
	if tr.Stat == (transcript.FileStat{}) {
		fs, err := transcript.StatFile(tr.Path)
		if err != nil {
			t.Fatal(err)
		}
		tr.Stat = fs
	}
	return transcript.ReadFormat(Format(), transcript.Work{T: tr, State: st}, "", bufio.NewReaderSize(nil, 1<<16))
}

// next is the state a read leaves its file in, for the read after it.
func next(res transcript.Result) record.FileState {
	return record.FileState{Path: res.Work.T.Path, Gen: res.Work.State.Gen, Offset: res.Offset, Lines: res.Lines,
		Session: res.Session, Project: res.Project, Tail: res.Tail}
}

// copyTree copies the fixtures' home into a temporary folder and returns
// the copy's .gemini.
func copyTree(t testing.TB) string {
	t.Helper()
	dst := t.TempDir()
	src := filepath.Join(fixtures, "home")
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dst, ".gemini")
}

// project makes a project's folder for tests under a temporary Gemini CLI
// folder: tmp/<slug> with .project_root, and its chats folder.
func project(t testing.TB, slug, root string) (gemini, chats string) {
	t.Helper()
	gemini = filepath.Join(t.TempDir(), ".gemini")
	chats = filepath.Join(gemini, "tmp", slug, "chats")
	if err := os.MkdirAll(chats, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(gemini, "tmp", slug, projectRootFile), []byte(root), 0o644); err != nil {
		t.Fatal(err)
	}
	return gemini, chats
}

// writeLines writes lines, each ending in '\n', to path.
func writeLines(t testing.TB, path string, lines ...string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// appendLines appends lines, each ending in '\n', to path.
func appendLines(t testing.TB, path string, lines ...string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(strings.Join(lines, "\n") + "\n"); err != nil {
		t.Fatal(err)
	}
}

// mainFile is a session file's Transcript as Discover makes it.
func mainFile(path string) transcript.Transcript {
	return transcript.Transcript{Path: path, Kind: record.KindOf(record.AgentGemini, false)}
}

// counts renders a read's non-zero counts by reason.
func counts(c [16]int64) string {
	var b strings.Builder
	for _, r := range filter.Reasons() {
		if c[r] != 0 {
			fmt.Fprintf(&b, " %s=%d", r, c[r])
		}
	}
	return b.String()
}

// esc escapes what a TSV field cannot hold.
func esc(s string) string {
	return strings.NewReplacer(`\`, `\\`, "\t", `\t`, "\n", `\n`, "\r", `\r`).Replace(s)
}

// truncateTo sets path's size (a sparse file when it grows).
func truncateTo(path string, size int64) error { return os.Truncate(path, size) }
