package claude

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func jsonNumber(s string) json.Number { return json.Number(s) }

func numbered(from, to int) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

func TestUnifiedDiff(t *testing.T) {
	tests := []struct {
		name, a, b, want string
	}{
		{"equal", "x\n", "x\n", ""},
		{"insert in the middle", numbered(1, 10), numbered(1, 5) + "new\n" + numbered(6, 10),
			"--- a\n+++ b\n@@ -3,6 +3,7 @@\n line 3\n line 4\n line 5\n+new\n line 6\n line 7\n line 8\n"},
		{"from nothing", "", "a\nb\n", "--- a\n+++ b\n@@ -0,0 +1,2 @@\n+a\n+b\n"},
		{"to nothing", "a\n", "", "--- a\n+++ b\n@@ -1,1 +0,0 @@\n-a\n"},
		{"two hunks", numbered(1, 20), strings.Replace(strings.Replace(numbered(1, 20), "line 2\n", "two\n", 1), "line 19\n", "nineteen\n", 1),
			"--- a\n+++ b\n@@ -1,5 +1,5 @@\n line 1\n-line 2\n+two\n line 3\n line 4\n line 5\n" +
				"@@ -16,5 +16,5 @@\n line 16\n line 17\n line 18\n-line 19\n+nineteen\n line 20\n"},
		{"close changes join", numbered(1, 10), strings.Replace(strings.Replace(numbered(1, 10), "line 3\n", "", 1), "line 8\n", "", 1),
			"--- a\n+++ b\n@@ -1,10 +1,8 @@\n line 1\n line 2\n-line 3\n line 4\n line 5\n line 6\n line 7\n-line 8\n line 9\n line 10\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := unifiedDiff("a", "b", []byte(tt.a), []byte(tt.b)); got != tt.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}
