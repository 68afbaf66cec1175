package main

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var updateHelp = flag.Bool("update-help", false, "rewrite testdata/help/*.txt from the current --help output")

// TestHelpGolden pins the --help output of recall and of every command:
// how kong is given the tree (which commands, where the flags' defaults
// come from) may change to make a start cheaper, what a user reads may not.
func TestHelpGolden(t *testing.T) {
	names := []string{""}
	for _, cmd := range commandsOf(&cli{}) {
		names = append(names, cmd.name)
	}
	for _, name := range names {
		args := []string{"--help"}
		golden := "recall.txt"
		if name != "" {
			args = []string{name, "--help"}
			golden = name + ".txt"
		}
		r := runCLI(t, args...)
		if r.code != 0 || r.stderr != "" {
			t.Errorf("recall %q: code %d, stderr %q", args, r.code, r.stderr)
		}
		path := filepath.Join("testdata", "help", golden)
		if *updateHelp {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(r.stdout), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("read %s: %v (go test -run TestHelpGolden -update-help writes it)", path, err)
		}
		if r.stdout != string(want) {
			t.Errorf("recall %q: help changed; got:\n%s\nwant (%s):\n%s", args, r.stdout, path, want)
		}
	}
}
