package lineage

import (
	"os"
	"path/filepath"
	"testing"
)

// TranscriptOf finds a running session's transcript in its cwd's project
// folder, else in any project folder of any source, by a stat in each.
func TestTranscriptOf(t *testing.T) {
	const id = "ed01c0de-0000-4000-8000-000000000001"
	root := t.TempDir()
	a, b := filepath.Join(root, "a", "projects"), filepath.Join(root, "b", "projects")
	write := func(path string) string {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	inCwd := write(filepath.Join(a, "-home-u-api", id+".jsonl"))
	moved := write(filepath.Join(b, "-home-u-web", "0badc0de-0000-4000-8000-000000000002.jsonl"))
	// A folder named like a transcript is not one; a linked project
	// folder is followed; a file among the folders is passed over.
	if err := os.MkdirAll(filepath.Join(a, "-home-u-x", "5ca1ab1e-0000-4000-8000-000000000003.jsonl"), 0o755); err != nil {
		t.Fatal(err)
	}
	linked := write(filepath.Join(root, "elsewhere", "f00dface-0000-4000-8000-000000000004.jsonl"))
	if err := os.Symlink(filepath.Dir(linked), filepath.Join(b, "-home-u-linked")); err != nil {
		t.Fatal(err)
	}
	write(filepath.Join(a, "stray.txt"))
	sources := []string{filepath.Join(root, "missing"), a, b}
	tests := []struct {
		name, session, cwd, want string
	}{
		{"in its cwd's folder", id, "/home/u/api", inCwd},
		{"cwd elsewhere", id, "/home/u/api/sub", inCwd},
		{"no cwd", id, "", inCwd},
		{"another source's folder", "0badc0de-0000-4000-8000-000000000002", "/home/u/api", moved},
		{"linked folder", "f00dface-0000-4000-8000-000000000004", "", filepath.Join(b, "-home-u-linked", "f00dface-0000-4000-8000-000000000004.jsonl")},
		{"a folder, not a transcript", "5ca1ab1e-0000-4000-8000-000000000003", "", ""},
		{"not found", "deadbeef-0000-4000-8000-000000000005", "/home/u/api", ""},
		{"implausible id", "../a/-home-u-api/" + id, "", ""},
		{"empty id", "", "/home/u/api", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := TranscriptOf(sources, tc.session, tc.cwd); got != tc.want {
				t.Errorf("TranscriptOf(%q, %q) = %q, want %q", tc.session, tc.cwd, got, tc.want)
			}
		})
	}
}
