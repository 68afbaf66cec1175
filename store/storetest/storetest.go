// Package storetest damages indexes on purpose, for the tests of the
// packages that must survive it (indexer, search, the CLI).
package storetest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/recall-dev/recall/store"
)

// FlipBlockByte garbles a byte in the middle of rows block i's frame of
// the index in dir, so that its zstd checksum fails, and returns the
// number of blocks the index has.
func FlipBlockByte(tb testing.TB, dir string, i int) int {
	tb.Helper()
	snap, err := store.Open(dir).Snapshot()
	if err != nil {
		tb.Fatal(err)
	}
	blocks := len(snap.Blocks)
	if i < 0 || i >= blocks {
		snap.Close()
		tb.Fatalf("block %d of %d", i, blocks)
	}
	b := snap.Blocks[i]
	path := filepath.Join(dir, store.RowsLinkName) // the rows file, through its link
	snap.Close()
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	data[b.Offset+b.Size/2] ^= 0x5a
	if err := os.WriteFile(path, data, 0o600); err != nil {
		tb.Fatal(err)
	}
	return blocks
}

// With runs fn on the index in dir with its writer lock held, as a test
// that changes an index behind recall's back does, and releases it.
func With(dir string, fn func(w *store.Writer) error) error {
	w, err := store.Open(dir).WaitLock()
	if err != nil {
		return err
	}
	defer w.Unlock()
	return fn(w)
}
