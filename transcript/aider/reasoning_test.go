package aider

import (
	"fmt"
	"strings"
	"testing"
)

// TestReasoning checks that a model's reasoning in a reply (Aider's
// thinking-content tags, an inline <think> at its start) makes no text,
// and that a reply of reasoning only makes no row.
func TestReasoning(t *testing.T) {
	res := readAll(t, fixtures+"/reasoning/.aider.chat.history.md")
	var got []string
	for _, r := range res.Rows {
		if r.Role == "assistant" {
			got = append(got, fmt.Sprintf("%d: %s", r.Line, r.Text))
		}
		if strings.Contains(r.Text, "thinking-content") || strings.Contains(r.Text, "reasoner") && r.Role == "assistant" {
			t.Errorf("reasoning kept: %q", r.Text)
		}
	}
	want := []string{
		"9: It retries the call up to three times with exponential backoff.",
		"33: It reads config.toml and falls back to defaults.",
		"41: A model may write <think> tags; here they are the answer:\n<think>kept</think>",
	}
	if strings.Join(got, "\n|") != strings.Join(want, "\n|") {
		t.Errorf("replies:\n%s\nwant:\n%s", strings.Join(got, "\n|"), strings.Join(want, "\n|"))
	}
}
