package resyntax

import (
	"regexp/syntax"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxWindowedLen bounds the match length of a rule run in windows; a rule
// whose matches can be longer runs over the whole text.
const maxWindowedLen = 4 << 10

// WindowLen returns the longest match of expression src in bytes when
// every match holds one of keywords (lower case) and that length is at
// most maxWindowedLen, else 0.
//
// Such a rule can run only around the keyword occurrences, on windows
// reaching its longest match to either side, with the same matches as a
// run over the whole text: every match holds an occurrence, so it lies
// inside that occurrence's window and never touches a window's edge (the
// edge is one byte further than any match reaches), where the context an
// expression sees (\b, $) would differ from the whole text's. Overlapping
// windows are merged, and nothing matches between merged windows, so a run
// over each merged window finds what a run over the whole text finds
// there. gitleaks' rules of the form name…=value ([\w.-]{0,50}? before
// the name) are slow to run over a long text; in windows they cost little.
func WindowLen(src string, keywords []string) int {
	re, err := syntax.Parse(src, syntax.Perl)
	if err != nil {
		return 0
	}
	if !holdsKeyword(re, keywords) {
		return 0
	}
	n := maxMatchLen(re)
	if n <= 0 || n > maxWindowedLen {
		return 0
	}
	return n
}

// holdsKeyword reports whether every match of re holds one of keywords,
// ASCII case folded as the prefilter folds: some part of re that every
// match contains can only match strings (exactSet) that hold a keyword.
// A part matched case-insensitively also matches the Kelvin sign for k
// and ſ for s, which neither this prefilter nor gitleaks' finds (gitleaks
// does not run the rule on such a text either); those are left out.
func holdsKeyword(re *syntax.Regexp, keywords []string) bool {
	if set, ok := exactSet(re); ok {
		return allHold(set, keywords)
	}
	switch re.Op {
	case syntax.OpCapture, syntax.OpPlus:
		return holdsKeyword(re.Sub[0], keywords)
	case syntax.OpRepeat:
		return re.Min >= 1 && holdsKeyword(re.Sub[0], keywords)
	case syntax.OpAlternate:
		for _, sub := range re.Sub {
			if !holdsKeyword(sub, keywords) {
				return false
			}
		}
		return len(re.Sub) > 0
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			if holdsKeyword(sub, keywords) {
				return true
			}
		}
		// A run of parts that each match a few strings (the parser
		// factors AKIA|ASIA into A(?:KIA|SIA)): their products.
		for i := range re.Sub {
			set := []string{""}
			for _, sub := range re.Sub[i:] {
				s, ok := exactSet(sub)
				if !ok {
					break
				}
				if set, ok = product(set, s); !ok {
					break
				}
				if allHold(set, keywords) {
					return true
				}
			}
		}
	}
	return false
}

func allHold(set, keywords []string) bool {
	for _, s := range set {
		held := false
		for _, k := range keywords {
			if strings.Contains(s, k) {
				held = true
				break
			}
		}
		if !held {
			return false
		}
	}
	return len(set) > 0
}

// maxExact bounds the strings exactSet lists.
const maxExact = 64

// exactSet lists every string re matches, ASCII lower-cased, when there
// are at most maxExact; ok is false otherwise.
func exactSet(re *syntax.Regexp) ([]string, bool) {
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText,
		syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return []string{""}, true
	case syntax.OpLiteral:
		return []string{strings.ToLower(string(re.Rune))}, true
	case syntax.OpCharClass:
		return classSet(re.Rune)
	case syntax.OpCapture:
		return exactSet(re.Sub[0])
	case syntax.OpQuest:
		set, ok := exactSet(re.Sub[0])
		return union(set, []string{""}), ok
	case syntax.OpRepeat:
		if re.Max < 0 || re.Max > 4 {
			return nil, false
		}
		sub, ok := exactSet(re.Sub[0])
		if !ok {
			return nil, false
		}
		var all []string
		set := []string{""}
		for k := 0; k <= re.Max; k++ {
			if k >= re.Min {
				all = union(all, set)
			}
			if set, ok = product(set, sub); !ok {
				return nil, false
			}
		}
		return all, len(all) <= maxExact
	case syntax.OpConcat:
		set := []string{""}
		for _, sub := range re.Sub {
			s, ok := exactSet(sub)
			if !ok {
				return nil, false
			}
			if set, ok = product(set, s); !ok {
				return nil, false
			}
		}
		return set, true
	case syntax.OpAlternate:
		var set []string
		for _, sub := range re.Sub {
			s, ok := exactSet(sub)
			if !ok {
				return nil, false
			}
			if set = union(set, s); len(set) > maxExact {
				return nil, false
			}
		}
		return set, true
	}
	return nil, false
}

// classSet lists the characters of a class (lo, hi pairs), ASCII
// lower-cased; a non-ASCII character that folds to an ASCII one (K, ſ) is
// left out, as holdsKeyword says.
func classSet(ranges []rune) ([]string, bool) {
	var set []string
	for i := 0; i+1 < len(ranges); i += 2 {
		if ranges[i+1]-ranges[i] >= maxExact {
			return nil, false
		}
		for r := ranges[i]; r <= ranges[i+1]; r++ {
			if r > unicode.MaxASCII && foldsToASCII(r) {
				continue
			}
			if set = union(set, []string{strings.ToLower(string(r))}); len(set) > maxExact {
				return nil, false
			}
		}
	}
	return set, true
}

func foldsToASCII(r rune) bool {
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		if f <= unicode.MaxASCII {
			return true
		}
	}
	return false
}

func product(a, b []string) ([]string, bool) {
	if len(a)*len(b) > maxExact {
		return nil, false
	}
	var out []string
	for _, x := range a {
		for _, y := range b {
			out = union(out, []string{x + y})
		}
	}
	return out, true
}

func union(a, b []string) []string {
	for _, s := range b {
		if !slices.Contains(a, s) {
			a = append(a, s)
		}
	}
	return a
}

// maxMatchLen is the longest text re can match, in bytes, or -1 if there
// is no bound.
func maxMatchLen(re *syntax.Regexp) int {
	switch re.Op {
	case syntax.OpLiteral:
		n := 0
		for _, r := range re.Rune {
			n += maxRuneLen(r, re.Flags&syntax.FoldCase != 0)
		}
		return n
	case syntax.OpCharClass:
		hi := rune(0)
		for i := 1; i < len(re.Rune); i += 2 {
			hi = max(hi, re.Rune[i])
		}
		return utf8.RuneLen(min(hi, unicode.MaxRune))
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return utf8.UTFMax
	case syntax.OpCapture, syntax.OpQuest:
		return maxMatchLen(re.Sub[0])
	case syntax.OpStar, syntax.OpPlus:
		return -1
	case syntax.OpRepeat:
		n := maxMatchLen(re.Sub[0])
		if re.Max < 0 || n < 0 {
			return -1
		}
		return re.Max * n
	case syntax.OpConcat, syntax.OpAlternate:
		total := 0
		for _, sub := range re.Sub {
			n := maxMatchLen(sub)
			if n < 0 {
				return -1
			}
			if re.Op == syntax.OpConcat {
				total += n
			} else {
				total = max(total, n)
			}
		}
		return total
	}
	return 0 // empty matches and assertions: ^ $ \b \B
}

// maxRuneLen is the longest UTF-8 encoding of r, or of any rune that folds
// to it when fold is set (k matches the three-byte Kelvin sign).
func maxRuneLen(r rune, fold bool) int {
	n := utf8.RuneLen(r)
	if fold {
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			n = max(n, utf8.RuneLen(f))
		}
	}
	return max(n, 1)
}

// Windows merges the Windows around keyword occurrences for matches of at
// most n bytes into ranges of text, in order.
func Windows(occ []Occurrence, n, textLen int, out [][2]int) [][2]int {
	for _, o := range occ {
		out = append(out, [2]int{max(0, o.End-n-1), min(textLen, o.Start+n+1)})
	}
	slices.SortFunc(out, func(a, b [2]int) int { return a[0] - b[0] })
	merged := out[:0]
	for _, w := range out {
		if k := len(merged); k > 0 && w[0] <= merged[k-1][1] {
			merged[k-1][1] = max(merged[k-1][1], w[1])
			continue
		}
		merged = append(merged, w)
	}
	return merged
}

// Occurrence is where one of a rule's keywords occurs: text[start:end].
type Occurrence struct{ Start, End int }
