package rank

import "github.com/recall-dev/recall/internal/parallel"

// minChunk is the least work worth a goroutine: below about this many
// messages or sessions, starting one costs more than it saves.
const minChunk = 256

// parallelFor calls fn on disjoint ranges [lo, hi) that cover [0, n)
// (parallel.Ranges): each index belongs to exactly one call, so fn may
// write its own slots of a shared slice without locks.
func parallelFor(n int, fn func(lo, hi int)) { parallel.Ranges(n, minChunk, fn) }
