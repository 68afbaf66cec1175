package search

import (
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/recall-dev/recall/rank"
)

// TestSortHitsOrdersTiesAsSortSlice: hits starting at one place keep the
// order sort.Slice gave them (the same algorithm), so messages list their
// hits as before.
func TestSortHitsOrdersTiesAsSortSlice(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for n := range 300 {
		for range 20 {
			h := make([]rank.Hit, n)
			for i := range h {
				h[i] = rank.Hit{Term: i, Start: r.IntN(1 + n/3)}
			}
			a, b := slices.Clone(h), slices.Clone(h)
			sort.Slice(a, func(i, j int) bool { return a[i].Start < a[j].Start })
			sortHits(b)
			if !slices.Equal(a, b) {
				t.Fatalf("%d hits: sortHits %v, sort.Slice %v", n, b, a)
			}
		}
	}
}
