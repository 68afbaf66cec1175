package indexer

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/recall-dev/recall/store/manifest"

	"github.com/recall-dev/recall/transcript"
)

// RepairReport says what `recall index --repair` found and did.
type RepairReport struct {
	DamagedBlocks int
	Derived       []string         // derived files that did not read, rebuilt from the rows
	Reread        []string         // transcripts read again from the start
	Lost          map[string]int64 // transcripts gone from disk: rows lost with the damaged blocks
}

// String lists exactly what was repaired and what could not be.
func (r *RepairReport) String() string {
	if r.DamagedBlocks == 0 && len(r.Derived) == 0 {
		return "repair: the index reads whole; nothing to repair"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "repair: %d damaged rows blocks left out, %d derived files rebuilt from the rows, %d transcripts read again",
		r.DamagedBlocks, len(r.Derived), len(r.Reread))
	paths := make([]string, 0, len(r.Lost))
	for p := range r.Lost {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		fmt.Fprintf(&b, "\nrepair: could not recover %d rows of %s: the transcript is gone", r.Lost[p], p)
	}
	return b.String()
}

// repair verifies every part of the index (snapshot.Verify). Transcripts
// that lost rows in damaged blocks and are still on disk get a new
// generation read from the start by the run that follows (their old rows
// are hidden and compacted away); the rows of those that are gone are
// lost, and listed. The index is then compacted without the damaged
// blocks, which also rebuilds every derived file from the rows.
func repair(opts Options, m *manifest.Manifest) (*RepairReport, error) {
	d, err := opts.index().Verify()
	if err != nil {
		return nil, fmt.Errorf("repair: %w", err)
	}
	rep := &RepairReport{DamagedBlocks: len(d.Blocks), Derived: d.Derived, Lost: map[string]int64{}}
	if d.None() {
		return rep, nil
	}
	for path, missing := range d.Affected {
		st := m.File(path)
		if st == nil {
			continue
		}
		if _, err := transcript.StatFile(path); err != nil { // gone, or a FIFO or device now: nothing to read again
			if errors.Is(err, transcript.ErrNotRegular) {
				opts.Warn("repair: skipped " + err.Error())
			}
			rep.Lost[path] = missing
			st.Rows -= missing
			continue
		}
		m.Dead[st.Gen] += st.Rows
		st.Gen, m.NextGen = m.NextGen, m.NextGen+1
		st.Offset, st.Lines, st.Rows, st.Size, st.MtimeNs = 0, 0, 0, 0, 0
		rep.Reread = append(rep.Reread, path)
	}
	sort.Strings(rep.Reread)
	if _, err := opts.writer().CompactRepaired(m); err != nil {
		return nil, fmt.Errorf("repair: compact: %w", err)
	}
	return rep, nil
}
