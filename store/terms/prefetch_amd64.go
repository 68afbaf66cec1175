package terms

import "unsafe"

// prefetch asks the CPU to bring the cache line at p in, without waiting
// for it (PREFETCHT0): a load would hold up the instructions after it
// until the line came.
//
//go:noescape
func prefetch(p unsafe.Pointer)
