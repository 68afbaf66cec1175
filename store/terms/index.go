package terms

import "bytes"

// indexFrom returns the index of the first occurrence of needle in text
// at or after from, or -1: bytes.Index(text[from:], needle)+from, found
// faster in a vocabulary when the needle holds a rare byte. bytes.Index
// looks for the needle's first byte; in a vocabulary of upper-case
// tokens a needle starting with a common letter (L of LOCK, F of FIX)
// starts a false match every 20 bytes or so, and each costs a call.
// Looking for the needle's rarest byte instead skips most of them (K of
// LOCK, X of FIX: 12 and 3 times faster over a segment's vocabulary of the
// 1 GB benchmark corpus). For needles of only common bytes (TEST,
// CONDITION) bytes.Index, which then switches to a vector search, is the
// faster, and is used.
func indexFrom(text, needle []byte, from int) int {
	n := len(needle)
	k := rarestByte(needle)
	if n < 2 || byteRank[needle[k]] < rareRank {
		if i := bytes.Index(text[from:], needle); i >= 0 {
			return from + i
		}
		return -1
	}
	b := needle[k]
	for at := from + k; at < len(text); {
		i := bytes.IndexByte(text[at:], b)
		if i < 0 {
			return -1
		}
		at += i
		start := at - k
		if start+n > len(text) {
			return -1
		}
		if bytes.Equal(text[start:start+n], needle) {
			return start
		}
		at++
	}
	return -1
}

// rarestByte returns the index of the byte of needle rarest in a
// vocabulary (byteRank), the first of equals.
func rarestByte(needle []byte) int {
	best := 0
	for i, c := range needle {
		if byteRank[c] > byteRank[needle[best]] {
			best = i
		}
	}
	return best
}

// byteFrequency lists the bytes of tokens commonest first, as counted
// over the vocabularies of the 1 GB and 4 GB benchmark indexes (code and
// English prose, folded to upper case): E is 11% of their bytes, H 1.6%,
// J 0.14%.
const byteFrequency = "ETSARINOCLDPMUGFH_BYKVXW02164385Z97QJ"

// rareRank is byteRank of H: a needle whose rarest byte is that rare or
// rarer is searched for by it.
const rareRank = 16

// byteRank orders bytes by how rare they are in tokens (byteFrequency):
// higher is rarer. Every other byte (those of non-ASCII letters among
// them) ranks rarest.
var byteRank = func() (r [256]uint8) {
	for i := range r {
		r[i] = 255
	}
	for i, c := range []byte(byteFrequency) {
		r[c] = uint8(i)
	}
	return r
}()
