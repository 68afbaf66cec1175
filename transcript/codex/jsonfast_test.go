package codex

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/recall-dev/recall/transcript/jsonscan"
)

// fastSeeds are lines of every shape the decoders meet, and unusual
// ones.
func fastSeeds(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join(fixtures, "*", "*.jsonl"))
	more, _ := filepath.Glob(filepath.Join(fixtures, "sessions", "*", "*", "*", "*.jsonl"))
	for _, path := range append(paths, more...) {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		for _, line := range bytes.Split(data, []byte("\n")) {
			f.Add(line)
		}
	}
	for _, s := range []string{
		`{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"a\nb \u00e9 \ud83d\ude00 \ud800"}]}}`,
		`{"type":"response_item","TYPE":"x","payload":{}}`,
		`{"type":"response_item","type":"event_msg","payload":{}}`,
		`{"type":null,"payload":{"type":"message","role":null,"content":[null,{"type":"text","text":null}]}}`,
		`{"type":5}`, `{"payload":{"type":["x"]}}`, `{"ty\u0070e":"x"}`, `{"typé":"x"}`,
		`{"payload":{"content":[1]}}`, `{"payload":{"content":{}}}`, `{"payload":{"content":"\u0000"}}`,
		` { "timestamp" : "2026-01-01T00:00:00Z" , "payload" : { "message" : "x\"y" , "kind" : [ 1 , 2 ] } } `,
		`{"a":-0.5e+10,"b":[true,false,null],"c":{}}`, `[1,]`, `{"a":01}`, `{"a":1.}`, `"\x"`, "\"\xff\"",
		`{"a":"` + "\x01" + `"}`, `{} {}`, `{"a" 1}`, strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
		strings.Repeat("[", 10000) + strings.Repeat("]", 10000),
		`"" `, ` "a"`, "\t\"\\u0041\"\r\n", ` [{"type":"text","text":"x"}] `,
	} {
		f.Add([]byte(s))
	}
}

// FuzzFastDecode holds jsonfast.go to encoding/json: jsonscan.Valid (the
// reader's gate to the decoders) is json.Valid, and what a decoder reads
// (when it does not give up) is what json.Unmarshal reads, without error.
func FuzzFastDecode(f *testing.F) {
	fastSeeds(f)
	f.Fuzz(func(t *testing.T, line []byte) {
		if got, want := jsonscan.Valid(line), json.Valid(line); got != want {
			t.Fatalf("jsonscan.Valid(%q) = %v, json.Valid %v", line, got, want)
		}
		if !json.Valid(line) {
			return
		}
		checkDecode(t, line, decodeEnvelope)
		var rec rolloutLine
		_ = json.Unmarshal(line, &rec) // what it read, even of a line it fails on
		{
			// The decoders are given value spans as a walk finds them,
			// never with the whitespace around a top-level value.
			whole := bytes.Trim(line, " \t\r\n")
			for _, v := range [][]byte{rec.Payload, rec.Metadata, rec.Timestamp, rec.ID, whole} {
				if len(v) == 0 || !json.Valid(v) {
					continue
				}
				if isObject(v) {
					checkDecode(t, v, decodeItem)
					checkDecode(t, v, decodeEvent)
				}
				checkString(t, v)
				checkParts(t, v)
				var it responseItem
				_ = json.Unmarshal(v, &it)
				for _, w := range [][]byte{it.Content, it.ID} {
					if len(w) > 0 && json.Valid(w) {
						checkString(t, w)
						checkParts(t, w)
					}
				}
			}
		}
	})
}

func checkDecode[T any](t *testing.T, v []byte, decode func([]byte, *T) bool) {
	t.Helper()
	var got, want T
	if !decode(v, &got) {
		return
	}
	if err := json.Unmarshal(v, &want); err != nil {
		t.Fatalf("decoded %q, encoding/json fails: %v", v, err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("decoded %q as\n%#v\nencoding/json:\n%#v", v, got, want)
	}
}

func checkString(t *testing.T, v []byte) {
	t.Helper()
	got, ok := jsonscan.DecodeString(v)
	var want string
	err := json.Unmarshal(v, &want)
	if v[0] == '"' && (!ok || err != nil || got != want) {
		t.Fatalf("string %q: %q %v, encoding/json %q %v", v, got, ok, want, err)
	}
	if v[0] != '"' && ok {
		t.Fatalf("%q decoded as a string", v)
	}
}

func checkParts(t *testing.T, v []byte) {
	t.Helper()
	got, ok := decodeParts(v, nil)
	if !ok {
		return
	}
	var want []contentPart
	if err := json.Unmarshal(v, &want); err != nil {
		t.Fatalf("parts %q decoded, encoding/json fails: %v", v, err)
	}
	if len(got) != len(want) || len(got) > 0 && !reflect.DeepEqual(got, want) {
		t.Fatalf("parts %q: %#v, encoding/json %#v", v, got, want)
	}
}
