package search

import (
	"runtime"
	"sync/atomic"
	"testing"
)

// TestParallelEachOnCallsEachIndexOnce: every index is handed to exactly
// one worker, once, and workers are numbered below GOMAXPROCS, for counts
// around the chunk sizes (none, fewer than the workers, not a multiple
// of a chunk).
func TestParallelEachOnCallsEachIndexOnce(t *testing.T) {
	procs := runtime.GOMAXPROCS(0)
	for _, n := range []int{0, 1, 2, 3, 7, 127, 128, 129, 1000, 8173} {
		calls := make([]atomic.Int32, n)
		var badWorker atomic.Bool
		parallelEachOn(n, func(w, i int) {
			if w < 0 || w >= procs {
				badWorker.Store(true)
			}
			calls[i].Add(1)
		})
		if badWorker.Load() {
			t.Fatalf("n=%d: a worker numbered outside [0, %d)", n, procs)
		}
		for i := range calls {
			if c := calls[i].Load(); c != 1 {
				t.Fatalf("n=%d: index %d called %d times", n, i, c)
			}
		}
	}
}
