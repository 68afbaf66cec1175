// Command recall-eval measures recall's ranking on the relevance sets: it
// generates the eval corpus into a temporary directory, indexes it, runs
// every query of testdata/eval/queries.tsv as the CLI does (search.Params,
// then search.Run) and prints hit@1, hit@5 and MRR with the misses; then
// the same for the hard set (the hand-written sessions of
// testdata/eval/hard.txt added to the corpus, the queries of
// hard-queries.tsv), per class, against the classic order. On stderr it
// says how the queries were ranked: from the term index or by reading
// every row.
//
// With --write it stores the figures in testdata/eval/results.txt and
// hard-results.txt; otherwise it compares them with those files and exits
// 1 when they differ, so a ranking change shows up as a diff to review.
// With --locomo FILE it runs only the LoCoMo evaluation instead
// (evalcorpus.EvaluateLoCoMo): the conversations of locomo10.json written
// as transcripts and indexed, every question typed verbatim, hit@1, hit@5
// and MRR of the sessions holding its evidence printed per category. The
// data file is not in the repository, so there is nothing to compare
// with: the figures are printed only.
//
// The logic lives in package evalcorpus.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/recall-dev/recall/store/snapshot"

	"github.com/alecthomas/kong"

	"github.com/recall-dev/recall/evalcorpus"
	"github.com/recall-dev/recall/hint"
)

type cli struct {
	Queries string `default:"testdata/eval/queries.tsv" placeholder:"FILE" help:"The relevance set (relative paths are read from the repository root)."`
	Results string `default:"testdata/eval/results.txt" placeholder:"FILE" help:"The checked-in figures to compare with or write."`
	Write   bool   `help:"Write the figures to --results and --hard-results instead of comparing."`

	HardScripts string `default:"testdata/eval/hard.txt" placeholder:"FILE" help:"The hard set's hand-written sessions."`
	HardQueries string `default:"testdata/eval/hard-queries.tsv" placeholder:"FILE" help:"The hard set's queries."`
	HardResults string `default:"testdata/eval/hard-results.txt" placeholder:"FILE" help:"The hard set's checked-in figures."`
	Seed        uint64 `default:"1" help:"Corpus seed (results.txt is measured with the default)."`
	Keep        string `placeholder:"DIR" help:"Generate the corpus and index into DIR (must not exist) and keep them, to inspect with bin/recall --source DIR/projects --index-dir DIR/index."`

	LoCoMo       string `name:"locomo" placeholder:"FILE" help:"Run only the LoCoMo evaluation on FILE (snap-research/locomo's data/locomo10.json) and print its figures."`
	LoCoMoScope  string `name:"locomo-scope" default:"conversation" enum:"conversation,joint" help:"Search each question in its own conversation's index (conversation) or in one index of them all (joint)."`
	LoCoMoNow    string `name:"locomo-now" default:"after" placeholder:"WHEN" help:"The clock for recency: 'after' (the day after the last session searched) or a date (2026-03-10)."`
	LoCoMoNames  bool   `name:"locomo-speaker-names" default:"true" negatable:"" help:"Start every LoCoMo turn with its speaker's name (\"Caroline: ...\")."`
	LoCoMoMisses bool   `name:"locomo-misses" help:"List every LoCoMo question whose evidence session is not ranked first."`

	Real          string `name:"real" placeholder:"DIR" help:"Run only a real relevance set: index the transcript tree DIR (a projects folder) and ask --real-questions of it, against BM25 over whole sessions."`
	RealQuestions string `name:"real-questions" placeholder:"FILE" help:"With --real: the questions, TSV of query, answering session id(s) (comma-separated) and a note whose first word is the class."`

	Hints         bool   `help:"Run only the prompt hint evaluation: the generated and hard sets' queries as prompts, the new-work prompts of --hint-negatives, and with --real the real questions (and the same with their answer left out of the index); prints whether each hint was right, wrong or silent."`
	HintNegatives string `name:"hint-negatives" default:"testdata/eval/hint-negatives.txt" placeholder:"FILE" help:"With --hints: prompts about new work that no session holds, one a line."`
	HintSweep     bool   `name:"hint-sweep" help:"With --hints: also print the figures of a grid of bars (cover × lead), to choose the bar."`
	HintJudge     string `name:"hint-judge" enum:"quick,search" default:"quick" help:"With --hints: the judge to measure: quick (hint.Find: the term index alone, as the hook judges) or search (hint.FindBySearch: the search's ranking, the judge of an index without a term index)."`
	HintMisses    bool   `name:"hint-misses" help:"With --hints: list every wrong hint with why it cleared the bar (--explain)."`
}

// errDiffers is the exit status 1 outcome: the figures changed.
var errDiffers = errors.New("figures differ from the checked-in results; review the diff and rerun with --write to accept")

func main() {
	var c cli
	kong.Parse(&c, kong.Name("recall-eval"), kong.Description("Measure recall's ranking on the relevance set."))
	err := c.run(os.Stdout, os.Stderr)
	switch {
	case errors.Is(err, errDiffers):
		fmt.Fprintln(os.Stderr, "recall-eval:", err)
		os.Exit(1)
	case err != nil:
		fmt.Fprintln(os.Stderr, "recall-eval:", err)
		os.Exit(2)
	}
}

func (c *cli) run(stdout, stderr io.Writer) error {
	root, err := repoRoot()
	if err != nil {
		return err
	}
	if c.LoCoMo != "" {
		return c.runLoCoMo(stdout, stderr)
	}
	if c.Hints {
		return c.runHints(root, stdout, stderr)
	}
	if c.Real != "" {
		return c.runReal(stdout, stderr)
	}
	queries, err := evalcorpus.ReadQueries(fromRoot(root, c.Queries))
	if err != nil {
		return err
	}
	work, cleanup, err := c.workDir()
	if err != nil {
		return err
	}
	defer cleanup()
	scripts, err := evalcorpus.ReadScripts(fromRoot(root, c.HardScripts))
	if err != nil {
		return err
	}
	hard, err := evalcorpus.ReadHardQueries(fromRoot(root, c.HardQueries))
	if err != nil {
		return err
	}
	cfg := evalcorpus.DefaultConfig()
	cfg.Seed = c.Seed
	start := time.Now()
	rep, err := evalcorpus.Evaluate(filepath.Join(work, "generated"), cfg, queries)
	if err != nil {
		return err
	}
	got := rep.Format()
	fmt.Fprint(stdout, got)
	fmt.Fprintf(stderr, "recall-eval: %d queries over %d sessions in %s\n", len(queries), rep.Sessions, time.Since(start).Round(time.Millisecond))
	for _, line := range rep.Paths() {
		fmt.Fprintln(stderr, "recall-eval:", line)
	}
	start = time.Now()
	hardRep, err := evalcorpus.EvaluateHard(filepath.Join(work, "hard"), cfg, scripts, hard)
	if err != nil {
		return err
	}
	hardGot := hardRep.Format()
	fmt.Fprint(stdout, "\n"+hardGot)
	fmt.Fprintf(stderr, "recall-eval: %d hard queries over %d sessions in %s\n", len(hard), hardRep.Sessions, time.Since(start).Round(time.Millisecond))
	for _, line := range hardRep.Paths() {
		fmt.Fprintln(stderr, "recall-eval:", line)
	}
	errGenerated := c.compareOrWrite(fromRoot(root, c.Results), got, stdout)
	errHard := c.compareOrWrite(fromRoot(root, c.HardResults), hardGot, stdout)
	if errGenerated != nil {
		return errGenerated
	}
	return errHard
}

// runLoCoMo is --locomo: the LoCoMo figures, printed.
func (c *cli) runLoCoMo(stdout, stderr io.Writer) error {
	opt, err := c.locomoOptions()
	if err != nil {
		return err
	}
	convs, err := evalcorpus.ReadLoCoMo(c.LoCoMo)
	if err != nil {
		return err
	}
	work, cleanup, err := c.workDir()
	if err != nil {
		return err
	}
	defer cleanup()
	start := time.Now()
	rep, err := evalcorpus.EvaluateLoCoMo(work, convs, opt)
	if err != nil {
		return err
	}
	fmt.Fprint(stdout, rep.Format(c.LoCoMoMisses))
	fmt.Fprintf(stderr, "recall-eval: %d LoCoMo questions over %d sessions in %s\n", len(rep.Outcomes), rep.Sessions, time.Since(start).Round(time.Millisecond))
	for _, line := range rep.Paths() {
		fmt.Fprintln(stderr, "recall-eval:", line)
	}
	return nil
}

// runReal is --real: a real relevance set's figures, printed.
func (c *cli) runReal(stdout, stderr io.Writer) error {
	if c.RealQuestions == "" {
		return errors.New("--real needs --real-questions FILE")
	}
	qs, err := evalcorpus.ReadRealQuestions(c.RealQuestions)
	if err != nil {
		return err
	}
	work, cleanup, err := c.workDir()
	if err != nil {
		return err
	}
	defer cleanup()
	start := time.Now()
	rep, err := evalcorpus.EvaluateReal(c.Real, work, qs)
	if err != nil {
		return err
	}
	fmt.Fprint(stdout, rep.Format())
	fmt.Fprintf(stderr, "recall-eval: %d real questions over %d sessions in %s\n", len(rep.Outcomes), rep.Sessions, time.Since(start).Round(time.Millisecond))
	return nil
}

// runHints is --hints: the prompt hint's figures, printed per set.
func (c *cli) runHints(root string, stdout, stderr io.Writer) error {
	work, cleanup, err := c.workDir()
	if err != nil {
		return err
	}
	defer cleanup()
	start := time.Now()
	var outcomes []evalcorpus.HintOutcome
	if c.Real != "" {
		if c.RealQuestions == "" {
			return errors.New("--real needs --real-questions FILE")
		}
		qs, err := evalcorpus.ReadRealQuestions(c.RealQuestions)
		if err != nil {
			return err
		}
		negatives, err := evalcorpus.ReadHintNegatives(fromRoot(root, c.HintNegatives))
		if err != nil {
			return err
		}
		snap, now, err := evalcorpus.RealHintCorpus(c.Real, filepath.Join(work, "real"))
		if err != nil {
			return err
		}
		outcomes = c.evalHints(snap, evalcorpus.RealHintCases(qs, negatives, now))
		snap.Close()
	} else {
		queries, err := evalcorpus.ReadQueries(fromRoot(root, c.Queries))
		if err != nil {
			return err
		}
		scripts, err := evalcorpus.ReadScripts(fromRoot(root, c.HardScripts))
		if err != nil {
			return err
		}
		hard, err := evalcorpus.ReadHardQueries(fromRoot(root, c.HardQueries))
		if err != nil {
			return err
		}
		negatives, err := evalcorpus.ReadHintNegatives(fromRoot(root, c.HintNegatives))
		if err != nil {
			return err
		}
		cfg := evalcorpus.DefaultConfig()
		cfg.Seed = c.Seed
		snap, cases, removed, err := evalcorpus.HintCorpus(filepath.Join(work, "generated"), cfg, queries, scripts, hard, negatives)
		if err != nil {
			return err
		}
		outcomes = c.evalHints(snap, append(cases, removed...))
		snap.Close()
	}
	fmt.Fprint(stdout, evalcorpus.FormatHints(evalcorpus.Rejudge(outcomes, hint.DefaultBar), hint.DefaultBar, c.HintMisses))
	if c.HintSweep {
		fmt.Fprint(stdout, "\n"+evalcorpus.SweepHints(outcomes, []float64{0, 0.3, 0.5, 0.6, 0.7, 0.8, 0.9}, []float64{1, 1.25, 1.5, 2, 3}, hint.DefaultBar.MinTerms))
	}
	fmt.Fprintf(stderr, "recall-eval: %d hint prompts in %s\n", len(outcomes), time.Since(start).Round(time.Millisecond))
	return nil
}

// evalHints measures every case once, under a bar that lets every hint
// through: the table and the sweep judge the measures under their bars.
func (c *cli) evalHints(snap *snapshot.Snapshot, cases []evalcorpus.HintCase) []evalcorpus.HintOutcome {
	if c.HintJudge == "search" {
		return evalcorpus.EvaluateHintsBySearch(snap, cases, hint.Bar{})
	}
	return evalcorpus.EvaluateHints(snap, cases, hint.Bar{})
}

// locomoOptions reads --locomo-scope, --locomo-now and
// --locomo-speaker-names.
func (c *cli) locomoOptions() (evalcorpus.LoCoMoOptions, error) {
	opt := evalcorpus.LoCoMoOptions{Joint: c.LoCoMoScope == "joint", SpeakerNames: c.LoCoMoNames}
	if c.LoCoMoNow != "after" {
		now, err := time.ParseInLocation("2006-01-02", c.LoCoMoNow, time.UTC)
		if err != nil {
			return opt, fmt.Errorf("--locomo-now %q: want 'after' or a date (2026-03-10)", c.LoCoMoNow)
		}
		opt.Now = now
	}
	return opt, nil
}

// workDir is --keep or a fresh temporary directory removed afterwards.
func (c *cli) workDir() (string, func(), error) {
	if c.Keep != "" {
		if _, err := os.Stat(c.Keep); err == nil {
			return "", nil, fmt.Errorf("--keep %s: already exists; pick a new directory", c.Keep)
		}
		return c.Keep, func() {}, nil
	}
	dir, err := os.MkdirTemp("", "recall-eval-")
	if err != nil {
		return "", nil, fmt.Errorf("create work dir: %w", err)
	}
	return dir, func() { os.RemoveAll(dir) }, nil
}

func (c *cli) compareOrWrite(path, got string, stdout io.Writer) error {
	if c.Write {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			return fmt.Errorf("write results: %w", err)
		}
		fmt.Fprintf(stdout, "\nwrote %s\n", path)
		return nil
	}
	want, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("no %s yet: run with --write to create it", path)
	}
	if err != nil {
		return fmt.Errorf("read results: %w", err)
	}
	if diff := evalcorpus.LineDiff(string(want), got); diff != "" {
		fmt.Fprintf(stdout, "\nchanges against %s (- checked in, + now):\n%s", path, diff)
		return errDiffers
	}
	fmt.Fprintf(stdout, "\nsame figures as %s\n", path)
	return nil
}

// repoRoot walks up from the working directory to the module root, so the
// default paths work from anywhere inside the repository.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("find repository root: %w", err)
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return dir, nil // not inside the module: paths are relative to here
		}
	}
}

func fromRoot(root, path string) string {
	if filepath.IsAbs(path) {
		return path
	}
	return filepath.Join(root, path)
}
