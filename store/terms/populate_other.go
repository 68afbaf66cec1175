//go:build !linux

package terms

// populate does nothing where MADV_POPULATE_READ does not exist; pages
// fault in as they are read.
func populate(data []byte, off, end uint64) {}
