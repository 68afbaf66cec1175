package rank

import (
	"cmp"
	"slices"
	"time"
)

// Features are what the term index knows of a matched message without
// its text: enough to bound its score from above. The bounds let a search
// rank sessions from postings and read the text only of those it may show.
type Features struct {
	Type string
	Len  int  // text length in bytes
	Ack  bool // the text is an acknowledgement
	// Units holds, per query term, at least the weight of the text's hits
	// (exactly, when Exact), in eighths of an exact hit (FormUnits): a
	// hit whose form the index cannot know counts MaxFormUnits.
	Units []int
	// CodeUnits holds, per query term, at least the weight of those hits
	// that start in code, when CodeKnown.
	CodeUnits []int
	Exact     bool // Units and CodeUnits are exact
	CodeKnown bool // CodeUnits bound the hits in code (else any hit may be)
}

// Bounder computes bounds for one query, with its terms' IDF worked out
// once.
type Bounder struct {
	q   *Query
	idf []float64
}

// NewBounder prepares bounds for q.
func NewBounder(q *Query) *Bounder {
	return &Bounder{q: q, idf: termIDFs(q)}
}

// Contributions sets dst (grown to one entry per term) to the most each
// term can contribute to the relevance of a message with features f: its
// IDF times the saturated weight of its hits. All are zero for an
// acknowledgement, which neither scores nor lends context.
func (b *Bounder) Contributions(f *Features, dst []float64) []float64 {
	if cap(dst) < len(b.idf) {
		dst = make([]float64, len(b.idf))
	} else {
		dst = dst[:len(b.idf)]
		clear(dst)
	}
	if f.Ack {
		return dst
	}
	// More of the query held shortens an answer's ratio (lengthRatio):
	// units at least the hits' weights give a ratio at most the message's.
	held := 0
	for _, u := range f.Units {
		held += min(u, unitsPerHit)
	}
	ratio := lengthRatio(f.Type, f.Len, b.q, float64(held)/unitsPerHit)
	for t, u := range f.Units {
		if u > 0 && t < len(dst) {
			dst[t] = b.idf[t] * saturatedTermFreq(float64(u)/unitsPerHit, ratio)
		}
	}
	return dst
}

// Context sets dst to what two neighbours with contributions prev and
// next (either nil) may lend a message: per term, contextWeight times the
// larger of theirs. Contributions are never NaN nor -0, so a comparison
// picks the larger as max does, without max's checks for those.
func Context(dst, prev, next []float64) []float64 {
	dst = dst[:0]
	for t := range max(len(prev), len(next)) {
		v := 0.0
		if t < len(prev) {
			v = prev[t]
		}
		if t < len(next) && next[t] > v {
			v = next[t]
		}
		dst = append(dst, contextWeight*v)
	}
	return dst
}

// PassageBound returns a score at least that of any message with features
// f (own: its Contributions) whose neighbours lend at most ctx (Context
// of their Contributions; nil for none): equal to it when Exact, no two
// terms match (the proximity factor needs positions) and nothing is lent.
func (b *Bounder) PassageBound(f *Features, own, ctx []float64) float64 {
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
	// Coverage is counted in units: each term's is termCoverage's, a
	// multiple of an eighth (min(tf, 1) of tf in eighths, or
	// contextCoverage), and sums of those are exact in floating point,
	// so the sum is the same; float min and max, with their NaN checks,
	// were a fifth of this function.
	relevance, covered, ownTerms, single := 0.0, 0, 0, -1
	for t := range terms {
		v, c := own[t], 0
		if t < len(f.Units) && f.Units[t] > 0 {
			c = min(f.Units[t], unitsPerHit)
			ownTerms++
			single = t
		}
		if ctx != nil {
			x := ctx[t]
			if x > v {
				v = x
			}
			if x > 0 {
				c = max(c, contextCoverageUnits)
			}
		}
		relevance += v
		covered += c
	}
	matched := float64(covered) / unitsPerHit
	score := typeWeight(f.Type) * (1 + coverageBonus*coverageFraction(matched, terms))
	if ownTerms >= 2 {
		score *= 1 + proximityBonus
	}
	switch {
	case !f.CodeKnown:
		return score * relevance * (1 + codeBonus)
	case inCode == 0:
		return score * relevance
	case f.Exact && f.Type != typeTool: // tool prose reweighs hits: not exact
		return score * relevance * (1 + codeBonus*float64(inCode)/float64(total))
	case ownTerms == 1:
		return score * b.singleTermCodeBound(f, single, own, ctx, relevance)
	}
	return score * relevance * (1 + codeBonus)
}

// contextCoverageUnits is contextCoverage in units (eighths of a hit);
// the conversion fails to compile if it is not a whole number of them.
const contextCoverageUnits = int(contextCoverage * unitsPerHit)

// singleTermCodeBound bounds relevance × code factor when one term t
// holds every hit, with at most H hits (weighing at most one each) of
// which at most C in code: the message has some h ≤ H hits and at most
// min(C, h) of them in code. More hits raise relevance but may lower the
// code share, so every h is tried; the code share is largest when the hits
// in code weigh one and the others the least a hit can weigh.
func (b *Bounder) singleTermCodeBound(f *Features, t int, own, ctx []float64, relevance float64) float64 {
	hits := (f.Units[t] + unitsPerHit - 1) / unitsPerHit
	code := min((f.CodeUnits[t]+unitsPerHit-1)/unitsPerHit, hits)
	rest := relevance - max(own[t], ctxAt(ctx, t)) // what the other terms' context adds
	if hits > maxHitsTried {
		return relevance * (1 + codeBonus)
	}
	least := float64(minFormUnits) / unitsPerHit
	if f.Type == typeTool {
		least *= toolProseWeight
	}
	ratio := lengthRatio(f.Type, f.Len, b.q, 1) // one term holds every hit
	best := 0.0
	for h := 1; h <= hits; h++ {
		c := float64(min(code, h))
		share := c / (c + least*float64(h-int(c)))
		rel := rest + max(b.idf[t]*saturatedTermFreq(float64(h), ratio), ctxAt(ctx, t))
		best = max(best, rel*(1+codeBonus*share))
	}
	return best
}

func ctxAt(ctx []float64, t int) float64 {
	if t < len(ctx) {
		return ctx[t]
	}
	return 0
}

// maxHitsTried caps singleTermCodeBound's search; past it the loose bound
// serves.
const maxHitsTried = 64

// SessionBound gathers the candidate messages of one session and bounds
// the session's score.
type SessionBound struct {
	scores  []float64
	units   []int     // per term: the most its hits can weigh over the session
	tf      []float64 // Bound's scratch
	last    time.Time
	current bool
	when    bool
}

// Reset empties s for another session, keeping its room.
func (s *SessionBound) Reset() {
	*s = SessionBound{scores: s.scores[:0], units: s.units[:0], tf: s.tf[:0]}
}

// Add adds a candidate message: its bound, time, features (Units: at
// least the weight of its own hits), whether its project is the current
// one and whether its time is in the window the query names
// (Options.InWindow).
func (s *SessionBound) Add(bound float64, t time.Time, f *Features, inCurrentProject, inWindow bool) {
	s.scores = append(s.scores, bound)
	if bound > 0 {
		if len(s.units) < len(f.Units) {
			s.units = append(s.units, make([]int, len(f.Units)-len(s.units))...)
		}
		for i, u := range f.Units {
			s.units[i] += u
		}
		if t.After(s.last) {
			s.last = t
		}
		s.when = s.when || inWindow
	}
	s.current = s.current || inCurrentProject
}

// Bound returns a score at least Rank's for a session whose matched
// messages are among those added, scoring at most their bounds. prev and
// next, when known (nil otherwise), link the candidates in the order
// they were added: prev[i] is the candidate that may be just before
// candidate i in its transcript (-1 for none: a row that is not a
// candidate, or nothing, lies before it), next[i] the one that may be
// just after it; every two messages next to each other must be linked.
func (s *SessionBound) Bound(b *Bounder, opt Options, prev, next []int32) float64 {
	total := s.bestMessages(prev, next)
	if total == 0 {
		return 0
	}
	s.tf = append(s.tf[:0], make([]float64, len(b.idf))...) // no allocation once grown
	tf := s.tf
	for i, u := range s.units {
		if i < len(tf) {
			tf[i] = float64(u) / unitsPerHit
		}
	}
	score := total * evidenceValue(tf, b.idf) * recencyValue(s.last, opt.Now, opt.HalfLife)
	if s.current && opt.CurrentProject != "" {
		score *= projectBoost
	}
	if s.when && opt.When != nil {
		score *= 1 + opt.When.boost()
	}
	return score
}

// bestMessages bounds bestMessagesFactor's value. Without links, any
// messages may make the best passage, and the largest bounds add up at
// the weights of boundWeights. With them, the passage is one of the
// candidates with those linked to it passageReach deep (passageBounds):
// at most the largest such series, plus restWeight times the series of
// every other bound, which is at most that of all bounds but the largest
// when the passage holds it, and of all of them when it does not.
func (s *SessionBound) bestMessages(prev, next []int32) float64 {
	if len(prev) != len(s.scores) || len(next) != len(s.scores) {
		return weightedSum(largestAscending(s.scores, sessionBoundTerms), boundWeights)
	}
	withTop, withoutTop := s.passageBounds(prev, next)
	// The largest bounds, enough for both series and the unlinked bound
	// (reordering s.scores).
	top := largestAscending(s.scores, max(geometricTerms+1, sessionBoundTerms))
	all := weightedSum(top, geometricWeights)
	rest := 0.0
	if len(top) > 0 {
		rest = weightedSum(top[:len(top)-1], geometricWeights)
	}
	linked := max(withTop+restWeight*rest, withoutTop+restWeight*all)
	// The rest's series counts the passage's other messages again: when
	// most messages are linked, the unlinked bound is the tighter.
	return min(linked, weightedSum(top, boundWeights))
}

// passageBounds returns the largest series (s1 + s2/2 + …) of the bounds
// of a candidate and those linked to it passageReach deep, among the
// candidates whose passage holds the largest bound, and among the
// others (0 for none).
func (s *SessionBound) passageBounds(prev, next []int32) (withTop, withoutTop float64) {
	top := 0
	for i, x := range s.scores {
		if x > s.scores[top] {
			top = i
		}
	}
	var members [2*passageReach + 1]int32
	var scores [2*passageReach + 1]float64
	for c := range s.scores {
		n := 0
		members[n], n = int32(c), n+1
		for _, links := range [2][]int32{prev, next} {
			for at, k := int32(c), 0; k < passageReach; k++ {
				if at = links[at]; at < 0 {
					break
				}
				members[n], n = at, n+1
			}
		}
		holdsTop := false
		for k, m := range members[:n] {
			scores[k] = s.scores[m]
			holdsTop = holdsTop || int(m) == top
		}
		insertionSort(scores[:n])
		series := 0.0
		for k := n - 1; k >= 0; k-- {
			series += scores[k] * geometricWeights[n-1-k]
		}
		if holdsTop {
			withTop = max(withTop, series)
		} else {
			withoutTop = max(withoutTop, series)
		}
	}
	return withTop, withoutTop
}

// weightedSum adds best (ascending), largest first, at weights (largest
// first), as far as they go.
func weightedSum(best, weights []float64) float64 {
	total := 0.0
	for i, w := range weights {
		if i == len(best) {
			break
		}
		total += best[len(best)-1-i] * w
	}
	return total
}

// geometricWeights halve from 1 down to 1e-12: those of a series s1 +
// s2/2 + …, past which what is left cannot change a sum's first digits
// (boundSlack covers it); geometricTerms is their number (40: the 40th
// weighs 2^-39).
var geometricWeights = func() []float64 {
	var ws []float64
	for w := 1.0; w >= 1e-12; w /= 2 {
		ws = append(ws, w)
	}
	return ws
}()

var geometricTerms = len(geometricWeights)

// boundWeights are the weights bestMessagesFactor gives, largest first,
// to a passage's messages (1, 1/2, …, 2^-2·passageReach: at most
// 2·passageReach+1 of them) and to the rest (restWeight, restWeight/2,
// …), merged, down to 1e-12. Whichever messages make the passage, each
// weight bestMessagesFactor gives is one of these, so the largest bounds
// at the largest weights add up to at least its sum.
var boundWeights = func() []float64 {
	var ws []float64
	for w, k := 1.0, 0; k <= 2*passageReach; w, k = w/2, k+1 {
		ws = append(ws, w)
	}
	for w := restWeight; w >= 1e-12; w /= 2 {
		ws = append(ws, w)
	}
	slices.SortFunc(ws, func(a, b float64) int { return cmp.Compare(b, a) })
	return ws
}()

// sessionBoundTerms is how many of a session's best message bounds
// Bound adds without links (boundWeights): the rest are never looked at,
// so only these need selecting and sorting.
var sessionBoundTerms = len(boundWeights)

// largestAscending returns the k largest of xs (all of them if there are
// no more than k), in ascending order, reordering xs in place: a min-heap
// of the best k seen, then an insertion sort of those. A session's
// candidates can be thousands for a common word; sorting all of them was
// most of bounding it once its messages were bounded.
func largestAscending(xs []float64, k int) []float64 {
	if len(xs) <= k {
		insertionSort(xs)
		return xs
	}
	heap := xs[:k]
	for i := k/2 - 1; i >= 0; i-- {
		siftDownMin(heap, i)
	}
	for _, x := range xs[k:] {
		if x > heap[0] {
			heap[0] = x
			siftDownMin(heap, 0)
		}
	}
	insertionSort(heap)
	return heap
}

// insertionSort sorts xs, at most sessionBoundTerms long, ascending:
// for so few, it took half the time of slices.Sort, whose comparisons
// also order NaNs, which no bound is.
func insertionSort(xs []float64) {
	for i := 1; i < len(xs); i++ {
		x, j := xs[i], i
		for ; j > 0 && x < xs[j-1]; j-- {
			xs[j] = xs[j-1]
		}
		xs[j] = x
	}
}

// siftDownMin restores the min-heap order of h below i.
func siftDownMin(h []float64, i int) {
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		if r := l + 1; r < len(h) && h[r] < h[l] {
			l = r
		}
		if !(h[l] < h[i]) {
			return
		}
		h[i], h[l] = h[l], h[i]
		i = l
	}
}

// InWindow reports whether a message at t gains from the time the query
// names (false when it names none): in it, or in the days after a named
// day. Bound then counts the window's full boost, never less than whenFactor.
func (o Options) InWindow(t time.Time) bool { return o.When.boostAt(t) > 0 }

// InProject reports whether a project lies in the current project, as
// the project factor judges it.
func InProject(project, current string) bool { return inProject(project, current) }

// DedupPool is how many of the best sessions Rank compares for
// duplicates when limit are shown; a search that ranks from bounds must
// have the exact scores of at least that many.
func DedupPool(limit int) int { return dedupPool(limit) }
