package textrules

import (
	"bytes"
	"unicode/utf8"
)

// asciiFold maps an ASCII word byte to its folded form (CanonicalFold:
// the upper-case letter) and any other ASCII byte to 0.
var asciiFold = func() (t [utf8.RuneSelf]byte) {
	for c := range utf8.RuneSelf {
		if IsWordRune(rune(c)) {
			t[c] = byte(CanonicalFold(rune(c)))
		}
	}
	return t
}()

// Tokenizer cuts text into the term index's tokens, reusing its buffers.
// The zero value is ready to use.
type Tokenizer struct {
	tok   []byte
	spans []Span
}

// Each calls fn with every token of text, folded, and whether it starts in
// a code span (CodeSpans). A token is a maximal run of word
// characters; tok is only valid during the call.
func (z *Tokenizer) Each(text []byte, fn func(tok []byte, inCode bool)) {
	z.EachSpan(text, func(tok []byte, _, _ int, inCode bool) { fn(tok, inCode) })
}

// EachSpan is Each that also gives where each token lies in text: bytes
// [start, end).
func (z *Tokenizer) EachSpan(text []byte, fn func(tok []byte, start, end int, inCode bool)) {
	z.spans = z.spans[:0]
	if bytes.IndexByte(text, '`') >= 0 || bytes.Contains(text, []byte("~~~")) {
		z.spans = CodeSpans(string(text))
	}
	span := 0
	start := -1
	z.tok = z.tok[:0]
	emit := func(end int) {
		for span < len(z.spans) && z.spans[span].End <= start {
			span++
		}
		inCode := span < len(z.spans) && z.spans[span].Start <= start
		fn(z.tok, start, end, inCode)
		z.tok = z.tok[:0]
		start = -1
	}
	for i := 0; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf {
			if f := asciiFold[c]; f != 0 {
				if start < 0 {
					start = i
				}
				z.tok = append(z.tok, f)
			} else if start >= 0 {
				emit(i)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(text[i:])
		if IsWordRune(r) {
			if start < 0 {
				start = i
			}
			z.tok = utf8.AppendRune(z.tok, CanonicalFold(r))
		} else if start >= 0 {
			emit(i)
		}
		i += size
	}
	if start >= 0 {
		emit(len(text))
	}
}

// EachToken calls fn with every token of text, folded, as Tokenizer.Each
// gives them, until fn returns false; without code spans, so cheaper.
// The token is built in buf (grown as needed, returned for reuse) and is
// only valid during the call.
func EachToken(text, buf []byte, fn func(tok []byte) bool) []byte {
	tok := buf[:0]
	for i := 0; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf {
			i++
			if f := asciiFold[c]; f != 0 {
				tok = append(tok, f)
				continue
			}
		} else {
			r, size := utf8.DecodeRune(text[i:])
			i += size
			if IsWordRune(r) {
				tok = utf8.AppendRune(tok, CanonicalFold(r))
				continue
			}
		}
		if len(tok) > 0 {
			if !fn(tok) {
				return tok
			}
			tok = tok[:0]
		}
	}
	if len(tok) > 0 {
		fn(tok)
	}
	return tok
}
