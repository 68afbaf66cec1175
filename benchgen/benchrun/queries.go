package benchrun

// mixQuery is one entry of the fixed query mix: the recall arguments and the
// plain rg equivalent over the index's rows as TSV.
type mixQuery struct {
	name string
	// recallArgs follow `recall --no-update --index-dir IDX`.
	recallArgs []string
	// rgPattern is searched with rg -i in rows.tsv ...
	rgPattern string
	// ... and, when set, the matching lines are filtered again through
	// a pipe, as rg has no AND or NOT across patterns.
	rgRequire, rgExclude string
}

// queryMix is fixed so that runs compare over time. The words come from
// the Go source tree the corpus is sampled from; their frequencies in a
// 200 MB corpus (75k rows, Go 1.26 tree) were: tokenizer 5 rows, error
// 8.9k, mutex 351, deadlock 82, goroutine 2.2k, timeout 472,
// "garbage collector" 155, dead.?lock|race condition 97.
func queryMix() []mixQuery {
	return []mixQuery{
		{name: "rare word", recallArgs: []string{"tokenizer"}, rgPattern: "tokenizer"},
		{name: "common word", recallArgs: []string{"error"}, rgPattern: "error"},
		{name: "OR of three", recallArgs: []string{"mutex", "deadlock", "goroutine"}, rgPattern: "mutex|deadlock|goroutine"},
		{name: "--require", recallArgs: []string{"mutex", "deadlock", "--require", "goroutine"}, rgPattern: "mutex|deadlock", rgRequire: "goroutine"},
		{name: "--exclude", recallArgs: []string{"error", "timeout", "--exclude", "test"}, rgPattern: "error|timeout", rgExclude: "test"},
		{name: "phrase", recallArgs: []string{`"garbage collector"`}, rgPattern: "garbage collector"},
		// With --regex recall takes each whitespace-separated word as a
		// pattern of its own (query/query.go), so the space of rg's one
		// pattern is written \x20: both search the same pattern. (Until
		// issue 13's last round recall was given `race condition` with a
		// space, two patterns, /dead.?lock|race/ or /condition/: 2,240
		// matching rows at 1 GB against rg's 699.)
		{name: "--regex", recallArgs: []string{"--regex", `dead.?lock|race\x20condition`}, rgPattern: "dead.?lock|race condition"},
		// recall drops the stop words how, did, we, the; rg gets the rest.
		{name: "natural-language question", recallArgs: []string{"how", "did", "we", "fix", "the", "flaky", "scheduler", "test"}, rgPattern: "fix|flaky|scheduler|test"},
	}
}

// recallCommand is the recall side of q against the index in indexDir.
func (q mixQuery) recallCommand(recall, indexDir string) command {
	return search(append([]string{recall, "--no-update", "--index-dir", indexDir}, q.recallArgs...)...)
}

// baselineCommand is the rg side of q over rowsPath: a direct rg call,
// or a bash pipeline when the query needs AND or NOT.
func (q mixQuery) baselineCommand(rowsPath string) command {
	if q.rgRequire == "" && q.rgExclude == "" {
		return search("rg", "-i", q.rgPattern, rowsPath)
	}
	script := "rg -i " + shellQuote(q.rgPattern) + " " + shellQuote(rowsPath)
	if q.rgRequire != "" {
		script += " | rg -i " + shellQuote(q.rgRequire)
	}
	if q.rgExclude != "" {
		script += " | rg -iv " + shellQuote(q.rgExclude)
	}
	return pipeline(script)
}
