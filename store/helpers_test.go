package store

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/recall-dev/recall/store/manifest"
)

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// mustRead reads dir's committed manifest whole.
func mustRead(t *testing.T, dir string) *manifest.Manifest {
	t.Helper()
	m, err := manifest.ReadWhole(dir)
	must(t, err)
	return m
}

// journalLength is the size of dir's manifest journal.
func journalLength(t *testing.T, dir string) int64 {
	t.Helper()
	info, err := os.Stat(filepath.Join(dir, manifest.JournalName))
	must(t, err)
	return info.Size()
}
