// Package benchrun is the side-by-side benchmark harness behind
// `recall-bench run`: it generates (or reuses) a corpus, times recall's
// index and queries as whole processes against plain rg and zstd doing
// the equivalent work, and writes the results as markdown.
package benchrun

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/recall-dev/recall/benchgen"
	"github.com/recall-dev/recall/internal/errpath"
)

// Config is one harness run.
type Config struct {
	Recall  string // path to the recall binary under test
	Size    int64  // corpus size; Also4x adds a second corpus 4 times larger
	Seed    uint64
	Repeat  int // timed runs per measurement (after one warm-up)
	Also4x  bool
	Mixed   bool   // a mixed corpus (benchgen.Options.Mixed), indexed with a --source per agent's folder
	Out     string // markdown report path
	Workdir string // corpora, indexes and rows.tsv live here
	// Command is the exact command line, quoted into the report.
	Command string
	// Launcher prefixes every measured command; it must behave like
	// RunMeasured. Nil means this executable's `measure --`.
	Launcher []string
	Log      io.Writer // progress; the report itself goes to Stdout
	Stdout   io.Writer
}

// ToolError is a setup problem the user must fix (a missing program);
// it exits with status 2.
type ToolError struct{ msg string }

func (e ToolError) Error() string { return e.msg }
func (ToolError) ExitCode() int   { return 2 }

// appendedLines is how many records the incremental benchmark appends
// before each run.
const appendedLines = 10

// Run performs the benchmark and writes the report.
func Run(ctx context.Context, cfg Config) error {
	if cfg.Repeat < 1 {
		return fmt.Errorf("--repeat must be at least 1, got %d", cfg.Repeat)
	}
	if err := checkTools(exec.LookPath); err != nil {
		return err
	}
	recall, err := resolveRecall(cfg.Recall)
	if err != nil {
		return err
	}
	workdir, err := filepath.Abs(cfg.Workdir)
	if err != nil {
		return fmt.Errorf("workdir %s: %w", cfg.Workdir, err)
	}
	if err := os.MkdirAll(workdir, 0o755); err != nil {
		return fmt.Errorf("create workdir: %w", err)
	}
	launcher, err := launcherOrDefault(cfg.Launcher)
	if err != nil {
		return err
	}
	rn := runner{dir: workdir, env: cleanEnv(os.Environ()), launcher: launcher}
	floor, err := rn.run(ctx, tool("true"))
	if err != nil {
		return fmt.Errorf("launcher self-test: %w", err)
	}
	rep := report{command: cfg.Command, machine: describeMachine(ctx, recall, time.Now()), repeat: cfg.Repeat, seed: cfg.Seed, rssFloor: floor.maxRSSBytes}
	sizes := []int64{cfg.Size}
	if cfg.Also4x {
		sizes = append(sizes, 4*cfg.Size)
	}
	for _, size := range sizes {
		res, err := benchSize(ctx, cfg, rn, recall, size)
		if err != nil {
			return fmt.Errorf("%s corpus: %w", sizeLabel(size), err)
		}
		rep.results = append(rep.results, res)
	}
	if len(rep.results) > 1 {
		g, err := measureGrowth(ctx, cfg, rn, rep.results)
		if err != nil {
			return fmt.Errorf("growth: %w", err)
		}
		rep.growth = &g
	}
	md := withNotes(renderReport(rep), cfg.Out)
	if err := os.MkdirAll(filepath.Dir(cfg.Out), 0o755); err != nil {
		return fmt.Errorf("create report directory: %w", err)
	}
	if err := os.WriteFile(cfg.Out, []byte(md), 0o644); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	fmt.Fprintf(cfg.Log, "recall-bench: wrote %s\n", cfg.Out)
	_, err = io.WriteString(cfg.Stdout, md)
	return err
}

// measureGrowth times the no-change index and the append of
// appendedLines records of the first and the last corpus taking turns,
// once both are indexed: each size's own runs come minutes apart, and
// the machine's pace moves between them more than the check does. Each
// index is first brought up to date with its corpus (untimed), as its
// incremental measurement left it a transcript cut back and
// history.jsonl removed; the appends are cut off again after.
func measureGrowth(ctx context.Context, cfg Config, rn runner, results []sizeResult) (g growth, err error) {
	small, large := results[0], results[len(results)-1]
	fmt.Fprintf(cfg.Log, "recall-bench: no-change and incremental index at %s and %s, taking turns\n", small.label, large.label)
	var apps []*appender
	defer func() {
		for _, a := range apps {
			err = errors.Join(err, a.restore())
		}
	}()
	for _, res := range []sizeResult{small, large} {
		if _, err := rn.run(ctx, sweepOf(res.indexCmd)); err != nil {
			return g, err
		}
		app, err := newAppender(rn.dir, filepath.Join(res.corpusDir, "projects"), res.corpusDir, cfg.Seed+1000)
		if err != nil {
			return g, err
		}
		apps = append(apps, app)
	}
	n := freshnessRepeat(cfg.Repeat)
	noChange, err := rn.interleaved(ctx, n, small.indexCmd, large.indexCmd)
	if err != nil {
		return g, err
	}
	appended, err := rn.takingTurns(ctx, n, turn{small.indexCmd, apps[0].add}, turn{large.indexCmd, apps[1].add})
	if err != nil {
		return g, err
	}
	return growth{noChange: [2]sample{noChange[0], noChange[1]}, appended: [2]sample{appended[0], appended[1]}}, nil
}

// growth is the first and the last corpus's no-change and incremental
// index, timed taking turns.
type growth struct{ noChange, appended [2]sample }

// sweepOf is an index command with --sweep: every transcript checked.
func sweepOf(c command) command {
	argv := append([]string{c.argv[0], c.argv[1], "--sweep"}, c.argv[2:]...)
	return tool(argv...)
}

func launcherOrDefault(launcher []string) ([]string, error) {
	if len(launcher) > 0 {
		return launcher, nil
	}
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("find own executable for the launcher: %w", err)
	}
	return []string{self, "measure", "--"}, nil
}

// requiredTools maps each program the harness runs to its Debian/Ubuntu
// package.
func requiredTools() []struct{ program, pkg string } {
	return []struct{ program, pkg string }{
		{"rg", "ripgrep"},
		{"zstd", "zstd"},
		{"bash", "bash"},
	}
}

// checkTools reports every missing program at once, with the exact
// install command. The harness installs nothing itself.
func checkTools(lookPath func(string) (string, error)) error {
	var missing, pkgs []string
	for _, t := range requiredTools() {
		if _, err := lookPath(t.program); err != nil {
			missing = append(missing, t.program)
			pkgs = append(pkgs, t.pkg)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return ToolError{fmt.Sprintf("%s not found on PATH; install with: apt-get install %s", strings.Join(missing, ", "), strings.Join(pkgs, " "))}
}

func resolveRecall(path string) (string, error) {
	if path == "" {
		return "", ToolError{"--recall is required: build it with `go build -o /tmp/recall ./cmd/recall`"}
	}
	found, err := exec.LookPath(path)
	if err != nil {
		return "", ToolError{fmt.Sprintf("recall binary: %v (build it with `go build -o /tmp/recall ./cmd/recall`)", err)} // the error names path
	}
	return filepath.Abs(found)
}

// sizeLabel names a size in paths and headings: 1GB, 50MB, 4GB.
func sizeLabel(size int64) string {
	switch {
	case size >= 1<<30 && size%(1<<30) == 0:
		return fmt.Sprintf("%dGB", size>>30)
	case size >= 1<<20 && size%(1<<20) == 0:
		return fmt.Sprintf("%dMB", size>>20)
	case size >= 1<<10 && size%(1<<10) == 0:
		return fmt.Sprintf("%dKB", size>>10)
	}
	return fmt.Sprintf("%dB", size)
}

// sizeResult is everything measured on one corpus.
type sizeResult struct {
	label                   string
	mixed                   bool
	corpus                  corpusInfo
	sources                 []string       // the --source arguments of every recall command
	startup                 *startupResult // the first size only
	corpusDir               string
	indexCmd, scanCmd       command
	fullIndex, rawScan      sample
	incremental, noChange   sample
	findCmd                 command
	find                    sample
	freshSearchCmd          command
	staleSearchCmd          command
	freshSearch             sample
	staleSearch             sample
	indexSummary            string
	appendTarget            string
	queries                 []queryResult
	indexBytes, rowsBytes   int64
	rowsZstdBytes, rowCount int64
	zstdCmd                 command
	scaling                 *scalingResult // a mixed corpus only
}

type queryResult struct {
	q                    mixQuery
	recallCmd, baseCmd   command
	recallRuns, baseRuns sample
}

// benchSize measures one corpus size. Paths in commands are relative to
// the workdir, where the commands run, so the report shows them exactly
// as they were run.
func benchSize(ctx context.Context, cfg Config, rn runner, recall string, size int64) (sizeResult, error) {
	label := sizeLabel(size)
	// A mixed corpus's files are named apart, so that both kinds of
	// corpus and index can be kept in one work directory.
	tag := label
	if cfg.Mixed {
		tag += "-mixed"
	}
	res := sizeResult{label: label, mixed: cfg.Mixed, corpusDir: fmt.Sprintf("corpus-%s-seed%d", label, cfg.Seed)}
	if cfg.Mixed {
		res.corpusDir += "-mixed"
	}
	info, err := ensureCorpus(filepath.Join(rn.dir, res.corpusDir), size, cfg.Seed, cfg.Mixed, cfg.Log)
	if err != nil {
		return res, err
	}
	res.corpus = info
	projects := filepath.Join(res.corpusDir, "projects")
	indexDir := "index-" + tag
	res.sources = sourceArgs(res.corpusDir, cfg.Mixed)
	res.indexCmd = tool(append(append([]string{recall, "index"}, res.sources...), "--index-dir", indexDir)...)
	res.scanCmd = search("rg", "-c", `"type":"user"`, projects)
	if cfg.Mixed {
		// Every agent's files: the hidden Aider histories, the OpenCode
		// database read through (-a: binary detection would stop at its
		// first NUL), the compressed rollouts decompressed (-z).
		res.scanCmd = search(append([]string{"rg", "-z", "-a", "--hidden", "--no-ignore", "-c", `"type":"user"`}, corpusFolders(res.corpusDir, true)...)...)
	}
	if err := measureIndexing(ctx, cfg, rn, &res, indexDir); err != nil {
		return res, err
	}
	if err := measureIncremental(ctx, cfg, rn, &res, recall, projects, indexDir); err != nil {
		return res, err
	}
	rowsPath := "rows-" + tag + ".tsv"
	classicPath := "classic-" + tag + ".tsv"
	if err := measureSizes(ctx, rn, &res, indexDir, rowsPath, classicPath); err != nil {
		return res, err
	}
	if size == cfg.Size {
		st, err := measureStartup(ctx, cfg, rn, recall, indexDir, res.sources)
		if err != nil {
			return res, fmt.Errorf("start-up: %w", err)
		}
		res.startup = &st
	}
	for _, q := range queryMix() {
		qr, err := measureQuery(ctx, cfg, rn, q, recall, indexDir, classicPath)
		if err != nil {
			return res, fmt.Errorf("query %s: %w", q.name, err)
		}
		res.queries = append(res.queries, qr)
	}
	// The scaling measurement generates 4 times the other agents'
	// sessions and indexes them: on the first size only, like start-up.
	if cfg.Mixed && size == cfg.Size {
		sc, err := measureAgentScaling(ctx, cfg, rn, &res, recall, size, indexDir)
		if err != nil {
			return res, fmt.Errorf("no-change check against the other agents' files: %w", err)
		}
		res.scaling = &sc
	}
	return res, nil
}

// corpusFolders are the folders of a corpus that hold sessions:
// projects/, and with mixed each other agent's folder.
func corpusFolders(corpusDir string, mixed bool) []string {
	out := []string{filepath.Join(corpusDir, "projects")}
	if mixed {
		for _, f := range benchgen.AgentFolders() {
			out = append(out, filepath.Join(corpusDir, f.Dir))
		}
	}
	return out
}

// sourceArgs are the --source arguments that make recall read a
// corpus: its projects folder, and with mixed AGENT:DIR for each other
// agent's folder.
func sourceArgs(corpusDir string, mixed bool) []string {
	args := []string{"--source", filepath.Join(corpusDir, "projects")}
	if mixed {
		args = append(args, agentSourceArgs(corpusDir)...)
	}
	return args
}

func agentSourceArgs(dir string) []string {
	var args []string
	for _, f := range benchgen.AgentFolders() {
		args = append(args, "--source", f.Agent+":"+filepath.Join(dir, f.Dir))
	}
	return args
}

// measureIndexing times full indexing into an empty directory against one
// raw rg pass over the transcripts, taking turns after an untimed run of
// each (which warms the page cache, so neither side pays for the disk
// alone), with every file system synced before each run: timed one after
// the other, a slow spell of the machine fell on one side only (the same
// binary measured 8.1× and 11.2× an hour apart), and the index a run
// had just written was still being written back while rg read.
func measureIndexing(ctx context.Context, cfg Config, rn runner, res *sizeResult, indexDir string) error {
	clear := func() error {
		if err := os.RemoveAll(filepath.Join(rn.dir, indexDir)); err != nil {
			return err
		}
		return syncAll()
	}
	fmt.Fprintf(cfg.Log, "recall-bench: %s full index, %d runs each, taking turns\n", res.label, cfg.Repeat)
	timed, err := rn.takingTurns(ctx, cfg.Repeat, turn{c: res.indexCmd, before: clear}, turn{c: res.scanCmd, before: syncAll})
	if err != nil {
		return err
	}
	res.fullIndex, res.rawScan = timed[0], timed[1]
	res.indexSummary = lastLine(res.fullIndex.last().stderrTail)
	if res.mixed {
		res.indexSummary = summaryLines(res.fullIndex.last().stderrTail)
	}
	return nil
}

// measureIncremental times the freshness check. The corpus is dated a
// day back first (a real tree is mostly quiet) and indexed once with
// --sweep, then: an append of appendedLines records to one transcript
// together with the history.jsonl line Claude Code writes for a typed
// prompt (a resumed session), runs with nothing new, and the same search
// with and without its freshness check; `find -newer` over the same tree
// is the baseline. The transcript is cut back and history.jsonl removed
// afterwards so the corpus stays reusable.
func measureIncremental(ctx context.Context, cfg Config, rn runner, res *sizeResult, recall, projects, indexDir string) (err error) {
	app, err := newAppender(rn.dir, projects, res.corpusDir, cfg.Seed)
	if err != nil {
		return err
	}
	res.appendTarget, _ = filepath.Rel(rn.dir, app.target)
	defer func() { err = errors.Join(err, app.restore()) }()
	if err := ageTree(filepath.Join(rn.dir, res.corpusDir), 24*time.Hour); err != nil {
		return err
	}
	const ref = "fresh-ref"
	if err := touch(filepath.Join(rn.dir, ref)); err != nil {
		return err
	}
	if _, err := rn.run(ctx, tool(append(append([]string{recall, "index", "--sweep"}, res.sources...), "--index-dir", indexDir)...)); err != nil {
		return err
	}
	fmt.Fprintf(cfg.Log, "recall-bench: %s incremental index\n", res.label)
	if res.incremental, err = rn.repeat(ctx, freshnessRepeat(cfg.Repeat), res.indexCmd, app.add); err != nil {
		return err
	}
	if res.noChange, err = rn.repeat(ctx, freshnessRepeat(cfg.Repeat), res.indexCmd, nil); err != nil {
		return err
	}
	res.findCmd = search("find", projects, "-name", "*.jsonl", "-newer", ref)
	if res.mixed {
		// The other agents' files have other names (.jsonl.zst, .md, .db).
		res.findCmd = search(append(append([]string{"find"}, corpusFolders(res.corpusDir, true)...), "-type", "f", "-newer", ref)...)
	}
	if res.find, err = rn.repeat(ctx, freshnessRepeat(cfg.Repeat), res.findCmd, nil); err != nil {
		return err
	}
	return measureFreshSearch(ctx, cfg, rn, res, recall, indexDir)
}

// appender appends appendedLines records to one transcript of a corpus,
// with the history.jsonl line Claude Code writes for a prompt typed in
// that session (a resumed session), and cuts them off again.
type appender struct {
	target, history string
	size            int64 // the target's size before any append
	seed            uint64
	appended        int
}

func newAppender(dir, projects, corpusDir string, seed uint64) (*appender, error) {
	target, err := appendTarget(filepath.Join(dir, projects))
	if err != nil {
		return nil, err
	}
	st, err := os.Stat(target)
	if err != nil {
		return nil, errpath.Wrap("stat", target, err)
	}
	return &appender{target: target, history: filepath.Join(dir, corpusDir, "history.jsonl"), size: st.Size(), seed: seed}, nil
}

// add appends one turn's records and its history line.
func (a *appender) add() error {
	a.appended++
	if err := benchgen.AppendTurns(a.target, appendedLines, a.seed+uint64(a.appended)); err != nil {
		return err
	}
	line, err := historyLine(a.target, time.Now())
	if err != nil {
		return err
	}
	return appendFile(a.history, line)
}

// restore cuts the transcript back and removes history.jsonl, so that
// the corpus stays reusable.
func (a *appender) restore() error {
	var err error
	if terr := os.Truncate(a.target, a.size); terr != nil {
		err = errpath.Wrap("restore", a.target, terr)
	}
	if rerr := os.Remove(a.history); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
		err = errors.Join(err, rerr)
	}
	return err
}

// freshnessRepeat is how many timed runs each freshness measurement
// takes: they last milliseconds, where one scheduling delay on a shared
// machine moves a median of five by a fifth (the 4 GB growth ratios
// measured 1.06 to 1.26 from run to run with the same binary). Medians
// of 20 still moved the no-change growth from 0.93 to 1.29 between two
// benches of one binary minutes apart, while 200 runs of each under
// hyperfine gave 3.4 ms at both sizes; 60 runs cost under a second each.
func freshnessRepeat(repeat int) int { return 12 * repeat }

// measureFreshSearch times a search with its freshness check (nothing
// new) against the same search with --no-update.
func measureFreshSearch(ctx context.Context, cfg Config, rn runner, res *sizeResult, recall, indexDir string) (err error) {
	q := queryMix()[0]
	res.freshSearchCmd = search(append(append(append([]string{recall}, res.sources...), "--index-dir", indexDir), q.recallArgs...)...)
	res.staleSearchCmd = q.recallCommand(recall, indexDir)
	for _, c := range []command{res.freshSearchCmd, res.staleSearchCmd} { // warm-up
		if _, err := rn.run(ctx, c); err != nil {
			return err
		}
	}
	if res.freshSearch, err = rn.repeat(ctx, freshnessRepeat(cfg.Repeat), res.freshSearchCmd, nil); err != nil {
		return err
	}
	res.staleSearch, err = rn.repeat(ctx, freshnessRepeat(cfg.Repeat), res.staleSearchCmd, nil)
	return err
}

// measureSizes writes the index's rows as plain TSV and compares the
// index directory with zstd -3 of that TSV; the first five columns of
// those rows (the classic tool's layout, what its users grep) are the
// query baseline's input.
func measureSizes(ctx context.Context, rn runner, res *sizeResult, indexDir, rowsPath, classicPath string) error {
	// The link to the rows file, as README says: *.zst would read it twice.
	segments, err := filepath.Glob(filepath.Join(rn.dir, indexDir, "rows-*.zst"))
	if err != nil || len(segments) == 0 {
		return fmt.Errorf("no rows-*.zst in %s (%v)", indexDir, err)
	}
	for i, s := range segments {
		segments[i], _ = filepath.Rel(rn.dir, s)
	}
	rows, err := os.Create(filepath.Join(rn.dir, rowsPath))
	if err != nil {
		return errpath.Wrap("create", rowsPath, err)
	}
	unpack := tool(append([]string{"zstd", "-dcq"}, segments...)...)
	unpack.stdout = rows
	_, err = rn.run(ctx, unpack)
	if cerr := rows.Close(); err == nil && cerr != nil {
		err = errpath.Wrap("write", rowsPath, cerr)
	}
	if err != nil {
		return err
	}
	if res.rowsBytes, res.rowCount, err = tsvRows(filepath.Join(rn.dir, rowsPath)); err != nil {
		return err
	}
	res.zstdCmd = tool("zstd", "-3", "-c", "-q", rowsPath)
	z, err := rn.run(ctx, res.zstdCmd)
	if err != nil {
		return err
	}
	res.rowsZstdBytes = z.stdoutBytes
	if res.indexBytes, err = dirBytes(filepath.Join(rn.dir, indexDir)); err != nil {
		return err
	}
	return writeClassic(ctx, rn, rowsPath, classicPath)
}

// writeClassic writes `cut -f1-5` of the rows: session, timestamp, type,
// text, project.
func writeClassic(ctx context.Context, rn runner, rowsPath, classicPath string) error {
	out, err := os.Create(filepath.Join(rn.dir, classicPath))
	if err != nil {
		return errpath.Wrap("create", classicPath, err)
	}
	cut := tool("cut", "-f1-5", rowsPath)
	cut.stdout = out
	_, err = rn.run(ctx, cut)
	if cerr := out.Close(); err == nil && cerr != nil {
		err = errpath.Wrap("write", classicPath, cerr)
	}
	return err
}

func measureQuery(ctx context.Context, cfg Config, rn runner, q mixQuery, recall, indexDir, rowsPath string) (queryResult, error) {
	qr := queryResult{q: q, recallCmd: q.recallCommand(recall, indexDir), baseCmd: q.baselineCommand(rowsPath)}
	fmt.Fprintf(cfg.Log, "recall-bench: query %s\n", q.name)
	for _, c := range []command{qr.recallCmd, qr.baseCmd} { // warm-up
		if _, err := rn.run(ctx, c); err != nil {
			return qr, err
		}
	}
	var err error
	if qr.recallRuns, err = rn.repeat(ctx, cfg.Repeat, qr.recallCmd, nil); err != nil {
		return qr, err
	}
	qr.baseRuns, err = rn.repeat(ctx, cfg.Repeat, qr.baseCmd, nil)
	return qr, err
}

// tsvRows returns the size of a rows TSV and its row count, not counting
// the header line each segment may start with.
func tsvRows(path string) (size, rows int64, err error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, 0, errpath.Wrap("open", path, err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 256<<20)
	for sc.Scan() {
		size += int64(len(sc.Bytes())) + 1
		if !bytes.HasPrefix(sc.Bytes(), []byte("session_id\t")) {
			rows++
		}
	}
	if err := sc.Err(); err != nil {
		return 0, 0, errpath.Wrap("read", path, err)
	}
	return size, rows, nil
}

// summaryLines is the indexer's summary line ("indexed …") and the
// warnings it printed, which may come after it.
func summaryLines(s string) string {
	var keep []string
	for _, line := range strings.Split(strings.TrimSpace(s), "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "indexed ") || strings.HasPrefix(line, "warning:") {
			keep = append(keep, line)
		}
	}
	if len(keep) == 0 {
		return lastLine(s)
	}
	return strings.Join(keep, " / ")
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}
