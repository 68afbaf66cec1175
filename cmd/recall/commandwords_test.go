package main

import (
	"os"
	"strings"
	"testing"
)

// Words meant for a search that begin with a command's name are refused
// with the search to run instead, and the command does not run: install
// never writes settings for them.
func TestCommandWordsPointToSearch(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("CLAUDE_CONFIG_DIR", home)
	for _, tt := range []struct {
		args []string
		hint string // "" for none
	}{
		{[]string{"install", "docker"}, "recall search install docker"},
		{[]string{"index", "rebuild"}, "recall search index rebuild"},
		{[]string{"show", "stopper", "bug's fix"}, `recall search show stopper 'bug'\''s fix'`},
		{[]string{"sessions", "--no-update", "from", "yesterday"}, "recall search sessions from yesterday"},
		{[]string{"search", "install", "--frobnicate"}, ""},
		{[]string{"--frobnicate"}, ""},
	} {
		res := runCLI(t, tt.args...)
		if res.code != 2 || res.stdout != "" {
			t.Errorf("%q: exit %d, stdout %q", tt.args, res.code, res.stdout)
		}
		if got := strings.Contains(res.stderr, "to search for these words: "+tt.hint+"\n"); got != (tt.hint != "") {
			t.Errorf("%q: stderr %q, want the hint %q", tt.args, res.stderr, tt.hint)
		}
	}
	if entries, err := os.ReadDir(home); err != nil || len(entries) != 0 {
		t.Errorf("the home directory holds %v (%v): a command ran", entries, err)
	}
}
