package errpath

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWrapNamesThePathOnce(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing.jsonl")
	_, openErr := os.Open(missing)
	cases := []struct {
		name string
		err  error
		want string
	}{
		{"an os error names the path already", openErr, "open " + missing + ": no such file or directory"},
		{"an error without the path gets it", io.ErrUnexpectedEOF, "read " + missing + ": unexpected EOF"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Wrap("read", missing, c.err)
			if got.Error() != c.want {
				t.Errorf("Wrap = %q, want %q", got, c.want)
			}
			if n := strings.Count(got.Error(), missing); n != 1 {
				t.Errorf("%q names the path %d times", got, n)
			}
			if !errors.Is(got, c.err) {
				t.Error("the wrapped error is lost")
			}
		})
	}
	if Wrap("read", missing, nil) != nil {
		t.Error("Wrap of nil is not nil")
	}
}
