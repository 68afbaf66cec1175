package search

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestBestScoresKeepsTheNBest: after any scores in any order, with ties,
// bestScores says a bound is beaten exactly when n scores are known and
// the n-th largest of them all is at least the bound.
func TestBestScoresKeepsTheNBest(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for trial := range 500 {
		n := 1 + r.IntN(6)
		var all []float64
		b := newBestScores(n, nil)
		for range r.IntN(12) {
			x := float64(r.IntN(8)) // few values: many ties
			all = append(all, x)
			b.add(x)
		}
		sorted := slices.SortedFunc(slices.Values(all), func(x, y float64) int { return cmp.Compare(y, x) })
		for bound := -1.0; bound <= 8; bound += 0.5 {
			want := len(sorted) >= n && sorted[n-1] >= bound
			if got := b.beats(bound); got != want {
				t.Fatalf("trial %d: n %d, scores %v, bound %v: beats %v, want %v", trial, n, all, bound, got, want)
			}
		}
		if again := newBestScores(n, all); !slices.Equal(again.scores, b.scores) {
			t.Fatalf("trial %d: built from %v: %v, added one by one: %v", trial, all, again.scores, b.scores)
		}
	}
}
