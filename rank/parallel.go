package rank

import (
	"runtime"
	"sync"
)

// minChunk is the least work worth a goroutine: below about this many
// messages or sessions, starting one costs more than it saves.
const minChunk = 256

// parallelFor calls fn on disjoint ranges [lo, hi) that cover [0, n), on
// up to GOMAXPROCS goroutines, and returns when all are done. Each index
// belongs to exactly one call, so fn may write its own slots of a shared
// slice without locks, and the result does not depend on scheduling.
func parallelFor(n int, fn func(lo, hi int)) {
	workers := min(runtime.GOMAXPROCS(0), (n+minChunk-1)/minChunk)
	if workers <= 1 {
		fn(0, n)
		return
	}
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := n*w/workers, n*(w+1)/workers
		wg.Go(func() { fn(lo, hi) })
	}
	wg.Wait()
}
