package tsvfield

import (
	"bytes"
	"strings"
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

// referenceAppend is Append as it was: a byte at a time.
func referenceAppend(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\':
			dst = append(dst, '\\', '\\')
		case '\t':
			dst = append(dst, '\\', 't')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

// FuzzAppendMatchesReference: escaping whole runs writes what escaping a
// byte at a time wrote, after any prefix already in dst.
func FuzzAppendMatchesReference(f *testing.F) {
	for _, s := range []string{"", "a\tb", "x\\ny", "\r\n\\", "0123456\n", "01234567\t89abcdef\r", "\x89\\\x8a\n\x8d\r\xdc", "long run without anything to escape at all",
		// control bytes below 14 that need no escape, in a word with a
		// special byte and without one
		"\x00\x01\x08\x0b\x0c\x0e\x7f\x80abcdefgh\n", "ab\x0bcdefg\x0cijklmno\tp", "\x00\x00\x00\x00\x00\x00\x00\x00\\"} {
		f.Add("pre", s)
	}
	f.Fuzz(func(t *testing.T, pre, s string) {
		if got, want := Append([]byte(pre), s), referenceAppend([]byte(pre), s); !bytes.Equal(got, want) {
			t.Fatalf("Append(%q, %q) = %q, want %q", pre, s, got, want)
		}
	})
}

// TestPlainIsWhatAppendKeeps: Plain holds exactly when Append writes the
// value unchanged.
func TestPlainIsWhatAppendKeeps(t *testing.T) {
	for _, s := range []string{"", "2026-01-02T03:04:05.000Z", "a\tb", "long text without any special byte", "ends in \\", "x\ny", "\r", "ünïcode"} {
		if got, want := Plain(s), string(Append(nil, s)) == s; got != want {
			t.Errorf("Plain(%q) = %v, want %v", s, got, want)
		}
	}
}

// referenceUnescapeAppend is UnescapeAppend a byte at a time, as it was.
func referenceUnescapeAppend(dst, b []byte) []byte {
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c != '\\' || i+1 == len(b) {
			dst = append(dst, c)
			continue
		}
		i++
		switch b[i] {
		case '\\':
			dst = append(dst, '\\')
		case 't':
			dst = append(dst, '\t')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		default:
			dst = append(dst, '\\', b[i])
		}
	}
	return dst
}

// FuzzUnescapeMatchesReference: unescaping whole runs writes what
// unescaping a byte at a time wrote, after any prefix already in dst,
// for any input (unknown escapes and a last lone backslash included).
func FuzzUnescapeMatchesReference(f *testing.F) {
	for _, s := range []string{"", "a\\tb", "x\\\\ny", "\\", "ends\\", "\\q\\", "\\r\\n\\t\\\\", "\\\\\\", "\x89\\\x8a\\n\x8d", "long run without anything to unescape at all"} {
		f.Add("pre", s)
	}
	f.Fuzz(func(t *testing.T, pre, s string) {
		if got, want := UnescapeAppend([]byte(pre), []byte(s)), referenceUnescapeAppend([]byte(pre), []byte(s)); !bytes.Equal(got, want) {
			t.Fatalf("UnescapeAppend(%q, %q) = %q, want %q", pre, s, got, want)
		}
	})
}

// BenchmarkAppend escapes rows' text as the rows writer does: mostly
// plain prose and code, now and then a tab or newline.
func BenchmarkAppend(b *testing.B) {
	text := strings.Repeat("The loop in src/export/pager.ts stops when a page comes back short, so the last page is never written. ", 20) + "\n"
	dst := make([]byte, 0, 2*len(text))
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		dst = Append(dst[:0], text)
	}
}
