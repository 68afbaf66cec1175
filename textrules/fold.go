package textrules

import (
	"unicode"
	"unicode/utf8"
)

// Case folding here is Unicode simple case folding, the rule of `rg -i`
// and of Go's (?i): two characters match when unicode.SimpleFold cycles
// one into the other ("É" and "é", "K" and the Kelvin sign). Full folding,
// where one character becomes several ("ß" and "SS"), is not done.

// FoldOrbit returns r followed by every other rune that simple case folding
// makes equal to it. The longest orbit in Unicode has four runes.
func FoldOrbit(r rune) []rune {
	orbit := []rune{r}
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		orbit = append(orbit, f)
	}
	return orbit
}

// CanonicalFold is the smallest rune of r's orbit: two runes fold equal
// exactly when their canonical folds are equal. The term index stores its
// tokens folded this way, so a case-insensitive term's pieces
// (Term.Literals, folded the same way) are found by substring search.
func CanonicalFold(r rune) rune {
	least := r
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		least = min(least, f)
	}
	return least
}

// IsWordRune reports whether r is a word character for --word: a letter,
// a digit or the underscore, as grep -w defines it (Unicode letters and
// numbers, so "école" is one word). The term index's tokens are runs of
// word characters, so a term made of word characters only never matches
// across two tokens.
func IsWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return r == '_' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
	}
	return unicode.IsLetter(r) || unicode.IsNumber(r)
}
