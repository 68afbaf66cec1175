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
	// Eight bytes past the text for foldASCIIRun's last word, and at
	// least 16, so that a consumer may read a token's first 16 bytes as
	// two words (store/terms.tokenWords).
	if need := max(len(text)+8, 16); cap(z.tok) < need {
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
		k, end, more := foldASCIIRun(buf, text, 0, i)
		if more {
			k, end = foldRunes(buf, text, k, end)
		}
		i = end
		for span < len(z.spans) && z.spans[span].End <= start {
			span++
		}
		fn(buf[:k], start, i, span < len(z.spans) && z.spans[span].Start <= start)
	}
}

// foldRunes goes on folding a word that foldASCIIRun stopped at a
// non-ASCII byte, text[i], into buf[k:]: a rune at a time, and the ASCII
// bytes after one eight at a time. It returns the folded length and the
// end of the word.
func foldRunes(buf, text []byte, k, i int) (kEnd, end int) {
	for {
		r, size := utf8.DecodeRune(text[i:])
		if !IsWordRune(r) {
			return k, i
		}
		k += utf8.EncodeRune(buf[k:], CanonicalFold(r))
		var more bool
		if k, i, more = foldASCIIRun(buf, text, k, i+size); !more {
			return k, i
		}
	}
}

// foldASCIIRun folds the ASCII word bytes from text[i] into buf[k:]
// eight at a time and returns where they end, in buf and in text, and
// whether a non-ASCII byte stopped it (the word may go on with that
// rune) rather than a non-word byte or the text's end. A byte-at-a-time
// loop mispredicts its exit once per word, a word of eight bytes or
// less ends here on one predictable test; the text's last bytes are
// read into a word of their own, zero-padded (a zero byte is not a word
// byte).
//
// It writes eight bytes at buf[k] each step, past the word's end too:
// k <= i (a fold is never longer) and i < len(text) <= len(buf)-8, and
// what follows a token in buf is not part of it.
func foldASCIIRun(buf, text []byte, k, i int) (kEnd, end int, more bool) {
	for i < len(text) {
		var w uint64
		if i+8 <= len(text) {
			w = binary.LittleEndian.Uint64(text[i:])
		} else {
			var tail [8]byte
			copy(tail[:], text[i:])
			w = binary.LittleEndian.Uint64(tail[:])
		}
		ascii := 8
		if h := w & highBits; h != 0 {
			// Fold only the bytes before the first non-ASCII one;
			// zeroed, it and those after it end the run.
			ascii = bits.TrailingZeros64(h) / 8
			w &= 1<<(8*ascii) - 1
		}
		f, word := foldASCII8(w)
		binary.LittleEndian.PutUint64(buf[k:], f)
		if rest := ^word & highBits; rest != 0 {
			n := bits.TrailingZeros64(rest) / 8
			return k + n, i + n, n == ascii
		}
		k += 8
		i += 8
	}
	return k, i, false
}

const (
	lowBits  = 0x0101010101010101
	highBits = 0x8080808080808080
)

// foldASCII8 folds eight ASCII bytes (w, little-endian, no high bit set)
// as asciiFold does, in registers instead of eight table lookups: f holds
// each word byte folded (a lower-case letter made upper case, the
// CanonicalFold of an ASCII letter) and any other byte as it was; word
// has the high bit of each word byte set (a letter, digit or '_').
//
// A byte b < 0x80 plus 0x80-c has its high bit set exactly when b >= c,
// and never carries into the next byte, so a range [lo, hi] is
// ge(lo) &^ ge(hi+1).
func foldASCII8(w uint64) (f, word uint64) {
	lower := (w + (0x80-'a')*lowBits) &^ (w + (0x80-'z'-1)*lowBits) & highBits
	upper := (w + (0x80-'A')*lowBits) &^ (w + (0x80-'Z'-1)*lowBits)
	digit := (w + (0x80-'0')*lowBits) &^ (w + (0x80-'9'-1)*lowBits)
	// (b ^ '_') + 0x7f has its high bit set exactly when b != '_'.
	notUnder := (w ^ '_'*lowBits) + 0x7f*lowBits
	return w - lower>>2, (lower | upper | digit | ^notUnder) & highBits
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
