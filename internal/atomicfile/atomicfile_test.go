package atomicfile

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestWriteReplacesWhole(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Write(path, []byte("new content"), 0o600, nil); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	info, _ := os.Stat(path)
	if string(got) != "new content" || info.Mode().Perm() != 0o600 {
		t.Fatalf("got %q mode %v", got, info.Mode().Perm())
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("temp file left behind: %v", entries)
	}
}

func TestWriteFailureKeepsOldFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	os.WriteFile(path, []byte("old"), 0o644)
	boom := errors.New("boom")
	if err := Write(path, []byte("new"), 0o600, func(*os.File) error { return boom }); !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
	got, _ := os.ReadFile(path)
	entries, _ := os.ReadDir(dir)
	if string(got) != "old" || len(entries) != 1 {
		t.Fatalf("old file changed (%q) or temp left (%d entries)", got, len(entries))
	}
}

// TestWriteInPiecesKeepsEveryByte writes sizes around the piece size: the
// file must hold exactly the data, whatever the number of writes.
func TestWriteInPiecesKeepsEveryByte(t *testing.T) {
	dir := t.TempDir()
	for _, size := range []int{0, 1, pieceBytes - 1, pieceBytes, pieceBytes + 1, 3*pieceBytes + 17} {
		data := make([]byte, size)
		for i := range data {
			data[i] = byte(i*7 + i/pieceBytes)
		}
		path := filepath.Join(dir, "f")
		if err := Write(path, data, 0o600, nil); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, data) {
			t.Fatalf("size %d: file holds %d bytes, not the data written", size, len(got))
		}
	}
}
