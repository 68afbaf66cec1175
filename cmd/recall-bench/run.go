package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/recall-dev/recall/benchgen"
	"github.com/recall-dev/recall/benchgen/benchrun"
)

type runCmd struct {
	Recall  string `required:"" placeholder:"PATH" help:"The recall binary to measure (go build -o /tmp/recall ./cmd/recall)."`
	Size    string `default:"1GB" help:"Corpus size (binary units: 50MB, 1GB)."`
	Seed    uint64 `default:"1" help:"Corpus seed."`
	Repeat  int    `default:"5" help:"Timed runs per measurement, after one warm-up run."`
	Also4x  bool   `name:"also-4x" help:"Also measure a corpus 4 times the size."`
	Mixed   bool   `help:"Benchmark a mixed corpus: the Claude Code transcripts plus Codex, Gemini CLI, OpenCode and Aider sessions (a quarter more bytes), indexed with a --source per agent; also times the no-change index with 4 times the other agents' sessions."`
	Out     string `default:"docs/benchmarks.md" placeholder:"FILE" help:"Markdown report to write."`
	Workdir string `default:"bench-data" placeholder:"DIR" help:"Where corpora, indexes and rows.tsv go (reused between runs)."`
}

func (c *runCmd) Run() error {
	size, err := benchgen.ParseSize(c.Size)
	if err != nil {
		return err
	}
	// Ctrl-C stops the child and still restores the transcript the
	// incremental benchmark appends to.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return benchrun.Run(ctx, benchrun.Config{
		Recall:  c.Recall,
		Size:    size,
		Seed:    c.Seed,
		Repeat:  c.Repeat,
		Also4x:  c.Also4x,
		Mixed:   c.Mixed,
		Out:     c.Out,
		Workdir: c.Workdir,
		Command: benchrun.CommandLine(append([]string{"recall-bench"}, os.Args[1:]...)),
		Log:     os.Stderr,
		Stdout:  os.Stdout,
	})
}
