package rank

import (
	"unicode"
	"unicode/utf8"
)

// FNV-1a 64-bit parameters, for hashing words.
const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

// appendShingles appends to dst the hash of every run of shingleWords
// consecutive words of text. A text with fewer words yields one shingle of
// all of them, so short messages still count. Words are runs of letters,
// digits and underscores, case-folded, so punctuation, markdown and line
// breaks do not hide a copy.
//
// It reads every matched message of every session, which makes it the hot
// loop of Rank: hence the ASCII fast path, one multiply per byte, and a
// caller-owned buffer instead of a callback.
func appendShingles(dst []uint64, text string) []uint64 {
	sh := shingler{dst: dst}
	sh.scan(text)
	return sh.dst
}

// sketchShingles adds the shingles of text (as appendShingles lists
// them) to sk, each to its bin (the smallest hash per bin is kept), and
// returns how many there were: a session's sketch no longer goes through
// a buffer of every shingle of its matched text (for the question's best
// session at 1 GB, 949 messages, grown by copying into fresh pages).
func sketchShingles(sk *sketch, text string) int {
	sh := shingler{sk: sk}
	sh.scan(text)
	return sh.emitted
}

// scan feeds the words of text to the shingler and emits its shingles.
func (sh *shingler) scan(text string) {
	h, inWord := uint64(fnvOffset), false
	for i := 0; i < len(text); {
		if c := text[i]; c < utf8.RuneSelf {
			i++
			if folded := asciiWordFold[c]; folded != 0 {
				h, inWord = (h^uint64(folded))*fnvPrime, true
				continue
			}
		} else {
			r, size := utf8.DecodeRuneInString(text[i:])
			i += size
			if unicode.IsLetter(r) || unicode.IsDigit(r) {
				h, inWord = hashRune(h, unicode.ToLower(r)), true
				continue
			}
		}
		if inWord {
			sh.addWord(h)
			h, inWord = fnvOffset, false
		}
	}
	if inWord {
		sh.addWord(h)
	}
	sh.finish()
}

// shingler turns a stream of word hashes into shingle hashes, appended
// to dst, or, with sk set, put in the bins of sk and counted.
type shingler struct {
	w0, w1, w2 uint64 // the last three words, oldest first
	words      int
	dst        []uint64
	sk         *sketch
	emitted    int
}

func (s *shingler) addWord(h uint64) {
	s.w0, s.w1, s.w2 = s.w1, s.w2, h
	if s.words++; s.words >= shingleWords {
		s.emit(shingleHash(s.w0, s.w1, s.w2))
	}
}

// finish emits the one shingle of a text shorter than a shingle.
func (s *shingler) finish() {
	if s.words > 0 && s.words < shingleWords {
		s.emit(shingleHash(s.w0, s.w1, s.w2))
	}
}

func (s *shingler) emit(h uint64) {
	if s.sk == nil {
		s.dst = append(s.dst, h)
		return
	}
	s.emitted++
	if bin := h % sketchSize; h < s.sk[bin] {
		s.sk[bin] = h
	}
}

// asciiWordFold maps each ASCII byte that can be part of a word to its
// lower case, and every other byte to 0: one load instead of four
// comparisons in the hot loop. It is never written after initialisation.
var asciiWordFold = func() (t [utf8.RuneSelf]byte) {
	for c := range byte(utf8.RuneSelf) {
		switch {
		case c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z':
			t[c] = c
		case 'A' <= c && c <= 'Z':
			t[c] = c + 'a' - 'A'
		}
	}
	return t
}()

// shingleHash combines three words, each weighed by its position so that
// "a b c" and "c b a" differ, and mixes the result once.
func shingleHash(w0, w1, w2 uint64) uint64 {
	return mix64(w0*0x9e3779b97f4a7c15 + w1*0xc2b2ae3d27d4eb4f + w2)
}

// hashRune feeds one rune's UTF-8 bytes to FNV-1a.
func hashRune(h uint64, r rune) uint64 {
	var buf [utf8.UTFMax]byte
	n := utf8.EncodeRune(buf[:], r)
	for _, b := range buf[:n] {
		h = (h ^ uint64(b)) * fnvPrime
	}
	return h
}

// mix64 is the SplitMix64 finaliser: it spreads every input bit over the
// whole output, which FNV alone does poorly in the low bits that pick a
// sketch bin.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}
