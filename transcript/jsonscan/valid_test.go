package jsonscan

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fixtureLines are the lines and documents of every agent's fixtures:
// JSON of every shape the readers meet.
func fixtureLines(f *testing.F) {
	root := filepath.Join("..", "..", "testdata", "transcripts")
	for _, pattern := range []string{"projects/*/*.jsonl", "codex/sessions/*/*/*/*.jsonl", "codex/archived_sessions/*.jsonl",
		"gemini/*/.gemini/tmp/*/chats/*.json*", "opencode/storage/*/*/*.json"} {
		paths, _ := filepath.Glob(filepath.Join(root, pattern))
		for _, path := range paths {
			data, err := os.ReadFile(path)
			if err != nil {
				f.Fatal(err)
			}
			for line := range bytes.SplitSeq(data, []byte("\n")) {
				f.Add(line)
			}
			f.Add(data)
		}
	}
}

// validSeeds are values at the edges of JSON's grammar.
var validSeeds = []string{
	`{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"a\nb \u00e9 \ud83d\ude00 \ud800"}]}}`,
	` { "timestamp" : "2026-01-01T00:00:00Z" , "payload" : { "message" : "x\"y" , "kind" : [ 1 , 2 ] } } `,
	`{"a":-0.5e+10,"b":[true,false,null],"c":{}}`, `[1,]`, `{"a":01}`, `{"a":1.}`, `{"a":1e}`, `{"a":-}`, `"\x"`, "\"\xff\"",
	`{"a":"` + "\x01" + `"}`, `{} {}`, `{"a" 1}`, `{"a":1,}`, `{,}`, `{"a":tru}`, `nul`, `-0`, `1E+2`, `"\u12"`, `"\'"`,
	strings.Repeat("[", 10001) + strings.Repeat("]", 10001), strings.Repeat("[", 10000) + strings.Repeat("]", 10000),
	`{"d":` + strings.Repeat(`{"a":`, 300) + `1` + strings.Repeat(`}`, 301),
}

// FuzzValidMatchesJSON: Valid is json.Valid; ValidValue and ValidString,
// from any byte, end where a value encoding/json accepts ends, or reject
// what it rejects.
func FuzzValidMatchesJSON(f *testing.F) {
	fixtureLines(f)
	for _, s := range validSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := Valid(b), json.Valid(b); got != want {
			t.Fatalf("Valid(%q) = %v, json.Valid %v", b, got, want)
		}
		if len(b) > 4096 {
			return // every start: quadratic
		}
		for i := range b {
			end, ok := ValidValue(b, i, 0)
			if ok && !json.Valid(b[i:end]) {
				t.Fatalf("ValidValue(%q, %d) = %d, json.Valid rejects %q", b, i, end, b[i:end])
			}
			if skip := SkipValue(b, i); !ok && skip >= 0 && json.Valid(b[i:skip]) {
				t.Fatalf("ValidValue(%q, %d) rejects %q, which json.Valid accepts", b, i, b[i:skip])
			}
			if b[i] != '"' {
				continue
			}
			end, _, ok = ValidString(b, i)
			if stop := StringEnd(b, i); ok && end != stop || !ok && stop >= 0 && json.Valid(b[i:stop]) {
				t.Fatalf("ValidString(%q, %d) = %d, %v; the string ends at %d", b, i, end, ok, stop)
			}
		}
	})
}
