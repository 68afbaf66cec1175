package parallel

import (
	"sync/atomic"
	"testing"
)

// TestEachOnCallsEachIndexOnce: every index is handed to exactly one
// worker, once, and workers are numbered below the count asked for, for
// counts around the run sizes (none, fewer than the workers, not a
// multiple of a run) and for one worker and several.
func TestEachOnCallsEachIndexOnce(t *testing.T) {
	for _, workers := range []int{0, 1, 2, 3, 8} {
		for _, n := range []int{0, 1, 2, 3, 7, 127, 128, 129, 1000, 8173} {
			calls := make([]atomic.Int32, n)
			var badWorker atomic.Bool
			EachOn(workers, n, func(w, i int) {
				if w < 0 || w >= max(workers, 1) {
					badWorker.Store(true)
				}
				calls[i].Add(1)
			})
			if badWorker.Load() {
				t.Fatalf("workers=%d n=%d: a worker numbered outside [0, %d)", workers, n, max(workers, 1))
			}
			for i := range calls {
				if c := calls[i].Load(); c != 1 {
					t.Fatalf("workers=%d n=%d: index %d called %d times", workers, n, i, c)
				}
			}
		}
	}
}

// TestEachCallsEachIndexOnce: Each covers [0, n) once.
func TestEachCallsEachIndexOnce(t *testing.T) {
	for _, n := range []int{0, 1, 5, 4096} {
		calls := make([]atomic.Int32, n)
		Each(n, func(i int) { calls[i].Add(1) })
		for i := range calls {
			if c := calls[i].Load(); c != 1 {
				t.Fatalf("n=%d: index %d called %d times", n, i, c)
			}
		}
	}
}
