package store

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/recall-dev/recall/store/snapshot"

	"github.com/recall-dev/recall/store/manifest"
)

// TestSnapshotDuringTheFirstCommit: a reader that found the first run's
// rows without a manifest, while that run committed its first manifest
// and released its lock, opens the index the commit made instead of
// calling it damaged. Rows without a manifest and no run at work are
// still damage.
func TestSnapshotDuringTheFirstCommit(t *testing.T) {
	dir, _ := sessionsIndex(t)
	manifestPath := filepath.Join(dir, manifest.Name)
	committed, err := os.ReadFile(manifestPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(manifestPath); err != nil {
		t.Fatal(err)
	}
	reads := 0
	commitAfterFirstRead := func(dir string) (*manifest.Manifest, error) {
		m, err := manifest.ReadHead(dir)
		if reads++; reads == 1 {
			// The first run commits now: its manifest appears and its
			// lock is gone before the reader looks again.
			if werr := os.WriteFile(manifestPath, committed, 0o600); werr != nil {
				t.Fatal(werr)
			}
		}
		return m, err
	}
	snap, err := snapshot.OpenWith(dir, commitAfterFirstRead)
	if err != nil {
		t.Fatalf("a search during the first commit: %v", err)
	}
	defer snap.Close()
	if snap.M.Rows == 0 {
		t.Error("the snapshot holds no rows")
	}

	if err := os.Remove(manifestPath); err != nil {
		t.Fatal(err)
	}
	if _, err := snapshot.Open(dir); !errors.Is(err, manifest.ErrDamaged) {
		t.Errorf("rows without a manifest and no run at work: %v, want ErrManifestDamaged", err)
	}
}
