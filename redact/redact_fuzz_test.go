package redact

import (
	"strings"
	"testing"

	"github.com/recall-dev/recall/redact/redacttest"
)

// FuzzRedact: no text makes the redactor panic; findings are in bounds,
// in order and apart; the output is the text with each finding replaced
// by its placeholder; and redacting the output again changes nothing.
func FuzzRedact(f *testing.F) {
	for _, sh := range redacttest.Shapes(1) {
		f.Add(sh.Text)
		f.Add("key: " + sh.Text + "\nnext line")
	}
	f.Add("password=hunter2! token: ${{ secrets.X }} postgres://u:p@ss@h/db")
	f.Add("-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\\n")
	f.Add("ey" + strings.Repeat("a", 17) + ".ey" + strings.Repeat("b", 17) + ".")
	r := New()
	f.Fuzz(func(t *testing.T, text string) {
		found := r.Find(text)
		var want strings.Builder
		at := 0
		for i, fd := range found {
			if fd.Start < at || fd.End <= fd.Start || fd.End > len(text) {
				t.Fatalf("finding %d %+v out of order or bounds (text %d bytes, previous end %d)", i, fd, len(text), at)
			}
			want.WriteString(text[at:fd.Start])
			want.WriteString(Placeholder(fd.Kind))
			at = fd.End
		}
		want.WriteString(text[at:])
		out := r.String(text)
		if out != want.String() {
			t.Fatalf("String(%q) = %q, want %q", text, out, want.String())
		}
		if again := r.String(out); again != out {
			t.Fatalf("redacting %q again gave %q", out, again)
		}
	})
}
