package transcript

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/recall-dev/recall/record"
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

// skipMemoSeeds are lines where a remembered end could go wrong if the
// memo were unsound: scalars holding brackets or quotes, duplicate
// messages, blocks past the memo's bound, strings ending at the edge of a
// value, unbalanced and cut messages.
var skipMemoSeeds = []string{
	`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","content":[{"type":"text","text":"` + strings.Repeat("x", 40) + `"}]}]},"toolUseResult":{"a":[1,2]}}`,
	`{"type":"assistant","message":{"content":[{"type":"text","text":"` + strings.Repeat("long text \"quoted\" ", 4) + `"},{"type":"tool_use","name":"Bash","input":{"command":"` + strings.Repeat("ls ", 20) + `"}}]}}`,
	`{"type":"assistant","message":{"content":[{"type":"text","text":x{"y"},{"type":"text","text":"` + strings.Repeat("z", 40) + `"}]}}`,
	`{"type":"assistant","message":{"content":[{"type":"text","text":"a"} {"type":"text","text":"` + strings.Repeat("b", 40) + `"}]}}`,
	`{"type":"user","message":{"content":"` + strings.Repeat("first ", 10) + `"},"message":{"content":"` + strings.Repeat("second ", 10) + `"}}`,
	`{"type":"assistant","message":{"content":[` + strings.Repeat(`{"type":"text","text":"`+strings.Repeat("w", 33)+`"},`, 70) + `{"type":"text","text":"end of many blocks"}]}}`,
	`{"type":"assistant","message":{"content":[{"type":"text","text":"` + strings.Repeat("q", 40) + `\\"}]}}`,
	`{"type":"assistant","message":{"content":[{"type":"text","text":"` + strings.Repeat("c", 40) + `"}]`,
	`{"type":"assistant","message":{"content":[{"type":"text","text":"` + strings.Repeat("d", 40) + `"}]]}}`,
	`{"type":"assistant","message":{"content":{"type":"text","text":"` + strings.Repeat("e", 40) + `"}}}`,
	`{"type":"assistant","message":{"model":x"y,"content":[{"type":"text","text":"` + strings.Repeat("f", 40) + `"}]}}`,
	`{"type":"assistant","message":[{"content":"x"}]}`,
}

// FuzzSkipMemo: the extractor gives the same rows, counts and errors
// whether the walks into a message use the ends its first walk remembered
// (skipMemo) or scan the values again, on any line, valid JSON or not.
func FuzzSkipMemo(f *testing.F) {
	addFixtureLines(f)
	for _, s := range skipMemoSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		with := &lineExtractor{kind: record.KindMain, source: "/p/s.jsonl", gen: 3}
		without := &lineExtractor{kind: record.KindMain, source: "/p/s.jsonl", gen: 3, noMemo: true}
		errWith, errWithout := with.add(line, 7), without.add(line, 7)
		if (errWith == nil) != (errWithout == nil) {
			t.Fatalf("error %v with the memo, %v without, for %q", errWith, errWithout, line)
		}
		if !reflect.DeepEqual(with.rows, without.rows) || with.counts != without.counts ||
			with.session != without.session || with.project != without.project || with.timestamp() != without.timestamp() {
			t.Fatalf("memo changed the result for %q:\nwith    %+v %v\nwithout %+v %v", line, with.rows, with.counts, without.rows, without.counts)
		}
	})
}
