//go:build !amd64

package terms

import "unsafe"

// prefetch does nothing where no prefetch instruction is wired in.
func prefetch(p unsafe.Pointer) {}
