package filter

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/recall-dev/recall/textrules"
)

// MinChars is the shortest message worth indexing, counted in characters
// after noise is stripped (the classic pipeline's threshold), a Chinese,
// Japanese or Korean character counting two (runeWeight).
const MinChars = 10

// noiseTags are tags whose whole element (open tag, body, close tag) is
// machine text. Where one wraps part of a prompt, as IDE context does before
// the real question, the element is cut out and the rest is kept. Matching
// on tags rather than prose follows the format reference: the wording
// inside changes between Claude Code versions, the tags do not.
var noiseTags = []string{
	"system-reminder",
	"ide_opened_file",
	"ide_selection",
	"ide_diagnostics",
	"command-name",
	"command-message",
	"command-args",
	"local-command-stdout",
	"local-command-stderr",
	"local-command-caveat",
	"bash-input",
	"bash-stdout",
	"bash-stderr",
	"task-notification",
	"teammate-message", // another agent's message: a team's lead or member, another session (2.1 agent teams)
	"user-prompt-submit-hook",
	"persisted-output",
	"function_calls",
	"function_results",
	"antml:function_calls",
}

// noisePrefixes mark a whole message as machine text when it starts with
// them: interruptions, API and usage-limit errors, environment notices,
// caveats, synthetic turns, compaction summaries and hook feedback.
var noisePrefixes = []string{
	"[Request interrupted",
	"New environment",
	"API Error",
	"Please run /login",
	"Limit reached",
	"Claude AI usage limit reached",
	"You've hit your session limit",
	"Caveat:",
	"No response requested.",
	"Continue from where you left off.",
	"This session is being continued from a previous conversation",
	"Base directory for this skill:",
	"Stop hook feedback:",
	"Read the output file to retrieve the result:",
	"Full transcript available at:",
	"Another Claude session sent a message:", // before a <teammate-message>
}

// noiseFragments are tool-call XML pieces and tag openers the classic
// pipeline dropped wherever they appeared, as whole tag names
// (containsNoiseFragment). An element with both tags is stripped above;
// a stray fragment left after that means the message is tool syntax,
// not prose.
var noiseFragments = []string{
	"<ide_",
	"<bash-",
	"<function_calls",
	"</function_calls>",
	"<invoke",
	"</invoke>",
	"<parameter",
	"</parameter>",
}

// Clean strips noise elements from a typed prompt or an assistant text block
// and says whether what is left is worth indexing. The returned text is
// trimmed; it is empty unless the reason is Kept.
func Clean(text string) (string, Reason) {
	if request, ok := commandRequest(text); ok {
		text = request
	}
	stripped, hadNoise := stripNoiseTags(text)
	stripped, hadClosing := trimClosingFragments(strings.TrimSpace(stripped))
	hadNoise = hadNoise || hadClosing
	if hasNoisePrefix(stripped) || containsNoiseFragment(stripped) || unknownCommand(stripped) {
		return "", Noise
	}
	if IsRecallOutput(stripped) {
		return "", RecallOutput
	}
	if fewerRunesThan(stripped, MinChars) {
		if hadNoise {
			return "", Noise
		}
		if textrules.IsAcknowledgement(stripped) {
			return "", Acknowledgement
		}
		return "", TooShort
	}
	if textrules.IsAcknowledgement(stripped) {
		return "", Acknowledgement
	}
	return stripped, Kept
}

// commandRequest is the request of a custom slash command's or skill's
// echo: "/name arguments". Claude Code writes a custom command or skill
// message first (<command-message>, <command-name>, <command-args>;
// a built-in one name first) and its expansion as a meta record after
// it, so the arguments are all the person typed: "/fix-issue 1234 the
// login button". false for any other text, for a command without
// arguments (the name alone says little) and for recall's own skill (a
// search, not a request).
func commandRequest(text string) (string, bool) {
	t := strings.TrimSpace(text)
	if !strings.HasPrefix(t, "<command-message>") {
		return "", false
	}
	name, _, okName := element(t, "command-name")
	args, _, okArgs := element(t, "command-args")
	name, args = strings.TrimSpace(name), strings.TrimSpace(args)
	if !okName || !okArgs || name == "" || args == "" || name == "/recall" || strings.HasPrefix(name, "/recall:") {
		return "", false
	}
	rest := t
	for _, tag := range [...]string{"command-message", "command-name", "command-args"} {
		rest, _ = stripElement(rest, tag)
	}
	if strings.TrimSpace(rest) != "" {
		return "", false // text besides the echo's elements
	}
	return name + " " + args, true
}

// element finds <tag>body</tag> in text: its body and the text after it.
func element(text, tag string) (body, after string, ok bool) {
	_, rest, ok := strings.Cut(text, "<"+tag+">")
	if !ok {
		return "", "", false
	}
	return strings.Cut(rest, "</"+tag+">")
}

// fewerRunesThan is utf8.RuneCountInString(s) < n without counting the
// runes of a long text: a rune (or a byte that is not UTF-8, counted as
// one) is one to four bytes, so len(s) bounds the count on both sides.
func fewerRunesThan(s string, n int) bool {
	switch {
	case len(s) < n:
		return true
	case len(s) >= n*utf8.UTFMax:
		return false
	}
	w := 0
	for _, r := range s {
		w += runeWeight(r)
	}
	return w < n
}

// Short reports whether text is too short to index: under MinChars, as
// runeWeight counts.
func Short(text string) bool { return fewerRunesThan(text, MinChars) }

// runeWeight is what a character counts for against MinChars: two for
// a Chinese, Japanese or Korean one, which says about what a word of
// another script says ("当前使用的大模型", which model is in use now, is
// eight), one for any other.
func runeWeight(r rune) int {
	if r >= 0x1100 && unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) {
		return 2
	}
	return 1
}

// stripNoiseTags removes every <tag>…</tag> element of noiseTags. An opening
// tag without its close removes the rest of the text, since the machine
// text runs to the end.
func stripNoiseTags(text string) (string, bool) {
	if !startsAnyAfterLT(text, noiseTags, nil) {
		// No element to strip: stripping one only removes text or puts
		// a newline after a '<', so none can appear on the way either.
		return text, false
	}
	found := false
	for _, tag := range noiseTags {
		var had bool
		text, had = stripElement(text, tag)
		found = found || had
	}
	return text, found
}

func stripElement(text, tag string) (string, bool) {
	open, closing := "<"+tag, "</"+tag+">"
	found := false
	for {
		i := indexTagOpen(text, open)
		if i < 0 {
			return text, found
		}
		found = true
		j := strings.Index(text[i:], closing)
		if j < 0 {
			return text[:i], true
		}
		text = text[:i] + "\n" + text[i+j+len(closing):]
	}
}

// indexTagOpen finds "<tag" followed by '>' or whitespace, so that
// "<command-name" does not match "<command-names-list".
func indexTagOpen(text, open string) int {
	from := 0
	for {
		i := strings.Index(text[from:], open)
		if i < 0 {
			return -1
		}
		i += from
		end := i + len(open)
		if end >= len(text) || text[end] == '>' || text[end] == ' ' || text[end] == '\n' || text[end] == '\t' || text[end] == '/' {
			return i
		}
		from = end
	}
}

// unknownCommands open what Claude Code writes, as the user's turn after
// its caveat, when a slash command names no command or skill it knows
// ("Unknown skill: btw"; older versions "Unknown slash command: …"): the
// name alone follows, and the person's words are not in the file.
var unknownCommands = [...]string{"Unknown skill: ", "Unknown slash command: ", "Unknown command: "}

// unknownCommand reports whether text is such a notice: an opener and a
// name without spaces.
func unknownCommand(text string) bool {
	for _, p := range unknownCommands {
		if name, ok := strings.CutPrefix(text, p); ok {
			return name != "" && !strings.ContainsAny(name, " \t\n")
		}
	}
	return false
}

func hasNoisePrefix(text string) bool {
	for _, p := range noisePrefixes {
		if strings.HasPrefix(text, p) {
			return true
		}
	}
	return false
}

// containsNoiseFragment reports whether text contains one of
// noiseFragments, which all start with '<', as a whole tag name: a plan
// that names a "<parameterized kernel>" is prose, "<parameter name=" is
// tool syntax.
func containsNoiseFragment(text string) bool {
	return startsAnyAfterLT(text, noiseFragmentTails, fragmentEnds)
}

// trimClosingFragments drops the closing tool-call tags that end text:
// markup a model leaked after its prose (a task it wrote for a subagent
// ending "…\n</prompt>\n</invoke>"), which leaves the prose whole; a
// fragment anywhere else still marks the message as tool syntax. cut
// reports that there were some.
func trimClosingFragments(text string) (_ string, cut bool) {
	if !strings.HasSuffix(text, ">") {
		return text, false // most messages: no tag ends them
	}
	for {
		more := false
		for _, f := range noiseFragments {
			if strings.HasPrefix(f, "</") && strings.HasSuffix(text, f) {
				text = strings.TrimSpace(text[:len(text)-len(f)])
				more = true
			}
		}
		if !more {
			return text, cut
		}
		cut = true
	}
}

// fragmentEnds reports whether the fragment tail f, found after a '<'
// and followed by rest, is a whole tag name: a closing tag is whole as
// it is; a family's prefix (ide_, bash-) needs a name after it
// (<ide_opened_file>, <bash-stdout>); any other name needs the end of a
// tag's name after it (a space, '>', '/', or the end of the text).
func fragmentEnds(f, rest string) bool {
	switch f[len(f)-1] {
	case '>':
		return true
	case '_', '-':
		n := 0
		for n < len(rest) && (rest[n] >= 'a' && rest[n] <= 'z' || rest[n] == '_' || rest[n] == '-') {
			n++
		}
		return n > 0 && endsTagName(rest[n:])
	}
	return endsTagName(rest)
}

// endsTagName reports whether rest begins where a tag's name ends.
func endsTagName(rest string) bool {
	return rest == "" || strings.IndexByte(" \t\r\n>/", rest[0]) >= 0
}

// noiseFragmentTails are noiseFragments without their leading '<'.
var noiseFragmentTails = func() []string {
	out := make([]string, len(noiseFragments))
	for i, f := range noiseFragments {
		out[i] = f[1:]
	}
	return out
}()

// startsAnyAfterLT reports whether one of words follows a '<' in text
// (and is whole there, when whole is given):
// one pass from '<' to '<' instead of a search of the whole text per word
// (a message of code holds many a '<', and the tags and fragments were
// searched for one by one, 27 scans of every such text).
func startsAnyAfterLT(text string, words []string, whole func(word, rest string) bool) bool {
	for {
		i := strings.IndexByte(text, '<')
		if i < 0 {
			return false
		}
		text = text[i+1:]
		for _, w := range words {
			if rest, ok := strings.CutPrefix(text, w); ok && (whole == nil || whole(w, rest)) {
				return true
			}
		}
	}
}
