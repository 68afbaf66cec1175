package textrules

import (
	"math/bits"
	"path/filepath"
	"strings"
	"unicode"
)

// Recall events: rows that ran or quoted recall (or the classic `memory
// search`). The index lists them at index time (store's events file) so
// that a search applies the recall cutoff (package filter) from a short list.

// recallPhrases are the classic tool's command and the phrasing its skill
// used, lowercased; the same list the classic pipeline detected, minus the
// bare "I'll search" (which also opens "I'll search the codebase for…").
var recallPhrases = []string{
	"memory search",
	"memory recall",
	"i'll search my memory",
	"i'll search the memory",
	"i'll search my past sessions",
	"i'll search the past sessions",
	"i'll search my history",
	"i'll search the history",
	"go back to a memory",
}

// phraseKernels are words every one of recallPhrases holds one of: a
// phrase can be in a text only if its kernel is.
var phraseKernels = [...]string{"memory", "i'll search"}

// recallPhraseKernels holds, by recallPhrases' index, the index in
// phraseKernels of a kernel the phrase holds, -1 if none (then it is
// always looked for).
var recallPhraseKernels = func() []int {
	out := make([]int, len(recallPhrases))
	for i, p := range recallPhrases {
		out[i] = -1
		for k, w := range phraseKernels {
			if strings.Contains(p, w) {
				out[i] = k
				break
			}
		}
	}
	return out
}()

// DetectRecallEvent reports whether a row (by role and text) ran or quoted
// recall, and what was recalled. It runs on every row that mentions recall
// or memory, so it uses plain string search, not regular expressions.
func DetectRecallEvent(role, text string) ([]string, bool) {
	if !mayBeRecallEvent(text) {
		return nil, false
	}
	if role == "tool" {
		return detectToolEvent(text)
	}
	if end := phraseEndOf(text); end >= 0 {
		return contentWords(text[end:]), true
	}
	if args, ok := quotedInvocation(text); ok {
		return queryWords(args), true
	}
	return nil, false
}

// recallPhraseKernelAt holds, by recallPhrases' index, where in the
// phrase its kernel (recallPhraseKernels) starts.
var recallPhraseKernelAt = func() []int {
	out := make([]int, len(recallPhrases))
	for i, p := range recallPhrases {
		if k := recallPhraseKernels[i]; k >= 0 {
			out[i] = strings.Index(p, phraseKernels[k])
		}
	}
	return out
}()

// phraseEndOf returns where the first recall phrase ends in text, in any
// case, or -1. An ASCII text (most) is searched as it is, folding case
// as it compares; another is searched lowercased, as the rule has always
// been (strings.ToLower, whose copy of the text was most of an event
// check's cost).
func phraseEndOf(text string) int {
	if isASCII(text) {
		return phraseEndFold(text)
	}
	return phraseEnd(strings.ToLower(text))
}

// isASCII reports whether s has no byte of 0x80 or more.
func isASCII(s string) bool {
	const highs = 0x8080808080808080
	i := 0
	for ; i+8 <= len(s); i += 8 {
		x := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		if x&highs != 0 {
			return false
		}
	}
	for ; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// phraseEndFold is phraseEnd of an ASCII text's lowercase, comparing
// ASCII letters in either case instead of lowering a copy: the same
// offsets, as lowering ASCII keeps every byte in its place.
func phraseEndFold(text string) int { return phraseEndWith(text, indexFold, hasPrefixFold) }

// indexFold is the index of the first lower (lowercase ASCII) in s at
// or after from, ASCII letters of s in either case, or -1. It jumps
// between occurrences of lower's first byte in both cases.
func indexFold(s, lower string, from int) int {
	c, other := lower[0], lower[0]
	if 'a' <= c && c <= 'z' {
		other = c - 'a' + 'A'
	}
	next := func(b byte, at int) int {
		if i := strings.IndexByte(s[at:], b); i >= 0 {
			return at + i
		}
		return len(s)
	}
	nc, no := next(c, from), next(other, from)
	for {
		at := min(nc, no)
		if at+len(lower) > len(s) {
			return -1
		}
		if hasPrefixFold(s[at:], lower) {
			return at
		}
		if at == nc {
			nc = next(c, at+1)
		}
		if at == no {
			no = next(other, at+1)
		}
	}
}

// hasPrefixFold reports whether s starts with lower (lowercase ASCII),
// ASCII letters of s in either case.
func hasPrefixFold(s, lower string) bool {
	if len(s) < len(lower) {
		return false
	}
	for i := 0; i < len(lower); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

// phraseEnd returns where the first recall phrase ends in lower (a
// lowercased text), or -1.
func phraseEnd(lower string) int { return phraseEndWith(lower, indexFrom, strings.HasPrefix) }

// indexFrom is strings.Index of sub in s at or after from, or -1.
func indexFrom(s, sub string, from int) int {
	if i := strings.Index(s[from:], sub); i >= 0 {
		return from + i
	}
	return -1
}

// phraseEndWith returns where the first recall phrase ends in text, or
// -1 (the smallest end of any phrase's first occurrence), finding a
// phrase (lowercase) with index and comparing it with hasPrefix. A
// phrase with a kernel (phraseKernels) is compared only where its kernel
// occurs: one search per kernel instead of one per phrase over the whole
// text, as most texts that mention memory hold no phrase, and those
// searches were most of the detection's cost.
func phraseEndWith(text string, index func(s, sub string, from int) int, hasPrefix func(s, prefix string) bool) int {
	best := -1
	note := func(end int) {
		if best < 0 || end < best {
			best = end
		}
	}
	for k, kernel := range phraseKernels {
		for from := 0; ; {
			at := index(text, kernel, from)
			if at < 0 {
				break
			}
			for n, p := range recallPhrases {
				if recallPhraseKernels[n] != k {
					continue
				}
				if start := at - recallPhraseKernelAt[n]; start >= 0 && hasPrefix(text[start:], p) {
					note(start + len(p))
				}
			}
			from = at + 1
		}
	}
	for n, p := range recallPhrases {
		if recallPhraseKernels[n] < 0 {
			if i := index(text, p, 0); i >= 0 {
				note(i + len(p))
			}
		}
	}
	if i := index(text, "did you remember", 0); i >= 0 {
		if j := index(text, "talked about", i); j >= 0 {
			note(j + len("talked about"))
		}
	}
	return best
}

// recallInvocation finds recall run as a command in a shell line: the
// first word of a command (after any VAR=value assignments), by name or by
// path ("~/go/bin/recall"). It returns the arguments up to the end of that
// command. "recall search …" is the same command.
func recallInvocation(line string) (string, bool) {
	for _, cmd := range strings.FieldsFunc(line, func(r rune) bool {
		return r == '|' || r == ';' || r == '&' || r == '(' || r == ')' || r == '\n' || r == '`'
	}) {
		words := strings.Fields(cmd)
		for len(words) > 0 && strings.Contains(words[0], "=") {
			words = words[1:]
		}
		if len(words) == 0 || filepath.Base(words[0]) != "recall" {
			continue
		}
		args := words[1:]
		if len(args) > 0 && args[0] == "search" {
			args = args[1:]
		}
		return strings.Join(args, " "), true
	}
	return "", false
}

// quotedInvocation finds recall quoted as inline code in prose:
// "I ran `recall jwt auth`".
func quotedInvocation(text string) (string, bool) {
	i := strings.Index(text, "`recall ")
	if i < 0 {
		return "", false
	}
	rest := text[i+1:]
	if j := strings.IndexByte(rest, '`'); j >= 0 {
		rest = rest[:j]
	}
	return recallInvocation(rest)
}

func detectToolEvent(text string) ([]string, bool) {
	name, args, _ := strings.Cut(text, ": ")
	if strings.Contains(strings.ToLower(name), "recall") {
		return queryWords(args), true // an MCP tool of recall's
	}
	if name != "Bash" {
		return nil, false
	}
	if q, ok := recallInvocation(args); ok {
		return queryWords(q), true
	}
	if end := phraseEndOf(args); end >= 0 {
		return queryWords(args[end:]), true
	}
	return nil, false
}

// queryWords takes the words of a recall command line: flags are dropped,
// flag values and positional words kept (both are what was looked for).
func queryWords(args string) []string {
	var out []string
	for _, f := range strings.Fields(args) {
		if strings.HasPrefix(f, "-") {
			continue
		}
		out = append(out, contentWords(f)...)
	}
	return out
}

// contentWords lowercases text and keeps the words of three letters or more
// that are not stop words.
func contentWords(text string) []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_'
	}) {
		if len(w) < 3 || IsStopWord(w) || seen[w] || w == "recall" {
			continue
		}
		seen[w] = true
		out = append(out, w)
	}
	return out
}

// mayBeRecallEvent is the cheap test DetectRecallEvent starts with: every
// event mentions recall, memory or remember, and most rows none of them.
// It is strings.Contains of "ecall", "emory" and "emember", all three an
// 'e' followed by a 'c' or an 'm': it tests eight bytes at a time for
// those pairs and compares the word only where one starts (about one
// byte in a hundred of rows text). Jumping between 'c's and then between
// 'm's with strings.IndexByte, two passes stopping every 40 bytes or so,
// was 2% of an indexing run.
func mayBeRecallEvent(text string) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	var carry uint64 // bit 7 set: the byte before this word may be an 'e'
	i := 0
	for ; i+8 <= len(text); i += 8 {
		x := uint64(text[i]) | uint64(text[i+1])<<8 | uint64(text[i+2])<<16 | uint64(text[i+3])<<24 |
			uint64(text[i+4])<<32 | uint64(text[i+5])<<40 | uint64(text[i+6])<<48 | uint64(text[i+7])<<56
		// A byte equal to the letter makes y zero there, and (y-ones)&^y
		// sets the high bit of every zero byte (and maybe of a byte above
		// one, which the comparison below rules out): no pair is missed.
		e, c, m := x^(ones*'e'), x^(ones*'c'), x^(ones*'m')
		isE := (e - ones) &^ e & highs
		isCM := ((c-ones)&^c | (m-ones)&^m) & highs
		pairs := (isE<<8 | carry) & isCM
		carry = isE >> 56
		for ; pairs != 0; pairs &= pairs - 1 {
			if recallWordAt(text, i+bits.TrailingZeros64(pairs)/8) {
				return true
			}
		}
	}
	for ; i < len(text); i++ {
		if recallWordAt(text, i) {
			return true
		}
	}
	return false
}

// recallWordAt reports whether "ecall", "emory" or "emember" is in text
// with its second letter at j.
func recallWordAt(text string, j int) bool {
	if j == 0 || text[j-1] != 'e' {
		return false
	}
	rest := text[j:]
	return strings.HasPrefix(rest, "call") || strings.HasPrefix(rest, "mory") || strings.HasPrefix(rest, "member")
}
