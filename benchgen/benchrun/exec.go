package benchrun

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/recall-dev/recall/internal/tailbuf"
)

// command is one process to time: argv (or a bash -c script) and the
// exit codes that count as success.
type command struct {
	argv []string
	// okExit lists accepted exit codes; grep-like tools exit 1 when
	// nothing matched, which is a result, not a failure.
	okExit []int
	// stdout receives the output; nil counts and discards it.
	stdout *os.File
	// stdin is what the command reads (a hook's payload); "" none.
	stdin string
}

func tool(argv ...string) command { return command{argv: argv, okExit: []int{0}} }

// search is a grep-like command: exit 1 means "no match".
func search(argv ...string) command { return command{argv: argv, okExit: []int{0, 1}} }

// pipeline runs a shell pipeline through bash -c, grep-like.
func pipeline(script string) command {
	return command{argv: []string{"bash", "-c", script}, okExit: []int{0, 1}}
}

// String renders the command the way a reader would type it.
func (c command) String() string {
	if len(c.argv) == 3 && c.argv[0] == "bash" && c.argv[1] == "-c" {
		return c.argv[2]
	}
	return CommandLine(c.argv)
}

// CommandLine quotes argv back into a command a shell would run the
// same way, for showing in the report.
func CommandLine(argv []string) string {
	quoted := make([]string, len(argv))
	for i, a := range argv {
		quoted[i] = shellQuote(a)
	}
	return strings.Join(quoted, " ")
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// runResult is one timed run.
type runResult struct {
	wall        time.Duration
	maxRSSBytes int64
	exitCode    int
	stdoutBytes int64
	stdoutLines int64
	stderrTail  string
}

// lineCounter counts the bytes and lines written to it.
type lineCounter struct{ bytes, lines int64 }

func (c *lineCounter) Write(p []byte) (int, error) {
	c.bytes += int64(len(p))
	c.lines += int64(bytes.Count(p, []byte{'\n'}))
	return len(p), nil
}

// stderrTailBytes is how much of a command's stderr an error quotes.
const stderrTailBytes = 4 << 10

// runner starts commands in a fixed directory with a clean environment,
// each under the measuring launcher (see launcher.go).
type runner struct {
	dir      string
	env      []string
	launcher []string // e.g. recall-bench measure --
}

// cleanEnv drops variables that would make recall look at a live Claude
// Code session or another index than the one being measured.
func cleanEnv(environ []string) []string {
	var env []string
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "RECALL_") || strings.HasPrefix(name, "CLAUDE_") || name == "NO_COLOR" {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "NO_COLOR=1")
}

// run executes c once under the launcher, which reports the command's
// wall time from start to exit and its peak RSS (for bash -c, the
// largest process of the pipeline, which bash waited for).
func (rn runner) run(ctx context.Context, c command) (runResult, error) {
	reportR, reportW, err := os.Pipe()
	if err != nil {
		return runResult{}, fmt.Errorf("report pipe: %w", err)
	}
	defer reportR.Close()
	argv := append(slices.Clone(rn.launcher), c.argv...)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = rn.dir
	cmd.Env = rn.env
	cmd.ExtraFiles = []*os.File{reportW} // fd 3 in the launcher
	var out lineCounter
	errTail := tailbuf.Buffer{Max: stderrTailBytes}
	if c.stdout != nil {
		cmd.Stdout = c.stdout
	} else {
		cmd.Stdout = &out
	}
	cmd.Stderr = &errTail
	if c.stdin != "" {
		cmd.Stdin = strings.NewReader(c.stdin)
	}
	err = cmd.Start()
	reportW.Close()
	if err != nil {
		return runResult{}, fmt.Errorf("start %s: %w", c, err)
	}
	err = cmd.Wait()
	report, _ := io.ReadAll(reportR)
	res := runResult{stdoutBytes: out.bytes, stdoutLines: out.lines, stderrTail: errTail.String(), exitCode: cmd.ProcessState.ExitCode()}
	if ctx.Err() != nil {
		return res, ctx.Err()
	}
	if _, isExit := err.(*exec.ExitError); err != nil && !isExit {
		return res, fmt.Errorf("run %s: %w", c, err)
	}
	if res.wall, res.maxRSSBytes, err = parseMeasurement(string(report)); err != nil {
		return res, fmt.Errorf("%s did not run (exit %d): %s", c, res.exitCode, strings.TrimSpace(res.stderrTail))
	}
	if !slices.Contains(c.okExit, res.exitCode) {
		return res, fmt.Errorf("%s exited %d: %s", c, res.exitCode, strings.TrimSpace(res.stderrTail))
	}
	return res, nil
}

// interleaved times each command n times, taking turns after a warm-up
// run of each, so that a slow spell of the machine falls on all of them
// alike: timed one after another, minutes apart, the same binary's
// no-change check measured 5.5 ms at 1 GB and 7.8 ms at 4 GB, and 5.5
// against 5.7 ms taking turns.
func (rn runner) interleaved(ctx context.Context, n int, cmds ...command) ([]sample, error) {
	turns := make([]turn, len(cmds))
	for i, c := range cmds {
		turns[i] = turn{c: c}
	}
	return rn.takingTurns(ctx, n, turns...)
}

// turn is a command timed in turns, and what is done before each run
// of it (nil: nothing).
type turn struct {
	c      command
	before func() error
}

// takingTurns is interleaved with a step before each run.
func (rn runner) takingTurns(ctx context.Context, n int, turns ...turn) ([]sample, error) {
	out := make([]sample, len(turns))
	for round := -1; round < n; round++ { // round -1: the warm-up
		for i, t := range turns {
			if t.before != nil {
				if err := t.before(); err != nil {
					return nil, err
				}
			}
			r, err := rn.run(ctx, t.c)
			if err != nil {
				return nil, err
			}
			if round >= 0 {
				out[i].runs = append(out[i].runs, r)
			}
		}
	}
	return out, nil
}

// sample is the runs of one measurement.
type sample struct{ runs []runResult }

func (s sample) walls() []time.Duration {
	w := make([]time.Duration, len(s.runs))
	for i, r := range s.runs {
		w[i] = r.wall
	}
	slices.Sort(w)
	return w
}

// median of the wall times; for an even count, the mean of the middle two.
func (s sample) median() time.Duration {
	w := s.walls()
	if len(w) == 0 {
		return 0
	}
	if len(w)%2 == 1 {
		return w[len(w)/2]
	}
	return (w[len(w)/2-1] + w[len(w)/2]) / 2
}

func (s sample) min() time.Duration {
	if w := s.walls(); len(w) > 0 {
		return w[0]
	}
	return 0
}

func (s sample) max() time.Duration {
	if w := s.walls(); len(w) > 0 {
		return w[len(w)-1]
	}
	return 0
}

// peakRSS is the largest peak RSS over the runs.
func (s sample) peakRSS() int64 {
	var m int64
	for _, r := range s.runs {
		m = max(m, r.maxRSSBytes)
	}
	return m
}

func (s sample) last() runResult {
	if len(s.runs) == 0 {
		return runResult{}
	}
	return s.runs[len(s.runs)-1]
}

// repeat runs c n times after before (which may be nil) prepares each
// run; before is not timed.
func (rn runner) repeat(ctx context.Context, n int, c command, before func() error) (sample, error) {
	var s sample
	for range n {
		if before != nil {
			if err := before(); err != nil {
				return s, err
			}
		}
		res, err := rn.run(ctx, c)
		if err != nil {
			return s, err
		}
		s.runs = append(s.runs, res)
	}
	return s, nil
}
