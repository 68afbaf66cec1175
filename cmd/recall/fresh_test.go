package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// recall index -v says when and why it stats every transcript, and the
// quick check it runs otherwise says nothing; --sweep always stats all.
func TestIndexSaysWhyItSweeps(t *testing.T) {
	idx := t.TempDir()
	src, _ := filepath.Abs(fixtures)
	common := []string{"--source", src, "--index-dir", idx}
	first := runCLI(t, append([]string{"-v", "index"}, common...)...)
	if first.code != 0 || !strings.Contains(first.stderr, "checked every transcript: no freshness state") {
		t.Fatalf("first run: code %d, stderr %q", first.code, first.stderr)
	}
	again := runCLI(t, append([]string{"-v", "index"}, common...)...)
	if again.code != 0 || strings.Contains(again.stderr, "checked every transcript") || !strings.Contains(again.stderr, "indexed 0 of") {
		t.Errorf("quick run: code %d, stderr %q", again.code, again.stderr)
	}
	sweep := runCLI(t, append([]string{"index", "--sweep"}, common...)...)
	if sweep.code != 0 || !strings.Contains(sweep.stderr, "indexed 0 of") {
		t.Errorf("--sweep: code %d, stderr %q", sweep.code, sweep.stderr)
	}
	search := runCLI(t, append([]string{"-v", "-l", "jwt"}, common...)...)
	if strings.Contains(search.stderr, "checked every transcript") {
		t.Errorf("a search after a sweep swept again: %q", search.stderr)
	}
}

// TestVerboseSaysWhyASearchReadsEveryRow: a query the term index cannot
// serve by design reads every row, and -v says which part of it is why;
// one it serves says it was ranked from the term index.
func TestVerboseSaysWhyASearchReadsEveryRow(t *testing.T) {
	idx := t.TempDir()
	src, _ := filepath.Abs(fixtures)
	common := []string{"--source", src, "--index-dir", idx}
	if r := runCLI(t, append([]string{"index"}, common...)...); r.code != 0 {
		t.Fatalf("index: code %d, stderr %q", r.code, r.stderr)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-e", `\d+`}, `/\d+/ holds no fixed letters or digits`},
		{[]string{"-n", "0", "jwt"}, "every session was asked for (-n 0)"},
		{[]string{"--scope", "session", "jwt", "--require", "auth"}, "--scope session applies --require and --exclude"},
		{[]string{"jwt"}, "ranked from the term index"},
	} {
		r := runCLI(t, append(append([]string{"-v", "--no-update"}, tc.args...), common...)...)
		if !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%q: stderr %q, want it to say %q", tc.args, r.stderr, tc.want)
		}
	}
}
