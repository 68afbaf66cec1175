// Package parallel runs a loop's iterations on several goroutines, each
// index once, handing out runs of indexes as workers finish theirs.
package parallel

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// Each calls fn(i) for every i in [0, n) on all cores.
func Each(n int, fn func(i int)) {
	EachOn(runtime.GOMAXPROCS(0), n, func(_, i int) { fn(i) })
}

// EachOn calls fn(w, i) for every i in [0, n) on at most workers
// goroutines, w being the goroutine's number (below workers), for
// scratch space of its own; with one worker or fewer, on the caller's.
// Workers take the next run of indexes as they finish one, so that a
// core the machine gives less time to, or a run of larger items, does
// not leave the others waiting at the end: with every worker's share
// fixed in advance, a search's stage lasted as long as its slowest
// worker. Runs are short enough for the last to be short (a run is one
// index when there are fewer than chunksPerWorker per worker).
func EachOn(workers, n int, fn func(w, i int)) {
	workers = min(workers, n)
	if workers <= 1 {
		for i := range n {
			fn(0, i)
		}
		return
	}
	chunk := max(n/(workers*chunksPerWorker), 1)
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for {
				start := int(next.Add(int64(chunk))) - chunk
				if start >= n {
					return
				}
				for i := start; i < min(start+chunk, n); i++ {
					fn(w, i)
				}
			}
		})
	}
	wg.Wait()
}

// chunksPerWorker is how many runs of indexes EachOn makes per worker:
// enough for the last to be short, few enough that taking one costs
// nothing against the items (a question's 8,000 sessions make runs of
// 60).
const chunksPerWorker = 64
