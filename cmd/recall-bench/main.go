// Command recall-bench generates benchmark corpora of Claude Code
// transcripts (with --mixed, also Codex, Gemini CLI, OpenCode and Aider
// sessions) and measures recall against plain ripgrep and zstd.
//
// Each command lives in its own file with a Run method; the logic lives
// in the benchgen packages.
package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/alecthomas/kong"
)

type cli struct {
	Gen genCmd `cmd:"" help:"Write a deterministic corpus of realistic transcripts."`
	Run runCmd `cmd:"" help:"Benchmark recall against rg and zstd on a generated corpus."`
	// Measure is the launcher that times each benchmarked command.
	Measure measureCmd `cmd:"" hidden:"" help:"Run a command and report its wall time and peak RSS on fd 3."`
}

func main() {
	var c cli
	ctx := kong.Parse(&c,
		kong.Name("recall-bench"),
		kong.Description("Benchmark corpus generator and side-by-side harness for recall."),
		kong.UsageOnError(),
	)
	if err := ctx.Run(); err != nil {
		if msg := err.Error(); msg != "" {
			fmt.Fprintln(os.Stderr, "recall-bench:", msg)
		}
		os.Exit(exitCodeOf(err))
	}
}

// exitCodeOf maps an error to an exit status: errors that carry their own
// (a missing tool is 2) keep it, everything else is 1.
func exitCodeOf(err error) int {
	var coder interface{ ExitCode() int }
	if errors.As(err, &coder) {
		return coder.ExitCode()
	}
	return 1
}
