package filter

import (
	"regexp"
	"strings"
	"sync"
)

// OutputMarker is recall's output signature for formats that are pasted
// into conversations as blocks: the markdown format opens with it. Human
// output is recognised by its header line (headerPattern) and JSON output by
// its leading fields. Text carrying any of them is recall's own output and
// is never indexed again.
const OutputMarker = "<!-- recall-output -->"

// headerPattern is the session header recall prints, the same shape the
// classic tool used: "[1/5] 3f2a9c1 • project | …", or "[1] 3f2a9c1 • …"
// when the limit cut the result. Other agents' session ids are not all
// hex (OpenCode's "ses_…", Aider's "aider-…"), and ids ordered by time
// are printed whole (render's shortID). Keeping the classic shape means output
// pasted from either tool is recognised.
//
// It is compiled on first use, not at every start of recall: only
// indexing asks whether a message is recall's output. The value never
// changes once made.
var headerPattern = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)^\[[0-9]+(?:/[0-9]+)?\]\s+[A-Za-z0-9_.-]{7,80}\s+•`)
})

// jsonOutputPrefix opens every --json line recall prints.
const jsonOutputPrefix = `{"rank":`

// JSONOutputKey is the key every structured result of recall's MCP
// server carries (with the value true). Claude Code hands the model a
// tool's structured content as JSON, and its keys may come in any order,
// so this key, not a prefix, marks it.
const JSONOutputKey = "recall_mcp_result"

// IsRecallOutput reports whether text carries recall's output signature.
func IsRecallOutput(text string) bool {
	if strings.Contains(text, OutputMarker) || strings.Contains(text, `"`+JSONOutputKey+`"`) {
		return true
	}
	if strings.Contains(text, "•") && headerPattern().MatchString(text) {
		return true
	}
	if i := strings.Index(text, jsonOutputPrefix); i >= 0 && strings.Contains(text[i:], `"session_id":`) {
		return true
	}
	return false
}
