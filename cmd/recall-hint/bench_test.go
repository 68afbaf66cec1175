package main

import (
	"bufio"
	"os"
	"strings"
	"testing"

	"github.com/recall-dev/recall/hint/judge"
	"github.com/recall-dev/recall/store/terms"
)

// BenchmarkJudgePrompt judges the bench's prompt against the index in
// $RECALL_BENCH_INDEX (an index `recall-bench` built), opening the
// segments afresh each time as the hook does.
func BenchmarkJudgePrompt(b *testing.B) {
	dir := os.Getenv("RECALL_BENCH_INDEX")
	if dir == "" {
		b.Skip("RECALL_BENCH_INDEX names no index")
	}
	p := payload{SessionID: "s", TranscriptPath: "/nonexistent/s.jsonl", HookEventName: "UserPromptSubmit",
		Prompt: "how did we fix the flaky websocket reconnect test?"}
	for b.Loop() {
		if _, err := judgePrompt(dir, p); err != nil {
			b.Fatal(err)
		}
	}
}

// TestLexiconOnBenchIndex judges every prompt of the eval sets against
// the index in $RECALL_BENCH_INDEX (one `recall-bench` built, with its
// lexicon) with and without the lexicon, stopping early, and as
// recall-hint reads the segments: the same measures and verdicts
// (docs/hints.md).
func TestLexiconOnBenchIndex(t *testing.T) {
	dir := os.Getenv("RECALL_BENCH_INDEX")
	if dir == "" {
		t.Skip("RECALL_BENCH_INDEX names no index")
	}
	var prompts []string
	for _, f := range []string{"../../testdata/eval/queries.tsv", "../../testdata/eval/hard-queries.tsv", "../../testdata/eval/hint-negatives.txt"} {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		defer fh.Close()
		sc := bufio.NewScanner(fh)
		for sc.Scan() {
			line := sc.Text()
			if line == "" || strings.HasPrefix(line, "#") {
				continue
			}
			// The query column of the relevance sets, the line of the
			// new-work prompts.
			fields := strings.Split(line, "\t")
			prompts = append(prompts, fields[len(fields)-1])
			if len(fields) > 1 {
				prompts = append(prompts, fields[1])
			}
		}
	}
	view, err := terms.ReadView(dir)
	if err != nil {
		t.Fatal(err)
	}
	var segs []*terms.Segment
	for _, r := range view.Segments {
		s, err := terms.OpenUnverified(dir, r)
		if err != nil {
			t.Fatal(err)
		}
		segs = append(segs, s)
	}
	lex, err := terms.OpenLexicon(dir)
	if err != nil {
		t.Fatal(err)
	}
	covered := 0
	for _, s := range segs {
		if lex.Covers(s) >= 0 {
			covered++
		}
	}
	if covered == 0 {
		t.Fatalf("the lexicon covers none of the %d segments", len(segs))
	}
	shown, bounded, diff := 0, 0, 0
	for _, p := range prompts {
		a := judge.QuickJudge(judge.OpenedAll(segs), judge.QuickOptions{Prompt: p}, judge.DefaultBar)
		b := judge.QuickJudge(judge.OpenedAll(segs), judge.QuickOptions{Prompt: p, Lexicon: lex}, judge.DefaultBar)
		c := judge.QuickJudge(judge.OpenedAll(segs), judge.QuickOptions{Prompt: p, Lexicon: lex, Early: true}, judge.DefaultBar)
		// As recall-hint judges: the lexicon's segments opened only to
		// read their rows, postings read in their files.
		deferred, err := judgedSegments(dir, view, lex)
		if err != nil {
			t.Fatal(err)
		}
		d := judge.QuickJudge(deferred, judge.QuickOptions{Prompt: p, Lexicon: lex, Early: true}, judge.DefaultBar)
		if *a != *b || a.Shown != c.Shown || a.Best != c.Best && c.Shown || *c != *d {
			diff++
			t.Errorf("%q:\n%+v\n%+v\n%+v\n%+v", p, *a, *b, *c, *d)
		}
		if a.Shown {
			shown++
		}
		if c.Bounded {
			bounded++
		}
	}
	t.Logf("%d prompts, %d of %d segments in the lexicon: %d shown, %d stopped early, %d differ", len(prompts), covered, len(segs), shown, bounded, diff)
}
