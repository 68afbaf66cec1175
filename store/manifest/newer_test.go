package manifest

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNewerIndexIsRefused: a manifest or journal that a newer recall
// wrote (a newer data format in the checkpoint, a newer journal version)
// is refused as such, never taken as this recall's (whose rederive would
// rewrite data it cannot read) nor as damage (whose recovery from the
// rows would replace the newer manifest).
func TestNewerIndexIsRefused(t *testing.T) {
	cases := map[string]func(t *testing.T, dir string){
		"data format": func(t *testing.T, dir string) {
			m := sampleManifest()
			m.Format = FormatVersion + 1
			must(t, m.checkpoint(dir))
		},
		"journal version": func(t *testing.T, dir string) {
			m := sampleManifest()
			m.Format = FormatVersion
			must(t, Commit(dir, m))
			path := filepath.Join(dir, JournalName)
			data, err := os.ReadFile(path)
			must(t, err)
			binary.LittleEndian.PutUint32(data[8:], Version+1)
			binary.LittleEndian.PutUint32(data[20:], crc32.Checksum(data[:20], manifestCRC))
			must(t, os.WriteFile(path, data, 0o600))
		},
	}
	for name, write := range cases {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			write(t, dir)
			readers := map[string]func(string) (*Manifest, error){"open": ReadLazy, "read": ReadWhole, "head": ReadHead}
			for rname, read := range readers {
				_, err := read(dir)
				if err == nil || errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), "newer recall") {
					t.Errorf("%s: %v, want a refusal naming a newer recall", rname, err)
				}
			}
		})
	}
}
