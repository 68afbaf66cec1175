package aider

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/recall-dev/recall/record"
	"github.com/recall-dev/recall/transcript"
)

// fixtures is the tests' folder of histories, laid out as on disk: a
// folder of projects, each with its .aider.chat.history.md, and public/
// holding part of a real one.
const fixtures = "../../testdata/transcripts/aider"

// publicHistory is the real history (public/NOTICE.md).
const publicHistory = fixtures + "/public/chat-history.md"

// testZone is where the tests' histories were written: the headers'
// local times are read in it (time.Local), so that the rows' UTC times
// and the session ids do not depend on the machine's zone.
var testZone = time.FixedZone("UTC+2", 2*60*60)

func TestMain(m *testing.M) {
	time.Local = testZone
	os.Exit(m.Run())
}

// transcriptOf is the Transcript of the history at path, by its own
// path, as Discover lists it.
func transcriptOf(t testing.TB, path string) transcript.Transcript {
	t.Helper()
	abs := mustAbs(t, path)
	st, err := transcript.StatFile(abs)
	if err != nil {
		t.Fatal(err)
	}
	return transcript.Transcript{Path: abs, Kind: record.KindOf(record.AgentAider, false), Stat: st}
}

// readFrom reads the history at path on from state (its zero value: the
// whole file, as a new generation 1).
func readFrom(t testing.TB, path string, state record.FileState) transcript.Result {
	t.Helper()
	tr := transcriptOf(t, path)
	state.Path = tr.Path
	if state.Gen == 0 {
		state.Gen = 1
	}
	res := transcript.ReadFormat(Format(), transcript.Work{T: tr, State: state}, "", bufio.NewReaderSize(nil, 1<<16))
	if res.Err != nil {
		t.Fatalf("read %s: %v", path, res.Err)
	}
	return res
}

// readAll reads the whole history at path.
func readAll(t testing.TB, path string) transcript.Result {
	t.Helper()
	return readFrom(t, path, record.FileState{})
}

// next is the state a read leaves for the next one.
func next(state record.FileState, res transcript.Result) record.FileState {
	state.Offset, state.Lines = res.Offset, res.Lines
	state.Session, state.Project, state.Tail = res.Session, res.Project, res.Tail
	return state
}

// rowTSV is one row as the golden file holds it: the columns a source
// decides, with the key (identity) after them.
func rowTSV(r transcript.Extracted) string {
	return strings.Join([]string{r.Session, r.Timestamp, r.Type, r.Role, esc(r.Text), esc(r.Project),
		fmt.Sprint(r.Line), r.AgentID, r.Entrypoint, r.Agent, r.UUID, fmt.Sprint(r.Block)}, "\t")
}

// esc makes text one TSV field.
func esc(s string) string {
	return strings.NewReplacer(`\`, `\\`, "\t", `\t`, "\n", `\n`, "\r", `\r`).Replace(s)
}

// rowsTSV is rows, one per line, with their keys.
func rowsTSV(rows []transcript.Extracted) string {
	var b strings.Builder
	for _, r := range rows {
		fmt.Fprintf(&b, "%s\t%016x\n", rowTSV(r), r.Key)
	}
	return b.String()
}

// writeTemp writes a history into a fresh project folder and returns
// its path.
func writeTemp(t testing.TB, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), historyName)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// appendTo appends text to the file at path.
func appendTo(t testing.TB, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
}
