package rawfile

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

func TestReadFileAndMap(t *testing.T) {
	dir := t.TempDir()
	for _, size := range []int{1, 4095, 4096, 4097, 100000} {
		path := filepath.Join(dir, "f")
		want := bytes.Repeat([]byte("0123456789"), size/10+1)[:size]
		if err := os.WriteFile(path, want, 0o600); err != nil {
			t.Fatal(err)
		}
		if got, err := ReadFile(path, 1<<20); err != nil || !bytes.Equal(got, want) {
			t.Fatalf("ReadFile of %d bytes: %d bytes, %v", size, len(got), err)
		}
		if got, err := ReadFile(path, 100); err != nil || !bytes.Equal(got, want[:min(size, 100)]) {
			t.Fatalf("ReadFile of %d bytes, at most 100: %d bytes, %v", size, len(got), err)
		}
		got, err := Map(path, 1<<20)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("Map of %d bytes: %d bytes, %v", size, len(got), err)
		}
		if err := Unmap(got); err != nil {
			t.Fatalf("Unmap of %d bytes: %v", size, err)
		}
		if _, err := Map(path, int64(size-1)); err == nil {
			t.Fatalf("Map of %d bytes, at most %d: no error", size, size-1)
		}
	}
	missing := filepath.Join(dir, "missing")
	if _, err := ReadFile(missing, 10); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("ReadFile of a missing file: %v", err)
	}
	if _, err := Map(missing, 10); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Map of a missing file: %v", err)
	}
}

func TestOpenAppend(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log")
	for _, line := range []string{"one\n", "two\n"} {
		f, err := OpenAppend(path, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteString(line); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
	got, _ := os.ReadFile(path)
	info, _ := os.Stat(path)
	if string(got) != "one\ntwo\n" || info.Mode().Perm() != 0o600 {
		t.Fatalf("log %q, mode %v", got, info.Mode())
	}
}

func TestFileReadAt(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	want := bytes.Repeat([]byte("0123456789"), 1000)
	if err := os.WriteFile(path, want, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.Size != int64(len(want)) {
		t.Fatalf("Size %d, want %d", f.Size, len(want))
	}
	for _, tc := range []struct {
		off     int64
		n       int
		wantErr bool
	}{{0, 10, false}, {4090, 20, false}, {9990, 10, false}, {0, 0, false}, {9995, 10, true}, {20000, 1, true}} {
		got, err := f.ReadAt(tc.off, tc.n)
		if tc.wantErr {
			if err == nil {
				t.Errorf("ReadAt(%d, %d) past the end: no error", tc.off, tc.n)
			}
			continue
		}
		if err != nil || !bytes.Equal(got, want[tc.off:tc.off+int64(tc.n)]) {
			t.Errorf("ReadAt(%d, %d) = %q, %v", tc.off, tc.n, got, err)
		}
	}
	if _, err := OpenFile(filepath.Join(t.TempDir(), "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("OpenFile of a missing file: %v", err)
	}
}
