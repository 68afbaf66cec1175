package textrules

import "strings"

// Span is a byte range [Start, End) of a text.
type Span struct{ Start, End int }

// CodeSpans returns the byte ranges of text that are code, in order:
// fenced blocks (a line opening with ``` or ~~~ up to the line closing
// it, or to the end of the text if it never closes, as Markdown renders it)
// and inline `code` outside them.
//
// Inline code must close on its own line. Markdown lets it run on across
// lines of a paragraph, but in transcripts a stray backtick is far more
// common than a wrapped code span, and it would turn the rest of the
// message into "code".
//
// The term index records with it which token occurrences are code, so
// that a score computed from the index equals one computed from the text.
func CodeSpans(text string) []Span { return AppendCodeSpans(nil, text) }

// AppendCodeSpans appends the spans CodeSpans returns to spans: a caller
// over many texts reuses one slice. It keeps nothing of text but offsets.
func AppendCodeSpans(spans []Span, text string) []Span {
	if strings.IndexByte(text, '`') < 0 && !strings.Contains(text, "~~~") {
		return spans // most prose: skip the line walk
	}
	fence := ""  // the fence that opened the current block, "" outside one
	fenceAt := 0 // where that block started
	for lineStart := 0; lineStart < len(text); {
		lineEnd := strings.IndexByte(text[lineStart:], '\n')
		if lineEnd < 0 {
			lineEnd = len(text)
		} else {
			lineEnd += lineStart
		}
		line := text[lineStart:lineEnd]
		marker := fenceMarker(line)
		switch {
		case fence == "" && marker != "":
			fence, fenceAt = marker, lineStart
		case fence != "" && marker != "" && closesFence(marker, fence, line):
			spans = append(spans, Span{fenceAt, lineEnd})
			fence = ""
		case fence == "":
			spans = appendInlineCode(spans, line, lineStart)
		}
		lineStart = lineEnd + 1
	}
	if fence != "" {
		spans = append(spans, Span{fenceAt, len(text)})
	}
	return spans
}

// fenceMarker returns the run of ``` or ~~~ (three or more) that opens the
// line after indentation, or "".
func fenceMarker(line string) string {
	trimmed := strings.TrimLeft(line, " \t")
	if len(trimmed) < 3 || (trimmed[0] != '`' && trimmed[0] != '~') {
		return ""
	}
	n := 0
	for n < len(trimmed) && trimmed[n] == trimmed[0] {
		n++
	}
	if n < 3 {
		return ""
	}
	return trimmed[:n]
}

// closesFence reports whether a line starting with marker closes the block
// opened by fence: same character, at least as long, nothing but spaces
// after it (an info string such as ```go only opens).
func closesFence(marker, fence, line string) bool {
	if marker[0] != fence[0] || len(marker) < len(fence) {
		return false
	}
	rest := strings.TrimLeft(line, " \t")[len(marker):]
	return strings.TrimSpace(rest) == ""
}

// appendInlineCode appends the `code` spans of one line (outside fences):
// a run of n backticks opens a span that the next run of exactly n closes.
// An unclosed run is literal text.
func appendInlineCode(spans []Span, line string, offset int) []Span {
	for i := 0; i < len(line); {
		next := strings.IndexByte(line[i:], '`')
		if next < 0 {
			break
		}
		i += next
		open := backtickRun(line, i)
		closeAt := findBacktickRun(line, i+open, open)
		if closeAt < 0 {
			i += open
			continue
		}
		spans = append(spans, Span{offset + i, offset + closeAt + open})
		i = closeAt + open
	}
	return spans
}

// backtickRun is the length of the run of backticks starting at i.
func backtickRun(s string, i int) int {
	n := 0
	for i+n < len(s) && s[i+n] == '`' {
		n++
	}
	return n
}

// findBacktickRun returns where the next run of exactly n backticks at or
// after from starts, or -1.
func findBacktickRun(s string, from, n int) int {
	for i := from; i < len(s); {
		j := strings.IndexByte(s[i:], '`')
		if j < 0 {
			return -1
		}
		i += j
		run := backtickRun(s, i)
		if run == n {
			return i
		}
		i += run
	}
	return -1
}
