package manifest

import (
	"sync/atomic"
	"testing"
)

// TestReaderDuringCheckpointSeesCommitted: a reader (a search, which
// takes no lock) that opens the checkpoint just before a writer replaces
// it, and reads the journal just after the writer started the new one,
// must not fall back to the old checkpoint alone: that drops every
// journal record committed since it, rows committed before the search
// began. Every state read is at least the last one committed before the
// read started.
func TestReaderDuringCheckpointSeesCommitted(t *testing.T) {
	dir := t.TempDir()
	m := sampleManifest()
	m.Format = FormatVersion
	must(t, Commit(dir, m))
	var committed atomic.Int64
	committed.Store(m.RowsBytes)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 600 {
			w, err := ReadLazy(dir)
			if err != nil {
				t.Error(err)
				return
			}
			w.RowsBytes++
			if i%4 == 3 {
				err = w.checkpoint(dir) // as a full run, a compaction or a journal at its bound does
			} else {
				err = Commit(dir, w)
			}
			if err != nil {
				t.Error(err)
				return
			}
			committed.Store(w.RowsBytes)
		}
	}()
	readers := map[string]func(string) (*Manifest, error){"head": ReadHead, "whole": ReadWhole}
	for stale := 0; ; {
		select {
		case <-done:
			return
		default:
		}
		for name, read := range readers {
			before := committed.Load()
			got, err := read(dir)
			if err != nil {
				t.Errorf("%s reader: %v", name, err)
				<-done // the writer uses dir until it ends
				return
			}
			if got.RowsBytes < before && stale == 0 {
				stale++
				t.Errorf("%s reader got rows %d, but %d were committed before it started: the journal of the checkpoint it opened was dropped", name, got.RowsBytes, before)
			}
		}
	}
}
