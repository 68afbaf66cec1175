package textrules

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kljensen/snowball/english"
	"golang.org/x/text/unicode/norm"
)

// Word forms and accents: the two match channels a plain query word has
// beside its exact substring (see query/forms.go). Both work on tokens as
// the term index stores them (CanonicalFold), so the index and a scan of
// the text classify every token alike.
//
//   - Accents: AccentFold maps a letter to its base letter by canonical
//     Unicode decomposition (NFD) when the rest of the decomposition is
//     nonspacing marks: "č" and "c", "é" and "e", "ệ" and "e". Letters that do
//     not decompose ("ø", "ł", "ß") stay as they are; so do Hangul syllables,
//     whose decomposition is letters, not marks. One rune always maps to one
//     rune, so a folded token has the same number of characters.
//   - Word forms: StemKey is the English Snowball (Porter2) stem of a token
//     made only of ASCII letters, at least MinStemLetters of them:
//     "painted", "painting" and "paints" share the key PAINT. Words with
//     accents are left to the accent channel: English rules would make
//     forms of words of other languages (the Czech "pět", five, would be a
//     form of "pets"). The stemmer is github.com/kljensen/snowball/english (pure
//     Go, checked against Snowball's own vocabulary); its version is part of
//     these rules.

// MinStemLetters is the shortest token that has a word-form key: shorter
// words are their own stems ("cat" and "cats" have the key CAT).
const MinStemLetters = 3

// maxStemLetters bounds the tokens stemmed: longer runs of letters are
// identifiers or encoded data, not English words, and stemming them would
// only cost time.
const maxStemLetters = 40

// accentTableSize covers Latin, Greek, Cyrillic, Armenian and Hebrew:
// the runes below it are folded through a table (accentTable, in
// accenttable.go), the rest through the decomposition tables directly.
// The table is generated rather than computed at start: computing it took
// 0.15 ms of every run of recall, a twentieth of a search's start.
const accentTableSize = 0x600

//go:generate go test -run TestAccentTableIsAccentFoldSlow -update-accent-table

// AccentFold returns r case-folded (CanonicalFold) and, when its canonical
// decomposition is one base character followed only by nonspacing marks,
// reduced to that base character, case-folded again.
func AccentFold(r rune) rune {
	if r >= 0 && r < accentTableSize {
		return accentTable[r]
	}
	return accentFoldSlow(r)
}

func accentFoldSlow(r rune) rune {
	c := CanonicalFold(r)
	if c < 0xC0 {
		return c // ASCII and Latin-1 punctuation do not decompose
	}
	var buf [utf8.UTFMax]byte
	n := utf8.EncodeRune(buf[:], c)
	d := norm.NFD.Properties(buf[:n]).Decomposition()
	if len(d) == 0 {
		return c
	}
	base, size := utf8.DecodeRune(d)
	for rest := d[size:]; len(rest) > 0; {
		m, w := utf8.DecodeRune(rest)
		if !unicode.Is(unicode.Mn, m) {
			return c
		}
		rest = rest[w:]
	}
	return CanonicalFold(base)
}

// HasAccent reports whether AccentFold changes some rune of s beyond case
// folding: whether s has a letter with an accent that the accent channel
// reads as its base letter.
func HasAccent(s []byte) bool {
	for i := 0; i < len(s); {
		if s[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, w := utf8.DecodeRune(s[i:])
		if AccentFold(r) != CanonicalFold(r) {
			return true
		}
		i += w
	}
	return false
}

// IsAccented reports whether AccentFold(r) differs from CanonicalFold(r).
func IsAccented(r rune) bool {
	return r >= utf8.RuneSelf && AccentFold(r) != CanonicalFold(r)
}

// AppendAccentFolded appends s with every rune replaced by AccentFold.
// Invalid UTF-8 is copied as U+FFFD, one per byte, as the tokenizer reads
// it.
func AppendAccentFolded(dst []byte, s []byte) []byte {
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			dst = append(dst, byte(CanonicalFold(rune(c))))
			i++
			continue
		}
		r, w := utf8.DecodeRune(s[i:])
		dst = utf8.AppendRune(dst, AccentFold(r))
		i += w
	}
	return dst
}

// StemKey returns the word-form key of a token or word: its English
// Snowball stem in upper case (the case tokens are stored in), or false
// when it has none — when it is not made only of ASCII letters (the
// Kelvin sign and the long s count as k and s, as case folding has
// them), or is shorter than MinStemLetters or longer than
// maxStemLetters.
func StemKey(word []byte) (string, bool) {
	var buf [maxStemLetters]byte
	n := 0
	for i := 0; i < len(word); {
		r, w := rune(word[i]), 1
		if r >= utf8.RuneSelf {
			r, w = utf8.DecodeRune(word[i:])
			r = CanonicalFold(r)
		}
		i += w
		if r >= utf8.RuneSelf || !('a' <= r|0x20 && r|0x20 <= 'z') || n == maxStemLetters {
			return "", false
		}
		buf[n] = byte(r) | 0x20
		n++
	}
	if n < MinStemLetters {
		return "", false
	}
	return strings.ToUpper(english.Stem(string(buf[:n]), true)), true
}

// MayHaveStemKey reports whether StemKey(word) can be true, cheaply: an
// ASCII byte other than a letter, or too few or too many bytes for a key,
// rules it out. A caller skips its cache of keys for the many tokens
// (numbers, identifiers with digits, hashes) that cannot have one.
func MayHaveStemKey(word string) bool {
	if len(word) < MinStemLetters {
		return false
	}
	ascii := true
	for i := 0; i < len(word); i++ {
		c := word[i]
		if c >= utf8.RuneSelf {
			ascii = false
			continue
		}
		if !('a' <= c|0x20 && c|0x20 <= 'z') {
			return false
		}
	}
	return !ascii || len(word) <= maxStemLetters
}

// FormPrefix is what every token of a word-form key starts with: the key
// without its last letter. Porter2 only rewrites the end
// of a word, and on Snowball's own English vocabulary every word whose
// stem has three letters or more starts with its stem's first letters but
// the last, except "dying", "lying" and "tying": the word-form channel
// takes this as part of its definition (those three are not forms of
// "die", "lie" and "tie"), which lets a scan of the text look for the
// prefix before it stems anything.
func FormPrefix(key string) string {
	if len(key) < MinStemLetters {
		return key
	}
	return key[:len(key)-1]
}

// Form is how a hit matched its term: the query language (filter)
// classifies it, ranking (rank) weighs it.
type Form uint8

// The forms of a hit, strongest first.
const (
	FormWord   Form = iota // the exact substring, where a word starts
	FormInside             // the exact substring, inside a word
	FormAccent             // a word holding the term once accents are folded
	FormStem               // a word of the term's English word form
)

// String names the form as --explain prints it.
func (f Form) String() string {
	switch f {
	case FormWord:
		return "exact"
	case FormInside:
		return "inside a word"
	case FormAccent:
		return "accents folded"
	case FormStem:
		return "word form"
	}
	return "unknown"
}
