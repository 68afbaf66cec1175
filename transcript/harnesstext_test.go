package transcript

import (
	"slices"
	"testing"
)

// TestWordsTypedBesideTheHarness: what a person typed that Claude Code
// hands the model inside its own text is kept, and the rest left out:
// the words typed when refusing a tool call (inside the call's result,
// as a string or a text block, after a newline or a space; not the text
// Claude Code puts there when one chose to clarify its questions, nor the
// note to the model it puts after them since 2.1.14x), a custom
// command's arguments; another agent's message (<teammate-message>) is
// not the person's.
func TestWordsTypedBesideTheHarness(t *testing.T) {
	lines := `{"type":"user","uuid":"u1","sessionId":"s1","cwd":"/w","timestamp":"2026-05-08T00:09:00.000Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","is_error":true,"content":"The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). To tell you how to proceed, the user said:\nkeep the old invoice format for now"}]},"toolUseResult":"Error: The user doesn't want to proceed with this tool use."}
{"type":"user","uuid":"u2","sessionId":"s1","cwd":"/w","timestamp":"2026-05-08T00:10:00.000Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t2","is_error":true,"content":[{"type":"text","text":"The user doesn't want to proceed with this tool use. The tool use was rejected. To tell you how to proceed, the user said: run only the unit tests"}]}]}}
{"type":"user","uuid":"u3","sessionId":"s1","cwd":"/w","timestamp":"2026-05-08T00:11:00.000Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t3","is_error":true,"content":"The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed."}]}}
{"type":"user","uuid":"u3b","sessionId":"s1","cwd":"/w","timestamp":"2026-05-08T00:11:30.000Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t3b","is_error":true,"content":"The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). To tell you how to proceed, the user said:\nThe user wants to clarify these questions.\n    This means they may have additional information, context or questions for you.\n\n    Questions asked:\n- \"Where should the history show?\"\n  (No answer provided)"}]}}
{"type":"user","uuid":"u3c","sessionId":"s1","cwd":"/w","timestamp":"2026-05-08T00:11:40.000Z","version":"2.1.143","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t3c","is_error":true,"content":"The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). To tell you how to proceed, the user said:\nwhy is a compiler barrier not enough here?\n\nNote: The user's next message may contain a correction or preference. Pay close attention — if they explain what went wrong or how they'd prefer you to work, consider saving that to memory for future sessions."}]}}
{"type":"user","uuid":"u4","sessionId":"s1","cwd":"/w","timestamp":"2026-05-08T00:12:00.000Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t4","content":"To tell you how to proceed, the user said: a file's text, not a refusal"}]}}
{"type":"user","uuid":"u5","sessionId":"s1","cwd":"/w","timestamp":"2026-05-08T00:13:00.000Z","message":{"role":"user","content":"<command-message>fix-issue</command-message>\n<command-name>/fix-issue</command-name>\n<command-args>1234 login button breaks on Safari</command-args>"}}
{"type":"user","uuid":"u6","sessionId":"s1","cwd":"/w","timestamp":"2026-05-08T00:13:01.000Z","isMeta":true,"message":{"role":"user","content":[{"type":"text","text":"Fix issue 1234 login button breaks on Safari: read the issue, find the cause, write a test."}]}}
{"type":"user","uuid":"u7","sessionId":"s1","cwd":"/w","timestamp":"2026-05-08T00:14:00.000Z","message":{"role":"user","content":"<teammate-message teammate_id=\"team-lead\" color=\"blue\" summary=\"task\">\nYou are an agent on team \"billing\". Claim task #2 and report back.</teammate-message>"}}
{"type":"user","uuid":"u8","sessionId":"s1","cwd":"/w","timestamp":"2026-05-08T00:15:00.000Z","message":{"role":"user","content":"Another Claude session sent a message:\n<teammate-message teammate_id=\"worker-one\">{\"type\":\"idle_notification\"}</teammate-message>"}}
`
	res := readMainLines(t, lines)
	var got []string
	for _, r := range res.Rows {
		got = append(got, r.UUID+" "+r.Role+": "+r.Text)
	}
	want := []string{
		"u1 user: keep the old invoice format for now",
		"u2 user: run only the unit tests",
		"u3c user: why is a compiler barrier not enough here?",
		"u5 user: /fix-issue 1234 login button breaks on Safari",
	}
	if !slices.Equal(got, want) {
		t.Errorf("rows:\n%q\nwant:\n%q", got, want)
	}
}
