package transcript

import (
	"encoding/json"
	"testing"
)

// unquoteSeeds are string bodies that exercise every branch of unquote:
// escapes, surrogate pairs and lone halves, invalid UTF-8, control
// characters, quotes and runs that end inside an eight-byte word.
var unquoteSeeds = []string{
	``, `plain ascii text long enough for the word loop`, `line\nbreak`, `tab\tand \"quotes\" and \\ and \/`,
	`\b\f\r`, `\u00e9t\u00C9`, `\ud83d\ude00 smile`, `\ud83d alone`, `\ude00 low alone`, `\ud83d\u0041`,
	`\ud83d\ud83d\ude00`, `\u12`, `\u12G4`, `\x41`, `\'`, `ends in \`, "raw\ttab", "raw\x00nul",
	"caf\xc3\xa9 ok", "bad \xff byte", "cut \xe2\x82", `a"b`, "0123456\"89", "01234567\\n9abcdef",
	"\x7f delete", "ümlaut first then ascii words", `\u0000`, `\uFFFD\uFFFE`,
}

// FuzzUnquote: decodeString of any string body is what it was with
// encoding/json for everything its fast path does not take (escapes,
// invalid UTF-8): the same result, or rejected by both.
func FuzzUnquote(f *testing.F) {
	for _, s := range unquoteSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		raw := append(append([]byte{'"'}, body...), '"')
		var want string
		wantOK := json.Unmarshal(raw, &want) == nil
		got, ok := unquote(raw)
		if ok != wantOK || got != want {
			t.Fatalf("unquote(%q) = %q, %v; encoding/json: %q, %v", raw, got, ok, want, wantOK)
		}
	})
}

func TestUnquoteSeeds(t *testing.T) {
	tests := []struct {
		body string
		want string
		ok   bool
	}{
		{`line\nbreak`, "line\nbreak", true},
		{`\ud83d\ude00`, "😀", true},
		{`\ud83d alone`, "\uFFFD alone", true},
		{"bad \xff byte", "bad \uFFFD byte", true},
		{"raw\ttab", "", false},
		{`\x41`, "", false},
		{`ends in \`, "", false},
	}
	for _, tt := range tests {
		got, ok := unquote([]byte(`"` + tt.body + `"`))
		if got != tt.want || ok != tt.ok {
			t.Errorf("unquote(%q) = %q, %v; want %q, %v", tt.body, got, ok, tt.want, tt.ok)
		}
	}
}
