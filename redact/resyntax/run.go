package resyntax

import (
	"regexp/syntax"
	"unicode/utf8"
)

// ClassRun is a run of characters every match of an expression holds:
// min or more in a row, each one of a character class. A text without
// such a run cannot match, and a gitleaks rule's secret is such a run
// (linear-client-secret's [a-f0-9]{32}, etsy-access-token's
// [a-z0-9]{24}): texts around a keyword rarely hold one, so the
// expression, the costly part of redaction, need not run there.
type ClassRun struct {
	Min  int       // 0: no run is known
	byte [256]bool // the bytes a character of the class can be made of
}

// requiredRun finds the longest run every match of re holds: a repeat of
// at least min characters of one class, in a part of re every match
// goes through (a concatenation's parts, a capture, a repeat of at least
// one). Parts that are optional or alternatives hold none.
func requiredRun(re *syntax.Regexp) ClassRun {
	switch re.Op {
	case syntax.OpCapture, syntax.OpPlus:
		return requiredRun(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min < 1 {
			return ClassRun{}
		}
		inner := requiredRun(re.Sub[0])
		if re.Sub[0].Op == syntax.OpCharClass && re.Min > inner.Min {
			return classRunOf(re.Sub[0].Rune, re.Min)
		}
		return inner
	case syntax.OpConcat:
		var best ClassRun
		for _, sub := range re.Sub {
			if r := requiredRun(sub); r.Min > best.Min {
				best = r
			}
		}
		return best
	}
	return ClassRun{}
}

// classRunOf is a run of min characters of the class of ranges (pairs, as
// syntax keeps them, case folding already applied): its ASCII bytes,
// and every byte from 0x80 on if the class holds a character past ASCII
// (a run of min such characters is then a run of at least min bytes).
func classRunOf(ranges []rune, min int) ClassRun {
	r := ClassRun{Min: min}
	for i := 0; i+1 < len(ranges); i += 2 {
		lo, hi := ranges[i], ranges[i+1]
		for c := lo; c <= hi && c < utf8.RuneSelf; c++ {
			r.byte[c] = true
		}
		if hi >= utf8.RuneSelf {
			for b := utf8.RuneSelf; b < 256; b++ {
				r.byte[b] = true
			}
		}
	}
	return r
}

// In reports whether text holds the run: min bytes In a row that the
// class's characters can be made of. Always true without a known run.
func (r *ClassRun) In(text string) bool {
	if r.Min == 0 {
		return true
	}
	n := 0
	for i := 0; i < len(text); i++ {
		if !r.byte[text[i]] {
			n = 0
			continue
		}
		if n++; n >= r.Min {
			return true
		}
	}
	return false
}

// minRunWorthChecking is the shortest run worth looking for before an
// expression runs: shorter ones are in most texts (a word of eight
// letters is a run of [a-z0-9=_-]{8,20}).
const minRunWorthChecking = 16

// RunToCheck is the run of expression src to look for before it runs, or
// none.
func RunToCheck(src string) ClassRun {
	re, err := syntax.Parse(src, syntax.Perl)
	if err != nil {
		return ClassRun{}
	}
	if r := requiredRun(re); r.Min >= minRunWorthChecking {
		return r
	}
	return ClassRun{}
}
