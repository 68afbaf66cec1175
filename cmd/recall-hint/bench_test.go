package main

import (
	"os"
	"testing"
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
