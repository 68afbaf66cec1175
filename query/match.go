package query

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"unicode/utf8"

	"github.com/recall-dev/recall/textrules"
)

// The literal matcher. A plain word or phrase compiles to a sequence of
// units, one per character: a literal character (with its case-fold
// orbit) or the `_` wildcard, which is any one character. Searching is
// "scan, then verify": bytes.IndexByte (SIMD-backed) jumps to the next
// occurrence of the needle's rarest byte (by byteFrequency) — both cases
// of it when folding — and only there is the whole needle compared, as
// rg's rare-byte prefilter does.
//
// Two paths share that idea:
//
//   - fixedNeedle, when every needle character takes exactly one text byte
//     of known value: case-sensitive needles without wildcards, and ASCII
//     needles folded ASCII-wise. The compare is eight bytes at a time with
//     an OR mask that lower-cases only the letter positions. When even the
//     rarest byte is common ("session"), IndexByte stops too often, and a
//     SWAR scan tests eight starts at a time for the two rarest bytes.
//   - the general path (units, anchor), for everything else: non-ASCII
//     needles, wildcards, and texts holding the Kelvin sign or long s
//     (which fold to k and s with a different byte length). It verifies
//     forward and backward from the anchor one rune at a time.
//
// Invalid UTF-8 in the text is read as U+FFFD, one byte per character, as
// Go's regexp reads it: a needle's U+FFFD matches it, and `_` matches it.
//
// OR sets are matched term by term. Neither Aho–Corasick nor a combined
// scan is used: an automaton in Go does at least one dependent table
// lookup per byte, and a bare lookup loop runs at 0.25 GB/s on the
// benchmark corpus, while each term's scan runs at 2–4 GB/s; terms would
// have to number in the tens before an automaton won.

// maxAnchorBytes bounds how many distinct bytes one scan looks for. 'k'
// folded needs three (k, K and the Kelvin sign's lead byte).
const maxAnchorBytes = 3

// byteSet is a small set of bytes to scan for.
type byteSet struct {
	b [maxAnchorBytes]byte
	n int
}

func (s *byteSet) add(b byte) bool {
	for _, have := range s.bytes() {
		if have == b {
			return true
		}
	}
	if s.n == maxAnchorBytes {
		return false
	}
	s.b[s.n] = b
	s.n++
	return true
}

func (s *byteSet) bytes() []byte { return s.b[:s.n] }

// byteScanner yields, in increasing order, the positions in text of any
// byte of a set. It remembers the next position of each byte, so that a
// rare byte of the set is not rescanned for at every stop of a common one.
type byteScanner struct {
	text []byte
	set  byteSet
	next [maxAnchorBytes]int // next position of set.b[i]; -1: none left; -2: not scanned yet
}

func newByteScanner(text []byte, set byteSet) byteScanner {
	return byteScanner{text: text, set: set, next: [maxAnchorBytes]int{-2, -2, -2}}
}

// from returns the first position ≥ pos holding a byte of the set, or -1.
// Successive calls must not decrease pos.
func (s *byteScanner) from(pos int) int {
	if pos >= len(s.text) {
		return -1
	}
	if s.set.n == 1 {
		i := bytes.IndexByte(s.text[pos:], s.set.b[0])
		if i < 0 {
			return -1
		}
		return pos + i
	}
	best := -1
	for i, b := range s.set.bytes() {
		if s.next[i] != -1 && s.next[i] < pos {
			s.next[i] = -1
			if j := bytes.IndexByte(s.text[pos:], b); j >= 0 {
				s.next[i] = pos + j
			}
		}
		if s.next[i] >= 0 && (best < 0 || s.next[i] < best) {
			best = s.next[i]
		}
	}
	return best
}

// unit is one character of a literal needle.
type unit struct {
	wild bool   // `_`: any one character
	alts []rune // the runes this unit matches: the character and, when folding, its case orbit
	// lo and up are the ASCII runes among alts (a case pair at most), or
	// 0xFF when there are fewer; they settle ASCII text bytes without
	// scanning alts.
	lo, up byte
}

func newUnit(r rune, fold bool) unit {
	alts := []rune{r}
	if fold {
		alts = textrules.FoldOrbit(r)
	}
	u := unit{alts: alts, lo: 0xFF, up: 0xFF}
	for _, a := range alts {
		if a < utf8.RuneSelf {
			if u.lo == 0xFF {
				u.lo = byte(a)
			} else {
				u.up = byte(a)
			}
		}
	}
	return u
}

func wildcardUnit() unit { return unit{wild: true, lo: 0xFF, up: 0xFF} }

// matchesRune reports whether the unit accepts text rune r.
func (u *unit) matchesRune(r rune) bool {
	if u.wild {
		return true
	}
	for _, a := range u.alts {
		if a == r {
			return true
		}
	}
	return false
}

// matchesASCII reports whether the unit accepts ASCII text byte b.
func (u *unit) matchesASCII(b byte) bool {
	return u.wild || b == u.lo || b == u.up
}

// matchForward matches units against text starting at byte at and returns
// where the match ends.
func matchForward(text []byte, at int, units []unit) (end int, ok bool) {
	for i := range units {
		u := &units[i]
		if at >= len(text) {
			return 0, false
		}
		if b := text[at]; b < utf8.RuneSelf {
			if !u.matchesASCII(b) {
				return 0, false
			}
			at++
			continue
		}
		r, w := utf8.DecodeRune(text[at:])
		if !u.matchesRune(r) {
			return 0, false
		}
		at += w
	}
	return at, true
}

// matchBackward matches units against the text that ends at byte at and
// returns where the match starts.
func matchBackward(text []byte, at int, units []unit) (start int, ok bool) {
	for i := len(units) - 1; i >= 0; i-- {
		u := &units[i]
		if at == 0 {
			return 0, false
		}
		if b := text[at-1]; b < utf8.RuneSelf {
			if !u.matchesASCII(b) {
				return 0, false
			}
			at--
			continue
		}
		r, w := utf8.DecodeLastRune(text[:at])
		if !u.matchesRune(r) {
			return 0, false
		}
		at -= w
	}
	return at, true
}

// anchor is the byte the general path scans for: a byte at offset within
// the text encoding of units[unit], one of set.
type anchor struct {
	unit   int
	offset int
	set    byteSet
}

// chooseAnchor picks the unit byte whose scan stops least often. A unit
// qualifies at byte offset k when every encoding of its alternatives is at
// least k+1 bytes and, for k > 0, all are the same length (so the unit's
// start is known from the anchor's position). Wildcards never qualify, nor
// does U+FFFD, which also stands for invalid bytes of any value.
func chooseAnchor(units []unit) (anchor, bool) {
	var best anchor
	bestCost, found := 0.0, false
	for i := range units {
		u := &units[i]
		if u.wild || u.matchesRune(utf8.RuneError) {
			continue
		}
		encs := make([][]byte, len(u.alts))
		sameLen := true
		for j, a := range u.alts {
			encs[j] = utf8.AppendRune(nil, a)
			sameLen = sameLen && len(encs[j]) == len(encs[0])
		}
		for k := range len(encs[0]) {
			if k > 0 && !sameLen {
				break
			}
			set, ok := bytesAt(encs, k)
			if !ok {
				continue
			}
			if cost := scanCost(set); !found || cost < bestCost {
				best, bestCost, found = anchor{unit: i, offset: k, set: set}, cost, true
			}
		}
	}
	return best, found
}

// bytesAt collects the distinct bytes at offset k of the encodings, or
// reports false when there are more than maxAnchorBytes.
func bytesAt(encs [][]byte, k int) (byteSet, bool) {
	var set byteSet
	for _, e := range encs {
		if !set.add(e[k]) {
			return byteSet{}, false
		}
	}
	return set, true
}

// fixedNeedle is a needle whose every character takes exactly one known
// position in the text: needle byte i matches text byte i when
// text[i]|mask[i] == lower[i].
type fixedNeedle struct {
	lower  []byte // the needle, ASCII letters lower-cased when folding
	mask   []byte // 0x20 at ASCII letters when folding, else 0
	offset int    // index of the anchor byte in the needle
	set    byteSet
	// second is the index of the next rarest needle byte, for the pair
	// scan; -1 for a one-byte needle.
	second int
	// pairsFirst is set when the anchor is common enough (by
	// byteFrequency) for the pair scan to beat IndexByte from the start.
	pairsFirst bool
}

// newFixedNeedle builds the fixed verifier for needle, anchored on its
// rarest byte.
func newFixedNeedle(needle string, fold bool) *fixedNeedle {
	f := &fixedNeedle{lower: []byte(needle), mask: make([]byte, len(needle)), second: -1}
	costs := make([]float64, len(needle))
	for i := range len(needle) {
		var set byteSet
		b := needle[i]
		if fold && isASCIILetter(b) {
			f.lower[i], f.mask[i] = b|0x20, 0x20
			set.add(b | 0x20)
			set.add(b &^ 0x20)
		} else {
			set.add(b)
		}
		costs[i] = scanCost(set)
		if costs[i] < costs[f.offset] || i == 0 {
			f.offset, f.set = i, set
		}
	}
	for i := range costs {
		if i != f.offset && (f.second < 0 || costs[i] < costs[f.second]) {
			f.second = i
		}
	}
	f.pairsFirst = f.second >= 0 && byteShare(f.set)*pairScanSpacing > 1
	return f
}

func isASCIILetter(b byte) bool { return 'a' <= b|0x20 && b|0x20 <= 'z' }

// find returns the leftmost match starting at or after from. It scans for
// the anchor with IndexByte while the anchor is rare; when it is common
// (pairsFirst), or the candidates in this text come thicker than one per
// pairScanSpacing bytes, the pair scan takes over: IndexByte's cost per
// call then outweighs its speed per byte.
func (f *fixedNeedle) find(text []byte, from int, word bound) (Span, bool) {
	n := len(f.lower)
	last := len(text) - n // the last start a match can have
	if last < from {
		return Span{}, false
	}
	if f.pairsFirst {
		return f.findPairs(text, from, word)
	}
	// Scan only where an anchor can belong to a match.
	sc := newByteScanner(text[:last+f.offset+1], f.set)
	misses := 0
	for p := sc.from(from + f.offset); p >= 0; p = sc.from(p + 1) {
		start := p - f.offset
		if f.verify(text, start, word) {
			return Span{start, start + n}, true
		}
		misses++
		if f.second >= 0 && misses >= pairScanMinMisses && misses*pairScanSpacing > start-from {
			return f.findPairs(text, start+1, word)
		}
	}
	return Span{}, false
}

// The crossover between the two scans, measured on the benchmark corpus:
// IndexByte wins when its stops are more than about 80 bytes apart
// (deadlock, value: 3.8 against 2.0 GB/s), the pair scan when they are
// closer (session, one 'o' in 34 bytes: 2.0 against 1.3 GB/s).
const (
	pairScanMinMisses = 4
	pairScanSpacing   = 80
)

// verify reports whether the needle matches text at start.
func (f *fixedNeedle) verify(text []byte, start int, word bound) bool {
	n := len(f.lower)
	return equalMasked(text[start:start+n], f.lower, f.mask) &&
		word.holds(text, start, start+n)
}

// findPairs returns the leftmost match starting at or after from, testing
// eight starts at a time for the needle's two rarest bytes (SWAR: one
// 64-bit word holds eight text bytes, masked and compared as in
// equalMasked, and zeroBytes marks the bytes that agree).
func (f *fixedNeedle) findPairs(text []byte, from int, word bound) (Span, bool) {
	const ones = 0x0101010101010101
	n := len(f.lower)
	o1, o2 := f.offset, f.second
	want1, mask1 := uint64(f.lower[o1])*ones, uint64(f.mask[o1])*ones
	want2, mask2 := uint64(f.lower[o2])*ones, uint64(f.mask[o2])*ones
	farthest := max(o1, o2)
	start := from
	// Eight starts at a time while both 8-byte loads stay inside text.
	for ; start+farthest+8 <= len(text); start += 8 {
		w1 := binary.LittleEndian.Uint64(text[start+o1:]) | mask1 ^ want1
		w2 := binary.LittleEndian.Uint64(text[start+o2:]) | mask2 ^ want2
		hits := zeroBytes(w1) & zeroBytes(w2)
		for hits != 0 {
			s := start + bits.TrailingZeros64(hits)/8
			if s+n <= len(text) && f.verify(text, s, word) {
				return Span{s, s + n}, true
			}
			hits &= hits - 1
		}
	}
	for ; start+n <= len(text); start++ {
		if f.verify(text, start, word) {
			return Span{start, start + n}, true
		}
	}
	return Span{}, false
}

// zeroBytes returns a word with the high bit of each byte set where w's
// byte is zero, exactly (the carry-free form of the haszero trick).
func zeroBytes(w uint64) uint64 {
	const lows, highs = 0x7F7F7F7F7F7F7F7F, 0x8080808080808080
	return ^((w&lows + lows) | w | lows) & highs
}

// equalMasked reports whether text|mask == lower, eight bytes at a time.
// All three slices have the same length.
func equalMasked(text, lower, mask []byte) bool {
	for len(lower) >= 8 {
		t := binary.LittleEndian.Uint64(text)
		m := binary.LittleEndian.Uint64(mask)
		if t|m != binary.LittleEndian.Uint64(lower) {
			return false
		}
		text, lower, mask = text[8:], lower[8:], mask[8:]
	}
	for i := range lower {
		if text[i]|mask[i] != lower[i] {
			return false
		}
	}
	return true
}

// literal is a compiled plain word or phrase.
type literal struct {
	units []unit
	word  bound // what must surround a match: nothing, or the ends of a word (--word) or of a part of one
	// anchor is the general path's scan byte; hasAnchor is false only for
	// needles made of wildcards and U+FFFD, which fall back to trying
	// every position.
	anchor    anchor
	hasAnchor bool
	// fixed, when set, decides texts that contain none of specials.
	fixed *fixedNeedle
	// specials are the encodings of the Kelvin sign and long s when the
	// needle has a folded k or s: texts holding them need the general path.
	specials specialFolds
}

// compileLiteral compiles a needle whose `_` are wildcards when wildcards
// is set. The needle must be valid UTF-8 and hold a non-wildcard rune.
func compileLiteral(needle string, wildcards bool, opt MatchOptions) *literal {
	fold := !opt.CaseSensitive
	l := &literal{}
	if opt.Word {
		l.word = wordBound
	}
	fixedOK := !wildcards || !containsByte(needle, '_')
	for _, r := range needle {
		switch {
		case wildcards && r == '_':
			l.units = append(l.units, wildcardUnit())
		default:
			l.units = append(l.units, newUnit(r, fold))
		}
		if r == utf8.RuneError {
			fixedOK = false // must also match invalid bytes
		}
		if fold && r >= utf8.RuneSelf {
			fixedOK = false
		}
		if fold && r < utf8.RuneSelf {
			l.specials = l.specials.add(r)
		}
	}
	l.anchor, l.hasAnchor = chooseAnchor(l.units)
	if fixedOK {
		l.fixed = newFixedNeedle(needle, fold)
	}
	return l
}

func containsByte(s string, b byte) bool {
	for i := range len(s) {
		if s[i] == b {
			return true
		}
	}
	return false
}

// match reports whether text contains the needle. The fixed path answers
// first; a text with a Kelvin sign or long s gets a second look when the
// needle could match through one.
func (l *literal) match(text []byte) bool {
	if l.fixed == nil {
		_, ok := l.findGeneral(text, 0)
		return ok
	}
	if _, ok := l.fixed.find(text, 0, l.word); ok {
		return true
	}
	if !l.specials.in(text) {
		return false
	}
	_, ok := l.findGeneral(text, 0)
	return ok
}

// findAll appends the non-overlapping leftmost matches to dst.
func (l *literal) findAll(text []byte, dst []Span) []Span {
	useFixed := l.fixed != nil && !l.specials.in(text)
	for from := 0; from <= len(text); {
		var sp Span
		var ok bool
		if useFixed {
			sp, ok = l.fixed.find(text, from, l.word)
		} else {
			sp, ok = l.findGeneral(text, from)
		}
		if !ok {
			break
		}
		dst = append(dst, sp)
		from = sp.End
	}
	return dst
}

// findGeneral returns the leftmost match starting at or after from, which
// must be a character boundary.
func (l *literal) findGeneral(text []byte, from int) (Span, bool) {
	if !l.hasAnchor {
		return l.findEverywhere(text, from)
	}
	a := &l.anchor
	before, after := l.units[:a.unit], l.units[a.unit:]
	sc := newByteScanner(text, a.set)
	// Each unit before the anchor takes at least one byte. Candidates come
	// in order of anchor position, and so of match start: two matches of
	// the same needle cannot nest.
	for p := sc.from(from + len(before) + a.offset); p >= 0; p = sc.from(p + 1) {
		at := p - a.offset
		end, ok := matchForward(text, at, after)
		if !ok {
			continue
		}
		start, ok := matchBackward(text, at, before)
		if !ok || start < from {
			continue
		}
		if !l.word.holds(text, start, end) {
			continue
		}
		return Span{start, end}, true
	}
	return Span{}, false
}

// findEverywhere tries every character position: the fallback for needles
// without a byte to scan for.
func (l *literal) findEverywhere(text []byte, from int) (Span, bool) {
	for at := from; at < len(text); {
		if end, ok := matchForward(text, at, l.units); ok && l.word.holds(text, at, end) {
			return Span{at, end}, true
		}
		_, w := decodeRune(text[at:])
		at += w
	}
	return Span{}, false
}
