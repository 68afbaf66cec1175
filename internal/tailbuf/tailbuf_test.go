package tailbuf

import (
	"strings"
	"testing"
)

func TestBuffer(t *testing.T) {
	tests := []struct {
		name   string
		writes []string
		max    int
		want   string
	}{
		{"under the bound", []string{"abc", "def"}, 10, "abcdef"},
		{"one write over it", []string{strings.Repeat("x", 30) + "tail"}, 6, "xxtail"},
		{"many small writes", strings.Split(strings.Repeat("0123456789", 5), ""), 4, "6789"},
		{"invalid UTF-8 replaced", []string{"ok \xff"}, 10, "ok \uFFFD"},
	}
	for _, tt := range tests {
		b := &Buffer{Max: tt.max}
		for _, w := range tt.writes {
			if n, err := b.Write([]byte(w)); n != len(w) || err != nil {
				t.Fatalf("%s: write %d, %v", tt.name, n, err)
			}
		}
		if got := b.String(); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
		if len(b.b) > 2*tt.max {
			t.Errorf("%s: holds %d bytes, bound %d", tt.name, len(b.b), 2*tt.max)
		}
	}
}
