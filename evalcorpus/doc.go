// Package evalcorpus measures recall's ranking on a relevance set.
//
// It generates a deterministic corpus of Claude Code transcripts from topic
// descriptions (topics.go): each topic gets a target session written from
// its description, and distractors of the kinds the seed report names —
// sessions that mention the topic in passing many times, resumed copies of
// the target (forks), sessions where the topic's words sit only in text the
// indexer drops (tool results, system reminders, shell output), the same
// work in another project (twins), and sessions that ran recall for the
// topic and quoted the result (echoes) — plus background chore sessions
// built from a shared vocabulary. Queries (testdata/eval/queries.tsv) name
// the topic they look for; a query's targets are that topic's target and
// its forks. Nothing in the corpus is chosen by looking at search results.
//
// Evaluate indexes the corpus with indexer.Run, runs every query as the
// CLI does — search.Params with the CLI's defaults (the number of sessions
// shown included, so the term index ranks them), then search.Run — and
// reports hit@1, hit@5 and MRR overall and per query kind, with the
// misses listed. The cmd/recall-eval command writes or checks
// testdata/eval/results.txt.
//
// EvaluateLoCoMo (locomo.go) measures the same on a public benchmark that
// is not in the repository: LoCoMo's long two-person conversations, each
// session written as a transcript, every question typed verbatim, its
// evidence sessions the targets (cmd/recall-eval --locomo FILE).
package evalcorpus
