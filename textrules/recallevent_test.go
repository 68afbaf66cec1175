package textrules

import (
	"fmt"
	"testing"
)

func TestDetectRecallEvent(t *testing.T) {
	tests := []struct {
		role, text string
		want       bool
		words      string
	}{
		{"tool", `Bash: recall "jwt auth" --require implement`, true, "[jwt auth implement]"},
		{"tool", `Bash: cd /src && ~/go/bin/recall search kubernetes ingress | head`, true, "[kubernetes ingress]"},
		{"tool", `Bash: RECALL_INDEX_DIR=/tmp/x recall -l websocket`, true, "[websocket]"},
		{"tool", `Bash: memory search "stripe webhooks"`, true, "[stripe webhooks]"},
		{"tool", `mcp__recall__search: flaky reconnect test`, true, "[flaky reconnect test]"},
		{"tool", `Bash: cd ~/src/recall && make test`, false, "[]"},
		{"tool", `Bash: ls recall`, false, "[]"},
		{"tool", `Edit: /src/recall/main.go`, false, "[]"},
		{"assistant", "I'll search my memory for the JWT refresh work.", true, "[jwt refresh work]"},
		{"assistant", "I ran `recall pricing rounding` and found two sessions.", true, "[pricing rounding]"},
		{"user", "Did you remember what we talked about caching?", true, "[caching]"},
		{"assistant", "I don't recall the exact flag, let me check the docs.", false, "[]"},
		{"assistant", "I'll search the codebase for the handler.", false, "[]"},
	}
	for _, tt := range tests {
		words, ok := DetectRecallEvent(tt.role, tt.text)
		if ok != tt.want || (ok && fmt.Sprint(words) != tt.words) {
			t.Errorf("DetectRecallEvent(%q, %q) = %v, %v; want %s, %v", tt.role, tt.text, words, ok, tt.words, tt.want)
		}
	}
}
