package aider

import "strings"

// A model's reasoning is written in a reply between tags, before the
// answer: Aider wraps what the API gives apart as reasoning in
// <thinking-content-7bbeb8e1441453ad999a0bbba8a46d4b> tags
// (reasoning_tags.py's REASONING_TAG, each tag on a line of its own and
// a blank line either side), and a model that reasons inline writes
// <think> (the tag a model's reasoning_tag setting names; <thinking> and
// <reasoning> too) at the reply's start. The reasoning is not the
// answer: its lines make no text, and a reply of reasoning only makes no
// row. A reply whose reasoning never closes (the model cut off) is
// reasoning to its end.
const thinkingContent = "<thinking-content-"

// inlineTags are the tags of reasoning a model writes inline, taken only
// when they open the reply: later in it, they are the reply's text.
var inlineTags = []string{"think", "thinking", "reasoning"}

// answerPart is the part of a reply's line that is its answer, ok false
// when none of it is (reasoning, or a blank line before any answer).
func (m *message) answerPart(line string) (string, bool) {
	for {
		if m.reason != "" {
			i := strings.Index(line, m.reason)
			if i < 0 {
				return "", false
			}
			line, m.reason = line[i+len(m.reason):], ""
			if isBlank(line) {
				return "", false
			}
			continue
		}
		if closing, rest, ok := m.openReasoning(line); ok {
			line, m.reason = rest, closing
			continue
		}
		if m.text.lines == 0 && isBlank(line) {
			return "", false
		}
		return line, true
	}
}

// openReasoning reports whether line starts the model's reasoning: the
// closing tag it waits for and the rest of the line after the opening.
func (m *message) openReasoning(line string) (closing, rest string, ok bool) {
	t := strings.TrimLeft(line, " \t")
	if !strings.HasPrefix(t, "<") {
		return "", "", false
	}
	if after, found := strings.CutPrefix(t, thinkingContent); found {
		i := strings.IndexByte(after, '>')
		if i <= 0 || !isHexString(after[:i]) {
			return "", "", false
		}
		return "</" + thinkingContent[1:] + after[:i] + ">", after[i+1:], true
	}
	if m.text.lines != 0 {
		return "", "", false
	}
	for _, tag := range inlineTags {
		if after, found := strings.CutPrefix(t, "<"+tag+">"); found {
			return "</" + tag + ">", after, true
		}
	}
	return "", "", false
}

// isHexString reports whether s is hexadecimal digits only.
func isHexString(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i] | 0x20; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return s != ""
}
