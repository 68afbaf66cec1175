//go:build !linux

package terms

// populate does nothing where MADV_POPULATE_READ does not exist; pages
// fault in as they are read.
func populate(data []byte, off, end uint64) {}

// release does nothing here: the pages stay mapped until the segment is
// closed.
func release(data []byte, off, end uint64) {}

// mapSmall does nothing here.
func mapSmall(data []byte) {}
