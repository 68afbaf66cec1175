package filter

import "testing"

// TestCommandRequest: a custom command's or skill's echo keeps the
// request the person typed, "/name arguments"; a built-in command's
// (name first), one without arguments, recall's own skill and an echo
// with other text are as before.
func TestCommandRequest(t *testing.T) {
	checkClean(t, []cleanCase{
		{"<command-message>fix-issue</command-message>\n<command-name>/fix-issue</command-name>\n<command-args>1234 login button breaks on Safari</command-args>",
			"/fix-issue 1234 login button breaks on Safari", Kept},
		{"<command-message>greet</command-message>\n<command-name>/greet</command-name>\n<command-args></command-args>", "", Noise},
		{"<command-name>/model</command-name>\n            <command-message>model</command-message>\n            <command-args>claude-opus-4</command-args>", "", Noise},
		{"<command-message>recall</command-message>\n<command-name>/recall</command-name>\n<command-args>jwt auth middleware</command-args>", "", Noise},
		{"<command-message>review</command-message>\n<command-name>/review</command-name>\n<command-args>the retry loop</command-args> and more", "", Noise},
	})
}

// cleanCase is a text and what Clean should make of it.
type cleanCase struct {
	text, want string
	reason     Reason
}

func checkClean(t *testing.T, cases []cleanCase) {
	t.Helper()
	for _, tc := range cases {
		got, reason := Clean(tc.text)
		if got != tc.want || reason != tc.reason {
			t.Errorf("Clean(%q) = %q, %v; want %q, %v", tc.text, got, reason, tc.want, tc.reason)
		}
	}
}

// TestUnknownCommandNotice: Claude Code's notice for a slash command it
// does not know is noise; a person's sentence that starts the same way
// is kept, and a short CJK question is not too short.
func TestUnknownCommandNotice(t *testing.T) {
	checkClean(t, []cleanCase{
		{"Unknown skill: btw", "", Noise},
		{"Unknown slash command: flo-convert", "", Noise},
		{"Unknown command: deploy-prod", "", Noise},
		{"Unknown command: deploy-prod keeps showing up, why?", "Unknown command: deploy-prod keeps showing up, why?", Kept},
		{"当前使用的大模型", "当前使用的大模型", Kept},
		{"你好", "", TooShort},
	})
}

// TestToolMarkupInProse: prose that names a word a tool-call tag begins,
// or that a model ended with leaked closing tags, is kept (the closing
// tags left out); a message with tool-call markup anywhere else is tool
// syntax.
func TestToolMarkupInProse(t *testing.T) {
	checkClean(t, []cleanCase{
		{"Plan: lower each '<parameterized fused kernel region>' to one dispatch", "Plan: lower each '<parameterized fused kernel region>' to one dispatch", Kept},
		{"Audit the nine repositories and report the ratio\n</prompt>\n</invoke>", "Audit the nine repositories and report the ratio\n</prompt>", Kept},
		{"Audit the nine repositories </invoke> and report the ratio", "", Noise},
		{`<invoke name="Bash"><parameter name="command">go test ./...</parameter></invoke>`, "", Noise},
		{"</parameter>\n</invoke>", "", Noise},
	})
}
