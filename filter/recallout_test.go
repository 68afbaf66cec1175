package filter

import "testing"

// Each shape of recall's output is recognised; look-alikes are not.
func TestIsRecallOutput(t *testing.T) {
	for _, tt := range []struct {
		name string
		text string
		want bool
	}{
		{"markdown marker", "<!-- recall-output -->\n## recall: jwt (2 sessions)", true},
		{"human header, whole result", "[1/2] 3f2a9c1 • /home/dev/src/shop | 3 matches | last match 2026-03-01 10:03 | score 1.62", true},
		{"human header, cut result", "some words\n[1] 3f2a9c1 • /home/dev/src/shop | 3 matches", true},
		{"human header, a Codex session", "[2/3] 0199b6f2-1c3a-7d41-9e0a-5b7c2d9e1f01 • /home/dev/src/shop (codex) | 12 matches", true},
		{"human header, an OpenCode session", "[1] ses_alpha • /home/dev/shop (opencode) | 3 matches", true},
		{"--json line", `{"rank":1,"session_id":"3f2a9c1e-0000-4000-8000-000000000000","project":"/p"}`, true},
		{"MCP result, keys sorted", `{"offset":0,"query":"jwt","recall_mcp_result":true,"sessions":[]}`, true},
		{"MCP result, pretty", "{\n  \"recall_mcp_result\": true,\n  \"query\": \"jwt\"\n}", true},
		{"a bracketed list", "[1] see the notes\n[2] and the tests", false},
		{"a footnote with a hash", "[1] abcdef0 was the commit", false},
		{"json without the fields", `{"rank":1,"name":"x"}`, false},
		{"prose", "we talked about recall output yesterday", false},
	} {
		if got := IsRecallOutput(tt.text); got != tt.want {
			t.Errorf("%s: IsRecallOutput = %v, want %v", tt.name, got, tt.want)
		}
	}
}
