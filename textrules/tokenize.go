package textrules

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"unicode/utf8"
	"unsafe"
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
//
// It finds a token's start, then folds the token's bytes in a loop of
// its own into a buffer as long as text, written by index: a folded rune
// is never longer than the rune (CanonicalFold picks the smallest
// character of its orbit), so the buffer cannot overflow. This is the
// term index's inner loop over every byte of indexed text;
// tokenize_test.go checks it against the plain one-byte-at-a-time form.
func (z *Tokenizer) EachSpan(text []byte, fn func(tok []byte, start, end int, inCode bool)) {
	z.spans = z.spans[:0]
	if bytes.IndexByte(text, '`') >= 0 || bytes.Contains(text, []byte("~~~")) {
		// A view of text, not a copy (a copy of every text with a
		// backtick was 8% of the bytes a full index allocates):
		// AppendCodeSpans keeps only offsets, and text does not change
		// during the call.
		z.spans = AppendCodeSpans(z.spans, unsafe.String(unsafe.SliceData(text), len(text)))
	}
	// At least 16 bytes, so that a consumer may read a token's first 16
	// bytes as two words (store/terms.tokenWords).
	if need := max(len(text)+utf8.UTFMax, 16); cap(z.tok) < need {
		z.tok = make([]byte, need)
	}
	buf := z.tok[:cap(z.tok)]
	span := 0
	for i := 0; i < len(text); {
		if c := text[i]; c < utf8.RuneSelf {
			if asciiFold[c] == 0 {
				i++
				continue
			}
		} else if r, size := utf8.DecodeRune(text[i:]); !IsWordRune(r) {
			i += size
			continue
		}
		start := i
		var k int
		k, i = foldWord(buf, text, i)
		for span < len(z.spans) && z.spans[span].End <= start {
			span++
		}
		fn(buf[:k], start, i, span < len(z.spans) && z.spans[span].Start <= start)
	}
}

// foldWord folds the run of word characters of text starting at i into
// buf, and returns the folded length and the end of the run.
func foldWord(buf, text []byte, i int) (k, end int) {
	k, i = foldASCIIWords(buf, text, i)
	for i < len(text) {
		c := text[i]
		if c < utf8.RuneSelf {
			f := asciiFold[c]
			if f == 0 {
				break
			}
			buf[k] = f
			k++
			i++
			continue
		}
		r, size := utf8.DecodeRune(text[i:])
		if !IsWordRune(r) {
			break
		}
		k += utf8.EncodeRune(buf[k:], CanonicalFold(r))
		i += size
	}
	return k, i
}

// foldASCIIWords folds the word from text[i] eight bytes at a time while
// they are ASCII, and returns the folded length and where it stopped: at
// the word's end, or where the byte loop of foldWord must go on (a
// non-ASCII byte among the next eight, or fewer than eight left). A
// byte-at-a-time loop mispredicts its exit once per word, a word of
// eight bytes or less ends here on one predictable test.
//
// It writes eight bytes at buf[k] each step, past the word's end too:
// k <= i (a fold is never longer) and i+8 <= len(text) <= len(buf), and
// what follows a token in buf is not part of it.
func foldASCIIWords(buf, text []byte, i int) (k, end int) {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for i+8 <= len(text) {
		w := binary.LittleEndian.Uint64(text[i:])
		if w&highs != 0 {
			break
		}
		f := uint64(asciiFold[w&0x7f]) | uint64(asciiFold[w>>8&0x7f])<<8 |
			uint64(asciiFold[w>>16&0x7f])<<16 | uint64(asciiFold[w>>24&0x7f])<<24 |
			uint64(asciiFold[w>>32&0x7f])<<32 | uint64(asciiFold[w>>40&0x7f])<<40 |
			uint64(asciiFold[w>>48&0x7f])<<48 | uint64(asciiFold[w>>56&0x7f])<<56
		binary.LittleEndian.PutUint64(buf[k:], f)
		// A non-word byte folds to 0; the lowest byte flagged here is
		// the first zero (a borrow flags only bytes above one).
		if z := (f - ones) &^ f & highs; z != 0 {
			n := bits.TrailingZeros64(z) / 8
			return k + n, i + n
		}
		k += 8
		i += 8
	}
	return k, i
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
