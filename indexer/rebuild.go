package indexer

import (
	"errors"
	"fmt"

	"github.com/recall-dev/recall/store/manifest"

	"github.com/recall-dev/recall/store"
	"github.com/recall-dev/recall/transcript"
)

// ErrRebuildDrops is returned by Rebuild when it would drop rows whose
// transcript no longer exists and the caller did not agree to that.
var ErrRebuildDrops = errors.New("rebuild would drop rows")

// Rebuild starts the index over from the transcripts that still exist. Rows
// whose transcript is gone (Claude Code deletes transcripts after 30 days;
// the index is their only copy) are dropped only with yes; otherwise it
// says what it would drop and changes nothing.
func Rebuild(opts Options, yes bool) (Summary, error) {
	if opts.Warn == nil {
		opts.Warn = func(string) {}
	}
	w, err := store.Open(opts.IndexDir).Warnings(opts.warnErr).WaitLock()
	if err != nil {
		return Summary{}, err
	}
	defer w.Unlock()
	opts = opts.locked(w)
	base, err := loadOrRecover(opts)
	if err != nil {
		return Summary{}, err
	}
	// What was forgotten stays so: a forget not applied yet is applied
	// to the index it would drop rows of, and the transcripts are read
	// again through the tombstone (runWith).
	tomb, err := opts.index().Tombstone()
	if err != nil {
		return Summary{}, err
	}
	if _, err := applyForgotten(opts, base, tomb); err != nil {
		return Summary{}, fmt.Errorf("forget: %w", err)
	}
	if files, rows := goneRows(base); rows > 0 && !yes {
		return Summary{}, fmt.Errorf("%w: %d rows from %d transcripts that no longer exist would be lost; re-run with --yes to drop them", ErrRebuildDrops, rows, files)
	}
	fresh := manifest.New()
	fresh.Seq = base.Seq + 1
	fresh.NextGen = base.NextGen
	fresh.ForgetSerial = base.ForgetSerial
	return runWith(opts, committed(base), fresh, sweep(opts))
}

// goneRows counts rows of transcripts that are no longer on disk.
func goneRows(m *manifest.Manifest) (files int, rows int64) {
	for path, st := range m.Files() {
		if st.Rows == 0 {
			continue
		}
		if _, err := transcript.StatFile(path); err != nil { // a FIFO or device is no transcript either
			files++
			rows += st.Rows
		}
	}
	return files, rows
}
