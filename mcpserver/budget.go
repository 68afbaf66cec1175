package mcpserver

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// How big a tool result may be. Claude Code keeps a tool result whole up
// to 25,000 tokens (MAX_MCP_OUTPUT_TOKENS) and saves one of over 50,000
// characters to a file the model has to read back; and of a result with
// structured content the model reads that JSON alone (Claude Code 2.1),
// other clients the text. So the two forms of every result, the
// structured JSON and the markdown text, fit the call's budget together
// (whichever a client reads, and however it measures the result), and a
// result that was cut says what it left out and how to ask for it
// (offset, max_tokens).
//
// Tokens are counted by a rule of thumb, not a tokenizer: Claude's
// tokenizer takes 3.5 to 4 bytes a token of English prose and about 3 of
// code, paths and JSON, so a byte count divided by 3 errs on the side of
// more tokens than the model will see.
const (
	bytesPerToken = 3
	// ceilingTokens bounds every result whatever max_tokens asks: at 3
	// bytes a token 48,000 bytes for both forms together, under both of
	// Claude Code's limits.
	ceilingTokens = 16_000
	// minTokens is the least max_tokens is raised to: room for a page
	// of one session or message and what the result says of the rest.
	minTokens = 1_000

	defaultSearchTokens   = 8_000
	defaultShowTokens     = 12_000
	defaultSessionsTokens = 6_000
)

// budget is a call's bound on its result, in bytes of either form.
type budget struct {
	bytes int
	// note says how max_tokens was read when it was raised or lowered
	// to the bounds ("" when taken as asked).
	note string
}

// budgetOf reads a max_tokens argument: def when absent, and within
// [minTokens, ceilingTokens].
func budgetOf(c *Count, def int) budget {
	tokens, note := def, ""
	if c != nil {
		tokens = int(*c)
	}
	switch {
	case tokens > ceilingTokens:
		tokens, note = ceilingTokens, fmt.Sprintf("max_tokens %d is over the ceiling: %d used", int(*c), ceilingTokens)
	case tokens < minTokens:
		tokens, note = minTokens, fmt.Sprintf("max_tokens %d is under the least a page needs: %d used", int(*c), minTokens)
	}
	return budget{bytes: tokens * bytesPerToken, note: note}
}

// noteRoom is what a page keeps free, while it is fitted, for the note
// that says what it left out (added once its size is known).
const noteRoom = 512

// fits reports whether text and structured, as JSON, fit b together with
// room for a note (which both carry).
func (b budget) fits(text string, structured any) bool {
	return within(text, structured, b.bytes-2*noteRoom)
}

// within reports whether text and structured, as JSON, take at most max
// bytes together.
func within(text string, structured any, max int) bool {
	if len(text) > max {
		return false
	}
	data, err := json.Marshal(structured)
	return err == nil && len(text)+len(data) <= max
}

// overCeiling is the error of a result that, cut as far as it can be,
// is still over the ceiling: never expected, never sent.
func overCeiling(tool string) error {
	return fmt.Errorf("recall's %s result is over %d tokens even cut to one item: ask for less (max_tokens, context)", tool, ceilingTokens)
}

// fitCount is the most of n items a page can hold, fits(k) saying
// whether the first k fit; fits must hold for fewer items whenever it
// holds for more. At least one item is kept when there is one (its
// parts are cut to fit first), so a page always moves on.
func fitCount(n int, fits func(k int) bool) int {
	if n == 0 || fits(n) {
		return n
	}
	lo, hi := 1, n // fits(hi) is false; the answer is in [lo, hi)
	for lo+1 < hi {
		mid := (lo + hi) / 2
		if fits(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// fitPage is the most of n items whose page, as page renders the first k
// of them, fits b (fitCount), or page's error.
func fitPage[T any](b budget, n int, page func(k int) (string, T, error)) (int, error) {
	var renderErr error
	k := fitCount(n, func(k int) bool {
		text, out, err := page(k)
		if err != nil {
			renderErr = err
			return false
		}
		return b.fits(text, out)
	})
	return k, renderErr
}

// cutText is s cut at a character boundary so that size(s) is at most
// max, and how many bytes were left out. size is how many bytes s takes
// once written out (escaped in JSON, made printable), at least len(s).
func cutText(s string, max int, size func(string) int) (string, int) {
	end := len(s)
	for n := size(s); n > max && end > 0; n = size(s[:end]) {
		end = end * max / n // escapes are spread unevenly: measure again
		for end > 0 && !utf8.RuneStart(s[end]) {
			end--
		}
	}
	return s[:end], len(s) - end
}
