package benchrun

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/recall-dev/recall/query"
)

// launcherEnv makes the test binary act as the measuring launcher, the
// usual helper-process pattern: the harness runs os.Args[0] in its place.
const launcherEnv = "BENCHRUN_TEST_LAUNCHER"

func TestMain(m *testing.M) {
	if os.Getenv(launcherEnv) == "1" {
		os.Exit(RunMeasured(os.Args[1:]))
	}
	os.Exit(m.Run())
}

func testRunner(t *testing.T) runner {
	t.Helper()
	t.Setenv(launcherEnv, "1")
	return runner{dir: t.TempDir(), env: os.Environ(), launcher: []string{os.Args[0]}}
}

func needTools(t *testing.T, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed", tool)
		}
	}
}

func TestCheckToolsNamesTheInstallCommand(t *testing.T) {
	tests := []struct {
		missing []string
		want    string // substring of the error; "" = no error
	}{
		{nil, ""},
		{[]string{"rg"}, "rg not found on PATH; install with: apt-get install ripgrep"},
		{[]string{"zstd"}, "install with: apt-get install zstd"},
		{[]string{"rg", "zstd"}, "rg, zstd not found on PATH; install with: apt-get install ripgrep zstd"},
	}
	for _, tt := range tests {
		lookPath := func(name string) (string, error) {
			for _, m := range tt.missing {
				if m == name {
					return "", exec.ErrNotFound
				}
			}
			return "/usr/bin/" + name, nil
		}
		err := checkTools(lookPath)
		if tt.want == "" {
			if err != nil {
				t.Errorf("missing %v: unexpected error %v", tt.missing, err)
			}
			continue
		}
		var te ToolError
		if !errors.As(err, &te) || te.ExitCode() != 2 || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("missing %v: got %v, want a ToolError (exit 2) containing %q", tt.missing, err, tt.want)
		}
	}
}

func TestQueryCommands(t *testing.T) {
	tests := []struct {
		name, baseline string
		viaBash        bool
	}{
		{"rare word", "rg -i tokenizer rows.tsv", false},
		{"OR of three", "rg -i 'mutex|deadlock|goroutine' rows.tsv", false},
		{"--require", "rg -i 'mutex|deadlock' rows.tsv | rg -i goroutine", true},
		{"--exclude", "rg -i 'error|timeout' rows.tsv | rg -iv test", true},
		{"phrase", "rg -i 'garbage collector' rows.tsv", false},
		{"--regex", "rg -i 'dead.?lock|race condition' rows.tsv", false},
	}
	byName := map[string]mixQuery{}
	for _, q := range queryMix() {
		if _, dup := byName[q.name]; dup || len(q.recallArgs) == 0 || q.rgPattern == "" {
			t.Errorf("query %q: duplicate name or empty side", q.name)
		}
		byName[q.name] = q
	}
	if len(byName) != 8 {
		t.Errorf("query mix has %d queries, want the 8 documented ones", len(byName))
	}
	for _, tt := range tests {
		c := byName[tt.name].baselineCommand("rows.tsv")
		if got := c.String(); got != tt.baseline {
			t.Errorf("%s baseline = %s, want %s", tt.name, got, tt.baseline)
		}
		if isBash := c.argv[0] == "bash"; isBash != tt.viaBash {
			t.Errorf("%s baseline runs through bash: %v, want %v", tt.name, isBash, tt.viaBash)
		}
	}
	got := byName["phrase"].recallCommand("/bin/recall", "idx").String()
	if want := `/bin/recall --no-update --index-dir idx '"garbage collector"'`; got != want {
		t.Errorf("phrase recall command = %s, want %s", got, want)
	}
}

func TestSampleStatistics(t *testing.T) {
	ms := func(ds ...int) sample {
		var s sample
		for i, d := range ds {
			s.runs = append(s.runs, runResult{wall: time.Duration(d) * time.Millisecond, maxRSSBytes: int64(i+1) << 20})
		}
		return s
	}
	tests := []struct {
		s                sample
		median, min, max time.Duration
		rss              int64
	}{
		{ms(30, 10, 20), 20 * time.Millisecond, 10 * time.Millisecond, 30 * time.Millisecond, 3 << 20},
		{ms(40, 10, 20, 30), 25 * time.Millisecond, 10 * time.Millisecond, 40 * time.Millisecond, 4 << 20},
		{ms(7), 7 * time.Millisecond, 7 * time.Millisecond, 7 * time.Millisecond, 1 << 20},
		{sample{}, 0, 0, 0, 0},
	}
	for i, tt := range tests {
		if tt.s.median() != tt.median || tt.s.min() != tt.min || tt.s.max() != tt.max || tt.s.peakRSS() != tt.rss {
			t.Errorf("case %d: median %v min %v max %v rss %d; want %v %v %v %d", i, tt.s.median(), tt.s.min(), tt.s.max(), tt.s.peakRSS(), tt.median, tt.min, tt.max, tt.rss)
		}
	}
}

func TestShellQuote(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain", "plain"},
		{"corpus-1GB/projects", "corpus-1GB/projects"},
		{`"type":"user"`, `'"type":"user"'`},
		{"a|b", "'a|b'"},
		{"it's", `'it'\''s'`},
		{"", "''"},
	}
	for _, tt := range tests {
		if got := shellQuote(tt.in); got != tt.want {
			t.Errorf("shellQuote(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestMachineParsing(t *testing.T) {
	cpuinfo := "processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 7B13\nprocessor\t: 1\nmodel name\t: AMD EPYC 7B13\n"
	if got := cpuModel(cpuinfo); got != "AMD EPYC 7B13" {
		t.Errorf("cpuModel = %q", got)
	}
	if got := cpuModel(""); got != "unknown" {
		t.Errorf("cpuModel of nothing = %q, want unknown", got)
	}
	if got := memTotal("MemTotal:       24683712 kB\nMemFree: 1 kB\n"); got != "23.5 GB" {
		t.Errorf("memTotal = %q, want 23.5 GB", got)
	}
}

func TestSizeLabel(t *testing.T) {
	tests := []struct {
		size int64
		want string
	}{{1 << 30, "1GB"}, {4 << 30, "4GB"}, {50 << 20, "50MB"}, {1536 << 20, "1536MB"}, {512 << 10, "512KB"}, {1000, "1000B"}}
	for _, tt := range tests {
		if got := sizeLabel(tt.size); got != tt.want {
			t.Errorf("sizeLabel(%d) = %s, want %s", tt.size, got, tt.want)
		}
	}
}

func TestCleanEnvDropsSessionAndIndexVariables(t *testing.T) {
	got := cleanEnv([]string{"PATH=/bin", "CLAUDE_CODE_SESSION_ID=x", "RECALL_INDEX_DIR=/tmp/i", "HOME=/root", "NO_COLOR=0"})
	want := "PATH=/bin HOME=/root NO_COLOR=1"
	if strings.Join(got, " ") != want {
		t.Errorf("cleanEnv = %v, want %s", got, want)
	}
}

func TestRunnerMeasuresThroughTheLauncher(t *testing.T) {
	needTools(t, "sh", "true")
	rn := testRunner(t)
	ctx := context.Background()

	res, err := rn.run(ctx, search("sh", "-c", "echo one; echo two; exit 1"))
	if err != nil {
		t.Fatalf("grep-like exit 1 should be accepted: %v", err)
	}
	if res.exitCode != 1 || res.stdoutLines != 2 || res.wall <= 0 || res.maxRSSBytes <= 0 {
		t.Errorf("got exit %d, %d lines, wall %v, rss %d", res.exitCode, res.stdoutLines, res.wall, res.maxRSSBytes)
	}
	if _, err := rn.run(ctx, tool("sh", "-c", "echo broken >&2; exit 1")); err == nil || !strings.Contains(err.Error(), "broken") {
		t.Errorf("a tool exiting 1 should fail with its stderr, got %v", err)
	}
	if _, err := rn.run(ctx, tool("/nonexistent/program")); err == nil {
		t.Error("a missing program should fail")
	}

	// The reason for the launcher: with 200 MB live in this process, a
	// child started directly would report at least that much.
	ballast := make([]byte, 200<<20)
	for i := range ballast {
		ballast[i] = 1
	}
	res, err = rn.run(ctx, tool("true"))
	if err != nil {
		t.Fatal(err)
	}
	if res.maxRSSBytes >= 100<<20 {
		t.Errorf("`true` reported %d bytes peak RSS; the harness's own memory leaked into the measurement", res.maxRSSBytes)
	}
	ballast[len(ballast)-1] = 0
}

func TestAppendTargetSkipsHeadlessAndForks(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"p/a-headless.jsonl":     `{"type":"queue-operation","operation":"enqueue","content":"hi"}` + "\n" + `{"type":"user","uuid":"u-h"}`,
		"p/b-parent.jsonl":       `{"type":"permission-mode"}` + "\n" + `{"type":"user","uuid":"u-shared"}`,
		"p/c-fork.jsonl":         `{"type":"user","uuid":"u-shared"}`,
		"p/agent-1234abcd.jsonl": `{"type":"user","uuid":"u-agent"}`,
		"p/d-ordinary.jsonl":     `{"type":"file-history-snapshot"}` + "\n" + `{"type":"user","uuid":"u-own"}`,
		"q/e-later.jsonl":        `{"type":"user","uuid":"u-later"}`,
	}
	for name, text := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := appendTarget(dir)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "p", "d-ordinary.jsonl"); got != want {
		t.Errorf("appendTarget = %s, want %s", got, want)
	}
	if _, err := appendTarget(t.TempDir()); err == nil {
		t.Error("appendTarget of an empty tree succeeded")
	}
}

func TestEnsureCorpusReusesAMatchingCorpus(t *testing.T) {
	dir := t.TempDir()
	var log strings.Builder
	first, err := ensureCorpus(dir, 1<<20, 3, false, &log)
	if err != nil {
		t.Fatal(err)
	}
	if first.Sessions == 0 || first.Bytes == 0 {
		t.Fatalf("corpus info %+v has no content", first)
	}
	log.Reset()
	again, err := ensureCorpus(dir, 1<<20, 3, false, &log)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "reusing") || !reflect.DeepEqual(again, first) {
		t.Errorf("second call did not reuse the corpus: %q", log.String())
	}
	log.Reset()
	if _, err := ensureCorpus(dir, 1<<20, 4, false, &log); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "generating") {
		t.Errorf("another seed must regenerate, log: %q", log.String())
	}
}

// fakeRecall follows the recall CLI contract closely enough for the
// harness: index writes the rows as zstd, search greps them and exits
// 1 when nothing matched.
const fakeRecall = `#!/bin/sh
case "$1" in
--version) echo "recall fake"; exit 0 ;;
hook) cat >/dev/null; exit 0 ;;
index)
	srcs=""
	while [ $# -gt 0 ]; do
		case "$1" in --source) srcs="$srcs ${2#*:}"; shift ;; --index-dir) idx=$2; shift ;; esac
		shift
	done
	mkdir -p "$idx"
	{ printf 'session_id\ttext\n'; rg --no-filename -o '"text":"[^"]{0,80}' $srcs; } | zstd -q -c > "$idx/rows-v1-000001.zst"
	echo "fake index of$srcs" >&2
	exit 0 ;;
esac
idx=""
while [ $# -gt 0 ]; do
	case "$1" in
	--no-update) shift ;;
	--source) shift 2 ;; # a search with its freshness check
	--index-dir) idx=$2; shift 2 ;;
	*) break ;;
	esac
done
[ -n "$idx" ] || exit 2
[ "$1" = --regex ] && shift
zstd -dcq "$idx"/*.zst | rg -i -m 20 -e "$1"
`

func TestRunEndToEndWithAFakeRecall(t *testing.T) {
	needTools(t, "rg", "zstd", "bash")
	work := t.TempDir()
	recall := filepath.Join(work, "recall")
	if err := os.WriteFile(recall, []byte(fakeRecall), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv(launcherEnv, "1")
	out := filepath.Join(work, "docs", "benchmarks.md")
	var stdout, log strings.Builder
	cfg := Config{
		Recall: recall, Size: 1 << 20, Seed: 9, Repeat: 2, Also4x: true,
		Out: out, Workdir: filepath.Join(work, "bench"), Command: "recall-bench run --size 1MB",
		Launcher: []string{os.Args[0]}, Log: &log, Stdout: &stdout,
	}
	if err := Run(context.Background(), cfg); err != nil {
		t.Fatalf("Run: %v\nlog:\n%s", err, log.String())
	}
	md, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if string(md) != stdout.String() {
		t.Error("the report on stdout differs from the file")
	}
	wants := []string{"recall-bench run --size 1MB", "## Machine", "CPUs (nproc)", "## 1MB corpus", "## 4MB corpus",
		"| Full index |", "| Incremental index (+10 lines) |", "| No-change index |", "| Search with freshness check |",
		"| Index size |", "fake index of", "| No-change index ≤ 0.25× find |", "## Growth, 4MB against 1MB", "cut -f1-5", "-newer fresh-ref"}
	for _, q := range queryMix() {
		wants = append(wants, "| Query: "+q.name+" |")
	}
	for _, w := range wants {
		if !strings.Contains(string(md), w) {
			t.Errorf("report lacks %q", w)
		}
	}
	// The transcript that received appended lines is back to its
	// generated size, so the corpus can be reused.
	info, err := readCorpusInfo(filepath.Join(cfg.Workdir, "corpus-1MB-seed9"))
	if err != nil {
		t.Fatal(err)
	}
	size, err := dirBytes(filepath.Join(cfg.Workdir, "corpus-1MB-seed9", "projects"))
	if err != nil {
		t.Fatal(err)
	}
	if size != info.Bytes {
		t.Errorf("corpus is %d bytes after the run, generated %d: the appended lines were not removed", size, info.Bytes)
	}
	if _, err := os.Stat(filepath.Join(cfg.Workdir, "corpus-1MB-seed9", "history.jsonl")); err == nil {
		t.Error("the history.jsonl the incremental benchmark wrote is still there")
	}
}

func TestRunRejectsAMissingRecall(t *testing.T) {
	needTools(t, "rg", "zstd", "bash")
	err := Run(context.Background(), Config{Recall: "/nonexistent/recall", Size: 1 << 20, Repeat: 1, Workdir: t.TempDir(), Out: filepath.Join(t.TempDir(), "b.md")})
	var te ToolError
	if !errors.As(err, &te) || !strings.Contains(err.Error(), "go build -o /tmp/recall ./cmd/recall") {
		t.Errorf("got %v, want a ToolError telling how to build recall", err)
	}
}

func TestTSVRowsSkipsSegmentHeaders(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rows.tsv")
	text := "session_id\ttext\na\tone\nb\ttwo\nsession_id\ttext\nc\tthree\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	size, rows, err := tsvRows(path)
	if err != nil || size != int64(len(text)) || rows != 3 {
		t.Errorf("tsvRows = %d bytes, %d rows, %v; want %d bytes, 3 rows", size, rows, err, len(text))
	}
}

func TestParseMeasurement(t *testing.T) {
	tests := []struct {
		line    string
		wall    time.Duration
		rss     int64
		wantErr bool
	}{
		{"1500000 6877184\n", 1500 * time.Microsecond, 6877184, false},
		{"", 0, 0, true},
		{"12 abc", 0, 0, true},
		{"1 2 3", 0, 0, true},
	}
	for _, tt := range tests {
		wall, rss, err := parseMeasurement(tt.line)
		if (err != nil) != tt.wantErr || wall != tt.wall || rss != tt.rss {
			t.Errorf("parseMeasurement(%q) = %v, %d, %v", tt.line, wall, rss, err)
		}
	}
}

// TestRegexQuerySearchesWhatRgSearches checks that the --regex query of
// the mix is, for recall, the one pattern rg is given: recall takes each
// whitespace-separated word of a --regex argument as a pattern of its
// own, so a space in it would make recall search two patterns (it did:
// 2,240 matching rows at 1 GB against rg's 699).
func TestRegexQuerySearchesWhatRgSearches(t *testing.T) {
	var q mixQuery
	for _, mq := range queryMix() {
		if mq.name == "--regex" {
			q = mq
		}
	}
	if len(q.recallArgs) != 2 || q.recallArgs[0] != "--regex" {
		t.Fatalf("--regex query's recall side is %q, want --regex and one pattern", q.recallArgs)
	}
	parsed, err := query.ParseQuery(q.recallArgs[1:], nil, nil, query.MatchOptions{Regex: true})
	if err != nil {
		t.Fatal(err)
	}
	rg := regexp.MustCompile("(?i)" + q.rgPattern)
	for _, text := range []string{"a race condition here", "deadlock", "dead-lock", "Dead lock", "deadline lock", "trace only", "a condition", "race", "RACE CONDITION", "race  condition"} {
		if got, want := parsed.MatchMessage([]byte(text)), rg.MatchString(text); got != want {
			t.Errorf("%q: recall matches %v, rg %v", text, got, want)
		}
	}
}

// TestRunMixedWithAFakeRecall runs the harness on a mixed corpus: every
// recall command gets a --source per agent, the baselines cover every
// agent's folder, and the report lists the agents and the no-change
// check against the number of their files.
func TestRunMixedWithAFakeRecall(t *testing.T) {
	needTools(t, "rg", "zstd", "bash")
	work := t.TempDir()
	recall := filepath.Join(work, "recall")
	if err := os.WriteFile(recall, []byte(fakeRecall), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv(launcherEnv, "1")
	out := filepath.Join(work, "bench-mixed.md")
	var stdout, log strings.Builder
	cfg := Config{
		Recall: recall, Size: 1 << 20, Seed: 9, Repeat: 1, Mixed: true,
		Out: out, Workdir: filepath.Join(work, "bench"), Command: "recall-bench run --mixed --size 1MB",
		Launcher: []string{os.Args[0]}, Log: &log, Stdout: &stdout,
	}
	if err := Run(context.Background(), cfg); err != nil {
		t.Fatalf("Run: %v\nlog:\n%s", err, log.String())
	}
	md, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	corpus := "corpus-1MB-seed9-mixed"
	sources := "--source " + corpus + "/projects --source codex:" + corpus + "/codex --source gemini:" + corpus + "/gemini --source opencode:" + corpus + "/opencode --source aider:" + corpus + "/aider"
	wants := []string{"## Mixed corpus", "## 1MB mixed corpus", "`recall-bench gen --size 1MB --seed 9 --mixed`",
		"| claude | projects |", "| codex | codex |", "| gemini | gemini |", "| opencode | opencode |", "| aider | aider |",
		"index " + sources + " --index-dir index-1MB-mixed`",
		"rg -z -a --hidden --no-ignore -c '\"type\":\"user\"' " + corpus + "/projects " + corpus + "/codex " + corpus + "/gemini " + corpus + "/opencode " + corpus + "/aider",
		"find " + corpus + "/projects " + corpus + "/codex " + corpus + "/gemini " + corpus + "/opencode " + corpus + "/aider -type f -newer fresh-ref",
		"hook --index-dir index-1MB-mixed " + sources,
		"No-change index against the other agents' files", "| 1× (this corpus) |", "| 4× |",
		"--source codex:" + corpus + "-agents4x/codex", "--index-dir index-1MB-mixed-agents4x",
		"| No-change index with 4× the other agents' files ≤ 1.2× |", "fake index of " + corpus + "/projects " + corpus + "/codex"}
	for _, w := range wants {
		if !strings.Contains(string(md), w) {
			t.Errorf("report lacks %q", w)
		}
	}
	info, err := readCorpusInfo(filepath.Join(cfg.Workdir, corpus))
	if err != nil {
		t.Fatal(err)
	}
	if !info.Mixed || len(info.Agents) != 4 || info.agentFiles() == 0 {
		t.Errorf("corpus marker %+v: want a mixed corpus with four agents' files", info)
	}
	// The Claude Code corpus of the same size and seed is another one.
	if _, err := os.Stat(filepath.Join(cfg.Workdir, "corpus-1MB-seed9")); err == nil {
		t.Error("the mixed run wrote the plain corpus's folder")
	}
}

func TestParseStraceCounts(t *testing.T) {
	table := `% time     seconds  usecs/call     calls    errors syscall
------ ----------- ----------- --------- --------- ----------------
 78.46    0.000051           1        35        26 newfstatat
 21.54    0.000014           2         6           fstat
------ ----------- ----------- --------- --------- ----------------
100.00    0.000065           1        41        26 total
`
	got := parseStraceCounts(table)
	if got["total"] != 41 || got["newfstatat"] != 35 || got["fstat"] != 6 || len(got) != 3 {
		t.Errorf("parseStraceCounts = %v", got)
	}
	if s := statCalls(got); s != "41 (newfstatat 35, fstat 6)" {
		t.Errorf("statCalls = %q", s)
	}
}

// TestTakingTurns: each command runs once untimed, then n times in
// turns, its step before every run; a failing step stops the runs.
func TestTakingTurns(t *testing.T) {
	rn := testRunner(t)
	var order []string
	step := func(name string) func() error {
		return func() error { order = append(order, name); return nil }
	}
	got, err := rn.takingTurns(context.Background(), 3, turn{tool("true"), step("a")}, turn{tool("true"), step("b")})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || len(got[0].runs) != 3 || len(got[1].runs) != 3 {
		t.Fatalf("samples %d, runs %d and %d; want 2 of 3", len(got), len(got[0].runs), len(got[1].runs))
	}
	if want := "abababab"; strings.Join(order, "") != want {
		t.Errorf("steps ran %q, want %q (a warm-up, then three turns)", strings.Join(order, ""), want)
	}
	failing := func() error { return errors.New("append failed") }
	if _, err := rn.takingTurns(context.Background(), 3, turn{tool("true"), failing}); err == nil || !strings.Contains(err.Error(), "append failed") {
		t.Errorf("a failing step: err %v", err)
	}
}
