// Package indexertest builds indexes from fixture transcripts for the
// tests of the packages that read them (search, render).
package indexertest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/recall-dev/recall/store/snapshot"

	"github.com/recall-dev/recall/indexer"
	"github.com/recall-dev/recall/store"
)

// Snapshot copies the projects tree at fixture (tests may not write into
// the repository), indexes the copy and opens the index; both go when
// the test ends.
func Snapshot(tb testing.TB, fixture string) *snapshot.Snapshot {
	tb.Helper()
	src := filepath.Join(tb.TempDir(), "projects")
	if err := os.CopyFS(src, os.DirFS(fixture)); err != nil {
		tb.Fatal(err)
	}
	idx := tb.TempDir()
	if _, err := indexer.Run(indexer.Options{Config: indexer.Config{Sources: []string{src}, IndexDir: idx}}); err != nil {
		tb.Fatal(err)
	}
	snap, err := store.Open(idx).Snapshot()
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { snap.Close() })
	return snap
}
