package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestErrorsNameEachPathOnce: an error about a file names it once. The
// errors of package os already read "mkdir PATH: …"; wrapped again as
// "create index dir PATH: %w" they printed the path twice (issue 23).
func TestErrorsNameEachPathOnce(t *testing.T) {
	tmp := t.TempDir()
	file := filepath.Join(tmp, "a-file")
	if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(tmp, "projects")
	if err := os.MkdirAll(src, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"index", "-q", "--source", src, "--index-dir", filepath.Join(file, "idx")},
		{"forget", "--session", "x", "--index-dir", filepath.Join(file, "idx")},
	} {
		r := runCLI(t, args...)
		if r.code != 2 {
			t.Fatalf("%v: exit %d, want 2 (stderr %q)", args, r.code, r.stderr)
		}
		if n := strings.Count(r.stderr, file); n != 1 {
			t.Errorf("%v: stderr names %s %d times: %q", args, file, n, r.stderr)
		}
	}
}
