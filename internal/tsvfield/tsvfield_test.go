package tsvfield

import (
	"bytes"
	"testing"
)

func TestAppendAndUnescape(t *testing.T) {
	tests := []struct{ in, escaped string }{
		{"plain text", "plain text"},
		{"tab\there", `tab\there`},
		{"two\nlines\r\n", `two\nlines\r\n`},
		{`back\slash`, `back\\slash`},
		{`\t literally`, `\\t literally`},
		{"", ""},
	}
	for _, tt := range tests {
		got := string(Append(nil, tt.in))
		if got != tt.escaped {
			t.Errorf("Append(%q) = %q, want %q", tt.in, got, tt.escaped)
		}
		if back := Unescape([]byte(got)); back != tt.in {
			t.Errorf("Unescape(%q) = %q, want %q", got, back, tt.in)
		}
	}
	// Unknown escapes and a lone trailing backslash keep their bytes.
	for in, want := range map[string]string{`a\qb`: `a\qb`, `end\`: `end\`} {
		if got := Unescape([]byte(in)); got != want {
			t.Errorf("Unescape(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzRoundTrip: any string survives escaping, and its escaped form is
// one field (no tab, newline or carriage return).
func FuzzRoundTrip(f *testing.F) {
	for _, s := range []string{"", "a\tb", "x\\ny", "\r\n\\"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		esc := Append(nil, s)
		if bytes.ContainsAny(esc, "\t\n\r") {
			t.Fatalf("Append(%q) = %q holds a separator", s, esc)
		}
		if back := Unescape(esc); back != s {
			t.Fatalf("round trip of %q gave %q", s, back)
		}
	})
}
