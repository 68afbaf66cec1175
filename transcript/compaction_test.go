package transcript

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recall-dev/recall/filter"
	"github.com/recall-dev/recall/record"
)

// TestCompactionAgentLeftOut: Claude Code runs /compact as a subagent
// (subagents/agent-acompact-<id>.jsonl): its prompt is Claude Code's and
// its reply the summary, a recap, left out as noise as the
// isCompactSummary record is; so is the prompt suggestion agent's
// (agent-aprompt_suggestion-<id>.jsonl), a guess at the next prompt.
// Another subagent's rows are kept, a side question's too.
func TestCompactionAgentLeftOut(t *testing.T) {
	lines := `{"parentUuid":null,"isSidechain":true,"sessionId":"s1","agentId":"AGENT","cwd":"/w","type":"user","uuid":"u1","timestamp":"2026-03-05T01:52:11.846Z","message":{"role":"user","content":"Your task is to create a detailed summary of the conversation so far, paying close attention to the user's explicit requests."}}
{"parentUuid":"u1","isSidechain":true,"sessionId":"s1","agentId":"AGENT","cwd":"/w","type":"assistant","uuid":"a1","timestamp":"2026-03-05T01:53:25.263Z","message":{"role":"assistant","content":[{"type":"text","text":"<analysis>The user asked about the dev container setup and the todo list.</analysis>"}]}}
`
	for _, tc := range []struct {
		agent string
		rows  int
	}{
		{"acompact-870cd0c7b9931190", 0},
		{"aprompt_suggestion-33a4cf", 0},
		{"aside_question-4f1e2d", 2},
		{"a1b2c3d4e5f60718", 2},
	} {
		dir := filepath.Join(t.TempDir(), "s1", "subagents")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, "agent-"+tc.agent+".jsonl")
		if err := os.WriteFile(path, []byte(strings.ReplaceAll(lines, "AGENT", tc.agent)), 0o600); err != nil {
			t.Fatal(err)
		}
		res := Read(Work{T: Transcript{Path: path, Kind: record.KindSubagent, Agent: tc.agent, Session: "s1"}}, "", bufio.NewReaderSize(nil, ReadBufferSize))
		if res.Err != nil || len(res.Rows) != tc.rows {
			t.Errorf("agent %s: %d rows (%v), want %d", tc.agent, len(res.Rows), res.Err, tc.rows)
		}
		if tc.rows == 0 && res.Counts[filter.Noise] != 2 {
			t.Errorf("agent %s: %d records counted as noise, want 2", tc.agent, res.Counts[filter.Noise])
		}
	}
}
