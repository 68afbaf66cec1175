package opencode

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

// fastSeeds are parts and messages of every shape the fast decoder must
// either decode as encoding/json does or leave to it.
var fastSeeds = []string{
	`{"type":"text","text":"hi\nthere \u00e9 \ud83d\ude00 \ud800 \udc00x \\ \/ \"q\"","time":{"start":1795000000000,"end":1.7e12}}`,
	`{"type":"tool","tool":"bash","callID":"c","state":{"status":"completed","input":{"command":"ls -la"},"output":"a\nb\tc","metadata":{"x":[1,2.5e-3,-0,true,false,null,{}]},"time":{"start":1,"end":2}}}`,
	`{"Type":"TEXT","TEXT":"upper","Synthetic":true,"IGNORED":"true","tOOl":"x"}`,
	`{"type":"text","type":"tool","state":{"status":"running"},"state":{"input":[1]},"state":null,"time":{"start":5},"time":{"end":"x"}}`,
	`{"type":5,"text":null,"tool":{"a":1},"state":"s","time":[1],"synthetic":null,"ignored":{"a":true}}`,
	`{"state":{"input":null,"time":{"start":null,"end":-5,"created":1e308,"completed":"7"}}}`,
	`{"ty\u0070e":"text","text":"escaped key"}`,
	`{"ſtate":{"status":"completed"},"text":"long s"}`,
	`{"\u212ae":1,"text":"kelvin"}`,
	"{\"text\":\"bad \xff\xfe utf8 \xc3 \\u00e9\",\"tool\":\"\xe2\x82\"}",
	`{"text":"ctrl` + "\x01" + `"}`,
	`{"text":"bad escape \x"}`,
	`{"text":"short \u12"}`,
	` {"text":"ws"} ` + "\n\t",
	`{"text":"trailing"} x`,
	`{"text":01}`, `{"text":1.}`, `{"text":1e}`, `{"text":-}`, `{"text":tru}`, `{"a":[1,]}`, `{"a":1,}`, `{,}`, `{"a" 1}`,
	`{}`, `[]`, `null`, `"s"`, ``, `{`, `{"a":{"b":{"c":[[[[{"d":1}]]]]}}}`,
	strings.Repeat(`{"a":`, 300) + `1` + strings.Repeat(`}`, 300),
	`{"filePath":"/a","x":{"filePath":1}}`, `{"filePath":"/a","file_path":null}`, `{"filePath":null,"filePath":"/b"}`,
	`{"file\u0050ath":"/e"}`, `{"filePath":"/a",}`, ` {"filePath" : [1, {"a":"\n"}] } `, `{}{"filePath":1}`,
	`{"role":"assistant","summary":true,"time":{"created":1,"completed":2},"path":{"cwd":"/w","root":"/"},"id":"msg_1","sessionID":"ses_1"}`,
	`{"role":"user","summary":{"diffs":[]},"PATH":{"CWD":"/x"},"path":{"cwd":5},"Role":null}`,
}

func fastInputs(t testing.TB) [][]byte {
	var out [][]byte
	for _, s := range fastSeeds {
		out = append(out, []byte(s))
	}
	files, _ := filepath.Glob(filepath.Join(fixtures, "storage/*/*/*.json"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, data)
	}
	return out
}

// checkFast holds the fast decoder to encoding/json on data: when it
// decodes data, encoding/json must decode it without error to the same.
func checkFast(t *testing.T, data []byte) {
	t.Helper()
	var fp, sp partData
	if fastPart(data, &fp) {
		if err := decodeObject(data, &sp); err != nil {
			t.Fatalf("part %q: fast decoded, encoding/json: %v", data, err)
		}
		if !reflect.DeepEqual(fp, sp) {
			t.Fatalf("part %q:\n fast %+v\n json %+v", data, fp, sp)
		}
	}
	var fm, sm messageInfo
	if fastMessage(data, &fm) {
		if err := decodeObject(data, &sm); err != nil {
			t.Fatalf("message %q: fast decoded, encoding/json: %v", data, err)
		}
		if !reflect.DeepEqual(fm, sm) {
			t.Fatalf("message %q:\n fast %+v\n json %+v", data, fm, sm)
		}
	}
	if got, want := toolInput(data), toolInputByMap(data); !bytes.Equal(got, want) {
		t.Fatalf("toolInput(%q) = %q, by a map %q", data, got, want)
	}
	if len(data) >= 2 && data[0] == '"' && data[len(data)-1] == '"' {
		end, _, ok := jsonscan.ValidString(data, 0)
		var want string
		err := json.Unmarshal(data, &want)
		if (ok && end == len(data)) != (err == nil) {
			t.Fatalf("string %q: jsonscan.ValidString %d %v, encoding/json %v", data, end, ok, err)
		}
		if ok && end == len(data) {
			if got, uok := jsonscan.Unquote(data[1 : len(data)-1]); !uok || got != want {
				t.Fatalf("string %q: jsonscan.Unquote %q %v, encoding/json %q", data, got, uok, want)
			}
		}
	}
}

func TestFastDecode(t *testing.T) {
	for _, data := range fastInputs(t) {
		checkFast(t, data)
	}
	for _, s := range []string{`"a\u00e9\ud83d\ude00\ud800x\udc00\ud83d\u0041"`, "\"\xff\xc3\xa9\xe2\x82\"", `"\'"`, `"tab	"`} {
		checkFast(t, []byte(s))
	}
	// The data OpenCode writes takes the fast path.
	files, _ := filepath.Glob(filepath.Join(fixtures, "storage/*/*/*.json"))
	for _, f := range files {
		data, _ := os.ReadFile(f)
		if !json.Valid(data) {
			continue // a hostile fixture: encoding/json's error
		}
		var p partData
		var m messageInfo
		if strings.Contains(f, "/part/") && !fastPart(data, &p) || strings.Contains(f, "/message/") && !fastMessage(data, &m) {
			t.Errorf("%s: not decoded by the fast decoder", f)
		}
	}
}

// FuzzFastDecode: what the fast decoder decodes, encoding/json decodes
// the same.
func FuzzFastDecode(f *testing.F) {
	for _, data := range fastInputs(f) {
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkFast(t, data) })
}

// toolInputByMap is toolInput as it was, by json.Unmarshal into a map.
func toolInputByMap(input json.RawMessage) []byte {
	t := bytes.TrimSpace(input)
	if len(t) < 2 || t[0] != '{' || !bytes.Contains(t, []byte(`"filePath"`)) {
		return t
	}
	var members map[string]json.RawMessage
	if json.Unmarshal(t, &members) != nil {
		return t
	}
	path, ok := members["filePath"]
	if _, has := members["file_path"]; !ok || has {
		return t
	}
	out := make([]byte, 0, len(t)+len(path)+16)
	out = append(out, `{"file_path":`...)
	out = append(out, path...)
	if rest := bytes.TrimSpace(t[1:]); len(rest) > 0 && rest[0] != '}' {
		out = append(out, ',')
	}
	return append(out, t[1:]...)
}
