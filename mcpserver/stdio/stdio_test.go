package stdio

import (
	"bytes"
	"io"
	"slices"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	env := func(vars map[string]string) func(string) string {
		return func(name string) string { return vars[name] }
	}
	tests := []struct {
		name    string
		args    []string
		env     map[string]string
		want    Flags
		wantErr string
	}{
		{"nothing", nil, nil, Flags{}, ""},
		{"index dir from the environment", nil, map[string]string{"RECALL_INDEX_DIR": "/e"}, Flags{IndexDir: "/e"}, ""},
		{"the flag over the environment", []string{"--index-dir", "/f"}, map[string]string{"RECALL_INDEX_DIR": "/e"}, Flags{IndexDir: "/f"}, ""},
		{"every flag, sources in order", []string{"--source", "/a", "--source", "codex:/c", "--current-session", "s", "-v", "--no-update"}, nil,
			Flags{Sources: []string{"/a", "codex:/c"}, CurrentSession: "s", Verbose: true, NoUpdate: true}, ""},
		{"an argument", []string{"search"}, nil, Flags{}, `unexpected argument "search"`},
		{"an unknown flag", []string{"--nope"}, nil, Flags{}, "flag provided but not defined"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(tt.args, env(tt.env), io.Discard)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || got.IndexDir != tt.want.IndexDir || !slices.Equal(got.Sources, tt.want.Sources) || got.CurrentSession != tt.want.CurrentSession || got.Verbose != tt.want.Verbose || got.NoUpdate != tt.want.NoUpdate {
				t.Fatalf("Parse = %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}

// TestMainExitStatus: -h is help (status 0), a bad command line status 2
// with the reason on stderr; stdout stays empty, as it carries only the
// protocol.
func TestMainExitStatus(t *testing.T) {
	for _, tt := range []struct {
		args []string
		code int
		say  string
	}{
		{[]string{"-h"}, 0, "recall-mcp serves"},
		{[]string{"extra"}, 2, "recall-mcp: unexpected argument"},
	} {
		var stdout, stderr bytes.Buffer
		e := Env{Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr, Getenv: func(string) string { return "" }}
		if code := Main(tt.args, "test", e); code != tt.code || stdout.Len() != 0 || !strings.Contains(stderr.String(), tt.say) {
			t.Errorf("%v: status %d, stdout %q, stderr %q; want %d and %q", tt.args, code, stdout.String(), stderr.String(), tt.code, tt.say)
		}
	}
}
