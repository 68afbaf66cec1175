package codex

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/recall-dev/recall/filter"
	"github.com/recall-dev/recall/record"
	"github.com/recall-dev/recall/transcript"
)

var update = flag.Bool("update", false, "rewrite the golden file")

// fixtures is Codex's home of the hand-written rollouts.
const fixtures = "../../testdata/transcripts/codex"

// Fixture threads.
const (
	threadPlain    = "0199b6f2-1c3a-7d41-9e0a-5b7c2d9e1f01"
	threadResumed  = "0199b6f2-1c3a-7d41-9e0a-5b7c2d9e1f02"
	threadFork     = "0199b6f2-1c3a-7d41-9e0a-5b7c2d9e1f03"
	threadSubagent = "0199b6f2-1c3a-7d41-9e0a-5b7c2d9e1f04"
	threadExec     = "0199b6f2-1c3a-7d41-9e0a-5b7c2d9e1f05"
	threadEvents   = "0199b6f2-1c3a-7d41-9e0a-5b7c2d9e1f06"
	threadLegacy   = "5973b6c0-94b8-487b-a530-2aeb6098ae0e"
)

// fixturePath is the path of the fixture rollout of thread.
func fixturePath(t *testing.T, thread string) string {
	t.Helper()
	for _, tr := range Discover(fixtures, func(s string) { t.Fatal(s) }) {
		if tr.Session == thread {
			return tr.Path
		}
	}
	t.Fatalf("no fixture rollout of %s", thread)
	return ""
}

// transcriptOf is the Transcript Discover makes of path.
func transcriptOf(t *testing.T, path string) transcript.Transcript {
	t.Helper()
	st, err := transcript.StatFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return transcript.Transcript{Path: path, Kind: record.KindOf(record.AgentCodex, false),
		Session: threadIDOf(filepath.Base(path)), Stat: st}
}

// read reads path from state (a new file's: Offset 0) as the indexer does.
func read(t *testing.T, path string, state record.FileState) transcript.Result {
	t.Helper()
	state.Path, state.Gen = path, 1
	res := transcript.ReadFormat(Format(), transcript.Work{T: transcriptOf(t, path), State: state}, "",
		bufio.NewReaderSize(nil, 1<<16))
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	return res
}

// next is the state the indexer keeps after res.
func next(res transcript.Result) record.FileState {
	return record.FileState{Offset: res.Offset, Lines: res.Lines, Session: res.Session, Project: res.Project, Tail: res.Tail}
}

// TestGolden reads every fixture rollout whole and compares its rows, as
// TSV, and what each read dropped, with rows.golden.tsv (go test -update
// rewrites it).
func TestGolden(t *testing.T) {
	var out bytes.Buffer
	out.WriteString("# session\ttimestamp\ttype\trole\ttext\tproject\tline\tagent_id\tentrypoint\tagent\n")
	for _, tr := range Discover(fixtures, func(s string) { t.Fatal(s) }) {
		res := read(t, tr.Path, record.FileState{})
		rel, _ := filepath.Rel(mustAbs(t, fixtures), tr.Path)
		fmt.Fprintf(&out, "\n## %s\n## where: session=%s project=%s lines=%d bad_lines=%d counts:%s\n",
			rel, res.Session, res.Project, res.Lines, res.BadLines, countsText(res.Counts))
		for _, r := range res.Rows {
			fmt.Fprintf(&out, "%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\n", r.Session, r.Timestamp, r.Type, r.Role,
				escape(r.Text), r.Project, r.Line, r.AgentID, r.Entrypoint, r.Agent)
		}
	}
	golden := filepath.Join(fixtures, "rows.golden.tsv")
	if *update {
		if err := os.WriteFile(golden, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (go test -update writes it)", err)
	}
	if !bytes.Equal(want, out.Bytes()) {
		t.Errorf("rows differ from %s (-want +got):\n%s", golden, lineDiff(string(want), out.String()))
	}
}

func mustAbs(t *testing.T, p string) string {
	t.Helper()
	abs, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

func countsText(c [16]int64) string {
	var b strings.Builder
	for r := filter.Kept; r <= filter.Binary; r++ {
		if c[r] != 0 {
			fmt.Fprintf(&b, " %s=%d", r, c[r])
		}
	}
	return b.String()
}

func escape(s string) string {
	return strings.NewReplacer(`\`, `\\`, "\t", `\t`, "\n", `\n`, "\r", `\r`).Replace(s)
}

// lineDiff lists the lines only one of want and got has.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	for _, l := range w {
		if !slices.Contains(g, l) {
			b.WriteString("-" + l + "\n")
		}
	}
	for _, l := range g {
		if !slices.Contains(w, l) {
			b.WriteString("+" + l + "\n")
		}
	}
	return b.String()
}

// TestIncrementalRead splits every fixture at every line: reading the
// first part and then, from the state the first read left, the lines
// appended since must give exactly the rows the whole file gives past
// the split, with the same session, project, entrypoint and identity
// (the second read replays the first part to count repeats as a read of
// the whole file does).
func TestIncrementalRead(t *testing.T) {
	for _, tr := range Discover(fixtures, func(s string) { t.Fatal(s) }) {
		if strings.HasSuffix(tr.Path, ".zst") || isDocument(tr.Path) {
			continue // read whole (TestDocumentRewritten)
		}
		data, err := os.ReadFile(tr.Path)
		if err != nil {
			t.Fatal(err)
		}
		whole := read(t, tr.Path, record.FileState{})
		lines := bytes.SplitAfter(data, []byte("\n"))
		name := filepath.Base(tr.Path)
		for split := 1; split < len(lines); split++ {
			path := filepath.Join(t.TempDir(), name)
			writeFile(t, path, bytes.Join(lines[:split], nil))
			first := read(t, path, record.FileState{})
			appendFile(t, path, bytes.Join(lines[split:], nil))
			second := read(t, path, next(first))
			var want []transcript.Extracted
			for _, r := range whole.Rows {
				if r.Line > first.Lines {
					want = append(want, r)
				}
			}
			if got := rowKeys(second.Rows); !slices.Equal(got, rowKeys(want)) {
				t.Fatalf("%s split after line %d: second read\n got %q\nwant %q", name, split, got, rowKeys(want))
			}
			if second.Session != whole.Session || second.Project != whole.Project {
				t.Fatalf("%s split after line %d: where = %q %q, want %q %q", name, split,
					second.Session, second.Project, whole.Session, whole.Project)
			}
		}
	}
}

// rowKeys renders what identifies each row and where it belongs.
func rowKeys(rows []transcript.Extracted) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = fmt.Sprintf("%d %s/%s %s %s %s %s %x %.30s", r.Line, r.Type, r.Role, r.Session, r.AgentID,
			r.Project, r.Entrypoint, r.Key, r.Text)
	}
	return out
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func appendFile(t *testing.T, path string, data []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(data); err != nil {
		t.Fatal(err)
	}
}

// TestReadAppendedLines: a second read of a file that grew gives exactly
// the rows of the lines appended, in the thread and project of the
// first, and a line being written (no '\n' yet) waits for its end.
func TestReadAppendedLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rollout-2026-01-01T00-00-00-"+threadPlain+".jsonl")
	writeFile(t, path, []byte(metaLine(threadPlain, "/home/dev/app", "cli")+"\n"+
		itemLine("message", `"role":"user","content":[{"type":"input_text","text":"First prompt of the thread here"}]`)+"\n"))
	first := read(t, path, record.FileState{})
	if len(first.Rows) != 1 || first.Session != threadPlain || first.Project != "/home/dev/app" {
		t.Fatalf("first read: %d rows, where %q %q", len(first.Rows), first.Session, first.Project)
	}
	appendFile(t, path, []byte(itemLine("message", `"role":"assistant","content":[{"type":"output_text","text":"A reply to the first prompt"}]`)+"\n"+
		itemLine("message", `"role":"user","content":[{"type":"input_text","text":"still being typ`)))
	second := read(t, path, next(first))
	if len(second.Rows) != 1 || second.Rows[0].Text != "A reply to the first prompt" || second.Rows[0].Line != 3 {
		t.Fatalf("second read: %q", rowKeys(second.Rows))
	}
	if r := second.Rows[0]; r.Session != threadPlain || r.Project != "/home/dev/app" || r.Entrypoint != "codex-cli" {
		t.Fatalf("second read's row: %q", rowKeys(second.Rows))
	}
	if second.Session != first.Session || second.Project != first.Project || second.Lines != 3 {
		t.Fatalf("second read: where %q %q, %d lines", second.Session, second.Project, second.Lines)
	}
}

// metaLine is a session_meta line of thread, run in cwd from source.
func metaLine(thread, cwd, source string) string {
	return `{"timestamp":"2026-01-01T00:00:00.000Z","type":"session_meta","payload":{"id":"` + thread +
		`","timestamp":"2026-01-01T00:00:00.000Z","cwd":"` + cwd + `","originator":"codex_cli_rs","cli_version":"0.50.0","source":"` + source + `"}}`
}

// itemLine is a response_item line of payload type typ and members.
func itemLine(typ, members string) string {
	return `{"timestamp":"2026-01-01T00:00:01.000Z","type":"response_item","payload":{"type":"` + typ + `",` + members + `}}`
}

func eventLine(typ, members string) string {
	return `{"timestamp":"2026-01-01T00:00:02.000Z","type":"event_msg","payload":{"type":"` + typ + `",` + members + `}}`
}
