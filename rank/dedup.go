package rank

import (
	"math"
	"runtime"
	"slices"

	"github.com/recall-dev/recall/internal/parallel"
)

// DefaultDedupThreshold is the Jaccard similarity of two sessions' matched
// text, as sets of word 3-shingles, at or above which they are collapsed.
// A fork or resumed copy repeats the same messages verbatim: a copy with
// one extra message in ten still scores about 0.9, and a resumed copy that
// adds a full reply of its own (five messages plus a 45-word answer, the
// case the scenario tests hold) about 0.72. Two sessions written
// separately on the same topic share few runs of three words (typically
// well under 0.3), so 0.7 keeps them apart with a wide margin.
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

// collapseDuplicates folds each near-duplicate session into the best ranked
// session it duplicates. sessions must be sorted best first; the result
// keeps that order, and each kept session lists the ids it absorbed in
// Similar, best first.
//
// The MinHash bands only choose which pairs to compare; every collapse is
// confirmed with the exact Jaccard similarity of the two shingle sets.
func collapseDuplicates(sessions []Session, threshold float64) []Session {
	threshold = dedupThreshold(threshold)
	if threshold > 1 || len(sessions) < 2 {
		return sessions
	}
	d := newDeduper(sessions, threshold)
	absorbedBy := make([]int, len(sessions)) // index+1 of the absorbing session, 0 if kept
	for rep := range sessions {
		if absorbedBy[rep] == 0 {
			for _, dup := range d.duplicatesOf(rep, absorbedBy) {
				absorbedBy[dup] = rep + 1
			}
		}
	}
	return keepRepresentatives(sessions, absorbedBy)
}

// dedupThreshold applies the default.
func dedupThreshold(t float64) float64 {
	if t <= 0 || math.IsNaN(t) {
		return DefaultDedupThreshold
	}
	return t
}

// keepRepresentatives drops absorbed sessions and records them, in rank
// order, in the Similar list of the session that absorbed them.
func keepRepresentatives(sessions []Session, absorbedBy []int) []Session {
	kept := sessions[:0:0]
	position := make([]int, len(sessions)) // index in kept of each representative
	for i := range sessions {
		if rep := absorbedBy[i]; rep != 0 {
			at := position[rep-1]
			kept[at].Similar = append(kept[at].Similar, sessions[i].ID)
			continue
		}
		position[i] = len(kept)
		kept = append(kept, sessions[i])
	}
	return kept
}

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
// whose shingle sets are at least threshold-similar to rep's.
func (d *deduper) duplicatesOf(rep int, absorbedBy []int) []int {
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
			if d.similar(rep, c) {
				dups = append(dups, c)
			}
		}
	}
	slices.Sort(dups)
	return dups
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
