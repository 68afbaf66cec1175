package rank

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// referencePassageBound is PassageBound as it was before coverage was
// counted in units: the reference the faster one must equal bit for bit.
func referencePassageBound(b *Bounder, f *Features, own, ctx []float64) float64 {
	if f.Ack {
		return 0
	}
	total, inCode := 0, 0
	for i, u := range f.Units {
		total += u
		if i < len(f.CodeUnits) {
			inCode += min(f.CodeUnits[i], u)
		}
	}
	if total == 0 {
		return 0
	}
	terms := len(b.idf)
	relevance, matched, ownTerms, single := 0.0, 0.0, 0, -1
	for t := range terms {
		v := own[t]
		if ctx != nil && ctx[t] > v {
			v = ctx[t]
		}
		relevance += v
		tf := 0.0
		if t < len(f.Units) && f.Units[t] > 0 {
			tf = float64(f.Units[t]) / unitsPerHit
			ownTerms++
			single = t
		}
		matched += termCoverage(tf, ctx != nil && ctx[t] > 0)
	}
	score := typeWeight(f.Type) * (1 + coverageBonus*coverageFraction(matched, terms))
	if ownTerms >= 2 {
		score *= 1 + proximityBonus
	}
	switch {
	case !f.CodeKnown:
		return score * relevance * (1 + codeBonus)
	case inCode == 0:
		return score * relevance
	case f.Exact && f.Type != typeTool:
		return score * relevance * (1 + codeBonus*float64(inCode)/float64(total))
	case ownTerms == 1:
		return score * b.singleTermCodeBound(f, single, own, ctx, relevance)
	}
	return score * relevance * (1 + codeBonus)
}

// sameBits reports whether x and y hold the same floats, bit for bit.
func sameBits(x, y []float64) bool {
	return slices.EqualFunc(x, y, func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) })
}

// referenceContext is Context as it was, with max.
func referenceContext(prev, next []float64) []float64 {
	var dst []float64
	for t := range max(len(prev), len(next)) {
		v := 0.0
		if t < len(prev) {
			v = prev[t]
		}
		if t < len(next) {
			v = max(v, next[t])
		}
		dst = append(dst, contextWeight*v)
	}
	return dst
}

// referenceSessionSum is what SessionBound.Bound sums: every bound,
// sorted, best first at the weights of boundWeights.
func referenceSessionSum(scores []float64) float64 {
	xs := slices.Clone(scores)
	slices.Sort(xs)
	total := 0.0
	for i := len(xs) - 1; i >= 0 && len(xs)-1-i < len(boundWeights); i-- {
		total += xs[i] * boundWeights[len(xs)-1-i]
	}
	return total
}

// randomUnits returns n random unit counts: mostly none, some below a
// hit, some of several hits, a few very large.
func randomUnits(r *rand.Rand, n int) []int {
	units := make([]int, n)
	for t := range units {
		switch r.IntN(6) {
		case 0, 1:
		case 2:
			units[t] = 1 + r.IntN(unitsPerHit)
		case 3, 4:
			units[t] = 1 + r.IntN(40)
		default:
			units[t] = r.IntN(3000)
		}
	}
	return units
}

// randomFeatures returns features of a random type, length and counts for
// terms terms (a few with a count list of another length).
func randomFeatures(r *rand.Rand, terms int) Features {
	n := terms
	if r.IntN(20) == 0 {
		n = r.IntN(terms + 2)
	}
	f := Features{Type: []string{typeUser, typeAssistant, typeTool, typeAgent, "other"}[r.IntN(5)],
		Len: r.IntN(5000), Ack: r.IntN(15) == 0, Units: randomUnits(r, n), Exact: r.IntN(2) == 0, CodeKnown: r.IntN(3) > 0}
	f.CodeUnits = make([]int, len(f.Units))
	for t, u := range f.Units {
		if r.IntN(3) == 0 {
			f.CodeUnits[t] = r.IntN(u + 2)
		}
	}
	return f
}

// TestPassageBoundMatchesReference: the bound with coverage counted in
// units, and the context neighbours lend, equal the references', bit for
// bit, over random features with and without context, so bounds (and
// which sessions a search reads) are unchanged.
func TestPassageBoundMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 7))
	for iter := range 200000 {
		terms := 1 + r.IntN(6)
		df := map[string]int{}
		names := []string{"a", "b", "c", "d", "e", "f"}[:terms]
		for _, n := range names {
			df[n] = 1 + r.IntN(900)
		}
		q := newQuery(names, df)
		b := NewBounder(&q)
		f := randomFeatures(r, terms)
		own := b.Contributions(&f, nil)
		var ctx []float64
		if r.IntN(2) == 0 {
			prev, next := randomFeatures(r, terms), randomFeatures(r, terms)
			var p, n []float64
			if r.IntN(3) > 0 {
				p = b.Contributions(&prev, nil)
			}
			if r.IntN(3) > 0 {
				n = b.Contributions(&next, nil)
			}
			if p != nil || n != nil {
				ctx = Context(nil, p, n)
				if want := referenceContext(p, n); !sameBits(ctx, want) {
					t.Fatalf("iteration %d: context of %v and %v is %v, reference %v", iter, p, n, ctx, want)
				}
			}
		}
		got, want := b.PassageBound(&f, own, ctx), referencePassageBound(b, &f, own, ctx)
		if math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("iteration %d: features %+v, own %v, ctx %v: bound %v, reference %v", iter, f, own, ctx, got, want)
		}
	}
}

// TestSessionBoundSumMatchesReference: the session's weighted sum of its
// sessionBoundTerms best bounds, selected by a heap and sorted by
// insertion, equals that of every bound fully sorted, bit for bit, for
// sessions of a few to hundreds of bounds with ties, zeros, -0 and +Inf.
func TestSessionBoundSumMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 5))
	for iter := range 20000 {
		n := r.IntN(8)
		if r.IntN(3) == 0 {
			n = r.IntN(400)
		}
		scores := make([]float64, n)
		for i := range scores {
			switch r.IntN(8) {
			case 0:
				scores[i] = 0
			case 1:
				scores[i] = scores[r.IntN(i+1)] // a tie, or a zero
			default:
				scores[i] = r.ExpFloat64() * 30
			}
		}
		if n > 0 && iter%50 == 0 {
			scores[r.IntN(n)] = []float64{math.Copysign(0, -1), math.Inf(1)}[r.IntN(2)]
		}
		got, want := weightedSum(largestAscending(slices.Clone(scores), sessionBoundTerms), boundWeights), referenceSessionSum(scores)
		if math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("iteration %d: %d bounds %v: sum %v, reference %v", iter, n, scores, got, want)
		}
	}
}
