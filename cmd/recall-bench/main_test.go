package main

import (
	"strings"
	"testing"

	"github.com/alecthomas/kong"
)

func parse(t *testing.T, args ...string) (*cli, error) {
	t.Helper()
	var c cli
	parser, err := kong.New(&c, kong.Name("recall-bench"), kong.Exit(func(int) { t.Fatal("kong tried to exit") }))
	if err != nil {
		t.Fatal(err)
	}
	_, err = parser.Parse(args)
	return &c, err
}

func TestCLIParsing(t *testing.T) {
	tests := []struct {
		args    []string
		check   func(c *cli) bool
		wantErr string
	}{
		{args: []string{"gen", "--out", "d"}, check: func(c *cli) bool {
			return c.Gen.Size == "1GB" && c.Gen.Seed == 1 && c.Gen.Out == "d" && !c.Gen.Mixed
		}},
		{args: []string{"gen"}, wantErr: "--out"},
		{args: []string{"run", "--recall", "/tmp/recall"}, check: func(c *cli) bool {
			return c.Run.Repeat == 5 && c.Run.Out == "docs/benchmarks.md" && c.Run.Workdir == "bench-data" && !c.Run.Also4x
		}},
		{args: []string{"run", "--recall", "r", "--also-4x", "--size", "50MB", "--repeat", "3"}, check: func(c *cli) bool {
			return c.Run.Also4x && c.Run.Size == "50MB" && c.Run.Repeat == 3
		}},
		{args: []string{"run"}, wantErr: "--recall"},
		{args: []string{"gen", "--out", "d", "--mixed"}, check: func(c *cli) bool { return c.Gen.Mixed && !c.Run.Mixed }},
		{args: []string{"run", "--recall", "r", "--mixed", "--size", "64MB"}, check: func(c *cli) bool { return c.Run.Mixed && c.Run.Size == "64MB" && !c.Run.Also4x }},
		{args: []string{"measure", "--", "sh", "-c", "exit 3"}, check: func(c *cli) bool {
			return strings.Join(c.Measure.Argv, " ") == "-- sh -c exit 3"
		}},
	}
	for _, tt := range tests {
		c, err := parse(t, tt.args...)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%v: error %v, want one mentioning %s", tt.args, err, tt.wantErr)
			}
			continue
		}
		if err != nil || !tt.check(c) {
			t.Errorf("%v: err %v, parsed %+v", tt.args, err, c)
		}
	}
}

func TestGenRejectsBadSize(t *testing.T) {
	c := genCmd{Out: t.TempDir(), Size: "lots"}
	if err := c.Run(); err == nil || !strings.Contains(err.Error(), "lots") {
		t.Errorf("gen --size lots: got %v", err)
	}
}
