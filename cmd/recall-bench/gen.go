package main

import (
	"fmt"
	"os"

	"github.com/recall-dev/recall/benchgen"
)

type genCmd struct {
	Out      string `required:"" placeholder:"DIR" help:"Output directory; transcripts go to DIR/projects."`
	Size     string `default:"1GB" help:"Approximate total size (binary units: 50MB, 1GB, 4GB)."`
	Seed     uint64 `default:"1" help:"Seed; the same seed and size give byte-identical output."`
	Workers  int    `default:"0" help:"Parallel writers (0 = all CPUs). Output does not depend on it."`
	TextRoot string `name:"text-root" placeholder:"DIR" help:"Source tree to sample text from (default $(go env GOROOT)/src)."`
	Force    bool   `help:"Replace an existing DIR/projects."`
	Verbose  bool   `short:"v" help:"Also print where the bytes went, by kind of line."`
	Mixed    bool   `help:"Also write Codex, Gemini CLI, OpenCode and Aider sessions (a quarter more bytes) in DIR/codex, DIR/gemini, DIR/opencode and DIR/aider."`
}

func (c *genCmd) Run() error {
	size, err := benchgen.ParseSize(c.Size)
	if err != nil {
		return err
	}
	opts := benchgen.Options{Dir: c.Out, Size: size, Seed: c.Seed, Workers: c.Workers, Overwrite: c.Force, Log: os.Stderr, Mixed: c.Mixed}
	if c.TextRoot != "" {
		if opts.Text, err = benchgen.LoadTextSource(c.TextRoot); err != nil {
			return fmt.Errorf("text source: %w", err)
		}
	}
	sum, err := benchgen.Generate(opts)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "recall-bench gen: %s\n", sum)
	if c.Mixed {
		fmt.Fprintf(os.Stderr, "recall-bench gen: other agents: %s\n", sum.AgentsString())
	}
	if c.Verbose {
		fmt.Fprintf(os.Stderr, "recall-bench gen: bytes by kind: %s (text from %s)\n", sum.ByteMix(), sum.TextOrigin)
	}
	return nil
}
