package main

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/alecthomas/kong"

	"github.com/recall-dev/recall/search"
)

// Most tests run the CLI in process through runWith. Only those that need
// a process of their own (a hook starting its detached indexer) run the
// real binary, built once for the whole test run by recallBinary.

// buildEnv is the environment the tests started with, for `go build`
// (its caches live under the real HOME).
var buildEnv []string

// binDir holds the binary recallBinary builds; TestMain removes it.
var binDir string

func TestMain(m *testing.M) {
	buildEnv = os.Environ()
	code, err := runTests(m)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	os.Exit(code)
}

func runTests(m *testing.M) (int, error) {
	dir, err := os.MkdirTemp("", "recall-test-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	binDir = filepath.Join(dir, "bin")
	if err := hermeticProcess(filepath.Join(dir, "home")); err != nil {
		return 0, err
	}
	return m.Run(), nil
}

// hermeticProcess clears this process's environment of anything that
// would point recall at the real ~/.claude or index, with HOME in a temp
// dir, as a fresh process of the CLI got from runBinaryIn before the tests
// ran it in process.
func hermeticProcess(home string) error {
	if err := os.MkdirAll(home, 0o700); err != nil {
		return err
	}
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if name == "XDG_DATA_HOME" || strings.HasPrefix(name, "CLAUDE") || strings.HasPrefix(name, "RECALL_") || otherAgentVar(name) {
			os.Unsetenv(name)
		}
	}
	return os.Setenv("HOME", home)
}

// otherAgentVar reports whether an environment variable is one of the
// other agents' (their homes, databases, running session): a test must
// not read the machine's Codex or Gemini sessions.
func otherAgentVar(name string) bool {
	for _, p := range []string{"CODEX_", "GEMINI_", "OPENCODE_", "AIDER_"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

var (
	buildOnce sync.Once
	builtBin  string
	buildErr  error
)

// recallBinary builds recall once per test run, for the tests that must
// run it as Claude Code does: a fresh process per call.
func recallBinary(tb testing.TB) string {
	tb.Helper()
	buildOnce.Do(func() {
		goTool, err := exec.LookPath("go")
		if err != nil {
			buildErr = err
			return
		}
		// recall-mcp beside it, which `recall mcp` hands over to, and
		// recall-opencode, which reads OpenCode's databases for it.
		bin := filepath.Join(binDir, "recall")
		cmd := exec.Command(goTool, "build", "-o", binDir+string(filepath.Separator), ".", "../recall-mcp", "../recall-opencode")
		cmd.Env = buildEnv
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
			return
		}
		builtBin = bin
	})
	if buildErr != nil {
		if _, err := exec.LookPath("go"); err != nil {
			tb.Skip("no go tool to build recall with")
		}
		tb.Fatal(buildErr)
	}
	return builtBin
}

// binaryAlone is a copy of the binary at built in a directory of its
// own: no helper binary beside it.
func binaryAlone(tb testing.TB, built string) string {
	tb.Helper()
	alone := filepath.Join(tb.TempDir(), filepath.Base(built))
	data, err := os.ReadFile(built)
	if err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(alone, data, 0o755); err != nil {
		tb.Fatal(err)
	}
	return alone
}

type runResult struct {
	stdout, stderr string
	code           int
}

// runCLI runs recall in process in the test's directory, with no stdin.
func runCLI(t *testing.T, args ...string) runResult {
	t.Helper()
	return runCLIIn(t, "", args...)
}

// runCLIIn runs recall in process as if started in dir (the test's
// directory when empty), with no stdin.
func runCLIIn(t *testing.T, dir string, args ...string) runResult {
	t.Helper()
	return runCLIWith(t, dir, "", args...)
}

// runCLIWith runs recall in process in dir with stdin holding input.
func runCLIWith(t *testing.T, dir, input string, args ...string) runResult {
	t.Helper()
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			t.Fatal(err)
		}
		dir = wd
	}
	var stdout, stderr bytes.Buffer
	code := runWith(env{stdin: strings.NewReader(input), stdout: &stdout, stderr: &stderr, cwd: dir}, args)
	return runResult{stdout.String(), stderr.String(), code}
}

// TestRunWritesToItsWriters checks that run uses the writers it is given:
// --version and --help go through kong, errors through exitCodeOf.
func TestRunWritesToItsWriters(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run([]string{"--version"}, strings.NewReader(""), &stdout, &stderr); code != 0 || stdout.String() != version+"\n" {
		t.Errorf("--version: code %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
	}
	stdout.Reset()
	if code := run([]string{"search", "--help"}, strings.NewReader(""), &stdout, &stderr); code != 0 || !strings.Contains(stdout.String(), "--recall-window") {
		t.Errorf("search --help: code %d, stdout %q", code, stdout.String())
	}
	stdout.Reset()
	r := runCLI(t, "stats", "--index-dir", t.TempDir())
	if r.code != 2 || r.stdout != "" || !strings.HasPrefix(r.stderr, "recall: no index in ") {
		t.Errorf("stats without an index: code %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}

// The search flags' defaults come from package search, and the checks
// of search.Params reach the command line as usage errors.
func TestSearchFlagChecks(t *testing.T) {
	idx := t.TempDir()
	src, _ := filepath.Abs(fixtures)
	common := []string{"--source", src, "--index-dir", idx, "--no-update"}
	tests := []struct {
		name   string
		args   []string
		stderr string
	}{
		{"negative -n", []string{"jwt", "--sessions=-1"}, "-n/--sessions -1: must not be negative"},
		{"negative -m", []string{"jwt", "--messages=-2"}, "-m/--messages -2: must not be negative"},
		{"negative half-life", []string{"jwt", "--half-life=-1h"}, "--half-life -1h0m0s: must not be negative"},
		{"until before since", []string{"jwt", "--since", "2026-02-01", "--until", "2026-01-01"}, "--until 2026-01-01 is before --since 2026-02-01"},
		{"bad window", []string{"jwt", "--recall-window", "soon"}, `--recall-window "soon"`},
	}
	for _, tt := range tests {
		r := runCLI(t, append(tt.args, common...)...)
		if r.code != 2 || r.stdout != "" || !strings.Contains(r.stderr, tt.stderr) {
			t.Errorf("%s: code %d, stdout %q, stderr %q; want exit 2 and %q", tt.name, r.code, r.stdout, r.stderr, tt.stderr)
		}
	}
	var help bytes.Buffer
	run([]string{"search", "--help"}, strings.NewReader(""), &help, &help)
	for _, want := range []string{
		fmt.Sprintf("--sessions=%d ", search.DefaultSessions), fmt.Sprintf("--messages=%d ", search.DefaultMessages),
		fmt.Sprintf("--width=%d ", search.DefaultContext), "--half-life=" + search.FormatDuration(search.DefaultHalfLife) + " ",
		"default " + search.DefaultRecallWindow + ";",
	} {
		if !strings.Contains(help.String(), want) {
			t.Errorf("search --help lacks %q", want)
		}
	}
}

// TestChosenCommandsParseAsTheWholeTree checks the shortcut of
// chosenCommands: a command named by the first word (or the default
// command, when that word names none), after any flags a search may take
// before it, is built alone, and must read its flags, print its help and
// report its errors exactly as when the whole tree is built.
func TestChosenCommandsParseAsTheWholeTree(t *testing.T) {
	dir := t.TempDir()
	idx := filepath.Join(dir, "idx")
	var heads [][]string
	for _, cmd := range commandsOf(&cli{}) {
		heads = append(heads, []string{cmd.name}, []string{"--index-dir", idx, cmd.name}, []string{"-v", cmd.name})
	}
	heads = append(heads, []string{"jwt"}, []string{"jwt", "index"}, []string{"idnex"},
		[]string{"--index-dir", idx, "jwt"}, []string{"--index-dir=" + idx, "jwt"}, []string{"--no-update", "-n", "5", "jwt"},
		[]string{"-v", "--json", "jwt"}, []string{"-n", "x", "jwt"}, []string{"-n", "-1", "jwt"}, []string{"-vn", "5", "jwt"},
		[]string{"--since", "yesterdayish", "jwt"}, []string{"--", "index"}, []string{"--no-update"}, []string{"--version", "jwt"},
		[]string{"--help", "jwt"}, []string{"-e", "--", "-x"}, []string{"--no-such-flag", "jwt"}, []string{"-"})
	for _, head := range heads {
		for _, tail := range [][]string{{"--help"}, {"--no-such-flag"}, {"-n", "x"}, {"--help", "extra", "words"}, {"--since", "yesterdayish"}} {
			args := append(slices.Clone(head), tail...)
			chosen := runCLIIn(t, dir, args...)
			whole := runCLIWholeTree(t, dir, args...)
			if chosen != whole {
				t.Errorf("recall %q:\nchosen: %+v\nwhole:  %+v", args, chosen, whole)
			}
		}
	}
}

// runCLIWholeTree is runCLIIn with every command built.
func runCLIWholeTree(t *testing.T, dir string, args ...string) runResult {
	t.Helper()
	var stdout, stderr bytes.Buffer
	all := func(c *cli, _ []string) []command { return commandsOf(c) }
	code := runCommands(env{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, cwd: dir}, args, all)
	return runResult{stdout.String(), stderr.String(), code}
}

// TestFlagDefaultsRejectUnknownVariable checks that a default naming a
// variable flagDefaults has no value for is an error when the tree is
// built, as an undefined kong variable is, not an empty default.
func TestFlagDefaultsRejectUnknownVariable(t *testing.T) {
	var grammar struct {
		Limit int `default:"${no_such_default}"`
	}
	_, err := kong.New(&grammar, flagDefaults())
	if err == nil || !strings.Contains(err.Error(), "undefined variable ${no_such_default}") {
		t.Errorf("kong.New = %v, want an error naming the undefined variable", err)
	}
}

// TestLeadingFlagsAreKongs checks that the flags chosenCommands skips
// before a search's first word are those kong builds for the global and
// search flags, each taking a value exactly when kong's does.
func TestLeadingFlagsAreKongs(t *testing.T) {
	c := cli{}
	parser, err := kong.New(&c, append([]kong.Option{flagDefaults()}, commandOptions(commandsOf(&c))...)...)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	var search *kong.Node
	for _, n := range parser.Model.Children {
		if n.Name == "search" {
			search = n
		}
	}
	for _, group := range search.AllFlags(false) {
		for _, f := range group {
			if f.Name == "help" || f.Name == "version" {
				continue // kong's own: they take the whole tree
			}
			takesValue := !f.IsBool() && !f.IsCounter()
			want[f.Name] = takesValue
			if f.Short != 0 {
				want[string(f.Short)] = takesValue
			}
		}
	}
	if got := leadingFlags(); !maps.Equal(got, want) {
		t.Errorf("leadingFlags() = %v\nkong's flags    %v", got, want)
	}
}
