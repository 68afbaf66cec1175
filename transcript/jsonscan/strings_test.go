package jsonscan

import (
	"encoding/json"
	"testing"
)

// unquoteSeeds are string bodies that exercise every branch of Unquote:
// escapes, surrogate pairs and lone halves, invalid UTF-8, control
// characters, quotes and runs that end inside an eight-byte word.
var unquoteSeeds = []string{
	``, `plain ascii text long enough for the word loop`, `line\nbreak`, `tab\tand \"quotes\" and \\ and \/`,
	`\b\f\r`, `\u00e9t\u00C9`, `\ud83d\ude00 smile`, `\ud83d alone`, `\ude00 low alone`, `\ud83d\u0041`,
	`\ud83d\ud83d\ude00`, `\u12`, `\u12G4`, `\x41`, `\'`, `ends in \`, "raw\ttab", "raw\x00nul",
	"caf\xc3\xa9 ok", "bad \xff byte", "cut \xe2\x82", `a"b`, "0123456\"89", "01234567\\n9abcdef",
	"\x7f delete", "ümlaut first then ascii words", `\u0000`, `\uFFFD\uFFFE`, `\ud800\udc00\ud800`,
}

// FuzzUnquote: Unquote of any string body is encoding/json's reading of
// it: the same string, or rejected by both. ValidString accepts what
// encoding/json accepts, and DecodeString of what it accepts (its fast
// path takes any bytes without a backslash: it is for valid strings) is
// encoding/json's too.
func FuzzUnquote(f *testing.F) {
	for _, s := range unquoteSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		raw := append(append([]byte{'"'}, body...), '"')
		var want string
		wantOK := json.Unmarshal(raw, &want) == nil
		got, ok := Unquote(body)
		if ok != wantOK || got != want {
			t.Fatalf("Unquote(%q) = %q, %v; encoding/json: %q, %v", body, got, ok, want, wantOK)
		}
		end, _, valid := ValidString(raw, 0)
		if (valid && end == len(raw)) != wantOK {
			t.Fatalf("ValidString(%q) = %d, %v; encoding/json: %v", raw, end, valid, wantOK)
		}
		if !wantOK {
			return
		}
		if got, ok = DecodeString(raw); !ok || got != want {
			t.Fatalf("DecodeString(%q) = %q, %v; encoding/json: %q", raw, got, ok, want)
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
		got, ok := Unquote([]byte(tt.body))
		if got != tt.want || ok != tt.ok {
			t.Errorf("Unquote(%q) = %q, %v; want %q, %v", tt.body, got, ok, tt.want, tt.ok)
		}
	}
}

// TestStringEscaped: ValidString tells a string with an escape from one
// without, which DecodeString may take as it is.
func TestStringEscaped(t *testing.T) {
	for s, want := range map[string]bool{`"plain"`: false, `"a\nb"`: true, `"` + "\xff" + `"`: false, `"\u0041"`: true, `""`: false} {
		end, escaped, ok := ValidString([]byte(s), 0)
		if !ok || end != len(s) || escaped != want {
			t.Errorf("ValidString(%q) = %d, %v, %v; want %d, %v, true", s, end, escaped, ok, len(s), want)
		}
	}
}
