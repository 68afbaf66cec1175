package benchrun

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/recall-dev/recall/benchgen"
)

// report is what the markdown is rendered from.
type report struct {
	command string
	machine machine
	repeat  int
	seed    uint64
	// rssFloor is the peak RSS the launcher reports for `true`: the
	// smallest value any measurement can show.
	rssFloor int64
	results  []sizeResult
	// growth is the no-change and incremental index of the first and
	// the last corpus, timed taking turns once both are indexed
	// (measureGrowth); nil with one corpus.
	growth *growth
}

func renderReport(r report) string {
	var b strings.Builder
	b.WriteString("# recall benchmarks\n\n")
	fmt.Fprintf(&b, "Measured by `recall-bench run` on %s:\n\n```sh\n%s\n```\n\n", r.machine.Date.Format("2006-01-02 15:04 MST"), r.command)
	writeMachine(&b, r.machine)
	writeMethod(&b, r.repeat, r.rssFloor)
	if len(r.results) > 0 && r.results[0].mixed {
		writeMixedMethod(&b)
	}
	for _, res := range r.results {
		writeSizeResult(&b, res, r.seed)
	}
	for _, res := range r.results {
		if res.startup != nil {
			b.WriteString(renderStartup(*res.startup) + "\n")
		}
	}
	writeGrowth(&b, r.results, r.growth)
	return b.String()
}

func writeMachine(b *strings.Builder, m machine) {
	b.WriteString("## Machine\n\n| | |\n|---|---|\n")
	rows := [][2]string{
		{"CPUs (nproc)", fmt.Sprint(m.CPUs)},
		{"CPU", m.CPUModel},
		{"Memory", m.Memory},
		{"Kernel", m.Kernel},
		{"Go", m.GoVersion},
		{"recall", m.Recall},
		{"ripgrep", m.Rg},
		{"zstd", m.Zstd},
	}
	for _, row := range rows {
		fmt.Fprintf(b, "| %s | %s |\n", row[0], tableCell(row[1]))
	}
	b.WriteString("\n")
}

func writeMethod(b *strings.Builder, repeat int, rssFloor int64) {
	fmt.Fprintf(b, `## Method

- Every time is the wall-clock time of a whole process, start to exit: the median of %d timed runs after one untimed warm-up run (%d for the freshness measurements, which last milliseconds), with min–max in brackets.
- "recall ÷ baseline" is the ratio of the medians; below 1 recall is faster.
- Full index: `+"`recall index`"+` into an empty index directory, against one raw `+"`rg`"+` pass over the same transcripts (the least any indexer has to do: read every byte once), the two taking turns, every file system synced (untimed) before each run.
- Freshness (no watcher running): the corpus is first dated a day back (a real tree is mostly quiet; a transcript's mtime is its last write) and indexed once with `+"`recall index --sweep`"+`. Incremental index: %d records appended to one transcript before each run, with the history.jsonl line Claude Code writes for a prompt typed in that session (a resumed session). No-change index: nothing appended. Both are the plain `+"`recall index`"+` (the quick check, see docs/performance.md), against `+"`find ROOT -name '*.jsonl' -newer REF`"+` over the same tree. "Search with freshness check" is the rare-word query with its index update against the same query with `+"`--no-update`"+`.
- Queries: `+"`recall --no-update`"+` (matching, ranking and printing the top sessions) against `+"`rg -i`"+` over the classic tool's 5-column TSV of the same rows (`+"`zstd -dc IDX/rows-*.zst | cut -f1-5`"+`: session, timestamp, type, text, project), what a user of the classic tool greps. rg has no AND or NOT across patterns, so `+"`--require`/`--exclude`"+` are rg pipes run through `+"`bash -c`"+`.
- Peak RSS is ru_maxrss of the command as reported by wait4 (for a pipeline, its largest process), the largest over the timed runs. Each command runs under a small launcher process (`+"`recall-bench measure`"+`), because on Linux a child's ru_maxrss starts at the peak RSS of the process that started it; the launcher's %s (what `+"`true`"+` reports) is the floor of every RSS figure. rg memory-maps a single input file, so its RSS includes the pages of rows.tsv it touched.
- Index size is the whole index directory against the rows TSV compressed with `+"`zstd -3`"+`.
- The corpus is synthetic (`+"`recall-bench gen`"+`): Claude Code transcripts with prose and code sampled from the Go source tree; see the corpus line of each section.

`, repeat, freshnessRepeat(repeat), appendedLines, formatRSS(rssFloor))
}

func writeSizeResult(b *strings.Builder, res sizeResult, seed uint64) {
	c := res.corpus
	if res.mixed {
		writeMixedCorpus(b, res, seed)
	} else {
		fmt.Fprintf(b, "## %s corpus\n\n", res.label)
		fmt.Fprintf(b, "Corpus: %d files (%d sessions, of which %d forks and %d headless runs; %d subagent transcripts) in %d projects, %s, human text %.1f%% of bytes; `recall-bench gen --size %s --seed %d`.",
			c.Files, c.Sessions, c.Forks, c.Headless, c.Subagents, c.Projects, benchgen.FormatSize(c.Bytes), percent(c.HumanText, c.Bytes), res.label, seed)
		fmt.Fprintf(b, " Index: %d rows (%s as TSV).\n\n", res.rowCount, benchgen.FormatSize(res.rowsBytes))
	}
	if res.indexSummary != "" {
		fmt.Fprintf(b, "Last full index said: `%s`\n\n", res.indexSummary)
	}
	b.WriteString("| Measurement | recall | baseline | recall ÷ baseline | recall peak RSS | baseline peak RSS |\n|---|---|---|---|---|---|\n")
	timedRow(b, "Full index", res.fullIndex, &res.rawScan)
	timedRow(b, fmt.Sprintf("Incremental index (+%d lines)", appendedLines), res.incremental, &res.find)
	timedRow(b, "No-change index", res.noChange, &res.find)
	timedRow(b, "Search with freshness check", res.freshSearch, &res.staleSearch)
	for _, q := range res.queries {
		timedRow(b, "Query: "+q.q.name, q.recallRuns, &q.baseRuns)
	}
	fmt.Fprintf(b, "| Index size | %s | %s | %s | — | — |\n\n", benchgen.FormatSize(res.indexBytes), benchgen.FormatSize(res.rowsZstdBytes), ratio(float64(res.indexBytes), float64(res.rowsZstdBytes)))
	writeTargets(b, res)
	if res.scaling != nil {
		writeScaling(b, res, *res.scaling)
	}
	writeCommands(b, res)
}

// timedRow writes one table row; base is nil for measurements without
// a baseline.
func timedRow(b *strings.Builder, name string, recall sample, base *sample) {
	baseCell, ratioCell, baseRSS := "—", "—", "—"
	if base != nil {
		baseCell = spread(*base)
		ratioCell = ratio(float64(recall.median()), float64(base.median()))
		baseRSS = formatRSS(base.peakRSS())
	}
	fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s |\n", tableCell(name), spread(recall), baseCell, ratioCell, formatRSS(recall.peakRSS()), baseRSS)
}

func writeCommands(b *strings.Builder, res sizeResult) {
	b.WriteString("Commands (run in the work directory):\n\n")
	fmt.Fprintf(b, "- Full index: `%s` — baseline `%s`\n", res.indexCmd, res.scanCmd)
	fmt.Fprintf(b, "- Incremental and no-change index: the same `recall index`, appending to `%s` (and a line to history.jsonl) — baseline `%s`\n", res.appendTarget, res.findCmd)
	fmt.Fprintf(b, "- Search with freshness check: `%s` — baseline `%s`\n", res.freshSearchCmd, res.staleSearchCmd)
	for _, q := range res.queries {
		fmt.Fprintf(b, "- Query %s: `%s` (exit %d, %d output lines) — baseline `%s` (%d rows matched)\n",
			q.q.name, q.recallCmd, q.recallRuns.last().exitCode, q.recallRuns.last().stdoutLines, q.baseCmd, q.baseRuns.last().stdoutLines)
	}
	fmt.Fprintf(b, "- Index size: the index directory — baseline `%s`\n\n", res.zstdCmd)
}

// spread renders "median (min–max)".
func spread(s sample) string {
	if len(s.runs) == 0 {
		return "—"
	}
	return fmt.Sprintf("%s (%s–%s)", formatDuration(s.median()), formatDuration(s.min()), formatDuration(s.max()))
}

func formatDuration(d time.Duration) string {
	switch {
	case d >= time.Second:
		return fmt.Sprintf("%.2f s", d.Seconds())
	case d >= 10*time.Millisecond:
		return fmt.Sprintf("%.0f ms", float64(d)/float64(time.Millisecond))
	}
	return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond))
}

func formatRSS(bytes int64) string {
	if bytes <= 0 {
		return "—"
	}
	return benchgen.FormatSize(bytes)
}

func ratio(a, b float64) string {
	if b <= 0 {
		return "—"
	}
	return fmt.Sprintf("%.2f", a/b)
}

func percent(part, whole int64) float64 {
	if whole <= 0 {
		return 0
	}
	return 100 * float64(part) / float64(whole)
}

// tableCell escapes the pipe, which would otherwise end a markdown cell.
func tableCell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// target is one line of issue 13's targets, checked against a run.
type target struct {
	name, measured string
	holds          bool
}

func writeTargets(b *strings.Builder, res sizeResult) {
	b.WriteString("Targets (ratios of medians in this run):\n\n| Target | measured | holds |\n|---|---|---|\n")
	for _, t := range targets(res) {
		fmt.Fprintf(b, "| %s | %s | %s |\n", tableCell(t.name), tableCell(t.measured), yesNo(t.holds))
	}
	b.WriteString("\n")
}

func targets(res sizeResult) []target {
	rel := func(a, base sample) float64 {
		if base.median() <= 0 {
			return 0
		}
		return float64(a.median()) / float64(base.median())
	}
	ms := func(s sample) float64 { return float64(s.median()) / float64(time.Millisecond) }
	noChange, appendRatio := rel(res.noChange, res.find), rel(res.incremental, res.find)
	worst, worstName, rss := 0.0, "", int64(0)
	for _, q := range res.queries {
		if r := rel(q.recallRuns, q.baseRuns); r > worst {
			worst, worstName = r, q.q.name
		}
		rss = max(rss, q.recallRuns.peakRSS())
	}
	full := rel(res.fullIndex, res.rawScan)
	return []target{
		{"No-change index ≤ 0.25× find", fmt.Sprintf("%.2f×", noChange), noChange <= 0.25},
		{fmt.Sprintf("No-change index ≤ 5 ms (%d transcripts)", res.corpus.totalFiles()), fmt.Sprintf("%.1f ms", ms(res.noChange)), ms(res.noChange) <= 5},
		{fmt.Sprintf("+%d lines indexed ≤ 1× find", appendedLines), fmt.Sprintf("%.2f×", appendRatio), appendRatio <= 1},
		{fmt.Sprintf("+%d lines indexed ≤ 30 ms", appendedLines), fmt.Sprintf("%.1f ms", ms(res.incremental)), ms(res.incremental) <= 30},
		{"Search with freshness check ≤ 1.25× --no-update", fmt.Sprintf("%.2f×", rel(res.freshSearch, res.staleSearch)), rel(res.freshSearch, res.staleSearch) <= 1.25},
		{"Every query ≤ 0.5× rg -i over the classic TSV", fmt.Sprintf("worst %.2f× (%s)", worst, worstName), worst <= 0.5},
		{"Query peak RSS ≤ 64 MB", formatRSS(rss), rss <= 64<<20},
		{"Full index ≤ 10× a hot rg pass", fmt.Sprintf("%.1f×", full), full <= 10},
		{"Index peak RSS ≤ 256 MB", formatRSS(res.fullIndex.peakRSS()), res.fullIndex.peakRSS() <= 256<<20},
	}
}

// writeGrowth checks that freshness costs do not grow with the corpus:
// the larger corpus's no-change and append times against the first's,
// those timed taking turns when there are some.
func writeGrowth(b *strings.Builder, results []sizeResult, turns *growth) {
	if len(results) < 2 {
		return
	}
	small, large := results[0], results[len(results)-1]
	type check struct {
		name        string
		large, base sample
	}
	checks := []check{
		{"No-change index ≤ 1.2×", large.noChange, small.noChange},
		{fmt.Sprintf("+%d lines indexed ≤ 1.2×", appendedLines), large.incremental, small.incremental},
	}
	if turns != nil {
		taking := fmt.Sprintf(" (%d runs of each, taking turns)", len(turns.noChange[0].runs))
		checks[0] = check{checks[0].name + taking, turns.noChange[1], turns.noChange[0]}
		checks[1] = check{checks[1].name + taking, turns.appended[1], turns.appended[0]}
	}
	fmt.Fprintf(b, "## Growth, %s against %s\n\n| Target | measured | holds |\n|---|---|---|\n", large.label, small.label)
	for _, g := range checks {
		r := 0.0
		if g.base.median() > 0 {
			r = float64(g.large.median()) / float64(g.base.median())
		}
		fmt.Fprintf(b, "| %s | %.2f× | %s |\n", tableCell(g.name), r, yesNo(r <= 1.2))
	}
	if turns != nil {
		fmt.Fprintf(b, "\nTaking turns, medians: no-change %s against %s, +%d lines %s against %s; each size's table above has its own runs, timed minutes apart.\n",
			formatDuration(turns.noChange[1].median()), formatDuration(turns.noChange[0].median()), appendedLines,
			formatDuration(turns.appended[1].median()), formatDuration(turns.appended[0].median()))
	}
	b.WriteString("\n")
}

func yesNo(ok bool) string {
	if ok {
		return "yes"
	}
	return "no"
}

// writeMixedMethod says what a mixed corpus is and how it is measured.
func writeMixedMethod(b *strings.Builder) {
	b.WriteString(`## Mixed corpus

- The corpus is mixed: the Claude Code transcripts under projects/ as in a Claude Code corpus of the same size and seed, and beside them the sessions of the other agents recall reads, in their own formats and folders, adding about a quarter more bytes in the same projects: Codex CLI rollouts (codex/sessions/YYYY/MM/DD/, some archived to codex/archived_sessions/ and some of those compressed to .jsonl.zst), Gemini CLI chats (gemini/tmp/<project>/chats/), an OpenCode database (opencode/opencode.db) and Aider histories (aider/<project>/.aider.chat.history.md). Each agent's files and bytes are listed with the corpus.
- The other agents' sessions are calibrated to the densities measured on real sessions: 450 real session files from public repositories (not redistributable, so not in the repo), split into their kinds of record, and the generator writes what real ones carry beside the conversation in about the same shares of their bytes: Codex's base instructions, developer messages and AGENTS.md repeated in turn_context (a line per model request in some versions), encrypted reasoning and screen-sized tool outputs; Gemini CLI's tool descriptions, whole-file edit displays, block-sized replace arguments, whole-file reads, thoughts and now and then pages of command output; OpenCode 1.17's reasoning on most steps, tool parts of 3 KB and its event log; Aider's runs that end before a prompt, banners, lint, test and error output and /help's docs. Indexed text (rows TSV ÷ input bytes, recall index on the 200MB mixed corpora of seeds 1 and 2), generated against real: Codex 0.082–0.085 against 0.077, Gemini CLI 0.075 against 0.068, Aider 0.75–0.76 against 0.63, OpenCode 0.048–0.049 against 0.006 for the one real database (three sessions; 0.019 without its write-ahead log), whose parts and event log the generated ones match in size and share, but whose replies are a third as long. The generated sessions stay a little denser than real ones (their conversation is the Claude Code corpus's prose, not shortened), so the mixed index time errs slightly high.
- Every recall command gets a --source for each folder (` + "`--source projects --source codex:codex --source gemini:gemini --source opencode:opencode --source aider:aider`" + `). The full-index baseline is one rg pass over every folder (` + "`-z`" + ` decompresses the .zst rollouts, ` + "`-a`" + ` reads the database through, ` + "`--hidden`" + ` finds the Aider histories); the freshness baseline is ` + "`find`" + ` over every folder for any file newer than the reference.
- The incremental index still appends to one Claude Code transcript. "No-change index against the other agents' files" measures the same no-change index on the same Claude Code transcripts with the other agents' sessions at 1× and at 4× (a second set of their folders: the same projects, four times the sessions), each in an index of its own, runs interleaved; and counts, with strace, the stat-family system calls (stat, fstat, newfstatat, statx, …) of one run of each.

`)
}

// writeMixedCorpus is a mixed corpus's heading and corpus description:
// its Claude Code part as in a Claude Code corpus, and a row per agent.
func writeMixedCorpus(b *strings.Builder, res sizeResult, seed uint64) {
	c := res.corpus
	fmt.Fprintf(b, "## %s mixed corpus\n\n", res.label)
	fmt.Fprintf(b, "Corpus (mixed, `recall-bench gen --size %s --seed %d --mixed`): %d files, %s in all.\n\n", res.label, seed, c.totalFiles(), benchgen.FormatSize(c.totalBytes()))
	b.WriteString("| Agent | folder | files | bytes | sessions | projects | notes |\n|---|---|---|---|---|---|---|\n")
	fmt.Fprintf(b, "| claude | projects | %d | %s | %d | %d | %d forks, %d headless runs, %d subagent transcripts, human text %.1f%% of bytes |\n",
		c.Files, benchgen.FormatSize(c.Bytes), c.Sessions, c.Projects, c.Forks, c.Headless, c.Subagents, percent(c.HumanText, c.Bytes))
	for _, a := range c.Agents {
		var notes []string
		if a.Subagents > 0 {
			notes = append(notes, fmt.Sprintf("%d subagents", a.Subagents))
		}
		if a.Forks > 0 {
			notes = append(notes, fmt.Sprintf("%d forks", a.Forks))
		}
		if a.Archived > 0 {
			notes = append(notes, fmt.Sprintf("%d archived, %d of them .jsonl.zst", a.Archived, a.Compressed))
		}
		fmt.Fprintf(b, "| %s | %s | %d | %s | %d | %d | %s |\n", a.Agent, a.Dir, a.Files, benchgen.FormatSize(a.Bytes), a.Sessions, a.Projects, strings.Join(notes, ", "))
	}
	b.WriteString("\n")
	fmt.Fprintf(b, "Index: %d rows (%s as TSV).\n\n", res.rowCount, benchgen.FormatSize(res.rowsBytes))
}

// writeScaling is the no-change index against the number of the other
// agents' files.
func writeScaling(b *strings.Builder, res sizeResult, sc scalingResult) {
	b.WriteString("No-change index against the other agents' files (the same Claude Code transcripts; each row its own index):\n\n")
	counted := sc.stats1 != nil && sc.statsN != nil
	fmt.Fprintf(b, "| Other agents' sessions | their sessions | their files | their bytes | their projects (%s) | no-change index | peak RSS |", agentNames(sc.agents1))
	if counted {
		b.WriteString(" stat-family calls |")
	}
	b.WriteString("\n|---|---|---|---|---|---|---|")
	if counted {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	for _, row := range []struct {
		name   string
		agents []agentInfo
		files  int
		bytes  int64
		s      sample
		calls  map[string]int64
	}{{"1× (this corpus)", sc.agents1, sc.files1, sc.bytes1, sc.noChange1, sc.stats1}, {fmt.Sprintf("%d×", sc.scale), sc.agentsN, sc.filesN, sc.bytesN, sc.noChangeN, sc.statsN}} {
		sessions := 0
		for _, a := range row.agents {
			sessions += a.Sessions
		}
		fmt.Fprintf(b, "| %s | %d | %d | %s | %s | %s | %s |", row.name, sessions, row.files, benchgen.FormatSize(row.bytes), agentProjects(row.agents), spread(row.s), formatRSS(row.s.peakRSS()))
		if counted {
			fmt.Fprintf(b, " %s |", tableCell(statCalls(row.calls)))
		}
		b.WriteString("\n")
	}
	r := 0.0
	if sc.noChange1.median() > 0 {
		r = float64(sc.noChangeN.median()) / float64(sc.noChange1.median())
	}
	sessions := func(agents []agentInfo) (n int) {
		for _, a := range agents {
			n += a.Sessions
		}
		return n
	}
	fmt.Fprintf(b, "| %d× ÷ 1× | %s | %s | %s | — | %.2f× | — |", sc.scale, ratio(float64(sessions(sc.agentsN)), float64(sessions(sc.agents1))),
		ratio(float64(sc.filesN), float64(sc.files1)), ratio(float64(sc.bytesN), float64(sc.bytes1)), r)
	if counted {
		fmt.Fprintf(b, " %s |", ratio(float64(sc.statsN["total"]), float64(sc.stats1["total"])))
	}
	b.WriteString("\n\n")
	b.WriteString("| Target | measured | holds |\n|---|---|---|\n")
	fmt.Fprintf(b, "| No-change index with %d× the other agents' files ≤ 1.2× | %.2f× | %s |\n", sc.scale, r, yesNo(r <= 1.2))
	if counted {
		d := sc.statsN["total"] - sc.stats1["total"]
		fmt.Fprintf(b, "| Stat-family calls do not grow with the other agents' files (same projects) | %+d calls | %s |\n", d, yesNo(d <= 0))
	}
	b.WriteString("\n")
	fmt.Fprintf(b, "Commands: 1× `%s` — %d× `%s`", sc.cmd1, sc.scale, sc.cmdN)
	if counted {
		fmt.Fprintf(b, "; calls counted with `%s` before each", sc.straceCmd)
	} else if sc.straceNote != "" {
		fmt.Fprintf(b, "; %s", sc.straceNote)
	}
	b.WriteString(".\n\n")
}

// statCalls renders strace counts: "41 (newfstatat 35, fstat 6)".
func statCalls(calls map[string]int64) string {
	names := make([]string, 0, len(calls))
	for name := range calls {
		if name != "total" {
			names = append(names, name)
		}
	}
	slices.SortFunc(names, func(a, b string) int { return cmp.Or(cmp.Compare(calls[b], calls[a]), strings.Compare(a, b)) })
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = fmt.Sprintf("%s %d", n, calls[n])
	}
	if len(parts) == 0 {
		return fmt.Sprint(calls["total"])
	}
	return fmt.Sprintf("%d (%s)", calls["total"], strings.Join(parts, ", "))
}
