package manifest

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestGarbledChunkTableOffsetIsDamage: a checkpoint whose chunks line
// names an offset past the table or before the file is damage that
// `recall index` recovers from the rows (ErrManifestDamaged), never a
// panic or another error, either of which would stop every run before
// the recovery.
func TestGarbledChunkTableOffsetIsDamage(t *testing.T) {
	for _, off := range []string{"99999999", "-5", "0", "1"} {
		t.Run(off, func(t *testing.T) {
			dir, _, _ := journaledIndex(t)
			path := filepath.Join(dir, Name)
			data, err := os.ReadFile(path)
			must(t, err)
			at := bytes.LastIndex(data, []byte("\nchunks\t")) + len("\nchunks\t")
			end := at + bytes.IndexByte(data[at:], '\t')
			data = append(append(append([]byte{}, data[:at]...), off...), data[end:]...)
			must(t, os.WriteFile(path, data, 0o600))
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Fatalf("OpenManifest panics: %v", r)
					}
				}()
				if _, err := ReadLazy(dir); !errors.Is(err, ErrDamaged) {
					t.Fatalf("OpenManifest = %v, want ErrManifestDamaged", err)
				}
			}()
		})
	}
}

// FuzzOpenCheckpoint: any bytes as the checkpoint open, or fail with
// ErrManifestDamaged (or errNewerIndex), never panic; the lookups and the
// whole read of one that opens do not panic either.
func FuzzOpenCheckpoint(f *testing.F) {
	m := sampleManifest()
	m.Format, m.Epoch = FormatVersion, 7
	enc := m.encode()
	f.Add(enc)
	f.Add(enc[:len(enc)-20])
	at := bytes.LastIndex(enc, []byte("\nchunks\t")) + len("\nchunks\t")
	f.Add(append(append(append([]byte{}, enc[:at]...), "99999"...), enc[at+bytes.IndexByte(enc[at:], '\t'):]...))
	f.Add(bytes.Replace(enc, []byte("\nchunk\t"), []byte("\nchunk\t9"), 1))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, Name), data, 0o600); err != nil {
			t.Fatal(err)
		}
		got, err := ReadLazy(dir)
		if err != nil {
			if !errors.Is(err, ErrDamaged) && !errors.Is(err, ErrNewerIndex) {
				t.Fatalf("OpenManifest: %v is neither ErrManifestDamaged nor errNewerIndex", err)
			}
			return
		}
		for path := range m.byPath {
			got.File(path)
		}
		got.LoadAll()
	})
}
