package rank

import (
	"cmp"
	"slices"
	"sort"
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
	Text       string // whitespace collapsed to single spaces; valid UTF-8
	Highlights []Span // byte offsets into Text, sorted, not overlapping
	// ElidedStart and ElidedEnd report text cut before and after Text, so
	// the caller can print "…".
	ElidedStart, ElidedEnd bool
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
// from so hits can be mapped.
func flatten(text string) flatText {
	// Local slices rather than a strings.Builder or the struct's fields:
	// appending to locals needs no GC write barrier, which made this loop
	// several times slower.
	out := make([]byte, 0, len(text))
	byteAt := make([]int32, 0, len(text)+1)
	origAt := make([]int32, 0, len(text)+1)
	pendingSpace := -1 // where the current whitespace run started, -1 if none
	for i := 0; i < len(text); {
		r, size := rune(text[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(text[i:])
		}
		if unicode.IsSpace(r) {
			if pendingSpace < 0 {
				pendingSpace = i
			}
			i += size
			continue
		}
		if pendingSpace >= 0 && len(out) > 0 {
			byteAt, origAt = append(byteAt, int32(len(out))), append(origAt, int32(pendingSpace))
			out = append(out, ' ')
		}
		pendingSpace = -1
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
