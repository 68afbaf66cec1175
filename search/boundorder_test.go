package search

import (
	"cmp"
	"math"
	"math/rand"
	"slices"
	"testing"
)

// TestBoundOrderIsBestBoundFirst takes sessions from boundOrder in steps
// of several sizes and checks them against a full sort by bound, ties in
// the order listed: the lazy heap must give exactly that order, however
// far it is taken.
func TestBoundOrderIsBestBoundFirst(t *testing.T) {
	r := rand.New(rand.NewSource(13))
	for _, tc := range []struct {
		name   string
		n      int
		levels int  // distinct bounds (few: many ties), 0 for any
		nans   bool // every fifth bound NaN: after all others, in listed order
	}{
		{"empty", 0, 0, false},
		{"one", 1, 0, false},
		{"two tied", 2, 1, false},
		{"distinct", 500, 0, false},
		{"ties", 500, 7, false},
		{"all tied", 100, 1, false},
		{"large", 9000, 40, false},
		{"NaN", 300, 5, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sessions := make([]*sessionBound, tc.n)
			for i := range sessions {
				b := r.Float64() * 100
				if tc.levels > 0 {
					b = float64(r.Intn(tc.levels))
				}
				if tc.nans && i%5 == 0 {
					b = math.NaN()
				}
				sessions[i] = &sessionBound{bound: b}
			}
			want := slices.Clone(sessions)
			slices.SortStableFunc(want, func(x, y *sessionBound) int { return cmp.Compare(y.bound, x.bound) })
			for _, step := range []int{1, 3, 64, tc.n + 1} {
				o := newBoundOrder(sessions)
				if o.len() != tc.n {
					t.Fatalf("len %d, want %d", o.len(), tc.n)
				}
				for i := 0; i < tc.n; i += step {
					got := o.prefix(i + step)
					if len(got) != min(i+step, tc.n) {
						t.Fatalf("step %d: prefix(%d) has %d sessions", step, i+step, len(got))
					}
					for j := i; j < len(got); j++ {
						if got[j] != want[j] || o.at(j) != want[j] {
							t.Fatalf("step %d: session %d has bound %v, want the session of bound %v", step, j, got[j].bound, want[j].bound)
						}
					}
				}
			}
		})
	}
}
