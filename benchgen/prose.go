package benchgen

import (
	"math/rand/v2"
	"strings"
)

// topic is what one session is about: a package of the source tree. Most
// text comes from it and the rest from anywhere, so a session's words
// cluster like real work does, while common words stay common overall.
type topic struct {
	ts  *TextSource
	pkg *textPackage
}

// topicShare is the chance that a sentence, file or name comes from the
// session's own package rather than from the whole tree.
const topicShare = 0.7

func newTopic(ts *TextSource, r *rand.Rand) topic {
	return topic{ts: ts, pkg: &ts.packages[r.IntN(len(ts.packages))]}
}

func (t topic) sentence(r *rand.Rand) string {
	if r.Float64() < topicShare {
		return t.ts.sentences[t.pkg.sentLo+r.IntN(t.pkg.sentHi-t.pkg.sentLo)]
	}
	return t.ts.sentences[r.IntN(len(t.ts.sentences))]
}

func (t topic) sentences(r *rand.Rand, n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(t.sentence(r))
	}
	return b.String()
}

func (t topic) file(r *rand.Rand) *sourceFile {
	if r.Float64() < topicShare {
		return &t.ts.files[t.pkg.fileLo+r.IntN(t.pkg.fileHi-t.pkg.fileLo)]
	}
	return &t.ts.files[r.IntN(len(t.ts.files))]
}

func (t topic) ident(r *rand.Rand) string {
	if n := t.pkg.identHi - t.pkg.identLo; n > 0 && r.Float64() < topicShare {
		return t.ts.idents[t.pkg.identLo+r.IntN(n)]
	}
	if len(t.ts.idents) == 0 {
		return "main"
	}
	return t.ts.idents[r.IntN(len(t.ts.idents))]
}

// snippet returns a run of lines from a file of the topic.
func (t topic) snippet(r *rand.Rand, minLines, maxLines int) string {
	f := t.file(r)
	n := minLines + r.IntN(maxLines-minLines+1)
	from := r.IntN(max(1, f.numLines()-n))
	return f.lineRange(from, from+n)
}

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

// lowerFirst makes a sentence fit after an opener ("I think the …"),
// leaving names such as HTTP or ReadFile alone.
func lowerFirst(s string) string {
	word, _, _ := strings.Cut(s, " ")
	if len(word) < 2 || word[0] < 'A' || word[0] > 'Z' || strings.ContainsAny(word[1:], "ABCDEFGHIJKLMNOPQRSTUVWXYZ._(") {
		return s
	}
	return string(s[0]+'a'-'A') + s[1:]
}

var acknowledgements = []string{
	"ok", "thanks", "yes", "continue", "go ahead", "yes please", "looks good",
	"perfect, thanks", "do it", "ok commit it", "great", "sounds good", "yep",
	"thank you!", "lgtm", "sure", "proceed", "ok, continue",
}

// typedPrompt is what a person types: mostly short, sometimes a question
// about code, sometimes a pasted error or snippet.
func (t topic) typedPrompt(r *rand.Rand, p *project) string {
	file := t.file(r).path
	switch k := r.IntN(100); {
	case k < 9:
		return pick(r, acknowledgements)
	case k < 27:
		return t.sentences(r, 1+r.IntN(2)) + " Can you check how " + t.ident(r) + " handles this?"
	case k < 39:
		return "why is " + t.ident(r) + " failing in " + file + "? " + t.sentences(r, 1+r.IntN(3))
	case k < 51:
		return "Please look at " + file + ". " + t.sentences(r, 2+r.IntN(4))
	case k < 61:
		return "I think " + lowerFirst(t.sentence(r)) + " " + t.sentences(r, r.IntN(3)) + " Let's change " + t.ident(r) + " so the tests pass."
	case k < 73:
		return t.sentences(r, 2+r.IntN(6))
	case k < 81:
		return t.sentence(r) + "\n\n```go\n" + t.snippet(r, 4, 25) + "\n```\n\nwhat's wrong with this?"
	case k < 87:
		return "getting this error when I run the tests:\n\n" + goTestFailure(r, t, p.module, t.ident(r)) + "\n" + t.sentences(r, 1+r.IntN(2))
	case k < 93:
		return "how did we handle " + strings.ToLower(t.ident(r)) + " in " + p.name + " last time? " + t.sentences(r, 1+r.IntN(2))
	default:
		return "Add a test for " + t.ident(r) + ". " + t.sentences(r, 1+r.IntN(3)) + " Then run go vet and fix what it reports."
	}
}

var leadIns = []string{
	"I'll look at %s first.", "Let me check how %s is used.", "Let me read %s.",
	"Now let me run the tests.", "Let me search for %s.", "I'll update %s.",
	"Let me look at the callers of %s.", "Now I understand the issue.",
	"Let me verify the fix.", "I'll start by reading the relevant code.",
}

// assistantLeadIn is the text before a tool call: a short plan, often
// with a sentence of reasoning.
func (t topic) assistantLeadIn(r *rand.Rand) string {
	s := pick(r, leadIns)
	if strings.Contains(s, "%s") {
		name := t.ident(r)
		if r.IntN(2) == 0 {
			name = "`" + t.file(r).path + "`"
		}
		s = strings.Replace(s, "%s", name, 1)
	}
	if r.IntN(3) > 0 {
		s = t.sentences(r, 1+r.IntN(3)) + " " + s
	}
	return s
}

// assistantAnswer is a longer explanation: sentences, sometimes a list of
// names, sometimes a code block.
func (t topic) assistantAnswer(r *rand.Rand) string {
	var b strings.Builder
	b.WriteString(t.sentences(r, 5+r.IntN(8)))
	if r.IntN(2) == 0 {
		b.WriteString("\n\n")
		for range 2 + r.IntN(5) {
			b.WriteString("- `" + t.ident(r) + "`: " + t.sentence(r) + "\n")
		}
	}
	if r.IntN(3) == 0 {
		b.WriteString("\n\n```go\n" + t.snippet(r, 3, 20) + "\n```\n\n")
		b.WriteString(t.sentence(r))
	}
	if r.IntN(2) == 0 {
		b.WriteString("\n\n## Summary\n\n" + t.sentences(r, 2+r.IntN(4)))
	}
	return b.String()
}

// thinkingText is the model's reasoning; newer CLIs store it empty.
func (t topic) thinkingText(r *rand.Rand) string {
	return "The user wants " + lowerFirst(t.sentence(r)) + " " + t.sentences(r, 1+r.IntN(4))
}
