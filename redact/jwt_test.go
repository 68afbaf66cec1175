package redact

import (
	"strings"
	"testing"
)

// TestWrappedJWT: a token a terminal wrapped, its rest on the next lines
// after their indentation, and one with no signature, are redacted
// whole; what follows a whole token, on its line or the next, is kept.
func TestWrappedJWT(t *testing.T) {
	const (
		header  = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"
		payload = "eyJpc3MiOiJzdXBhYmFzZSIsInJlZiI6InFwdGx6eGZ2Iiwicm9sZSI6InNlcnZpY2Vfcm9sZSJ9"
		sig     = "aPtHj__flbQ3vX8ZkR2mN7yW1cD4eF6gH9iJ0kL5oPq"
	)
	r := New()
	for _, tt := range []struct {
		name, in string
		kept     []string // pieces that must stay
	}{
		{"signature on the next line", "   SUPABASE_SERVICE_ROLE_KEY=" + header + "." + payload + ".aPtHj\n     __flbQ3vX8ZkR2mN7yW1cD4eF6gH9iJ0kL5oPq\n   SUPABASE_URL=https://x.supabase.co",
			[]string{"SUPABASE_URL=https://x.supabase.co"}},
		{"payload cut, in a diff", "       7 +ANON_KEY=" + header + "." + payload[:30] + "\n         +" + payload[30:] + "." + sig + "\n       8 +NEXT=1", []string{"NEXT=1"}},
		{"payload cut, a removed line", "       7 -ANON_KEY=" + header + "." + payload[:30] + "\n         -" + payload[30:] + "." + sig + "\n       8 -NEXT=1", []string{"NEXT=1"}},
		{"no signature", "the token was " + header + "." + payload + " and it expired", []string{"and it expired"}},
		{"whole, then a word on the next line", header + "." + payload + "." + sig + "\nDone", []string{"Done"}},
	} {
		out := r.String(tt.in)
		for _, piece := range []string{header, payload[:20], payload[30:50], "__flbQ3vX8ZkR2mN7yW1cD4eF6gH9iJ0kL5oPq"} {
			if strings.Contains(out, piece) {
				t.Errorf("%s: %q kept in\n%s", tt.name, piece, out)
			}
		}
		for _, piece := range tt.kept {
			if !strings.Contains(out, piece) {
				t.Errorf("%s: %q lost in\n%s", tt.name, piece, out)
			}
		}
	}
	for _, text := range []string{
		"the header starts eyJhbGci, which is base64 of {\"alg\"",
		"apiKeyJson := eyJunk.eyJunk",
	} {
		if f := r.Find(text); len(f) > 0 {
			t.Errorf("%q: redacted %q as %s", text, text[f[0].Start:f[0].End], f[0].Kind)
		}
	}
}
