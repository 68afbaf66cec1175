package transcript

import (
	"bufio"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// OpenRegular opens regular files and refuses anything else at once: a
// FIFO with no writer (an open for reading that would wait for ever) and
// a device.
func TestOpenRegular(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a.jsonl")
	if err := os.WriteFile(file, []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := OpenRegular(file)
	if err != nil {
		t.Fatal(err)
	}
	data := make([]byte, 8)
	if n, err := f.Read(data); err != nil || string(data[:n]) != "{}\n" {
		t.Errorf("read %q, %v", data[:n], err)
	}
	f.Close()
	fifo := filepath.Join(dir, "b.jsonl")
	if err := unix.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	for _, path := range []string{fifo, os.DevNull} {
		if _, err := OpenRegular(path); !errors.Is(err, ErrNotRegular) {
			t.Errorf("OpenRegular(%s): %v, want ErrNotRegular", path, err)
		}
		if _, err := StatFile(path); !errors.Is(err, ErrNotRegular) {
			t.Errorf("StatFile(%s): %v, want ErrNotRegular", path, err)
		}
	}
	if _, _, err := LineOffset(fifo, 3); !errors.Is(err, ErrNotRegular) {
		t.Errorf("LineOffset of a FIFO: %v", err)
	}
	var warned []string
	if got := Discover([]string{dir}, func(s string) { warned = append(warned, s) }); len(got) != 1 || len(warned) != 1 {
		t.Errorf("discovered %v, warned %q; want a.jsonl and a warning for the FIFO", got, warned)
	}
}

// TestReadErrorNamesThePathOnce: a transcript that cannot be opened is
// named once in the error ("open X: open X: …" before issue 23).
func TestReadErrorNamesThePathOnce(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "gone.jsonl")
	res := Read(Work{T: Transcript{Path: missing, Kind: "main"}}, "", bufio.NewReader(nil))
	if res.Err == nil {
		t.Fatal("reading a missing transcript gave no error")
	}
	if n := strings.Count(res.Err.Error(), missing); n != 1 {
		t.Errorf("%q names the path %d times", res.Err, n)
	}
}
