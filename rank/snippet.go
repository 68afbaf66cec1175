package rank

import (
	"cmp"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// DefaultSnippetWidth is the snippet width, in characters, when
// MakeSnippet is given a width of 0 or less: two lines of a terminal.
const DefaultSnippetWidth = 160

// maxWordTrim is how far, in characters, MakeSnippet moves an edge of the
// window to avoid starting or ending in the middle of a word. A longer
// word (a path, a hash) is cut rather than lose that much context.
const maxWordTrim = 16

// Snippet is a one-line excerpt of a message around its best matches.
type Snippet struct {
	// Label is kept from the start of the text when the window begins
	// after it: a tool row's name ("Bash:"), which says what the excerpt
	// is. It is printed before Text (and before the "…" of ElidedStart);
	// "" when there is none or Text starts at the beginning anyway.
	Label      string
	Text       string // whitespace collapsed to single spaces; valid UTF-8
	Highlights []Span // byte offsets into Text, sorted, not overlapping
	// ElidedStart and ElidedEnd report text cut before and after Text, so
	// the caller can print "…".
	ElidedStart, ElidedEnd bool
}

// String is the snippet as one line: the label, "…" where text was cut,
// and the text.
func (s Snippet) String() string {
	var b strings.Builder
	if s.Label != "" {
		b.WriteString(s.Label + " ")
	}
	if s.ElidedStart {
		b.WriteString("…")
	}
	b.WriteString(s.Text)
	if s.ElidedEnd {
		b.WriteString("…")
	}
	return b.String()
}

// maxLabelBytes bounds a tool name taken as a label: MCP tool names
// (mcp__server__tool) are the longest.
const maxLabelBytes = 64

// minLabelledWidth is the least width, in characters, left for the text
// after a label; below it the label is not kept.
const minLabelledWidth = 12

// MakeToolSnippet is MakeSnippet for a tool row ("Name: what it
// touched"): when the window starts after the tool's name, the name is
// kept as the snippet's Label, within width, so that an excerpt of a long
// command still says which tool ran it.
func MakeToolSnippet(text string, hits []Hit, width int) Snippet {
	if width <= 0 {
		width = DefaultSnippetWidth
	}
	sn := MakeSnippet(text, hits, width)
	n := toolLabelLen(text)
	if !sn.ElidedStart || n == 0 {
		return sn
	}
	label := text[:n-1] // "Bash:" without the space after it
	restWidth := width - utf8.RuneCountInString(label) - 1
	if restWidth < minLabelledWidth {
		return sn
	}
	shifted := make([]Hit, 0, len(hits))
	for _, h := range hits {
		if h.Start >= n {
			shifted = append(shifted, Hit{Term: h.Term, Start: h.Start - n, End: h.End - n})
		}
	}
	rest := MakeSnippet(text[n:], shifted, restWidth)
	if !rest.ElidedStart {
		// The rest starts at its beginning: the label joins the text.
		for i := range rest.Highlights {
			rest.Highlights[i].Start += n
			rest.Highlights[i].End += n
		}
		rest.Text = label + " " + rest.Text
		return rest
	}
	rest.Label = label
	return rest
}

// toolLabelLen is the length of a leading "Name: " (a tool name of
// letters, digits, '_', '.' or '-', then a colon and a space), 0 if the
// text has none.
func toolLabelLen(text string) int {
	for i := 0; i < len(text) && i <= maxLabelBytes; i++ {
		c := text[i]
		switch {
		case c == ':' && i > 0 && i+1 < len(text) && text[i+1] == ' ':
			return i + 2
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_', c == '.', c == '-':
		default:
			return 0
		}
	}
	return 0
}

// Span is a byte range [Start, End).
type Span struct{ Start, End int }

// MakeSnippet cuts about width characters (runes) of text around the
// strongest cluster of hits: the window holding the most distinct terms,
// then the most hits, then the earliest. Runs of whitespace, newlines
// included, become one space; invalid UTF-8 becomes U+FFFD. Hits that fall
// outside text are ignored, and a hit edge inside a rune widens to the
// whole rune.
func MakeSnippet(text string, hits []Hit, width int) Snippet {
	if width <= 0 {
		width = DefaultSnippetWidth
	}
	f := flatten(text)
	width = min(width, f.runes()) // the whole text fits; also keeps start+width from overflowing
	spans := f.mapHits(hits, width)
	a, b := strongestCluster(spans, width)
	start, end := placeWindow(f, a, b, width)
	return Snippet{
		Text:        f.text[f.byteAt[start]:f.byteAt[end]],
		Highlights:  f.highlights(spans, start, end),
		ElidedStart: start > 0,
		ElidedEnd:   end < f.runes(),
	}
}

// flatText is text with whitespace collapsed, indexed by rune.
type flatText struct {
	text     string
	byteAt   []int32 // byte offset in text of each rune, plus len(text)
	origAt   []int32 // byte offset in the original of each rune, plus its length
	origSize int
}

func (f *flatText) runes() int { return len(f.byteAt) - 1 }

func (f *flatText) isSpace(r int) bool { return f.text[f.byteAt[r]] == ' ' }

// flatten collapses each run of whitespace to one space, trims both ends
// and replaces invalid UTF-8 with U+FFFD, remembering where each rune came
// from so hits can be mapped. Markdown tables are read as text
// (tableMarks): their delimiter rows, outer pipes and empty cells count
// as whitespace, and a break between two rows becomes " · ".
func flatten(text string) flatText {
	marks := tableMarks(text)
	// Local slices rather than a strings.Builder or the struct's fields:
	// appending to locals needs no GC write barrier, which made this loop
	// several times slower.
	out := make([]byte, 0, len(text))
	byteAt := make([]int32, 0, len(text)+1)
	origAt := make([]int32, 0, len(text)+1)
	pendingSpace := -1 // where the current whitespace run started, -1 if none
	pendingBreak := false
	for i := 0; i < len(text); {
		r, size := rune(text[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(text[i:])
		}
		if unicode.IsSpace(r) || marks != nil && marks[i] != markText {
			if pendingSpace < 0 {
				pendingSpace = i
			}
			pendingBreak = pendingBreak || marks != nil && marks[i] == markRowBreak
			i += size
			continue
		}
		if pendingSpace >= 0 && len(out) > 0 {
			sep := " "
			if pendingBreak {
				sep = rowSeparator
			}
			for _, c := range sep {
				byteAt, origAt = append(byteAt, int32(len(out))), append(origAt, int32(pendingSpace))
				out = utf8.AppendRune(out, c)
			}
		}
		pendingSpace, pendingBreak = -1, false
		byteAt, origAt = append(byteAt, int32(len(out))), append(origAt, int32(i))
		out = utf8.AppendRune(out, r) // a bad byte decodes as RuneError, written as U+FFFD
		i += size
	}
	return flatText{
		text:     string(out),
		byteAt:   append(byteAt, int32(len(out))),
		origAt:   append(origAt, int32(len(text))),
		origSize: len(text),
	}
}

// rowSeparator stands between two rows of a markdown table in a snippet.
const rowSeparator = " · "

// Byte marks of tableMarks.
const (
	markText     byte = iota // kept as it is
	markSpace                // read as whitespace
	markRowBreak             // a newline between two table rows
)

// tableMarks marks the bytes of markdown tables that flattening reads as
// whitespace: delimiter rows (|---|:--:|), the outer pipes of rows
// (| a | b |) and the pipes of empty cells, so that a table reads
// "a | b · 1 | 2" rather than "| a | b | |---|---| | 1 | 2 |". It returns
// nil for text without a table line, which is most text.
func tableMarks(text string) []byte {
	if strings.IndexByte(text, '|') < 0 || strings.IndexByte(text, '\n') < 0 {
		return nil
	}
	var marks []byte
	prevRowEnd := -1 // the newline ending the last row line, while rows continue
	for start := 0; start < len(text); {
		end := strings.IndexByte(text[start:], '\n')
		if end < 0 {
			end = len(text)
		} else {
			end += start
		}
		kind := tableLineKind(text[start:end])
		if kind != lineText && marks == nil {
			marks = make([]byte, len(text))
		}
		switch kind {
		case lineDelimiter:
			for i := start; i < min(end+1, len(text)); i++ {
				marks[i] = markSpace
			}
		case lineRow:
			if prevRowEnd >= 0 {
				marks[prevRowEnd] = markRowBreak
			}
			markRowPipes(text, start, end, marks)
			prevRowEnd = -1
			if end < len(text) {
				prevRowEnd = end
			}
		default:
			prevRowEnd = -1
		}
		start = end + 1
	}
	return marks
}

// Kinds of line for tableMarks.
const (
	lineText = iota
	lineRow
	lineDelimiter
)

// tableLineKind tells a table row (| a | b |) and a delimiter row
// (|---|:--|, or ---|--- without outer pipes) from other text.
func tableLineKind(line string) int {
	t := strings.TrimSpace(line)
	if len(t) < 2 || strings.IndexByte(t, '|') < 0 {
		return lineText
	}
	if strings.Trim(t, "|-: \t") == "" && strings.IndexByte(t, '-') >= 0 {
		return lineDelimiter
	}
	if t[0] == '|' && t[len(t)-1] == '|' {
		return lineRow
	}
	return lineText
}

// markRowPipes marks a row's outer pipes and the pipe closing each empty
// cell as whitespace.
func markRowPipes(text string, start, end int, marks []byte) {
	lastKept := -1 // the last non-space byte kept as text, -1 for none yet
	for i := start; i < end; i++ {
		switch c := text[i]; {
		case c == ' ' || c == '\t' || c == '\r':
		case c == '|' && (lastKept < 0 || text[lastKept] == '|' || strings.TrimRight(text[i+1:end], " \t\r") == ""):
			marks[i] = markSpace // the leading pipe, an empty cell's, or the trailing one
		default:
			lastKept = i
		}
	}
}

// runeSpan is a hit in runes of the flattened text.
type runeSpan struct{ term, start, end int }

// mapHits turns hits in the original text into rune spans of the flat
// text, sorted, dropping hits that are out of range or only whitespace.
// Spans are clipped to width so that every hit fits some window. Terms are
// renumbered densely so that counting them needs no map.
func (f *flatText) mapHits(hits []Hit, width int) []runeSpan {
	terms := make(map[int]int)
	var spans []runeSpan
	for _, h := range hits {
		if h.Start < 0 || h.End > f.origSize || h.Start >= h.End {
			continue
		}
		start, end := f.runeStartOf(h.Start), f.runeEndOf(h.End)
		if start >= end {
			continue
		}
		term, ok := terms[h.Term]
		if !ok {
			term = len(terms)
			terms[h.Term] = term
		}
		spans = append(spans, runeSpan{term, start, min(end, start+width)})
	}
	slices.SortFunc(spans, func(x, y runeSpan) int {
		return cmp.Or(cmp.Compare(x.start, y.start), cmp.Compare(x.end, y.end), cmp.Compare(x.term, y.term))
	})
	return spans
}

// runeStartOf is the first flat rune holding original byte off or later
// text, skipping a collapsed space.
func (f *flatText) runeStartOf(off int) int {
	n := f.runes()
	r := sort.Search(n, func(k int) bool { return int(f.origAt[k+1]) > off })
	if r < n && f.isSpace(r) {
		r++
	}
	return r
}

// runeEndOf is the end (exclusive) of the last flat rune holding original
// text before byte off, leaving out a collapsed space.
func (f *flatText) runeEndOf(off int) int {
	r := sort.Search(f.runes(), func(k int) bool { return int(f.origAt[k]) >= off })
	if r > 0 && f.isSpace(r-1) {
		r--
	}
	return r
}

// strongestCluster returns the rune range [a, b) covered by the best
// window of width runes: most distinct terms, then most hits, then
// earliest. Windows start at a hit; a two-pointer sweep keeps the term
// counts of the hits inside.
func strongestCluster(spans []runeSpan, width int) (int, int) {
	if len(spans) == 0 {
		return 0, 0
	}
	counts := make([]int, len(spans)) // dense term ids are < len(spans)
	distinct, inside := 0, 0
	bestI, bestJ, bestDistinct := 0, 1, 0
	for i, j := 0, 0; i < len(spans); i++ {
		for ; j < len(spans) && spans[j].end <= spans[i].start+width; j++ {
			if counts[spans[j].term]++; counts[spans[j].term] == 1 {
				distinct++
			}
			inside++
		}
		if distinct > bestDistinct || distinct == bestDistinct && inside > bestJ-bestI {
			bestI, bestJ, bestDistinct = i, j, distinct
		}
		if counts[spans[i].term]--; counts[spans[i].term] == 0 {
			distinct--
		}
		inside--
	}
	end := spans[bestI].end
	for _, s := range spans[bestI:bestJ] {
		end = max(end, s.end)
	}
	return spans[bestI].start, end
}

// placeWindow centres width runes on the cluster [a, b), keeps them inside
// the text, then nudges the edges off half-words without cutting into the
// cluster, and off spaces.
func placeWindow(f flatText, a, b, width int) (int, int) {
	n := f.runes()
	start := max(a-(width-(b-a))/2, 0)
	end := min(start+width, n)
	start = max(end-width, 0)
	if start > 0 && !f.isSpace(start-1) && !f.isSpace(start) {
		if s := f.nextSpace(start, min(a, start+maxWordTrim)); s >= 0 {
			start = s + 1
		}
	}
	if end < n && !f.isSpace(end-1) && !f.isSpace(end) {
		if s := f.prevSpace(end-1, max(b, end-maxWordTrim)); s >= 0 {
			end = s
		}
	}
	// A space at either edge can only be context (hits never start on a
	// space) or the tail of a hit clipped to width: drop it either way.
	if start < end && f.isSpace(start) {
		start++
	}
	if end > start && f.isSpace(end-1) {
		end--
	}
	return start, end
}

// nextSpace returns the first space rune in [from, limit), or -1.
func (f *flatText) nextSpace(from, limit int) int {
	for r := from; r < limit; r++ {
		if f.isSpace(r) {
			return r
		}
	}
	return -1
}

// prevSpace returns the last space rune in [limit, from], or -1.
func (f *flatText) prevSpace(from, limit int) int {
	for r := from; r >= limit; r-- {
		if f.isSpace(r) {
			return r
		}
	}
	return -1
}

// highlights clips the spans to the window [start, end) and returns them
// as merged byte ranges relative to the window.
func (f *flatText) highlights(spans []runeSpan, start, end int) []Span {
	var out []Span
	base := int(f.byteAt[start])
	for _, s := range spans {
		lo, hi := max(s.start, start), min(s.end, end)
		if lo >= hi {
			continue
		}
		h := Span{int(f.byteAt[lo]) - base, int(f.byteAt[hi]) - base}
		if last := len(out) - 1; last >= 0 && h.Start <= out[last].End {
			out[last].End = max(out[last].End, h.End)
			continue
		}
		out = append(out, h)
	}
	return out
}
