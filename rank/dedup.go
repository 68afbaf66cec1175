package rank

import (
	"math"
	"runtime"
	"slices"

	"github.com/recall-dev/recall/internal/parallel"
)

// DefaultDedupThreshold is the Jaccard similarity of two sessions' matched
// text, as sets of word 3-shingles, at or above which they are compared
// as whole conversations (conversation.go), the test that decides. A
// fork or resumed copy repeats the same messages verbatim: a copy with
// one extra message in ten still scores about 0.9, and a resumed copy
// that adds a full reply of its own (five messages plus a 45-word answer,
// the case the scenario tests hold) about 0.72. Two sessions written
// separately on the same topic share few runs of three words (typically
// well under 0.3), so 0.7 keeps them apart with a wide margin. Two
// sessions whose only match is the same pasted block pass this test;
// the whole conversations keep them apart.
const DefaultDedupThreshold = 0.7

const (
	// shingleWords is the shingle length. Three words is the usual choice
	// for near-duplicate text: single words match any two texts on the same
	// topic, and longer runs let one edited word break too many shingles.
	// appendShingles is written out for three.
	shingleWords = 3
	// minDedupShingles is how many distinct shingles (about two sentences)
	// both sessions need before they can be judged copies. Below that,
	// equal text is more likely coincidence than copying: many sessions ran
	// "Bash: go test ./...", and collapsing them would hide real results.
	minDedupShingles = 24
	// sketchSize is the number of MinHash values per session. 80 splits
	// into 20 bands of 4 rows, which makes a pair at Jaccard 0.8 a
	// candidate with probability 1-(1-0.8⁴)²⁰ ≈ 0.99997.
	sketchSize = 80
	// maxMissRate is the largest chance of missing a pair at exactly the
	// threshold that the choice of band rows accepts (see lshRows).
	maxMissRate = 1e-3
	// emptyBin marks a sketch bin no shingle hashed into.
	emptyBin = math.MaxUint64
)

// sketch is a one-permutation MinHash: each shingle hash lands in one bin
// (hash mod sketchSize) and each bin keeps its smallest hash. One hash per
// shingle instead of sketchSize keeps sketching thousands of sessions
// cheap; empty bins are filled by rotation (Shrivastava & Li, "Densifying
// One Permutation Hashing via Rotation", ICML 2014), which keeps equal bins
// as likely as the Jaccard similarity.
type sketch [sketchSize]uint64

// collapseDuplicates folds each session that is a copy of a better
// ranked one into it. sessions must be sorted best first; the result
// keeps that order, and each kept session lists the ids it absorbed in
// Similar, best first, why in SimilarWhy, and one "collapsed" factor per
// absorbed session in Factors.
//
// Two tests decide, the second only for pairs that pass the first: the
// matched text of both is alike (the MinHash bands only choose which
// pairs to compare; every pair is confirmed with the exact Jaccard
// similarity of the two shingle sets), and their whole conversations
// are one (conversation.go), which opt.Conversations tells.
//
// The sessions are collapsed twice. The first pass asks only the first
// test, which is all collapsing cost before whole conversations were
// compared: most searches find no pair alike and stop there, and those
// that do learn which sessions to ask opt.Conversations about, all in
// one call. The second pass asks both tests; it meets more pairs than
// the first only when a session the first absorbed is kept, and asks
// for their conversations as it meets them.
func collapseDuplicates(sessions []Session, opt Options) []Session {
	threshold := dedupThreshold(opt.DedupThreshold)
	if threshold > 1 || len(sessions) < 2 {
		return sessions
	}
	d := newDeduper(sessions, threshold)
	absorbedBy := make([]int, len(sessions)) // index+1 of the absorbing session, 0 if kept
	if !d.greedy(absorbedBy, nil) {
		return sessions
	}
	d.fetch = opt.Conversations
	d.learn(d.alikeMembers())
	clear(absorbedBy)
	why := make([]string, len(sessions))
	d.greedy(absorbedBy, why)
	return keepRepresentatives(sessions, absorbedBy, why)
}

// greedy folds, best first, each session not absorbed yet into the best
// session kept that it duplicates: by the matched text alone when why is
// nil, else by the matched text and the whole conversations, with why
// set for each session absorbed. It reports whether any was.
func (d *deduper) greedy(absorbedBy []int, why []string) bool {
	clear(d.checked)
	found := false
	for rep := range d.sessions {
		if absorbedBy[rep] == 0 {
			for _, dup := range d.duplicatesOf(rep, absorbedBy, why) {
				absorbedBy[dup] = rep + 1
				found = true
			}
		}
	}
	return found
}

// dedupThreshold applies the default.
func dedupThreshold(t float64) float64 {
	if t <= 0 || math.IsNaN(t) {
		return DefaultDedupThreshold
	}
	return t
}

// keepRepresentatives drops absorbed sessions and records them, in rank
// order, in the Similar list of the session that absorbed them, with
// why beside them.
func keepRepresentatives(sessions []Session, absorbedBy []int, why []string) []Session {
	kept := sessions[:0:0]
	position := make([]int, len(sessions)) // index in kept of each representative
	for i := range sessions {
		if rep := absorbedBy[i]; rep != 0 {
			k := &kept[position[rep-1]]
			k.Similar = append(k.Similar, sessions[i].ID)
			k.SimilarWhy = append(k.SimilarWhy, why[i])
			// Clipped: the factors may share their array with the
			// session as the caller holds it (Order is given copies).
			k.Factors = append(slices.Clip(k.Factors), collapsedFactor(sessions[i].ID, why[i]))
			continue
		}
		position[i] = len(kept)
		kept = append(kept, sessions[i])
	}
	return kept
}

// pair is two sessions, a ranked better than b.
type pair struct{ a, b int32 }

// deduper holds the sketches, the LSH buckets and the exact shingle sets
// (built only for sessions that turn up as candidates).
type deduper struct {
	sessions  []Session
	threshold float64
	rows      int                // sketch values per band
	sketches  []*sketch          // nil: too little text to judge
	buckets   map[uint64][]int32 // band key → sessions, in rank order
	sets      [][]uint64         // sorted distinct shingle hashes, lazily
	checked   []int              // per session: rep+1 that last compared it
	alike     map[pair]bool      // the first test's answer for each pair it was asked of, lazily
	fetch     func(ids []string) []Conversation
	convs     []shapes // per session, its conversation once known, lazily
}

func newDeduper(sessions []Session, threshold float64) *deduper {
	d := &deduper{
		sessions:  sessions,
		threshold: threshold,
		rows:      lshRows(threshold),
		sketches:  make([]*sketch, len(sessions)),
		buckets:   make(map[uint64][]int32, len(sessions)*sketchSize/lshRows(threshold)),
		sets:      make([][]uint64, len(sessions)),
		checked:   make([]int, len(sessions)),
	}
	d.sketchAll()
	for i := range sessions {
		if d.sketches[i] == nil {
			continue
		}
		for band := range sketchSize / d.rows {
			key := d.bandKey(i, band)
			d.buckets[key] = append(d.buckets[key], int32(i))
		}
	}
	return d
}

// sketchAll sketches every session, on all cores when they hold enough
// messages: workers take one session at a time (parallel.EachOn's runs
// are single sessions for so few), since a search's pool is a few
// sessions of hundreds of matched messages each (a question's 15 hold
// thousands), which parallelFor's ranges of sessions left on one core,
// serial at the end of the search.
func (d *deduper) sketchAll() {
	messages := 0
	for i := range d.sessions {
		messages += len(d.sessions[i].Messages)
	}
	workers := max(min(runtime.GOMAXPROCS(0), messages/minChunk), 1)
	parallel.EachOn(workers, len(d.sessions), func(_, i int) {
		d.sketches[i] = sketchSession(&d.sessions[i])
	})
}

// duplicatesOf returns the sessions ranked below rep, not yet absorbed,
// that duplicate it: whose shingle sets are at least threshold-similar
// to rep's and, unless why is nil, whose whole conversation is rep's
// (then why is set for each).
func (d *deduper) duplicatesOf(rep int, absorbedBy []int, why []string) []int {
	if d.sketches[rep] == nil {
		return nil
	}
	var dups []int
	for band := range sketchSize / d.rows {
		for _, c32 := range d.buckets[d.bandKey(rep, band)] {
			c := int(c32)
			if c <= rep || absorbedBy[c] != 0 || d.checked[c] == rep+1 {
				continue
			}
			d.checked[c] = rep + 1
			if !d.alikeText(rep, c) {
				continue
			}
			if why != nil {
				v := d.compare(rep, c)
				if !v.oneSession() {
					continue
				}
				why[c] = v.String()
			}
			dups = append(dups, c)
		}
	}
	slices.Sort(dups)
	return dups
}

// alikeText is similar, asked once per pair.
func (d *deduper) alikeText(a, b int) bool {
	p := pair{int32(a), int32(b)}
	ok, asked := d.alike[p]
	if !asked {
		ok = d.similar(a, b)
		if d.alike == nil {
			d.alike = map[pair]bool{}
		}
		d.alike[p] = ok
	}
	return ok
}

// alikeMembers returns the sessions of the pairs found alike so far,
// once each, in rank order.
func (d *deduper) alikeMembers() []int {
	var out []int
	for p, ok := range d.alike {
		if ok {
			out = append(out, int(p.a), int(p.b))
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// learn gets the conversations of the sessions of need not known yet,
// in one call of fetch.
func (d *deduper) learn(need []int) {
	if d.convs == nil {
		d.convs = make([]shapes, len(d.sessions))
	}
	need = slices.DeleteFunc(slices.Clone(need), func(i int) bool { return d.convs[i] != nil })
	if len(need) == 0 {
		return
	}
	got := conversationsOf(d.sessions, need, d.fetch)
	for _, i := range need {
		d.convs[i] = got[i]
	}
}

// compare compares the whole conversations of sessions a and b.
func (d *deduper) compare(a, b int) sameness {
	d.learn([]int{a, b})
	return compareConversations(d.convs[a], d.convs[b])
}

// similar confirms a candidate pair with the exact Jaccard similarity.
func (d *deduper) similar(a, b int) bool {
	sa, sb := d.set(a), d.set(b)
	if len(sa) < minDedupShingles || len(sb) < minDedupShingles {
		return false
	}
	return jaccard(sa, sb) >= d.threshold
}

func (d *deduper) set(i int) []uint64 {
	if d.sets[i] == nil {
		d.sets[i] = shingleSet(&d.sessions[i])
	}
	return d.sets[i]
}

// bandKey hashes one band of a session's sketch, with the band number, so
// that equal values in different bands do not collide.
func (d *deduper) bandKey(i, band int) uint64 {
	key := mix64(uint64(band) + 1)
	for _, v := range d.sketches[i][band*d.rows : (band+1)*d.rows] {
		key = mix64(key ^ v)
	}
	return key
}

// lshRows picks the most rows per band (fewest candidates) that still
// makes a pair at exactly the threshold a candidate with probability at
// least 1-maxMissRate: 4 rows for the default 0.8, fewer for low
// thresholds. A pair is a candidate when any band matches, which with r
// rows in b bands happens with probability 1-(1-J^r)^b.
func lshRows(threshold float64) int {
	for _, rows := range []int{4, 2} {
		bands := float64(sketchSize / rows)
		if math.Pow(1-math.Pow(threshold, float64(rows)), bands) <= maxMissRate {
			return rows
		}
	}
	return 1
}

// sketchSession sketches the matched text of a session, or returns nil if
// it has too few shingles to be judged a copy of anything.
func sketchSession(s *Session) *sketch {
	sk := new(sketch)
	for i := range sk {
		sk[i] = emptyBin
	}
	shingles := 0
	for _, m := range s.Messages {
		shingles += sketchShingles(sk, m.Text)
	}
	if shingles < minDedupShingles { // repeats counted, so this only rules out sure misses
		return nil
	}
	densify(sk)
	return sk
}

// densify fills each empty bin from the next non-empty bin to its right
// (wrapping around), mixed with the distance so that a borrowed value
// differs from the value it was borrowed from. As the paper shows, two
// sets then still agree on a bin with probability equal to their Jaccard
// similarity.
func densify(sk *sketch) {
	orig := *sk
	for i := range sk {
		if orig[i] != emptyBin {
			continue
		}
		for dist := 1; dist < sketchSize; dist++ {
			if v := orig[(i+dist)%sketchSize]; v != emptyBin {
				sk[i] = mix64(v + uint64(dist))
				break
			}
		}
	}
}

// shingleSet returns the sorted distinct shingle hashes of a session's
// matched text.
func shingleSet(s *Session) []uint64 {
	var set []uint64
	for _, m := range s.Messages {
		set = appendShingles(set, m.Text)
	}
	slices.Sort(set)
	return slices.Compact(set)
}

// jaccard is |a∩b| / |a∪b| for sorted sets without repeats.
func jaccard(a, b []uint64) float64 {
	if len(a) == 0 && len(b) == 0 {
		return 1
	}
	common := 0
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			common++
			i++
			j++
		}
	}
	return float64(common) / float64(len(a)+len(b)-common)
}
