package redact

import (
	"math/rand/v2"
	"regexp/syntax"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// sample writes a random string that re matches, when its assertions (\b,
// $) happen to hold where the string lands.
func sample(r *rand.Rand, re *syntax.Regexp, b *strings.Builder) {
	switch re.Op {
	case syntax.OpLiteral:
		for _, c := range re.Rune {
			if re.Flags&syntax.FoldCase != 0 && r.IntN(2) == 0 {
				c = unicode.SimpleFold(c)
			}
			b.WriteRune(c)
		}
	case syntax.OpCharClass:
		i := 2 * r.IntN(len(re.Rune)/2)
		lo, hi := re.Rune[i], min(re.Rune[i+1], re.Rune[i]+200)
		b.WriteRune(lo + rune(r.IntN(int(hi-lo)+1)))
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		b.WriteByte(byte(' ' + r.IntN(95)))
	case syntax.OpCapture:
		sample(r, re.Sub[0], b)
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		lo, hi := 0, 3
		switch re.Op {
		case syntax.OpPlus:
			lo = 1
		case syntax.OpQuest:
			hi = 1
		case syntax.OpRepeat:
			lo, hi = re.Min, re.Max
			if hi < 0 || hi > lo+40 {
				hi = lo + 40
			}
		}
		for range lo + r.IntN(hi-lo+1) {
			sample(r, re.Sub[0], b)
		}
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			sample(r, sub, b)
		}
	case syntax.OpAlternate:
		sample(r, re.Sub[r.IntN(len(re.Sub))], b)
	}
}

// TestWindowsFindWhatTheWholeTextHolds runs every rule that runs in
// windows over random matches of its expression, set among its keywords,
// near misses and noise, and compares with a run over the whole text.
func TestWindowsFindWhatTheWholeTextHolds(t *testing.T) {
	windowed, whole := New(), New()
	for _, ru := range whole.rules {
		c := ru.compiled()
		c.window = 0
		ru.compiled = func() compiledRule { return c }
	}
	rng := rand.New(rand.NewPCG(5, 6))
	noise := []string{" ", "\n", " = ", ": ", "\"", "'", "`", "key ", "token=", "x", "_", "-", ".", "\\n", "secret: "}
	rules, matched := 0, 0
	for i, ru := range windowed.rules {
		if ru.anchored || ru.compiled().window == 0 {
			continue
		}
		rules++
		re, err := syntax.Parse(ru.source, syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		for range 25 {
			var b strings.Builder
			for range 1 + rng.IntN(4) {
				for range rng.IntN(6) {
					b.WriteString(noise[rng.IntN(len(noise))])
					if rng.IntN(3) == 0 {
						b.WriteString(ru.keywords[rng.IntN(len(ru.keywords))])
					}
				}
				sample(rng, re, &b)
			}
			text := b.String()
			got, want := windowed.Find(text), whole.Find(text)
			if !slices.Equal(got, want) {
				t.Fatalf("%s: %q:\nwindowed %v\nwhole    %v", ru.kind, text, got, want)
			}
			if slices.ContainsFunc(want, func(f Finding) bool { return f.Kind == whole.rules[i].kind }) {
				matched++
			}
		}
	}
	if rules < 150 || matched < rules*10 {
		t.Fatalf("%d rules run in windows, %d texts held a match: too few to show anything", rules, matched)
	}
	t.Logf("%d rules in windows, %d texts with a match", rules, matched)
}
