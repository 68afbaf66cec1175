package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An empty answer is never silent: a time filter past every message, an
// index of a folder without transcripts, a source that does not exist
// and an index that cannot be made each say so, and a search that could
// not run exits 2.
func TestEmptyAnswersSayWhy(t *testing.T) {
	sc, _ := showScenario(t)
	empty, missing := t.TempDir(), filepath.Join(t.TempDir(), "nowhere")
	emptyIndex := t.TempDir()
	if r := runCLI(t, "index", "--source", empty, "--index-dir", emptyIndex); r.code != 0 {
		t.Fatalf("index of an empty folder: exit %d, %q", r.code, r.stderr)
	}
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		res  runResult
		code int
		want []string
	}{
		{"since after the newest", sc.run("", "--no-update", "jwt", "--since", "2030-01-01"), 1,
			[]string{"no indexed message is from 2030-01-01 on: the newest is from 2026-03-01"}},
		{"until before the oldest", sc.run("", "--no-update", "jwt", "--until", "2020-01-01"), 1,
			[]string{"no indexed message is from before 2020-01-01: the oldest is from 2026-"}},
		{"empty index", runCLI(t, "--no-update", "jwt", "--source", empty, "--index-dir", emptyIndex), 1,
			[]string{"the index holds no session yet", "the transcript folder " + empty + " holds no transcripts"}},
		{"no index, missing source", runCLI(t, "--no-update", "jwt", "--source", missing, "--index-dir", t.TempDir()), 2,
			[]string{"no index to search in", "`recall index` builds it", "the transcript folder " + missing + " does not exist"}},
		{"index cannot be made", runCLI(t, "jwt", "--source", empty, "--index-dir", filepath.Join(file, "index")), 2,
			[]string{"create the index dir", "not a directory"}},
		{"sessions of an empty index", runCLI(t, "sessions", "--no-update", "--source", empty, "--index-dir", emptyIndex), 1,
			[]string{"the index holds no session yet"}},
	}
	for _, tt := range tests {
		if tt.res.code != tt.code || tt.res.stdout != "" {
			t.Errorf("%s: exit %d (want %d), stdout %q", tt.name, tt.res.code, tt.code, tt.res.stdout)
		}
		for _, w := range tt.want {
			if !strings.Contains(tt.res.stderr, w) {
				t.Errorf("%s: stderr %q lacks %q", tt.name, tt.res.stderr, w)
			}
		}
	}
}
