package benchrun

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// The prompt hint runs on every prompt, so the whole `recall hook`
// process must cost about what starting any Go program costs. This
// measures, in one run and under the same launcher, a minimal Go binary
// (`package main; func main(){}`, built in the work dir with the Go
// toolchain recall was built with) as the baseline, `recall --version`
// (recall's own start-up) and `recall hook` answering a UserPromptSubmit
// payload from the generated index (the hint's search included, the index
// update excluded: a prompt hook only reads the committed index).

// startupResult is the start-up measurement.
type startupResult struct {
	minimal, version, hook sample
	hookCmd                command
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
	payload := fmt.Sprintf(`{"session_id":"00000000-0000-4000-8000-00000000beef","transcript_path":"","cwd":%q,"hook_event_name":"UserPromptSubmit","prompt":%q}`, rn.dir, hintPrompt)
	res.hookCmd = command{argv: append([]string{recall, "hook", "--index-dir", indexDir}, sources...), okExit: []int{0}, stdin: payload}
	fmt.Fprintf(cfg.Log, "recall-bench: start-up (minimal Go binary, recall --version, recall hook)\n")
	n := startupRepeat(cfg.Repeat)
	for _, m := range []struct {
		c   command
		out *sample
	}{{tool(minimal), &res.minimal}, {tool(recall, "--version"), &res.version}, {res.hookCmd, &res.hook}} {
		if _, err := rn.run(ctx, m.c); err != nil { // warm-up
			return res, err
		}
		if *m.out, err = rn.repeat(ctx, n, m.c, nil); err != nil {
			return res, err
		}
	}
	return res, nil
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
	b.WriteString("Each row is one process, timed in the same run under the same launcher; the ratio is to the minimal Go binary's median. The hook answers a UserPromptSubmit payload (the hint's search of the committed index included; a prompt hook starts no index update).\n\n")
	b.WriteString("| process | median | min | ratio |\n|---|---:|---:|---:|\n")
	for _, row := range []struct {
		name string
		s    sample
	}{{"minimal Go binary (`func main(){}`)", r.minimal}, {"`recall --version`", r.version}, {"`" + r.hookCmd.String() + "` (UserPromptSubmit)", r.hook}} {
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", row.name, fmtDur(row.s.median()), fmtDur(row.s.min()), ratio(row.s.median()))
	}
	return b.String()
}

func fmtDur(d time.Duration) string {
	return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond))
}
