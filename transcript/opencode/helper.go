package opencode

import (
	"bufio"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strconv"
	"strings"

	"github.com/recall-dev/recall/internal/sibling"
	"github.com/recall-dev/recall/internal/tailbuf"
	"github.com/recall-dev/recall/record"
	"github.com/recall-dev/recall/transcript"
)

// HelperName is the binary that reads OpenCode's databases for recall.
// SQLite's pure-Go driver is a C library translated to Go: linked into
// recall, its package initialisers ran at every start (0.4 ms, a tenth
// of the no-change check) and it was a quarter of the binary, for the
// few runs that read a database that changed. recall runs the helper
// for those, and links no SQLite.
const HelperName = "recall-opencode"

// driverName is the database/sql driver the reader opens databases with.
const driverName = "sqlite"

// HasDatabase reports whether root holds a database to read (one found
// as Discover finds them): its sessions need recall-opencode.
func HasDatabase(root string) bool {
	for _, t := range Discover(root, func(string) {}) {
		if !isSessionFile(t.Path) {
			return true
		}
	}
	return false
}

// readDatabase reads the database at w.T.Path: in this process when it
// links SQLite's driver (recall-opencode does, and the tests that build
// databases), else through recall-opencode.
func readDatabase(w transcript.Work, b *transcript.Builder, now int64) (string, string, int64, error) {
	if driverLinked() {
		return readDB(w, b, now, defaultLimits)
	}
	return readThroughHelper(sibling.Find(HelperName), w, b, now)
}

func driverLinked() bool { return slices.Contains(sql.Drivers(), driverName) }

// CannotReadDatabases reports whether this process has no way to read a
// database: it links no driver, and finds no recall-opencode.
func CannotReadDatabases() bool { return !driverLinked() && sibling.Find(HelperName) == "" }

// errNoHelper says where recall-opencode was looked for.
var errNoHelper = errors.New("OpenCode's database is read by the recall-opencode binary, and there is none beside recall nor on PATH: `make install`, `make build`, or `go install github.com/recall-dev/recall/cmd/recall-opencode@latest` puts it there")

// readThroughHelper reads the database at w.T.Path by running the
// helper at bin, which writes the rows it makes as a wire (wire.go).
func readThroughHelper(bin string, w transcript.Work, b *transcript.Builder, now int64) (string, string, int64, error) {
	if _, err := transcript.StatFile(w.T.Path); err != nil {
		return "", "", 0, err // a database gone since it was found, said as a read in process says it
	}
	if bin == "" {
		return "", "", 0, errNoHelper
	}
	cmd := exec.Command(bin, helperArgs(w.T.Path, max(w.State.Offset, 0), now)...)
	stderr := &tailbuf.Buffer{Max: 4 << 10}
	cmd.Stderr = stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return "", "", 0, fmt.Errorf("run %s: %w", bin, err)
	}
	if err := cmd.Start(); err != nil {
		return "", "", 0, fmt.Errorf("run %s: %w", bin, err)
	}
	cursor, decodeErr := decodeWire(bufio.NewReaderSize(out, 64<<10), b)
	invalid := decodeErr != nil && !errors.Is(decodeErr, errWireCut)
	if invalid {
		_ = cmd.Process.Kill() // what it writes next is of no use
	}
	waitErr := cmd.Wait()
	switch {
	case invalid:
		return "", "", 0, decodeErr
	case waitErr != nil:
		return "", "", 0, helperFailed(waitErr, stderr.String())
	case decodeErr != nil:
		return "", "", 0, decodeErr
	}
	return "", "", cursor, nil
}

// helperArgs are recall-opencode's arguments for a read of the database
// at path from cursor since, judged at now.
func helperArgs(path string, since, now int64) []string {
	return []string{"--wire", strconv.Itoa(wireVersion), "--since", strconv.FormatInt(since, 10),
		"--now", strconv.FormatInt(now, 10), "--", path}
}

// helperFailed is the error of a helper that exited with err: the
// reason it gave (its last line on stderr, which is what a read in
// process would have returned), else its exit and what it said last.
func helperFailed(err error, stderr string) error {
	msg := lastLine(stderr)
	var exit *exec.ExitError
	switch {
	case msg != "" && errors.As(err, &exit) && exit.ExitCode() == 1:
		return errors.New(strings.TrimPrefix(msg, HelperName+": "))
	case msg != "":
		return fmt.Errorf("%s: %w: %s", HelperName, err, msg)
	}
	return fmt.Errorf("%s: %w", HelperName, err)
}

func lastLine(s string) string {
	s = strings.TrimRight(s, "\n")
	return s[strings.LastIndexByte(s, '\n')+1:]
}

// ServeDB is recall-opencode's job: it reads the database at path from
// cursor since, judged at now, and writes the rows as a wire to out. Its
// process must link SQLite's driver.
func ServeDB(out io.Writer, path string, since, now int64) error {
	ww := newWireWriter(out)
	w := transcript.Work{T: transcript.Transcript{Path: path}, State: record.FileState{Offset: since}}
	_, _, cursor, err := readDB(w, ww, now, defaultLimits)
	if err != nil {
		return err
	}
	return ww.end(cursor)
}

// HelperMain is recall-opencode's main: it parses args (helperArgs'),
// reads the database they name (ServeDB) and returns the exit status: 0
// when the read is whole, 1 when it failed (the reason on stderr, a
// line), 2 for arguments it does not take. Its process must link
// SQLite's driver.
func HelperMain(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet(HelperName, flag.ContinueOnError)
	fs.SetOutput(stderr)
	wire := fs.Int("wire", 0, "the wire version recall reads")
	since := fs.Int64("since", 0, "the cursor: read the changes after it (milliseconds)")
	now := fs.Int64("now", 0, "the time now in milliseconds, by which a message is judged still being written")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 1 {
		fmt.Fprintf(stderr, "%s: one database path expected, got %d\n", HelperName, fs.NArg())
		return 2
	}
	if *wire != wireVersion {
		fmt.Fprintf(stderr, "%s: recall reads wire %d and this %s writes %d: install both from one build\n",
			HelperName, *wire, HelperName, wireVersion)
		return 1
	}
	if err := ServeDB(stdout, fs.Arg(0), *since, *now); err != nil {
		fmt.Fprintf(stderr, "%s: %s\n", HelperName, oneLine(err.Error()))
		return 1
	}
	return 0
}

// oneLine is s on one line: recall takes a failed read's reason from the
// helper's last line.
func oneLine(s string) string { return strings.ReplaceAll(s, "\n", " ") }
