package render

import (
	"strings"
	"testing"
)

// hostile are escape sequences and controls a transcript can hold, each
// of which a terminal would act on if printed raw.
var hostile = []struct{ name, text string }{
	{"clear screen (CSI)", "before \x1b[2J\x1b[H after"},
	{"window title (OSC, BEL)", "x \x1b]0;pwned\x07 y"},
	{"hyperlink (OSC 8, ST)", "see \x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\ here"},
	{"C1 CSI", "a \u009b31m red"},
	{"C1 OSC", "a \u009d0;t\u009c b"},
	{"carriage return", "safe text\rrm -rf /"},
	{"backspace and NUL", "ab\b\bcd\x00e"},
	{"DEL", "a\x7fb"},
	{"bell", "ding\x07"},
}

// assertInert fails if out holds a byte a terminal acts on (other than
// newline and tab, and recall's own styles, listed in ours).
func assertInert(t *testing.T, out string, ours ...string) {
	t.Helper()
	for _, s := range ours {
		out = strings.ReplaceAll(out, s, "")
	}
	for i, r := range out {
		if r < 0x20 && r != '\n' && r != '\t' || r == 0x7f || r >= 0x80 && r <= 0x9f {
			t.Fatalf("control %U at byte %d of %q", r, i, out)
		}
	}
}

func TestSafe(t *testing.T) {
	tests := []struct{ in, line, text string }{
		{"plain text", "plain text", "plain text"},
		{"tab\tand\nnewline", "tab␉and␊newline", "tab\tand\nnewline"},
		{"\x1b[2J", "␛[2J", "␛[2J"},
		{"\x1b]0;t\x07", "␛]0;t␇", "␛]0;t␇"},
		{"a\rb", "a␍b", "a␍b"},
		{"\x00\x7f", "␀␡", "␀␡"},
		{"\u009b1m", `\u009b1m`, `\u009b1m`},
		{"bad \xff byte", "bad \uFFFD byte", "bad \uFFFD byte"},
		{"café ✓ 日本", "café ✓ 日本", "café ✓ 日本"},
	}
	for _, tt := range tests {
		if got := Safe(tt.in); got != tt.line {
			t.Errorf("Safe(%q) = %q, want %q", tt.in, got, tt.line)
		}
		if got := SafeText(tt.in); got != tt.text {
			t.Errorf("SafeText(%q) = %q, want %q", tt.in, got, tt.text)
		}
	}
	for _, h := range hostile {
		assertInert(t, Safe(h.text))
		assertInert(t, SafeText(h.text))
	}
}

func FuzzSafe(f *testing.F) {
	for _, h := range hostile {
		f.Add(h.text)
	}
	f.Fuzz(func(t *testing.T, s string) {
		assertInert(t, Safe(s))
		if strings.ContainsAny(Safe(s), "\n\t") {
			t.Fatalf("Safe kept layout: %q", Safe(s))
		}
		assertInert(t, SafeText(s))
	})
}
