package benchrun

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWithNotesKeepsTheHandWrittenPart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "benchmarks.md")
	if got := withNotes("# new\n", path); got != "# new\n" {
		t.Fatalf("no file: %q", got)
	}
	if err := os.WriteFile(path, []byte("# old\n\n| table |\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := withNotes("# new\n", path); got != "# new\n" {
		t.Fatalf("no notes: %q", got)
	}
	notes := notesMarker + "\n\n## Redaction cost\n\nprose\n"
	if err := os.WriteFile(path, []byte("# old\n\n| table |\n\n"+notes), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, want := withNotes("# new\n", path), "# new\n\n"+notes; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}
