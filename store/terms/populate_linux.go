package terms

import (
	"os"

	"golang.org/x/sys/unix"
)

// populate maps the pages of data[off:end] in one call (data is a whole
// mapping, so page-aligned). Every search reads every vocabulary whole,
// and one call is cheaper than a page fault per page (on the 1 GB
// benchmark corpus, a common word's query took about 10% less in-process
// time; populating the row tables as well did not pay). Errors are
// ignored: kernels before 5.14 lack MADV_POPULATE_READ, and the pages
// then fault in as before.
func populate(data []byte, off, end uint64) {
	start := off &^ uint64(os.Getpagesize()-1)
	if end <= start || end > uint64(len(data)) {
		return
	}
	_ = unix.Madvise(data[start:end], unix.MADV_POPULATE_READ)
}

// release drops this process's mappings of the whole pages inside
// data[off:end] (MADV_DONTNEED on a shared file mapping): the page cache
// keeps them, and a later read faults them in again. A search reads a
// segment's postings in one burst, and the kernel maps 64 KiB around
// every page it faults in (fault-around), so without this every segment's
// postings stayed in the process's resident set to the end of the search.
func release(data []byte, off, end uint64) {
	page := uint64(os.Getpagesize())
	start := (off + page - 1) &^ (page - 1)
	end = min(end, uint64(len(data))) &^ (page - 1)
	if end <= start {
		return
	}
	_ = unix.Madvise(data[start:end], unix.MADV_DONTNEED)
}

// mapSmall asks the kernel not to map data's page cache in huge pages.
// A segment written a moment ago sits in the page cache in large folios,
// and a search that touches a few of its pages then had whole huge pages
// of it in its resident set: right after a full index of the 1 GB
// benchmark corpus the question peaked at 50.7 MB against 39.3 MB with
// this advice (37.0 MB over a copy of the same index, whose page cache
// was written in small pieces), at the same speed (hyperfine, 15 runs:
// 90.1 against 91.8 ms). Errors are ignored: without the advice the
// search is as correct, only larger.
func mapSmall(data []byte) {
	_ = unix.Madvise(data, unix.MADV_NOHUGEPAGE)
}
