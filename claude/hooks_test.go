package claude

import (
	"strings"
	"testing"
)

func TestIsRecallHandler(t *testing.T) {
	tests := []struct {
		handler string
		want    bool
	}{
		{`{"type":"command","command":"/opt/recall/bin/recall hook"}`, true},
		{`{"type":"command","command":"recall hook"}`, true},
		{`{"type":"command","command":"'/home/me/my tools/recall' hook"}`, true},
		{`{"type":"command","command":"\"/home/me/my tools/recall\" hook"}`, true},
		{`{"type":"command","command":"  /usr/bin/recall hook  ","async":false}`, true},
		{`{"type":"command","command":"/usr/bin/recall index"}`, false},
		{`{"type":"command","command":"/usr/bin/recall-dev hook"}`, false},
		{`{"type":"command","command":"/usr/bin/notrecall hook"}`, false},
		{`{"type":"command","command":"recall hook --index-dir /data/recall"}`, true},
		{`{"type":"command","command":"recall hook extra-word"}`, false},
		{`{"type":"command","command":"echo recall hook"}`, false},
		{`{"type":"http","command":"recall hook"}`, false},
		{`{"type":"command","command":["recall","hook"]}`, false},
		{`{"type":"command"}`, false},
		{`{"type":"command","command":"/opt/recall/bin/recall-hint"}`, true},
		{`{"type":"command","command":"'/home/me/my -tools/recall-hint' --index-dir /data"}`, true},
		{`{"type":"command","command":"recall-hint --index-dir '/my dir' --source /s"}`, true},
		{`{"type":"command","command":"/usr/bin/recall-hinter"}`, false},
		{`{"type":"command","command":"recall-hint extra-word"}`, false},
		{`{"type":"command","command":"echo recall-hint"}`, false},
	}
	for _, tt := range tests {
		v, err := parseJSON([]byte(tt.handler))
		if err != nil {
			t.Fatal(err)
		}
		if got := isRecallHandler(v); got != tt.want {
			t.Errorf("isRecallHandler(%s) = %v, want %v", tt.handler, got, tt.want)
		}
	}
}

func TestHookCommandQuotesForTheShell(t *testing.T) {
	tests := []struct{ path, want string }{
		{"/usr/local/bin/recall", "/usr/local/bin/recall hook"},
		{"/home/me/my tools/recall", "'/home/me/my tools/recall' hook"},
		{"/home/o'brien/bin/recall", `'/home/o'\''brien/bin/recall' hook`},
		{"/opt/$HOME/recall", "'/opt/$HOME/recall' hook"},
	}
	for _, tt := range tests {
		got := HookCommand(tt.path)
		if got != tt.want {
			t.Errorf("HookCommand(%q) = %q, want %q", tt.path, got, tt.want)
		}
		program, _ := strings.CutSuffix(got, " hook")
		if back := shellUnquote(program); back != tt.path {
			t.Errorf("shellUnquote(%q) = %q, want %q", program, back, tt.path)
		}
	}
}

// A hook command recall wrote is always recognised as recall's, whatever
// the path.
func TestRecallHandlerIsRecognised(t *testing.T) {
	for _, path := range []string{"/usr/bin/recall", "/home/me/my tools/recall", "/home/o'brien/recall", "/tmp/a\"b/recall", "/home/my hook dir/recall"} {
		for _, args := range [][]string{nil, {"--index-dir", "/data/my recall"}, {"--source", "/a", "--source", "/b"}} {
			if !isRecallHandler(recallHandler(path, args)) {
				t.Errorf("the handler for %q %q is not recognised", path, args)
			}
		}
	}
	for _, cmd := range []string{"/usr/bin/recall", "/usr/bin/recall hooks", "/usr/bin/other hook", "/usr/bin/recall hook; rm -rf x", "echo recall hook"} {
		h := &Object{}
		h.Set("type", "command")
		h.Set("command", cmd)
		if isRecallHandler(h) {
			t.Errorf("%q taken for recall's hook", cmd)
		}
	}
}

func TestJSONRoundTrip(t *testing.T) {
	tests := []struct{ name, in, indent string }{
		{"nested, two spaces", "{\n  \"a\": [\n    1,\n    {\n      \"b\": null\n    }\n  ],\n  \"c\": {}\n}", "  "},
		{"numbers as written", "{\n  \"f\": 1.50,\n  \"e\": -2E+10,\n  \"big\": 123456789012345678901234567890\n}", "  "},
		{"duplicate keys kept", "{\n  \"k\": 1,\n  \"k\": 2\n}", "  "},
		{"html and unicode unescaped", "{\n  \"c\": \"a && b <c> é \\u0000\"\n}", "  "},
		{"tabs", "{\n\t\"a\": [\n\t\t[]\n\t]\n}", "\t"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := detectIndent([]byte(tt.in)); got != tt.indent {
				t.Errorf("detectIndent = %q, want %q", got, tt.indent)
			}
			v, err := parseJSON([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			out, err := encodeJSON(v, tt.indent)
			if err != nil {
				t.Fatal(err)
			}
			if string(out) != tt.in {
				t.Errorf("round trip:\n%s", unifiedDiff("in", "out", []byte(tt.in), out))
			}
		})
	}
}

func TestDuplicateKeyLastWins(t *testing.T) {
	v, err := parseJSON([]byte(`{"k": 1, "k": 2}`))
	if err != nil {
		t.Fatal(err)
	}
	obj := v.(*Object)
	if got, _ := obj.Get("k"); got != jsonNumber("2") {
		t.Errorf("Get = %v, want the last value as JSON.parse does", got)
	}
	obj.Delete("k")
	if obj.Len() != 0 {
		t.Errorf("Delete left %v", obj.Keys())
	}
}
