package benchrun

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/recall-dev/recall/store/lockfile"
	"github.com/recall-dev/recall/transcript"
)

// The prompt hint runs on every prompt, so the whole `recall hook`
// process must cost about what starting any Go program costs. This
// measures, in one run and under the same launcher, a minimal Go binary
// (`package main; func main(){}`, built in the work dir with the Go
// toolchain recall was built with) as the baseline, `recall --version`
// (recall's own start-up) and `recall hook` answering a UserPromptSubmit
// payload from the generated index (the hint's search included). The
// hook also starts a detached index update, as every hook does: its start
// is timed, its run is not, and each timed run waits until the update
// before it has finished, so no run shares the CPU with one.

// startupResult is the start-up measurement.
type startupResult struct {
	minimal, version, hook sample
	hookCmd                command
	// hint is recall-hint answering the same payload, when it was built
	// beside recall (make build): what `recall install --hints` runs on
	// UserPromptSubmit.
	hint    sample
	hintCmd *command
}

// minimalGoSource is the baseline program.
const minimalGoSource = "package main\n\nfunc main() {}\n"

// buildMinimal builds the baseline binary in dir.
func buildMinimal(ctx context.Context, dir string) (string, error) {
	src := filepath.Join(dir, "minimal")
	if err := os.MkdirAll(src, 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(src, "main.go"), []byte(minimalGoSource), 0o644); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(src, "go.mod"), []byte("module minimal\n\ngo 1.26\n"), 0o644); err != nil {
		return "", err
	}
	bin := filepath.Join(src, "minimal")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, ".")
	cmd.Dir = src
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("build the minimal Go binary: %v: %s", err, out)
	}
	return bin, nil
}

// startupRepeat is how many times each start-up is timed: they take
// milliseconds, so many runs make the median steady.
func startupRepeat(repeat int) int { return 40 * repeat }

// hintPrompt is the prompt the hook measurement submits.
const hintPrompt = "how did we fix the flaky websocket reconnect test?"

func measureStartup(ctx context.Context, cfg Config, rn runner, recall, indexDir string, sources []string) (startupResult, error) {
	var res startupResult
	minimal, err := buildMinimal(ctx, rn.dir)
	if err != nil {
		return res, err
	}
	res.hookCmd = command{argv: append([]string{recall, "hook", "--index-dir", indexDir}, sources...), okExit: []int{0}, stdin: hookPayload(rn.dir, sources)}
	settled := func() error { return awaitIndexer(filepath.Join(rn.dir, indexDir)) }
	fmt.Fprintf(cfg.Log, "recall-bench: start-up (minimal Go binary, recall --version, recall hook, recall-hint)\n")
	n := startupRepeat(cfg.Repeat)
	type measured struct {
		c      command
		out    *sample
		before func() error
	}
	// Every row waits for the same settle before each run, the baseline
	// too: a hook's run must not share the CPU with the update the last
	// one started, and a process started after 100 ms of idle starts
	// slower (caches, the CPU's idle state) than one started right after
	// another. Measured back to back, the baseline alone would start
	// warm: recall-hint read about 2.6× against 1.7× with both waiting.
	// A prompt comes after a pause, so the waiting figures are the ones
	// a user meets.
	runs := []measured{{tool(minimal), &res.minimal, settled}, {tool(recall, "--version"), &res.version, settled}, {res.hookCmd, &res.hook, settled}}
	if hint := filepath.Join(filepath.Dir(recall), "recall-hint"); fileExists(hint) {
		c := res.hookCmd
		c.argv = append([]string{hint}, c.argv[2:]...)
		res.hintCmd = &c
		runs = append(runs, measured{c, &res.hint, settled})
	} else {
		fmt.Fprintf(cfg.Log, "recall-bench: no recall-hint beside %s (make build): its row is left out\n", recall)
	}
	for _, m := range runs {
		if _, err := rn.run(ctx, m.c); err != nil { // warm-up
			return res, err
		}
		if *m.out, err = rn.repeat(ctx, n, m.c, m.before); err != nil {
			return res, err
		}
	}
	return res, nil
}

// hookSession is the running session of the hook payload: one the
// corpus does not hold, as a new session's first prompt.
const hookSession = "00000000-0000-4000-8000-00000000beef"

// hookPayload is a UserPromptSubmit payload as Claude Code sends it for a
// session started in dir: its transcript_path is where Claude Code keeps
// that session, in the project folder of dir under the first Claude Code
// source.
func hookPayload(dir string, sources []string) string {
	path := ""
	for i := 0; i+1 < len(sources); i += 2 {
		if sources[i] == "--source" && !strings.Contains(sources[i+1], ":") {
			path = filepath.Join(dir, sources[i+1], transcript.ProjectSlug(dir), hookSession+".jsonl")
			break
		}
	}
	return fmt.Sprintf(`{"session_id":%q,"transcript_path":%q,"cwd":%q,"hook_event_name":"UserPromptSubmit","prompt":%q}`, hookSession, path, dir, hintPrompt)
}

// indexerSettle is how long the index lock must stay free before a timed
// hook runs: the update a hook starts takes the lock some milliseconds
// after the hook returns.
const indexerSettle = 100 * time.Millisecond

// awaitIndexer waits until no indexer has held indexDir's lock for
// indexerSettle (at most a minute).
func awaitIndexer(indexDir string) error {
	lock := filepath.Join(indexDir, lockfile.WriterName)
	deadline := time.Now().Add(time.Minute)
	// freeSince is when the probes last started finding the lock free:
	// only a probe that finds it free ends the wait, so a pause of this
	// process between probes (a loaded machine) cannot end it while an
	// indexer holds the lock.
	var freeSince time.Time
	for {
		held, err := lockfile.Held(lock)
		if err != nil {
			return fmt.Errorf("probe the index lock: %w", err)
		}
		now := time.Now()
		switch {
		case held:
			freeSince = time.Time{}
		case freeSince.IsZero():
			freeSince = now
		case now.Sub(freeSince) >= indexerSettle:
			return nil
		}
		if now.After(deadline) {
			return fmt.Errorf("an indexer still holds %s after a minute", lock)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// fileExists reports whether path is a regular file.
func fileExists(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.Mode().IsRegular()
}

// renderStartup is the report's start-up section.
func renderStartup(r startupResult) string {
	var b strings.Builder
	base := r.minimal.median()
	ratio := func(d time.Duration) string {
		if base <= 0 {
			return "-"
		}
		return fmt.Sprintf("%.2f×", float64(d)/float64(base))
	}
	b.WriteString("## Start-up and the prompt hook\n\n")
	b.WriteString("Each row is one process, timed in the same run under the same launcher, each run after the same wait (until the index lock has been free for 100 ms: a prompt comes after a pause, and a process started after idle starts slower than one started right after another); the ratio is to the minimal Go binary's median. The hook answers a UserPromptSubmit payload of a new session, with the transcript_path Claude Code gives (the hint's search of the committed index included). It also starts the detached index update every hook starts: the start is timed, the update is not, and each timed run waits until the last one's update has finished. `recall-hint`, the small binary `recall install --hints` runs on UserPromptSubmit, answers the same payload from the term index alone and starts no update.\n\n")
	b.WriteString("| process | median | min | ratio |\n|---|---:|---:|---:|\n")
	type row struct {
		name string
		s    sample
	}
	rows := []row{{"minimal Go binary (`func main(){}`)", r.minimal}, {"`recall --version`", r.version}, {"`" + r.hookCmd.String() + "` (UserPromptSubmit)", r.hook}}
	if r.hintCmd != nil {
		rows = append(rows, row{"`" + r.hintCmd.String() + "` (UserPromptSubmit, what `recall install --hints` runs)", r.hint})
	}
	for _, row := range rows {
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", row.name, fmtDur(row.s.median()), fmtDur(row.s.min()), ratio(row.s.median()))
	}
	return b.String()
}

func fmtDur(d time.Duration) string {
	return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond))
}
