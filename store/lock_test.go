package store

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
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
				if err := os.WriteFile(filepath.Join(dir, LockName), []byte(tc.before), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			l, err := TryLock(dir)
			if err != nil {
				t.Fatal(err)
			}
			if got := LockHolder(dir); got != want {
				t.Errorf("holder while held = %q, want %q", got, want)
			}
			if err := l.Unlock(); err != nil {
				t.Fatal(err)
			}
			if got := LockHolder(dir); got != want {
				t.Errorf("holder after = %q, want %q (the last holder)", got, want)
			}
		})
	}
}
