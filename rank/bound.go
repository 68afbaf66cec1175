package rank

import (
	"math/bits"
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
	// Hits holds, per query term, at least as many hits as the text has
	// (exactly as many when Exact).
	Hits []int
	// CodeHits holds, per query term, at least as many of those hits as
	// start in code, when CodeKnown.
	CodeHits  []int
	Exact     bool // Hits and CodeHits are exact counts
	CodeKnown bool // CodeHits bound the hits in code (else any hit may be)
}

// Bounder computes UpperBound for one query, with its terms' IDF worked
// out once.
type Bounder struct {
	q   *Query
	idf []float64
}

// NewBounder prepares bounds for q.
func NewBounder(q *Query) *Bounder {
	b := &Bounder{q: q, idf: make([]float64, len(q.Terms))}
	for i := range b.idf {
		b.idf[i] = inverseDocFreq(q, i)
	}
	return b
}

// UpperBound returns a score at least ScoreMessage's for any message with
// these features: equal to it when Exact and no two terms match (the
// proximity factor needs positions).
func (b *Bounder) UpperBound(f *Features) float64 {
	if f.Ack {
		return 0
	}
	total, inCode := 0, 0
	for i, n := range f.Hits {
		total += n
		if i < len(f.CodeHits) {
			inCode += min(f.CodeHits[i], n)
		}
	}
	if total == 0 {
		return 0
	}
	ratio := lengthRatio(f.Type, f.Len, b.q)
	relevance := 0.0
	for term, n := range f.Hits {
		if n > 0 && term < len(b.idf) {
			relevance += b.idf[term] * saturatedTermFreq(n, ratio)
		}
	}
	matched := matchedTerms(f.Hits)
	score := typeWeight(f.Type) * (1 + coverageBonus*coverageFraction(matched, len(f.Hits)))
	if matched >= 2 {
		score *= 1 + proximityBonus
	}
	switch {
	case !f.CodeKnown:
		return score * relevance * (1 + codeBonus)
	case f.Exact || inCode == 0:
		return score * relevance * (1 + codeBonus*float64(inCode)/float64(total))
	case matched == 1:
		return score * b.singleTermCodeBound(f, ratio)
	}
	return score * relevance * (1 + codeBonus)
}

// singleTermCodeBound bounds relevance × code factor for one term with at
// most H hits of which at most C in code: the message has some h ≤ H hits
// and at most min(C, h) of them in code, and more hits raise relevance but
// may lower the code share, so every h is tried.
func (b *Bounder) singleTermCodeBound(f *Features, ratio float64) float64 {
	term := slices.IndexFunc(f.Hits, func(n int) bool { return n > 0 })
	hits, code := f.Hits[term], min(f.CodeHits[term], f.Hits[term])
	if hits > maxHitsTried {
		return b.idf[term] * saturatedTermFreq(hits, ratio) * (1 + codeBonus)
	}
	best := 0.0
	for h := 1; h <= hits; h++ {
		v := b.idf[term] * saturatedTermFreq(h, ratio) * (1 + codeBonus*float64(min(code, h))/float64(h))
		best = max(best, v)
	}
	return best
}

// maxHitsTried caps singleTermCodeBound's search; past it the loose bound
// serves.
const maxHitsTried = 64

func matchedTerms(counts []int) int {
	n := 0
	for _, c := range counts {
		if c > 0 {
			n++
		}
	}
	return n
}

// SessionBound gathers the candidate messages of one session and bounds
// the session's score.
type SessionBound struct {
	scores  []float64
	last    time.Time
	seen    uint64
	current bool
}

// Add adds a candidate message: its bound, time, the terms it may hold
// (bit i: term i) and whether its project is the current one.
func (s *SessionBound) Add(bound float64, t time.Time, terms uint64, inCurrentProject bool) {
	s.scores = append(s.scores, bound)
	if bound > 0 {
		s.seen |= terms
		if t.After(s.last) {
			s.last = t
		}
	}
	s.current = s.current || inCurrentProject
}

// Merge adds the candidates gathered in o.
func (s *SessionBound) Merge(o *SessionBound) {
	s.scores = append(s.scores, o.scores...)
	s.seen |= o.seen
	if o.last.After(s.last) {
		s.last = o.last
	}
	s.current = s.current || o.current
}

// Bound returns a score at least Rank's for a session whose matched
// messages are among those added, scoring at most their bounds.
func (s *SessionBound) Bound(terms int, opt Options) float64 {
	slices.Sort(s.scores)
	total, weight := 0.0, 1.0
	for i := len(s.scores) - 1; i >= 0; i-- {
		total += s.scores[i] * weight
		weight /= 2
		if weight < 1e-12 {
			break // what is left cannot change the sum's first digits
		}
	}
	if total == 0 {
		return 0
	}
	n := bits.OnesCount64(s.seen)
	coverage := 1 + sessionCoverageBonus*coverageFraction(n, terms)
	score := total * coverage * recencyValue(s.last, opt.Now, opt.HalfLife)
	if s.current && opt.CurrentProject != "" {
		score *= projectBoost
	}
	return score
}

// InProject reports whether a project lies in the current project, as
// the project factor judges it.
func InProject(project, current string) bool { return inProject(project, current) }

// DedupPool is how many of the best sessions Rank compares for
// duplicates when limit are shown; a search that ranks from bounds must
// have the exact scores of at least that many.
func DedupPool(limit int) int { return dedupPool(limit) }
