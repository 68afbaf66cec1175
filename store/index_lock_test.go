package store

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/recall-dev/recall/store/lockfile"
)

// TestLockRecordsHolder checks that the lock file names its holder,
// whatever the last holder left in it: nothing, a shorter record, or a
// longer one (the record is overwritten in place, not truncated first).
func TestLockRecordsHolder(t *testing.T) {
	want := strconv.Itoa(os.Getpid())
	for _, tc := range []struct {
		name   string
		before string // lock file content before; "-" for no file
	}{
		{"no file", "-"},
		{"empty", ""},
		{"older recall's record", "7\n"},
		{"longer content", "1234567890123456789012345678901234567890\nmore\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if tc.before != "-" {
				if err := os.WriteFile(filepath.Join(dir, lockfile.WriterName), []byte(tc.before), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			l, err := Open(dir).TryLock()
			if err != nil {
				t.Fatal(err)
			}
			if got := Open(dir).LockHolder(); got != want {
				t.Errorf("holder while held = %q, want %q", got, want)
			}
			if err := l.Unlock(); err != nil {
				t.Fatal(err)
			}
			if got := Open(dir).LockHolder(); got != want {
				t.Errorf("holder after = %q, want %q (the last holder)", got, want)
			}
		})
	}
}

// TestLockHeld: the probe a hook makes before it starts an indexer (Index.
// RequestRerun) never creates the lock file and never takes the lock; it
// sees a lock another open file holds.
func TestLockHeld(t *testing.T) {
	dir := t.TempDir()
	ix := Open(dir)
	if held, err := ix.LockHeld(lockfile.WriterName); err != nil || held {
		t.Errorf("missing lock file: held=%v err=%v, want free", held, err)
	}
	if _, err := os.Stat(filepath.Join(dir, lockfile.WriterName)); !os.IsNotExist(err) {
		t.Errorf("the probe created the lock file: %v", err)
	}
	if runs, err := ix.RequestRerun(); runs || err != nil || ix.RerunRequested() {
		t.Errorf("no writer: RequestRerun = %v, %v; note left %v", runs, err, ix.RerunRequested())
	}
	w, err := ix.TryLock()
	if err != nil {
		t.Fatal(err)
	}
	if held, err := ix.LockHeld(lockfile.WriterName); err != nil || !held {
		t.Errorf("taken lock: held=%v err=%v, want held", held, err)
	}
	if runs, err := ix.RequestRerun(); !runs || err != nil || !ix.RerunRequested() {
		t.Errorf("a writer runs: RequestRerun = %v, %v; note left %v", runs, err, ix.RerunRequested())
	}
	w.ClearRerun()
	if ix.RerunRequested() {
		t.Error("ClearRerun left the note")
	}
	if err := w.Unlock(); err != nil {
		t.Fatal(err)
	}
	if held, err := ix.LockHeld(lockfile.WriterName); err != nil || held {
		t.Errorf("released lock: held=%v err=%v", held, err)
	}
}
