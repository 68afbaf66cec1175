package opencode

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/recall-dev/recall/filter"
	"github.com/recall-dev/recall/record"
	"github.com/recall-dev/recall/transcript"
)

// TestMain runs the test binary as recall-opencode when a test asks it
// to (helperEnv): readThroughHelper is then tested against a process that
// is the helper's code, in this build.
func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) == "1" {
		os.Exit(HelperMain(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

const helperEnv = "RECALL_OPENCODE_TEST_HELPER"

// helperFormat is Format reading databases as recall does, through a
// recall-opencode process: this test binary (TestMain) at bin.
func helperFormat(t *testing.T, bin string, now int64) transcript.Format {
	t.Setenv(helperEnv, "1")
	f := newFormat(clockAt(now))
	f.ReadAll = func(w transcript.Work, b *transcript.Builder) (string, string, int64, error) {
		return readThroughHelper(bin, w, b, now)
	}
	return f
}

// testBinary is the running test binary, run as the helper.
func testBinary(t *testing.T) string {
	bin, err := os.Executable()
	if err != nil {
		t.Skip("no path to the test binary:", err)
	}
	return bin
}

// withSecretFolder sets a session's folder to one holding a token, which
// the rows' project must not hold.
func withSecretFolder(t *testing.T, path string) {
	db := openRW(t, path)
	defer db.Close()
	execSQL(t, db, `UPDATE session SET directory = ? WHERE id = 'ses_alpha'`, "/home/dev/"+secretToken+"/api")
}

const secretToken = "ghp_Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2"

// TestHelperReadsAsInProcess: a read through recall-opencode gives what a
// read in process gives (every field of every row, the counts, the
// cursor), on a first read and on one from a cursor after writes, and the
// project folders are redacted all the same.
func TestHelperReadsAsInProcess(t *testing.T) {
	root := fixtureRoot(t)
	path := filepath.Join(root, "opencode.db")
	withSecretFolder(t, path)
	bin := testBinary(t)

	compare := func(name string, state record.FileState, now int64) transcript.Result {
		in := read(t, newFormat(clockAt(now)), dbTranscriptOf(t, path), state)
		via := read(t, helperFormat(t, bin, now), dbTranscriptOf(t, path), state)
		if len(in.Rows) == 0 {
			t.Fatalf("%s: no rows read", name)
		}
		if !reflect.DeepEqual(in.Rows, via.Rows) {
			t.Errorf("%s: rows through the helper differ:\n%s\nin process:\n%s", name, joinLines(texts(via.Rows)), joinLines(texts(in.Rows)))
		}
		if in.Counts != via.Counts || in.Offset != via.Offset {
			t.Errorf("%s: counts %v cursor %d through the helper, %v %d in process", name, via.Counts, via.Offset, in.Counts, in.Offset)
		}
		for _, r := range via.Rows {
			if strings.Contains(r.Project, secretToken) || strings.Contains(r.Text, secretToken) {
				t.Errorf("%s: a row holds the token: %+v", name, r.Row)
			}
		}
		return in
	}
	first := compare("first read", record.FileState{}, testNow)

	db := openRW(t, path)
	at := int64(fixtureT + 200_000)
	addTurn(t, db, "ses_gamma", "g05", at, "Now add tests for the TOML loader, table driven", "Added five table-driven tests for the TOML loader.")
	db.Close()
	compare("read from the cursor", stateAfter(first), at+300_000)
}

// TestHelperFailures: a helper that fails says why as a read in process
// would; one that is missing, or writes what is not a whole wire, fails
// the read (its rows are not used).
func TestHelperFailures(t *testing.T) {
	root := t.TempDir()
	notDB := filepath.Join(root, "opencode.db")
	if err := os.WriteFile(notDB, []byte("not a database at all, but long enough to be read as one"), 0o644); err != nil {
		t.Fatal(err)
	}
	tr := transcript.Transcript{Path: notDB}
	work := transcript.Work{T: tr, State: record.FileState{Path: notDB, Gen: 1}}
	bin := testBinary(t)
	t.Setenv(helperEnv, "1")

	_, _, _, inErr := readDB(work, transcript.NewBuilder(work, record.AgentOpenCode), testNow, defaultLimits)
	_, _, _, viaErr := readThroughHelper(bin, work, transcript.NewBuilder(work, record.AgentOpenCode), testNow)
	if inErr == nil || viaErr == nil || viaErr.Error() != oneLine(inErr.Error()) {
		t.Errorf("not a database: %v through the helper, %v in process", viaErr, inErr)
	}

	_, _, _, err := readThroughHelper("", work, transcript.NewBuilder(work, record.AgentOpenCode), testNow)
	if !errors.Is(err, errNoHelper) || !strings.Contains(err.Error(), "go install github.com/recall-dev/recall/cmd/recall-opencode") {
		t.Errorf("no helper: %v", err)
	}

	gone := work
	gone.T.Path = filepath.Join(root, "gone.db")
	if _, _, _, err := readThroughHelper(bin, gone, transcript.NewBuilder(gone, record.AgentOpenCode), testNow); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a database gone: %v, want one that says it does not exist", err)
	}

	// A helper of another make: what it writes is no wire.
	for name, script := range map[string]string{
		"writes no wire":    "#!/bin/sh\necho hello\n",
		"stops on the way":  "#!/bin/sh\nprintf 'RCOC\\001D\\001'\n",
		"exits 3, says why": "#!/bin/sh\necho 'out of memory' >&2\nexit 3\n",
	} {
		fake := filepath.Join(root, strings.ReplaceAll(name, " ", "-"))
		if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		if _, err := exec.LookPath("sh"); err != nil {
			t.Skip("no sh")
		}
		_, _, _, err := readThroughHelper(fake, work, transcript.NewBuilder(work, record.AgentOpenCode), testNow)
		if err == nil {
			t.Errorf("a helper that %s: the read succeeded", name)
		}
		t.Logf("%s: %v", name, err)
	}
}

// validWire is a wire of a few calls, a cursor at its end.
func validWire(t testing.TB) []byte {
	var buf bytes.Buffer
	w := newWireWriter(&buf)
	m := transcript.Meta{Session: "ses_a", Project: "/home/dev/" + secretToken, Timestamp: "2026-11-01T10:00:00.000Z",
		UUID: "prt_1", Line: 7, Entrypoint: entrypoint}
	w.Title(m, record.TitleAI, "Fix the flaky scheduler test")
	w.Text(m, "user", "Why does the scheduler test fail one run in ten?")
	m.Subagent, m.UUID, m.Line = "ses_b", "prt_2", 8
	w.Tool(m, "bash", []byte(`{"command":"go test -count=10 ./scheduler"}`))
	w.Drop(filter.Noise)
	if err := w.end(1795000000123); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestDecodeWire: a whole wire makes its calls and gives its cursor; any
// cut of it, or a byte of it changed where that makes it invalid, is an
// error and never a read.
func TestDecodeWire(t *testing.T) {
	wire := validWire(t)
	work := transcript.Work{T: transcript.Transcript{Path: "opencode.db"}, State: record.FileState{Gen: 1}}
	b := transcript.NewBuilder(work, record.AgentOpenCode)
	cursor, err := decodeWire(bufio.NewReader(bytes.NewReader(wire)), b)
	if err != nil || cursor != 1795000000123 {
		t.Fatalf("decode: cursor %d, %v", cursor, err)
	}
	rows := b.Rows()
	if got := texts(rows); len(got) != 3 {
		t.Fatalf("rows %q, want a title, a prompt and a call", got)
	}
	for _, r := range rows {
		if strings.Contains(r.Project, secretToken) || r.Project == "" {
			t.Errorf("project %q: redacted, not dropped", r.Project)
		}
	}
	if rows[2].Type != record.TypeAgent || rows[2].AgentID != "ses_b" || rows[2].Line != 8 {
		t.Errorf("the subagent's call: %+v", rows[2].Row)
	}

	for n := range len(wire) {
		b := transcript.NewBuilder(work, record.AgentOpenCode)
		if _, err := decodeWire(bufio.NewReader(bytes.NewReader(wire[:n])), b); err == nil {
			t.Errorf("a wire cut at %d of %d bytes decoded", n, len(wire))
		}
	}

	// A field longer than the decoder reads at once, whole and cut.
	var long bytes.Buffer
	lw := newWireWriter(&long)
	text := strings.Repeat("the scheduler test waits on a timer that never fires; ", 3000)
	lw.Text(transcript.Meta{Session: "ses_a", UUID: "prt_9", Line: 3}, "assistant", text)
	if err := lw.end(5); err != nil {
		t.Fatal(err)
	}
	b = transcript.NewBuilder(work, record.AgentOpenCode)
	if cursor, err := decodeWire(bufio.NewReader(bytes.NewReader(long.Bytes())), b); err != nil || cursor != 5 || len(b.Rows()) != 1 || len(b.Rows()[0].Text) < 100_000 {
		t.Errorf("a %d-byte text: cursor %d, %v, %d rows", len(text), cursor, err, len(b.Rows()))
	}
	for _, n := range []int{long.Len() / 2, long.Len() - 3} {
		b := transcript.NewBuilder(work, record.AgentOpenCode)
		if _, err := decodeWire(bufio.NewReader(bytes.NewReader(long.Bytes()[:n])), b); !errors.Is(err, errWireCut) {
			t.Errorf("a long text cut at %d of %d bytes: %v", n, long.Len(), err)
		}
	}

	bad := map[string][]byte{
		"magic":        append([]byte("RCOX\x01"), wire[5:]...),
		"version":      append([]byte("RCOC\x02"), wire[5:]...),
		"op":           []byte("RCOC\x01Z"),
		"reason":       []byte("RCOC\x01D\x7fE\x02"),
		"long field":   []byte("RCOC\x01T\xff\xff\xff\xff\x0f"),
		"huge reason":  []byte("RCOC\x01D\xff\xff\xff\xff\x0fE\x02"),
		"varint width": []byte("RCOC\x01E\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01"),
	}
	for name, data := range bad {
		b := transcript.NewBuilder(work, record.AgentOpenCode)
		if _, err := decodeWire(bufio.NewReader(bytes.NewReader(data)), b); err == nil {
			t.Errorf("%s: decoded", name)
		}
	}
}

// FuzzDecodeWire: no wire makes decodeWire panic or hold more than a
// field's bound at once.
func FuzzDecodeWire(f *testing.F) {
	f.Add(validWire(f))
	f.Add([]byte("RCOC\x01E\x00"))
	f.Add([]byte("RCOC\x01D\x01D\x09E\x02"))
	work := transcript.Work{T: transcript.Transcript{Path: "opencode.db"}, State: record.FileState{Gen: 1}}
	f.Fuzz(func(t *testing.T, data []byte) {
		b := transcript.NewBuilder(work, record.AgentOpenCode)
		cursor, err := decodeWire(bufio.NewReader(bytes.NewReader(data)), b)
		if err != nil && cursor != 0 {
			t.Errorf("cursor %d with %v", cursor, err)
		}
	})
}
