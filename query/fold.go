package query

import (
	"bytes"
	"math"
	"slices"
	"unicode/utf8"

	"github.com/recall-dev/recall/textrules"
)

// Case folding here is Unicode simple case folding, the rule of `rg -i`
// and of Go's (?i): two characters match when unicode.SimpleFold cycles
// one into the other ("É" and "é", "K" and the Kelvin sign). Full folding,
// where one character becomes several ("ß" and "SS"), is not done.

// nonASCIIFolds returns the encodings of the non-ASCII runes that fold to
// ASCII rune r. Only 'k' (Kelvin sign U+212A) and 's' (long s U+017F) have
// any; they are derived from the tables rather than listed so that a new
// Unicode version cannot silently break the ASCII fast path.
func nonASCIIFolds(r rune) [][]byte {
	var encs [][]byte
	for _, f := range textrules.FoldOrbit(r)[1:] {
		if f >= utf8.RuneSelf {
			encs = append(encs, utf8.AppendRune(nil, f))
		}
	}
	return encs
}

// specialFolds are the non-ASCII runes that fold to the ASCII letters of
// a needle (the Kelvin sign, long s), which the fixed path cannot see.
type specialFolds []rareString

// add adds the non-ASCII folds of ASCII rune r, once each.
func (s specialFolds) add(r rune) specialFolds {
	for _, enc := range nonASCIIFolds(r) {
		if !slices.ContainsFunc(s, func(have rareString) bool { return bytes.Equal(have.s, enc) }) {
			s = append(s, newRareString(enc))
		}
	}
	return s
}

// in reports whether text contains any of them.
func (s specialFolds) in(text []byte) bool {
	for _, r := range s {
		if r.in(text) {
			return true
		}
	}
	return false
}

// rareString is a short byte string searched for by its rarest byte:
// bytes.Index scans for the first byte, and the Kelvin sign's first byte
// (0xE2) starts every dash, arrow and curly quote in assistant replies.
type rareString struct {
	s   []byte
	off int // index of the rarest byte of s
}

func newRareString(s []byte) rareString {
	r := rareString{s: s}
	for i, b := range s {
		if byteFrequency[b] < byteFrequency[s[r.off]] {
			r.off = i
		}
	}
	return r
}

func (r rareString) in(text []byte) bool {
	for from := r.off; from < len(text); {
		i := bytes.IndexByte(text[from:], r.s[r.off])
		if i < 0 {
			return false
		}
		at := from + i - r.off
		if at+len(r.s) <= len(text) && bytes.Equal(text[at:at+len(r.s)], r.s) {
			return true
		}
		from += i + 1
	}
	return false
}

// wordRegexClass and nonWordRegexClass spell IsWordRune in RE2 syntax.
const (
	wordRegexClass    = `[\p{L}\p{N}_]`
	nonWordRegexClass = `[^\p{L}\p{N}_]`
)

// bound is what must surround a literal's match.
type bound uint8

const (
	anyBound  bound = iota // nothing: a substring anywhere, as rg -i finds it
	wordBound              // --word: the ends of a word (atWordBoundaries)
	// partBound: the ends of a word or of a part of one between
	// underscores (atPartBoundaries): a short query word ("id") is a
	// word of its own, found in "the id", "user_id" and "id_rsa" but not
	// inside "Guide" or "mid-air".
	partBound
)

// holds reports whether the match text[start:end] has the bound.
func (b bound) holds(text []byte, start, end int) bool {
	switch b {
	case wordBound:
		return atWordBoundaries(text, start, end)
	case partBound:
		return atPartBoundaries(text, start, end)
	}
	return true
}

// atWordBoundaries reports whether text[start:end] is a whole word: the
// character before it and the one after it are not word characters (or
// do not exist). Invalid UTF-8 counts as a non-word character.
func atWordBoundaries(text []byte, start, end int) bool {
	return (start == 0 || !textrules.IsWordRune(lastRune(text[:start]))) &&
		(end == len(text) || !textrules.IsWordRune(firstRune(text[end:])))
}

// atPartBoundaries reports whether text[start:end] is a whole word or a
// whole part of one: the character before it and the one after it are
// each an underscore or not a word character (or do not exist). An
// identifier's words are separated by underscores, which are word
// characters: "user_id" holds the word "id". Letters in a camelCase
// identifier ("userId") are not told apart: the term index, which
// folds case, could not tell them apart either.
func atPartBoundaries(text []byte, start, end int) bool {
	return (start == 0 || !isPartRune(lastRune(text[:start]))) &&
		(end == len(text) || !isPartRune(firstRune(text[end:])))
}

// isPartRune reports whether r continues a part of a word: a word
// character other than the underscore.
func isPartRune(r rune) bool { return r != '_' && textrules.IsWordRune(r) }

func lastRune(b []byte) rune {
	if c := b[len(b)-1]; c < utf8.RuneSelf {
		return rune(c)
	}
	r, _ := utf8.DecodeLastRune(b)
	return r
}

func firstRune(b []byte) rune {
	if c := b[0]; c < utf8.RuneSelf {
		return rune(c)
	}
	r, _ := utf8.DecodeRune(b)
	return r
}

// decodeRune is utf8.DecodeRune with the ASCII case inlined: the verify
// loops call it once per character of a candidate match.
func decodeRune(b []byte) (rune, int) {
	if len(b) > 0 && b[0] < utf8.RuneSelf {
		return rune(b[0]), 1
	}
	return utf8.DecodeRune(b)
}

// byteFrequency ranks how common each byte is in the text recall searches,
// on a log scale: 0 never seen, 255 the most common. It was measured over
// the .go, .md, .txt and .html files of the Go 1.26 source tree (code,
// comments and prose, 90 MB); only the order matters, to pick the rarest
// byte of a needle as the one to scan for.
var byteFrequency = [256]uint8{
	0, 29, 29, 29, 29, 29, 46, 38, 0, 215, 212, 0, 0, 0, 0, 0, // 0x00
	29, 0, 0, 0, 29, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, // 0x10
	231, 173, 197, 146, 137, 168, 172, 169, 200, 200, 178, 171, 208, 177, 202, 199, // 0x20
	213, 200, 197, 193, 193, 186, 192, 184, 190, 186, 199, 173, 169, 197, 165, 138, // 0x30
	131, 193, 183, 190, 187, 193, 186, 177, 176, 190, 149, 167, 185, 186, 185, 189, // 0x40
	188, 162, 191, 194, 193, 179, 182, 172, 184, 169, 156, 182, 191, 182, 137, 194, // 0x50
	161, 211, 195, 205, 203, 218, 204, 198, 197, 211, 164, 187, 206, 198, 212, 209, // 0x60
	201, 166, 213, 210, 215, 203, 193, 186, 208, 193, 170, 193, 168, 193, 128, 0, // 0x70
	127, 117, 124, 122, 112, 120, 113, 105, 119, 113, 115, 103, 109, 97, 105, 96, // 0x80
	108, 103, 104, 109, 115, 109, 101, 112, 112, 115, 94, 95, 114, 116, 106, 97, // 0x90
	101, 104, 101, 104, 113, 112, 106, 109, 104, 115, 108, 110, 112, 110, 105, 100, // 0xa0
	101, 112, 111, 111, 103, 105, 101, 111, 103, 118, 109, 107, 117, 109, 113, 101, // 0xb0
	0, 0, 125, 111, 86, 79, 51, 95, 78, 101, 100, 83, 111, 100, 125, 107, // 0xc0
	96, 92, 49, 69, 71, 97, 97, 100, 124, 126, 89, 91, 71, 29, 46, 57, // 0xd0
	106, 120, 137, 124, 105, 113, 117, 109, 108, 96, 95, 72, 82, 69, 29, 88, // 0xe0
	110, 0, 0, 0, 38, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, // 0xf0
}

// scanCost estimates how often a scan for any byte of set stops: the sum
// of the bytes' frequencies, undoing byteFrequency's log scale (255 steps
// over nine decades).
func scanCost(set byteSet) float64 {
	cost := 0.0
	for _, b := range set.bytes() {
		cost += byteWeight(b)
	}
	return cost
}

func byteWeight(b byte) float64 {
	return math.Pow(10, float64(byteFrequency[b])*9/255)
}

// byteShare estimates the share of text bytes that belong to set.
func byteShare(set byteSet) float64 {
	total := 0.0
	for b := range 256 {
		total += byteWeight(byte(b))
	}
	return scanCost(set) / total
}
