// Package indexer finds Claude Code transcripts, tails their new lines,
// extracts the human-readable messages and appends them to a compressed,
// crash-safe TSV index. docs/index-format.md describes the files.
package indexer

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/recall-dev/recall/store/snapshot"

	"github.com/recall-dev/recall/store/keys"
	"github.com/recall-dev/recall/store/lockfile"

	"github.com/recall-dev/recall/store/manifest"

	"github.com/recall-dev/recall/internal/parallel"
	"github.com/recall-dev/recall/internal/problem"
	"github.com/recall-dev/recall/record"
	"github.com/recall-dev/recall/store"
	"github.com/recall-dev/recall/store/forget"
	"github.com/recall-dev/recall/transcript"
	"github.com/recall-dev/recall/transcript/agents"

	"github.com/recall-dev/recall/filter"
)

// Options controls one indexing run.
type Options struct {
	Config
	// NoRedact keeps secrets (keys, tokens, passwords) in the rows this run
	// adds (`recall index --no-redact`); by default they are replaced by
	// placeholders as rows are built (package redact).
	NoRedact bool
	// Warn receives diagnostics (unreadable files, bad lines), one line each.
	Warn func(string)
	// Wording says the remedy of damage the run warns of, or fails on,
	// for the front end's reader (package problem); nil: none is said.
	Wording problem.Wording
	// Progress, if set, is called now and then with files done, files to
	// do and bytes read so far.
	Progress func(done, total int, bytes int64)
	// CheckpointBytes is how much input is read between commits; 0 means
	// the default (commitEvery of the run). Crash tests set it small.
	CheckpointBytes int64
	// Repair verifies every part of the index first and repairs what is
	// damaged (`recall index --repair`): see repair.
	Repair bool
	// Notice, if set, receives what a user should hear once even without
	// -v: that the derived data was rebuilt from the rows, and why.
	Notice func(string)
	// Rebuilding, if set, is called now and then with blocks done and
	// blocks to do while derived data is rebuilt from the rows.
	Rebuilding func(done, total int)
	// Quick checks only what Claude Code's signals and folder mtimes say
	// can have changed (see fresh.go), sweeping everything only when the
	// last sweep is older than SweepEvery; without it every transcript is
	// stat'ed (the watcher, hooks, `recall index --sweep`).
	Quick bool
	// SweepEvery bounds the staleness of a quick run; 0 means
	// DefaultSweepEvery.
	SweepEvery time.Duration
	// Clock, if set, replaces time.Now for the quick check (tests).
	Clock func() time.Time

	// w is the index with its writer lock held, set by the run that took
	// the lock: every change to the index goes through it.
	w *store.Writer
}

// index is the index the run reads: through the writer when it holds
// the lock.
func (o Options) index() *store.Index {
	if o.w != nil {
		return o.w.Index
	}
	return store.Open(o.IndexDir)
}

// writer is the index with the writer lock held; only a run that took
// the lock (locked) changes the index.
func (o Options) writer() *store.Writer { return o.w }

// locked is opts with the writer w.
func (o Options) locked(w *store.Writer) Options {
	o.w = w
	return o
}

// Summary reports what a run did.
type Summary struct {
	Files     int   // transcripts found
	FilesRead int   // transcripts with new bytes
	BytesRead int64 // transcript bytes read
	RowsAdded int64
	Excluded  map[string]int64 // messages dropped this run, by reason name
	// otherRows and otherExcluded are other agents' share of RowsAdded
	// and Excluded: the exclusion warnings judge Claude Code's.
	otherRows     int64
	otherExcluded map[string]int64
	// Recovered counts transcripts an earlier recall left out whole as
	// forks or headless runs (for opening with queue-operation, as VS
	// Code and remote sessions do) that this run read.
	Recovered    int
	CurrentFiles int // transcripts of the running session, left for later
	Replaced     int // transcripts re-read because they shrank or were replaced
	Gone         int // transcripts that disappeared this run (their rows are kept)
	BadLines     int64
	Compacted    bool
	// Forgotten counts the rows left out because `recall forget`
	// removed them (a transcript read again, a copy of a forgotten
	// message); KeptOut the transcripts found that a forget keeps out.
	Forgotten int64
	KeptOut   int
	// Rederived says why the derived data (block records, keys, events,
	// term index) was rebuilt from the rows this run, "" if it was not.
	Rederived string
	// Sweep says why every transcript was stat'ed in a run that asked
	// for the quick check ("" when the quick check ran).
	Sweep string
	// Repair is what --repair found and did (nil without --repair).
	Repair  *RepairReport
	Elapsed time.Duration
	// liveDelta is how many transcripts under the sources this run made
	// live (new or back) less those it found gone (plan).
	liveDelta int
}

// checkpointBytes is the least transcript input a run reads between
// manifest commits, so a long first run killed midway keeps most of its
// work: a kill loses at most a few seconds of reading (docs/
// performance.md, "Measurements behind the code": checkpoints).
const checkpointBytes = 1 << 30

// commitsPerRun bounds the commits of a run before its last: a commit
// syncs four files and, for a run that changed thousands of transcripts,
// writes the whole manifest, a cost that grows with the number of
// transcripts. A quarter of the run's input apart, a run commits at most
// four times before its last whatever the corpus size, and one killed
// midway loses at most that quarter. Commits before the last run in the
// background (store.RowsWriter.StartCommit): what they cost is CPU on the other
// core, not a stop of the readers.
const commitsPerRun = 4

// commitEvery is how much input a run of total bytes reads between
// commits: checkpointBytes, or a commitsPerRun-th of the run's input when
// that is more. It depends only on the plan, so the same corpus is cut
// into the same blocks on every run.
func commitEvery(total int64) int64 {
	return max(checkpointBytes, total/commitsPerRun)
}

// Run brings the index up to date, waiting for another indexer to finish
// first. If a hook left a rerun note while it ran, it runs again.
func Run(opts Options) (Summary, error) {
	if opts.Warn == nil {
		opts.Warn = func(string) {}
	}
	ix := store.Open(opts.IndexDir).Warnings(opts.warnErr)
	w, err := ix.TryLock()
	if errors.Is(err, lockfile.ErrLocked) {
		opts.Warn(waitingFor(ix.LockHolder()))
		w, err = ix.WaitLock()
	}
	if err != nil {
		return Summary{}, err
	}
	sum, err := runLocked(opts.locked(w))
	return honourLateRerun(opts, w, sum, err)
}

// waitingFor says whom a run waits for; the holder's pid may be unknown
// (written after the lock is taken, or by another version).
func waitingFor(pid string) string {
	if pid == "" {
		return "waiting for another indexer to finish"
	}
	return fmt.Sprintf("waiting for another indexer (pid %s) to finish", pid)
}

// honourLateRerun releases the lock and then looks for a rerun note once
// more: a hook that found the lock held just before the release left one
// that the loop in runLocked did not see. If another process takes the
// lock first, the note is its to honour.
func honourLateRerun(opts Options, w *store.Writer, sum Summary, err error) (Summary, error) {
	if uerr := w.Unlock(); err == nil && uerr != nil {
		err = uerr
	}
	if err != nil || !w.RerunRequested() {
		return sum, err
	}
	w2, lerr := w.TryLock()
	if lerr != nil {
		return sum, nil
	}
	more, err := runLocked(opts.locked(w2))
	sum.merge(more)
	sum.Elapsed += more.Elapsed
	return honourLateRerun(opts, w2, sum, err)
}

// Update brings the index up to date unless another indexer holds the lock,
// in which case it returns at once with ran false: searches then read the
// last committed index rather than wait.
func Update(opts Options) (sum Summary, ran bool, err error) {
	if opts.Warn == nil {
		opts.Warn = func(string) {}
	}
	w, err := store.Open(opts.IndexDir).Warnings(opts.warnErr).TryLock()
	if errors.Is(err, lockfile.ErrLocked) {
		return Summary{}, false, nil
	}
	if err != nil {
		return Summary{}, false, err
	}
	sum, err = runLocked(opts.locked(w))
	sum, err = honourLateRerun(opts, w, sum, err)
	return sum, true, err
}

// maxReruns bounds how often one process honours rerun notes, so a storm of
// hooks cannot keep it busy forever; the next hook starts a fresh one.
const maxReruns = 3

func runLocked(opts Options) (Summary, error) {
	start := time.Now()
	total := Summary{Excluded: map[string]int64{}}
	for pass := 0; ; pass++ {
		opts.writer().ClearRerun()
		sum, err := runOnce(opts)
		opts.Repair = false // once per Run, not again on reruns
		total.merge(sum)
		if err != nil || pass >= maxReruns || !opts.index().RerunRequested() {
			total.Elapsed = time.Since(start)
			return total, err
		}
	}
}

// runOnce is one pass over the committed index.
func runOnce(opts Options) (Summary, error) {
	var q *quick
	sweepWhy := ""
	if opts.Quick && !opts.Repair {
		if q, sweepWhy = startQuick(opts); q != nil && !q.needManifest && !opts.index().HasStrays() {
			q.finishNoChange()
			return Summary{Excluded: map[string]int64{}, Files: q.prev.Files}, nil
		}
	}
	m, rep, why, builtUnder, err := openForRun(opts, q != nil)
	if err != nil {
		return Summary{Excluded: map[string]int64{}}, err
	}
	first := !opts.index().HasManifest()
	var d discovery
	if q != nil {
		d = q.discover(m)
	} else {
		d = sweep(opts)
		if opts.InProjects {
			d.found = append(d.found, inProjects(m, d.found)...)
		}
	}
	// The first run under the rules that read every record of a file
	// judges again what earlier rules left out, and reads the titles
	// they did not keep.
	d.upgrade = m.RowsBytes > 0 && builtUnder < tolerantReading
	sum, err := runWith(opts, committed(m), m, d)
	if q != nil && errors.Is(err, manifest.ErrDamaged) {
		// Damage in a part of the checkpoint only the lookups read: the
		// full run reads it whole, finds it and recovers from the rows.
		opts.warnErr(err)
		opts.Quick = false
		return runOnce(opts)
	}
	sum.Rederived, sum.Repair, sum.Sweep = why, rep, sweepWhy
	settle(opts, m, q, d, first, &sum, err)
	if err == nil && sum.Recovered > 0 && opts.Notice != nil {
		opts.Notice(fmt.Sprintf("read %d %s that an earlier recall left out whole for how they opened (a queue-operation record, as VS Code and remote sessions open, taken for a fork or headless run; a line that is not JSON taken for a binary file); forks' copied messages are dropped as copies, headless runs kept and left out of searches unless --include-headless",
			sum.Recovered, pluralS(sum.Recovered, "transcript")))
	}
	return sum, err
}

// pluralS is "1 transcript" or "n transcripts" without the number.
func pluralS(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// openForRun opens the committed index for a run (recovering its manifest
// if need be), checks its rows file is as long as committed, repairs it
// with --repair, and rebuilds derived data built under other rules (why
// says what it rebuilt; builtUnder is the text rules' version the index
// was built under before that).
func openForRun(opts Options, quick bool) (m *manifest.Manifest, rep *RepairReport, why string, builtUnder uint32, err error) {
	if m, err = openOrRecover(opts, quick); err != nil {
		return nil, nil, "", 0, err
	}
	builtUnder = m.Feature
	if err := opts.index().CheckRowsLength(m); err != nil && !opts.Repair {
		return nil, nil, "", 0, problem.Problem{Err: err, Remedy: problem.Repair, Mends: "reads the transcripts of the missing rows again and lists what cannot be recovered"}
	}
	if opts.Repair {
		// Before rederiving: a damaged block stops a plain compaction.
		if rep, err = repair(opts, m); err != nil {
			return nil, nil, "", 0, err
		}
	}
	if why, err = rederive(opts, m); err != nil {
		return nil, nil, "", 0, err
	}
	// A forget or an undo the manifest does not agree with yet (one
	// killed after writing the tombstone) is finished first.
	tomb, err := opts.index().Tombstone()
	if err != nil {
		return nil, nil, "", 0, err
	}
	if tomb, err = migrateForgotten(opts, m, tomb); err != nil {
		return nil, nil, "", 0, fmt.Errorf("forget: %w", err)
	}
	if _, err := applyForgotten(opts, m, tomb); err != nil {
		return nil, nil, "", 0, fmt.Errorf("forget: %w", err)
	}
	return m, rep, why, builtUnder, nil
}

// settle ends a run: after a success it leaves the key index and the
// freshness state for the runs to come; after a failure it discards
// whatever was written past the last commit (not on a full disk, not in
// what zstdcat prints, not rows without a manifest).
func settle(opts Options, m *manifest.Manifest, q *quick, d discovery, first bool, sum *Summary, err error) {
	if err == nil {
		if q == nil {
			opts.writer().EnsureKeyIndex(m) // for the small runs to come
		}
		keepFresh(opts, m, q, d.sweep, d.found, sum.liveDelta)
		if q != nil {
			sum.Files = liveFiles(m, opts.Roots(), q.prev.Files+sum.liveDelta)
		}
		return
	}
	if derr := opts.writer().Abandon(first); derr != nil {
		opts.Warn(derr.Error())
	}
}

// rederive rebuilds derived data that other rules or an older format built
// (store.Writer.Rederive), from the rows, and says so once.
func rederive(opts Options, m *manifest.Manifest) (string, error) {
	why, err := opts.writer().Rederive(m, opts.Rebuilding)
	if errors.Is(err, snapshot.ErrBlockDamaged) {
		return why, problem.Problem{Err: err, Remedy: problem.Repair, Mends: "reads the transcripts of the damaged rows again and rebuilds the rest"}
	}
	if why != "" && err == nil && opts.Notice != nil {
		opts.Notice(fmt.Sprintf("rebuilt the block records, keys, recall events and term index from the rows (%d blocks): %s", m.BlockCount(), why))
	}
	return why, err
}

// loadOrRecover is openOrRecover with every manifest entry read.
func loadOrRecover(opts Options) (*manifest.Manifest, error) {
	return openOrRecover(opts, false)
}

// openOrRecover opens the committed index for a run (store.Writer.
// OpenRun), recovering a missing or damaged manifest from the data files
// instead of starting over: the rows may be the only copy of transcripts
// that are gone.
func openOrRecover(opts Options, quick bool) (*manifest.Manifest, error) {
	m, damaged, err := opts.writer().OpenRun(quick)
	if err != nil || damaged == nil {
		return m, err
	}
	err = damaged.Err
	opts.warnErr(err)
	tomb, terr := opts.index().Tombstone()
	if terr != nil {
		// Recovery waits for the tombstone: its remedy comes first.
		return nil, problem.Problem{Err: fmt.Errorf("%w; %w", err, terr), Remedy: problem.RestoreTombstone}
	}
	complete := func(rm *manifest.Manifest) {
		keepRowless(rm, damaged.LastRead)
		keepOutForgotten(rm, tomb.Filter())
		completeRecovered(rm, opts.Warn)
	}
	m, rec, rerr := opts.writer().Recover(damaged.Known, complete)
	if rerr != nil {
		// The run that would mend err failed: its remedy no longer holds.
		return nil, problem.Problem{Err: fmt.Errorf("%w; recovering it failed: %w (nothing was deleted)", err, rerr), Remedy: problem.None}
	}
	switch {
	case rec.Empty():
		// A first run stopped before its first commit (a signal, a
		// killed hook): nothing was kept or lost, so only -v says it.
		opts.Warn(rec.Say(opts.wording()))
	case opts.Notice != nil:
		opts.Notice(rec.Say(opts.wording()))
	}
	return m, nil
}

// keepRowless keeps, in a manifest recovered from the rows, the entries
// of last (the manifest as far as its journal reads, nil if none) whose
// transcripts left no rows: forgotten, fork, binary, or read without a
// row to keep. Rows cannot say them; recovered without them, a forgotten
// transcript still on disk would be indexed again. A torn or missing
// journal beside data past it sends a run here with a manifest that
// otherwise reads.
func keepRowless(rm, last *manifest.Manifest) {
	if last == nil {
		return
	}
	rm.NextGen = max(rm.NextGen, last.NextGen)
	for path, st := range last.Files() {
		if rm.File(path) != nil || st.Rows > 0 && st.Verdict == record.VerdictIndexed {
			continue
		}
		kept := *st
		rm.SetFile(path, &kept)
		rm.NextGen = max(rm.NextGen, st.Gen+1)
	}
}

// keepOutForgotten drops from a recovered manifest the entries of the
// transcripts a forget keeps out (keepRowless keeps entries without rows,
// as those of a forgotten session were in an older manifest).
func keepOutForgotten(rm *manifest.Manifest, f *forget.Filter) {
	for path, st := range rm.Files() {
		if s, ok := f.Sealed(path); ok && s.Offset < 0 || f.WholeRule(st.Session, st.Project) != nil {
			rm.RemoveFile(path)
		}
	}
}

// completeRecovered fills what rows cannot tell of each recovered
// transcript: how far its lines were consumed. A transcript still on disk
// continues after its last indexed line (later lines that gave no rows are
// read again, and give none again); one that is gone is marked gone, as
// is a path that now holds a FIFO, socket or device (never opened: a FIFO
// would wait for a writer), which warn reports.
func completeRecovered(m *manifest.Manifest, warn func(string)) {
	for _, st := range m.Files() {
		if st.Offset >= 0 {
			continue
		}
		fs, err := transcript.StatFile(st.Path)
		if err != nil {
			if errors.Is(err, transcript.ErrNotRegular) {
				warn("recovery: skipped " + err.Error() + "; its rows are kept as those of a deleted transcript")
			}
			st.Offset, st.Gone = 0, true
			continue
		}
		off, found, err := transcript.LineOffset(st.Path, st.Lines)
		if err != nil {
			off, found = 0, 0
		}
		st.Offset, st.Lines = off, found
		st.Dev, st.Ino, st.Size, st.MtimeNs = fs.Dev, fs.Ino, off, 0 // seen as grown: read on from Offset
	}
}

// baseState is what a run needs to remember of the committed manifest it
// started from: which data files it names and whether it holds rows.
type baseState struct {
	Seq       int
	RowsBytes int64
	RowsName  string
}

func committed(m *manifest.Manifest) baseState {
	return baseState{Seq: m.Seq, RowsBytes: m.RowsBytes, RowsName: m.RowsName()}
}

// runWith plans against m, reads in parallel and commits in order. base
// describes the committed manifest; its data files are kept until a
// manifest naming m's files is committed (m.Seq differs from base.Seq on a
// rebuild).
func runWith(opts Options, base baseState, m *manifest.Manifest, d discovery) (Summary, error) {
	sum := Summary{Excluded: map[string]int64{}}
	sum.Files = len(d.found)
	tomb, err := opts.index().Tombstone()
	if err != nil {
		return sum, err // reading transcripts without it would bring back what was forgotten
	}
	d.forget = tomb.Filter()
	work, changed := plan(m, d, opts.Roots(), &sum)
	if err := m.Err(); err != nil {
		return sum, err // a checkpoint chunk looked up is damaged: nothing it said is used
	}
	if len(work) == 0 && !changed && base.RowsBytes > 0 && m.Seq == base.Seq && !m.Legacy() {
		return sum, opts.writer().Tidy(m, d.termsCheck())
	}
	if err := opts.writer().RemoveStrays(base.Seq, m.Seq); err != nil {
		return sum, err
	}
	open := opts.writer().OpenRowsWriter
	if m.Seq != base.Seq {
		open = opts.writer().OpenNewSequence // a rebuild: staged until its first commit
	}
	w, err := open(m)
	if err != nil {
		return sum, err
	}
	if m.Seq != base.Seq {
		w.Replaces(base.RowsName)
	}
	defer w.Close()
	c := &committer{opts: opts, m: m, w: w, sum: &sum, keyIndex: d.sweep != nil, forget: d.forget, tomb: tomb}
	if err := c.run(work); err != nil {
		return sum, err
	}
	w.Close()
	if c.sealed {
		// Transcripts found this run whose every row a forget removes
		// are kept out from now on; a failure costs only their reading
		// again next time.
		if err := opts.writer().WriteTombstone(tomb); err != nil {
			opts.Warn(fmt.Sprintf("forget: %v", err))
		}
	}
	sum.Compacted, err = opts.writer().FinishRun(m, base.Seq, d.termsCheck())
	return sum, err
}

// sweep is the full discovery: every transcript under the sources is
// stat'ed, and any the manifest holds under them that is not found is
// gone.
func sweep(opts Options) discovery {
	sw := startSweep(opts)
	return discovery{
		found:  append(transcript.Discover(opts.Sources, opts.Warn), agents.Discover(opts.Agents, opts.Warn)...),
		isGone: func(path string, seen bool) bool { return !seen && underAny(path, opts.Roots()) },
		sweep:  sw,
		all:    true,
	}
}

// inProjects lists the session files other agents keep in the project
// folders of the sessions the index holds (Aider's chat histories) that
// the sources did not list already. They lie outside every source, so
// none is ever taken for gone: the next sweep looks again.
func inProjects(m *manifest.Manifest, found []transcript.Transcript) []transcript.Transcript {
	seen := map[string]bool{}
	for _, t := range found {
		seen[t.Path] = true
	}
	dirs := map[string]bool{}
	for _, st := range m.Files() {
		if st.Project != "" && filepath.IsAbs(st.Project) {
			dirs[st.Project] = true
		}
	}
	var out []transcript.Transcript
	for _, t := range agents.InProjects(slices.Sorted(maps.Keys(dirs))) {
		if !seen[t.Path] {
			seen[t.Path] = true
			out = append(out, t)
		}
	}
	return out
}

// liveFiles counts the transcripts the manifest holds under the roots
// that are not gone. A manifest that read only the paths a quick run
// looked up gives known, the count kept by the freshness state and
// moved by what this run changed.
func liveFiles(m *manifest.Manifest, roots []string, known int) int {
	if m.Partial() {
		return known
	}
	n := 0
	for _, st := range m.Files() {
		if !st.Gone && underAny(st.Path, roots) {
			n++
		}
	}
	return n
}

// plan compares what is on disk with the manifest. It returns the files
// with new bytes, and whether the manifest changed otherwise (files gone,
// replaced or grown only in ways that need no reading). isGone says which
// manifest entries the discovery shows gone.
//
// It moves sum.liveDelta by the transcripts under roots it makes live
// (new or back) or gone, so a quick run can keep the count of live
// transcripts without reading every manifest entry.
func plan(m *manifest.Manifest, d discovery, roots []string, sum *Summary) ([]planned, bool) {
	changed := false
	seen := make(map[string]bool, len(d.found))
	var work, titles []planned
	for i := range d.found {
		t := &d.found[i]
		again := seen[t.Path]
		seen[t.Path] = true
		st := m.File(t.Path)
		seal, sealed := d.forget.Sealed(t.Path)
		fresh := false
		switch {
		case sealed && seal.Offset < 0, st == nil && d.forget.WholeRule(t.Session, "") != nil,
			st == nil && sealed && t.Stat.Size == seal.Offset:
			// A forget keeps it out (a session forgotten whole is
			// known by its file's name before it is read), or every
			// row of it was forgotten and nothing was added since.
			sum.KeptOut++
			continue
		case st == nil:
			st = newFileState(m, *t)
			fresh, changed = true, true
			if sealed {
				// Every row of its lines so far was forgotten (a time
				// range): read on from there, or from its start if
				// those bytes changed (the reader checks them).
				st.Offset, st.Lines, st.Tail, st.Size = seal.Offset, seal.Lines, seal.Tail, -1
			}
			if underAny(t.Path, roots) {
				sum.liveDelta++
			}
		case replaced(st, t.Stat):
			m.Dead[st.Gen] += st.Rows
			forgotten, wasGone := st.Verdict == record.VerdictForgotten, st.Gone
			st = newFileState(m, *t)
			if forgotten {
				st.Verdict = record.VerdictForgotten // a forgotten transcript stays forgotten
			}
			if wasGone && underAny(t.Path, roots) {
				sum.liveDelta++ // a new file where a gone one was: live again
			}
			sum.Replaced++
			changed = true
		}
		if st.Gone {
			st.Gone, changed = false, true
			if underAny(t.Path, roots) {
				sum.liveDelta++
			}
		}
		if st.Verdict == record.VerdictFork || st.Verdict == record.VerdictBinary && d.upgrade {
			recoverLeftOut(m, st)
			sum.Recovered++
			changed = true
		}
		if d.upgrade && !again && st.Kind == record.KindMain && st.Verdict == record.VerdictIndexed && st.Offset > 0 {
			before := *st // the lines read before, as they were
			titles = append(titles, planned{t: t, st: &before, titles: true})
		}
		if unchanged(st, t.Stat) {
			continue
		}
		if st.Verdict == record.VerdictBinary || st.Verdict == record.VerdictForgotten {
			noteStat(st, t.Stat)
			changed = true
			continue
		}
		p := planned{t: t, st: st, fresh: fresh}
		if again {
			// The same path found twice (overlapping sources): the
			// first read's commit moves st, so this one continues
			// from the state as planned, as a copy.
			snap := *st
			p.st = &snap
		}
		work = append(work, p)
	}
	markGone := func(path string, st *record.FileState) {
		if st != nil && !st.Gone && d.isGone(path, seen[path]) {
			st.Gone = true
			sum.Gone++
			changed = true
			if underAny(path, roots) {
				sum.liveDelta--
			}
		}
	}
	if d.all || m.Partial() && d.gone == nil {
		for path, st := range m.Files() {
			markGone(path, st)
		}
	} else {
		for _, path := range d.gone {
			markGone(path, m.File(path))
		}
	}
	work = oldestFirst(work)
	if len(titles) > 0 {
		work, changed = append(titles, work...), true
	}
	return work, changed
}

// oldestFirst orders what a run reads so that a transcript is read before
// any created after it: first those the index has read before (in path
// order, as found), then the new ones by when they were created. A fork
// or an old-style resumed copy repeats messages of an older transcript,
// and the committer gives a message to the first transcript it reads it
// from: read oldest first, the one that wrote it owns it, whatever their
// names. (A copy that names its origin has it applied first anyway:
// see committer.applyOrigins.) Where the file system keeps no creation time, new
// transcripts keep path order.
func oldestFirst(work []planned) []planned {
	var old, fresh []planned
	for _, p := range work {
		if p.st.Offset > 0 {
			old = append(old, p)
		} else {
			fresh = append(fresh, p)
		}
	}
	if len(fresh) < 2 {
		return work
	}
	// Discovery read most creation times; a stat each for the others,
	// on all cores: a first index has thousands.
	born := make([]int64, len(fresh))
	parallel.Each(len(fresh), func(i int) {
		if born[i] = fresh[i].t.BornNs; born[i] == 0 {
			born[i] = transcript.BirthNs(fresh[i].t.Path)
		}
	})
	order := make([]int, len(fresh))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		return cmp.Or(cmp.Compare(born[a], born[b]), strings.Compare(fresh[a].t.Path, fresh[b].t.Path))
	})
	for _, i := range order {
		old = append(old, fresh[i])
	}
	return old
}

// planned is one transcript a run reads: where discovery found it and
// its manifest entry, from which the reader copies the state to continue
// from. Pointers, not a transcript.Work (over 300 bytes holding strings
// that the discovery and the manifest hold already): the plan of a full
// index at 4 GB was 26 MB the collector marked on every cycle of the run.
// Only the committer changes an entry, and only once the file's read is
// done, so the copy a reader takes is the state as planned.
type planned struct {
	t  *transcript.Transcript
	st *record.FileState
	// titles: read the title records of the lines st consumed
	// (transcript.ReadTitles), a copy of the state before this run.
	titles bool
	// fresh: the manifest had no entry for it before this run.
	fresh bool
}

// plannedBytes is how much input the plan reads at most: what each
// transcript holds past where the last run stopped.
func plannedBytes(work []planned) int64 {
	total := int64(0)
	for _, p := range work {
		total += p.inputBytes()
	}
	return total
}

// inputBytes is what the transcript holds past where the last run
// stopped, as its stat said (the lines before it, to read their titles).
func (p planned) inputBytes() int64 {
	if p.titles {
		return p.st.Offset
	}
	return max(p.t.Stat.Size-p.st.Offset, 0)
}

// aheadBytes is what the file counts in the read-ahead window, which
// bounds the rows its results hold: its bytes to read, weighed by
// transcript.DenseWeight when its format is all text (Aider's history)
// or it is compressed (a .zst rollout), so that a window of them holds
// no more than one of JSONL transcripts (an index of 4 GB with Aider's
// histories peaked at 257 MB, 83 MB of it Aider's rows read ahead).
func (p planned) aheadBytes() int64 {
	if f, ok := agents.FormatOf(p.t.Kind); ok {
		return p.inputBytes() * f.ReadAheadWeight(p.t.Path)
	}
	return p.inputBytes()
}

// work is what a reader hands to transcript.Read.
func (p planned) work(keepSecrets bool) transcript.Work {
	return transcript.Work{T: *p.t, State: *p.st, KeepSecrets: keepSecrets}
}

// tolerantReading is the first text rules' version (textrules.FeatureVersion)
// that judges transcripts by their records, not by their first line:
// before it, a file opening with queue-operation was left out as a fork,
// and one opening with a text line that is not JSON as binary.
const tolerantReading = 3

// recoverLeftOut readies a transcript that an earlier recall left out
// whole, for where it opened, to be read from its start: as a fork or
// headless run for a queue-operation record (VS Code and remote sessions
// open so too), or as binary for a first line that is not JSON. It holds
// no row: its generation is kept. Its count among the forks or binaries
// is taken back, so that those only count what they still hold.
func recoverLeftOut(m *manifest.Manifest, st *record.FileState) {
	reason := filter.Fork
	if st.Verdict == record.VerdictBinary {
		reason = filter.Binary
	}
	st.Verdict = record.VerdictIndexed
	st.Offset, st.Lines, st.Tail = 0, 0, record.Fingerprint{}
	st.Size, st.MtimeNs = -1, 0 // changed, whatever the stat says
	if n := m.Excluded[reason.String()]; n > 1 {
		m.Excluded[reason.String()] = n - 1
	} else {
		delete(m.Excluded, reason.String())
	}
}

func newFileState(m *manifest.Manifest, t transcript.Transcript) *record.FileState {
	st := &record.FileState{Path: t.Path, Gen: m.NextGen, Session: t.Session, Kind: t.Kind, Agent: t.Agent, Verdict: record.VerdictIndexed}
	m.NextGen++
	m.SetFile(t.Path, st)
	return st
}

// replaced reports a transcript that is no longer the file we read: another
// inode, or shorter than what we consumed.
func replaced(st *record.FileState, fs transcript.FileStat) bool {
	if st.Ino != 0 && (fs.Dev != st.Dev || fs.Ino != st.Ino) {
		return true
	}
	if f, ok := agents.FormatOf(st.Kind); ok && f.ReadsWhole(st.Path) {
		return false // its offset is the format's cursor (a database's last change), not bytes
	}
	return fs.Size < st.Offset
}

func unchanged(st *record.FileState, fs transcript.FileStat) bool {
	return st.Size == fs.Size && st.MtimeNs == fs.MtimeNs && st.Ino != 0
}

func noteStat(st *record.FileState, fs transcript.FileStat) {
	st.Dev, st.Ino, st.Size, st.MtimeNs = fs.Dev, fs.Ino, fs.Size, fs.MtimeNs
}

func underAny(path string, roots []string) bool {
	for _, r := range roots {
		// Not HasPrefix(path, r+"/"): that concatenation, once per
		// manifest entry, was a tenth of an append's commit.
		if len(path) > len(r) && path[len(r)] == filepath.Separator && strings.HasPrefix(path, r) {
			return true
		}
	}
	return false
}

// committer applies read results to the index in file order.
type committer struct {
	opts Options
	m    *manifest.Manifest
	w    *store.RowsWriter
	sum  *Summary
	// forget holds the rules of `recall forget` in force (nil: none),
	// from tomb; sealed says the committer kept out, in tomb, a
	// transcript found this run that they empty.
	forget *forget.Filter
	tomb   *forget.Tombstone
	sealed bool
	cur    *planned  // the transcript being applied
	keys   *keys.Set // row key → generation, loaded on first need
	// genSessions maps generations to their sessions, built the first
	// time a summary title names a message of another transcript.
	genSessions map[uint32]string
	sinceCheck  int64
	every       int64 // input between commits (commitEvery of the plan)
	// keyIndex: the run is a sweep, which leaves the key index current
	// for the small runs to come (store.Writer.EnsureKeyIndex, which then finds
	// it done); its last commit prepares it.
	keyIndex bool
	// work is the run's plan; pending holds, per session, the plan
	// indexes of its main transcripts not applied yet, and early marks
	// those applied before their turn: a transcript whose messages say
	// they were copied from another session (Extracted.From) has that
	// session's transcripts applied first (applyOrigins), so the
	// transcript a message was written in owns it whichever of the two
	// the plan put first (creation times say nothing once files were
	// copied, restored or checked out) and whatever commits fall between.
	work    []planned
	reads   *reads
	pending map[string][]int
	early   []earliness
	earlyBr *bufio.Reader // reads the transcripts applied early
}

// earliness says whether, and how, a transcript was applied before its
// turn: from its reader's result, or read by the committer (its reader
// then skips it, and its turn takes the empty result).
type earliness uint8

const (
	onTurn earliness = iota
	earlyFromReader
	earlyReadHere
)

func (c *committer) run(work []planned) error {
	c.every = commitEvery(plannedBytes(work))
	reads := startReads(work, c.opts)
	defer reads.stop()
	c.work, c.reads, c.pending, c.early = work, reads, pendingMains(work), make([]earliness, len(work))
	for i := range work {
		switch c.early[i] {
		case earlyFromReader:
			reads.release(i) // its result was taken and applied before its turn
		case earlyReadHere:
			reads.take(i) // its reader skipped it
		default:
			res := reads.take(i)
			c.unpend(i)
			c.cur = &work[i]
			if err := c.apply(&res); err != nil {
				return err
			}
			reads.recycle(res.Rows)
		}
		if c.opts.Progress != nil {
			c.opts.Progress(i+1, len(work), c.sum.BytesRead)
		}
		if c.sinceCheck >= c.checkpointEvery() {
			if err := c.commit(false); err != nil {
				return err
			}
		}
	}
	return c.commit(true)
}

// pendingMains lists the main transcripts work reads, by session.
func pendingMains(work []planned) map[string][]int {
	out := map[string][]int{}
	for i, p := range work {
		if !p.titles && p.t.Kind == record.KindMain && p.t.Session != "" {
			out[p.t.Session] = append(out[p.t.Session], i)
		}
	}
	return out
}

// unpend takes work[i] off its session's pending list, as it is applied.
func (c *committer) unpend(i int) {
	p := c.work[i]
	if p.titles || p.t.Kind != record.KindMain {
		return
	}
	left := slices.DeleteFunc(c.pending[p.t.Session], func(j int) bool { return j == i })
	if len(left) == 0 {
		delete(c.pending, p.t.Session)
		return
	}
	c.pending[p.t.Session] = left
}

// applyOrigins applies, before the rows of the transcript being applied,
// the transcripts of every session its messages say they were copied
// from that this run has yet to apply: read here, out of turn, and
// skipped at their turn. Their messages are then keyed, and the copies
// found as copies. A session taken off the pending list first cannot be
// applied twice, whatever names what.
func (c *committer) applyOrigins(rows []transcript.Extracted) error {
	for i := range rows {
		from := rows[i].From
		if from == "" || len(c.pending[from]) == 0 {
			continue
		}
		origins := c.pending[from]
		delete(c.pending, from)
		for _, j := range origins {
			if err := c.applyEarly(j); err != nil {
				return err
			}
		}
	}
	return nil
}

// applyEarly applies work[j] ahead of its turn: its reader's result
// when a reader has taken it, else read here.
func (c *committer) applyEarly(j int) error {
	res, ok := c.reads.early(j)
	if ok {
		c.early[j] = earlyFromReader
	} else {
		c.early[j] = earlyReadHere
		if c.earlyBr == nil {
			c.earlyBr = bufio.NewReaderSize(nil, transcript.ReadBufferSize)
		}
		res = readOne(c.work[j].work(c.opts.NoRedact), false, c.opts.CurrentSession, c.earlyBr)
	}
	cur := c.cur
	c.cur = &c.work[j]
	defer func() { c.cur = cur }()
	if err := c.apply(&res); err != nil {
		return err
	}
	c.reads.recycle(res.Rows)
	return nil
}

func (c *committer) checkpointEvery() int64 {
	if c.opts.CheckpointBytes > 0 {
		return c.opts.CheckpointBytes
	}
	return c.every
}

// reads reads transcripts on all cores ahead of the committer. A file is
// handed to a reader only while the window has room for it (aheadWindow:
// a number of files and of bytes of input being read or waiting for the
// committer), which bounds memory whatever the corpus size. File i's
// result goes to slot i mod maxAheadFiles: when i is handed out, file
// i-maxAheadFiles has been taken, so its slot is free.
type reads struct {
	work  []planned
	slots []chan transcript.Result
	ahead *aheadWindow
	quit  chan struct{}
	// claimed says, per file, who reads it: its reader, or the
	// committer, which may apply a file ahead of its turn (early). The
	// first to claim a file is the only one to look at its state.
	claimed []atomic.Uint32
	// weight is each file's room in the window (planned.aheadBytes),
	// taken from the plan once: a file applied ahead of its turn changes
	// its state before the feeder hands it out, and leaves the window
	// only at its turn, by what it entered with.
	weight []int64
	// free holds row slices the committer is done with, for the readers
	// to extract the next files' rows into (recycle).
	free chan []transcript.Extracted
}

// maxAheadFiles and maxAheadBytes bound what the readers hold ahead of
// the committer, which takes results in file order. The window must be
// wide enough that a reader on a large transcript does not leave the
// other waiting on small files ahead of it, yet bounded in bytes (docs/
// performance.md, "Measurements behind the code": the read-ahead window).
const (
	maxAheadFiles = 34
	maxAheadBytes = 64 << 20
)

// aheadWindow counts the files and input bytes handed to readers and not
// yet taken by the committer. It always lets one file in, whatever its
// size, so that a transcript larger than maxAheadBytes is read alone.
type aheadWindow struct {
	mu    sync.Mutex
	room  *sync.Cond
	files int
	bytes int64
	quit  bool
}

func newAheadWindow() *aheadWindow {
	w := &aheadWindow{}
	w.room = sync.NewCond(&w.mu)
	return w
}

// enter waits until n more bytes fit, then counts them; false once the
// window is closed.
func (w *aheadWindow) enter(n int64) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	for !w.quit && w.files > 0 && (w.files >= maxAheadFiles || w.bytes+n > maxAheadBytes) {
		w.room.Wait()
	}
	if w.quit {
		return false
	}
	w.files++
	w.bytes += n
	return true
}

// leave uncounts a file of n bytes the committer took.
func (w *aheadWindow) leave(n int64) {
	w.mu.Lock()
	w.files--
	w.bytes -= n
	w.mu.Unlock()
	w.room.Signal() // only the feeder waits
}

// close wakes the feeder for good.
func (w *aheadWindow) close() {
	w.mu.Lock()
	w.quit = true
	w.mu.Unlock()
	w.room.Broadcast()
}

func startReads(work []planned, opts Options) *reads {
	r := &reads{
		work:    work,
		claimed: make([]atomic.Uint32, len(work)),
		weight:  make([]int64, len(work)),
		slots:   make([]chan transcript.Result, maxAheadFiles),
		ahead:   newAheadWindow(),
		quit:    make(chan struct{}),
		// A few row slices to reuse are enough: one per reader and a
		// little slack, each of up to maxRecycledRows rows.
		free: make(chan []transcript.Extracted, 2*runtime.GOMAXPROCS(0)+2),
	}
	for i := range r.slots {
		r.slots[i] = make(chan transcript.Result, 1)
	}
	for i := range work {
		r.weight[i] = work[i].aheadBytes()
	}
	next := make(chan int)
	go r.feed(len(work), next)
	for range runtime.GOMAXPROCS(0) {
		go func() {
			br := bufio.NewReaderSize(nil, transcript.ReadBufferSize)
			tail := make([]byte, transcript.TailBytes)
			for i := range next {
				if !r.claimed[i].CompareAndSwap(unclaimed, claimedByReader) {
					r.slots[i%len(r.slots)] <- transcript.Result{} // the committer read it
					continue
				}
				w := work[i].work(opts.NoRedact)
				w.Tail = tail
				select {
				case w.Rows = <-r.free:
				default:
				}
				r.slots[i%len(r.slots)] <- readOne(w, work[i].titles, opts.CurrentSession, br)
			}
		}()
	}
	return r
}

// readOne reads one transcript (its titles only when titles is set). A
// panic while reading it is the file's error, reported like a file that
// cannot be read (its state is not advanced), so one transcript recall
// cannot read never stops the run nor loses the others' rows.
func readOne(w transcript.Work, titles bool, current string, br *bufio.Reader) (res transcript.Result) {
	defer func() {
		if err := parallel.Recovered(recover(), nil); err != nil {
			br.Reset(nil) // its state is the failed read's
			res = transcript.Result{Work: w, Err: fmt.Errorf("read %s: %w", w.T.Path, err)}
		}
	}()
	if titles {
		return transcript.ReadTitles(w, br)
	}
	return readTranscript(w, current, br)
}

// readTranscript reads a session file by its agent's format: Claude
// Code's transcripts by package transcript, the others by theirs.
func readTranscript(w transcript.Work, current string, br *bufio.Reader) transcript.Result {
	if f, ok := agents.FormatOf(w.T.Kind); ok {
		return transcript.ReadFormat(f, w, current, br)
	}
	return transcript.Read(w, current, br)
}

// feed hands out file indexes, each once the window has room for it.
func (r *reads) feed(n int, next chan<- int) {
	defer close(next)
	for i := range n {
		if !r.ahead.enter(r.weight[i]) {
			return
		}
		select {
		case next <- i:
		case <-r.quit:
			return
		}
	}
}

// take waits for file i's result and frees its room in the window.
func (r *reads) take(i int) transcript.Result {
	res := <-r.slots[i%len(r.slots)]
	r.release(i)
	return res
}

// Who reads a file (reads.claimed).
const (
	unclaimed uint32 = iota
	claimedByReader
	claimedByCommitter
)

// early gives file j's result ahead of its turn, waiting for its reader,
// when a reader has claimed it (ok); else it claims the file for the
// committer to read itself, and its reader will skip it. Either way
// the file keeps its room in the window until its turn (release, or
// take of the skipped result): a file handed out past the window could
// otherwise be given the slot of one not taken yet. A reader's file is
// at most maxAheadFiles ahead, so its slot is its own.
func (r *reads) early(j int) (transcript.Result, bool) {
	if r.claimed[j].CompareAndSwap(unclaimed, claimedByCommitter) {
		return transcript.Result{}, false
	}
	return <-r.slots[j%len(r.slots)], true
}

// release frees the room of file i, taken, in the window.
func (r *reads) release(i int) {
	r.ahead.leave(r.weight[i])
}

// maxRecycledRows bounds the row slices kept for reuse, so that the few
// kept hold at most a few MB whatever the largest transcript.
const maxRecycledRows = 4096

// recycle hands a result's rows, applied, to the readers for reuse:
// growing a fresh slice for every file was about a tenth of what a full
// index allocated, and its strings are pointers the collector scans. The
// rows are cleared first, so the slice keeps no text alive.
func (r *reads) recycle(rows []transcript.Extracted) {
	if cap(rows) == 0 || cap(rows) > maxRecycledRows {
		return
	}
	clear(rows)
	select {
	case r.free <- rows[:0]:
	default:
	}
}

// stop lets the feeder end if the committer gave up early; readers finish
// the file they hold (their result channels are buffered) and exit.
func (r *reads) stop() {
	close(r.quit)
	r.ahead.close()
}

func (c *committer) apply(res *transcript.Result) error {
	path := res.Work.T.Path
	if res.Err != nil {
		c.opts.Warn(res.Err.Error())
		return nil
	}
	if res.Current {
		c.sum.CurrentFiles++
		return nil
	}
	if res.Rewritten {
		return c.reread(res)
	}
	if res.TitlesOnly {
		rows, _ := c.dropForgotten(res.Rows)
		return c.addRows(c.m.File(path), rows)
	}
	if res.Warning != "" {
		c.opts.Warn(res.Warning)
		if res.BadLines > 1 {
			c.opts.Warn(fmt.Sprintf("%s: %d more lines skipped", path, res.BadLines-1))
		}
	}
	st := c.m.File(path)
	st.Session, st.Project = res.Session, res.Project
	st.Offset, st.Lines, st.Tail = res.Offset, res.Lines, res.Tail
	noteStat(st, res.Work.T.Stat)
	c.sum.FilesRead++
	c.sum.BytesRead += res.BytesRead
	c.sum.BadLines += int64(res.BadLines)
	c.sinceCheck += res.BytesRead
	c.exclude(st, filter.BadLine, int64(res.BadLines))
	c.exclude(st, filter.TooLong, int64(res.TooLong))
	if res.Binary {
		c.exclude(st, filter.Binary, 1)
		c.opts.Warn(fmt.Sprintf("skipped %s: not JSON text (binary); it is not read again unless replaced", path))
		st.Verdict = record.VerdictBinary
		return nil
	}
	c.count(st, res.Counts)
	rows, rule := c.dropForgotten(res.Rows)
	if err := c.addRows(st, rows); err != nil {
		return err
	}
	c.keepOutIfForgotten(path, st, rule)
	return nil
}

// dropForgotten leaves out the rows a forget removed (a transcript read
// again, a copy of a forgotten message in a fork), counting them, and
// returns the rule of the first it left out. The slice is filtered in
// place.
func (c *committer) dropForgotten(rows []transcript.Extracted) ([]transcript.Extracted, *forget.Rule) {
	if c.forget == nil {
		return rows, nil
	}
	var first *forget.Rule
	kept := rows[:0]
	for i := range rows {
		if r := c.forget.RuleOf(&rows[i].Row); r != nil {
			c.sum.Forgotten++
			if first == nil {
				first = r
			}
			continue
		}
		kept = append(kept, rows[i])
	}
	return kept, first
}

// keepOutIfForgotten keeps out, from the manifest and from the runs to
// come, a transcript first found this run that a forget empties: every
// row it gave was forgotten (a new transcript of a forgotten project,
// one found under a new path, a fork holding only forgotten messages)
// or, resumed from a seal, it gave none. A rule that forgets its
// session and project whole seals it for good; otherwise it is read on
// from where it now ends, when it grows.
func (c *committer) keepOutIfForgotten(path string, st *record.FileState, dropped *forget.Rule) {
	if c.forget == nil || c.cur == nil || !c.cur.fresh || st.Rows > 0 || c.m.File(path) != st {
		return
	}
	seal, rule := c.forget.SealOf(path)
	if dropped == nil && rule == nil {
		return // nothing forgotten in it: an empty transcript is indexed as ever
	}
	next := forget.Seal{Offset: st.Offset, Lines: st.Lines, Tail: st.Tail}
	if whole := c.forget.WholeRule(st.Session, st.Project); whole != nil {
		rule, next = whole, forget.Seal{Offset: -1}
	} else if dropped != nil {
		rule = dropped
	}
	if rule == nil {
		return
	}
	if rule != nil && next != seal {
		c.tomb.SealPath(rule, path, next)
		c.sealed = true
	}
	c.m.RemoveFile(path)
	c.sum.KeptOut++
}

// exclude counts n exclusions for reason, in the run and in the manifest.
func (c *committer) exclude(st *record.FileState, reason filter.Reason, n int64) {
	if n > 0 {
		c.m.Excluded[reason.String()] += n
		c.sum.Excluded[reason.String()] += n
		if agent := record.KindAgent(st.Kind); agent != record.AgentClaude {
			c.m.Excluded[manifest.AgentExcludedKey(agent, reason.String())] += n
			if c.sum.otherExcluded == nil {
				c.sum.otherExcluded = map[string]int64{}
			}
			c.sum.otherExcluded[reason.String()] += n
		}
	}
}

// reread handles a transcript rewritten in place (same inode, the bytes
// consumed before changed): its rows so far become a dead generation, and
// it is read again from the start as a new one.
func (c *committer) reread(res *transcript.Result) error {
	old := c.m.File(res.Work.T.Path)
	c.m.Dead[old.Gen] += old.Rows
	st := newFileState(c.m, res.Work.T)
	c.sum.Replaced++
	again := readTranscript(transcript.Work{T: res.Work.T, State: *st, KeepSecrets: c.opts.NoRedact}, c.opts.CurrentSession,
		bufio.NewReaderSize(nil, transcript.ReadBufferSize))
	if again.Rewritten {
		return fmt.Errorf("read %s: changed while read", res.Work.T.Path)
	}
	return c.apply(&again)
}

func (c *committer) count(st *record.FileState, counts [16]int64) {
	for _, r := range filter.Reasons() {
		c.exclude(st, r, counts[r])
	}
}

// addRows appends a file's rows, dropping messages already indexed from
// another transcript (a fork's copies of its parent). Rows of headless
// runs are kept, and counted: searches leave them out unless asked.
// Summary titles go last, once the messages they may name are keyed.
func (c *committer) addRows(st *record.FileState, rows []transcript.Extracted) error {
	if err := c.applyOrigins(rows); err != nil {
		return err
	}
	var summaries []*transcript.Extracted
	for i := range rows {
		r := &rows[i]
		if r.Leaf != "" {
			summaries = append(summaries, r)
			continue
		}
		if err := c.addRow(st, r); err != nil {
			return err
		}
	}
	for _, r := range summaries {
		if !c.ownSummary(st, r) {
			c.exclude(st, filter.Noise, 1)
			continue
		}
		if err := c.addRow(st, r); err != nil {
			return err
		}
	}
	return nil
}

// ownSummary gives a summary title to the session holding the message
// its leaf names: this transcript's when the reader found the leaf in its
// lines, else another indexed one's, known by the leaf's key under rule
// 0 (the first block of a message keyed by its uuid alone; rows keyed
// since hold their text in the key, which the leaf does not give). It
// reports false when no indexed message is that leaf.
func (c *committer) ownSummary(st *record.FileState, r *transcript.Extracted) bool {
	if r.LeafHere {
		return true
	}
	if c.keys == nil {
		c.keys = c.w.LoadKeys(c.m)
	}
	gen, ok := c.keys.Get(record.LegacyRowKey(r.Leaf, 0))
	if !ok {
		return false
	}
	if gen == st.Gen {
		return true
	}
	if _, dead := c.m.Dead[gen]; dead {
		return false
	}
	if c.genSessions == nil {
		c.genSessions = map[uint32]string{}
		for _, f := range c.m.Files() {
			c.genSessions[f.Gen] = f.Session
		}
	}
	session, ok := c.genSessions[gen]
	if ok {
		r.Session = session
	}
	return ok
}

// addRow appends one row unless it is a copy of one already indexed.
func (c *committer) addRow(st *record.FileState, r *transcript.Extracted) error {
	if r.Key != 0 {
		if c.isCopy(r) {
			if r.Type != record.TypeTitle { // a title kept already is no message dropped
				c.exclude(st, filter.Copy, 1)
			}
			return nil
		}
		c.keys.Put(r.Key, r.Gen)
	}
	if r.Headless() {
		c.exclude(st, filter.Headless, 1)
	}
	r.Ordinal = int(st.Rows) + 1
	if err := c.w.Add(&r.Row, r.Key); err != nil {
		return err
	}
	st.Rows++
	c.sum.RowsAdded++
	if record.KindAgent(st.Kind) != record.AgentClaude {
		c.sum.otherRows++
	}
	return nil
}

// isCopy reports whether the row's message is indexed already, from a
// live generation: the same uuid, block and text (record.MessageKey). An
// index that holds keys of rule 0 is asked for the row's key under that
// rule too: a fork read now of a parent indexed then is a copy (rule 0
// kept no text, so identity alone decides for those).
func (c *committer) isCopy(r *transcript.Extracted) bool {
	if c.keys == nil {
		c.keys = c.w.LoadKeys(c.m)
	}
	if c.indexed(r.Key) {
		return true
	}
	return c.m.KeyRule < record.KeyRule && c.indexed(record.LegacyRowKey(r.UUID, r.Block))
}

// indexed reports whether key was indexed from a live generation.
func (c *committer) indexed(key uint64) bool {
	gen, ok := c.keys.Get(key)
	if !ok {
		return false
	}
	_, dead := c.m.Dead[gen]
	return !dead
}

// commit makes the rows written so far durable, then the manifest; final
// is the run's last commit. A commit before the last runs in the
// background while the readers and the writer go on (store.RowsWriter.StartCommit);
// the last is waited for, and a sweep's key index is read and sorted
// while it is written (keyIndex), then written once it is committed.
func (c *committer) commit(final bool) error {
	c.m.UpdatedNs = time.Now().UnixNano()
	if err := c.w.StartCommit(final); err != nil {
		return err
	}
	c.sinceCheck = 0
	if !final {
		return nil
	}
	// No row is added after the last commit: the copy check's key table
	// (24 MB at 4 GB) is garbage while the key index is sorted.
	c.keys = nil
	var writeKeys func() error
	if c.keyIndex {
		writeKeys = c.opts.writer().PrepareKeyIndex(c.m)
	}
	if err := c.w.WaitCommit(); err != nil {
		return err
	}
	if writeKeys != nil {
		_ = writeKeys() // a failure only costs the next run the build (EnsureKeyIndex)
	}
	return nil
}

func (s *Summary) merge(o Summary) {
	s.Files = o.Files
	s.FilesRead += o.FilesRead
	s.BytesRead += o.BytesRead
	s.RowsAdded += o.RowsAdded
	for k, v := range o.Excluded {
		s.Excluded[k] += v
	}
	s.otherRows += o.otherRows
	for k, v := range o.otherExcluded {
		if s.otherExcluded == nil {
			s.otherExcluded = map[string]int64{}
		}
		s.otherExcluded[k] += v
	}
	s.Recovered += o.Recovered
	s.Forgotten += o.Forgotten
	s.KeptOut += o.KeptOut
	s.CurrentFiles = o.CurrentFiles
	s.Replaced += o.Replaced
	s.Gone += o.Gone
	s.BadLines += o.BadLines
	s.Compacted = s.Compacted || o.Compacted
	if o.Rederived != "" {
		s.Rederived = o.Rederived
	}
	if o.Repair != nil {
		s.Repair = o.Repair
	}
	if o.Sweep != "" {
		s.Sweep = o.Sweep
	}
}

// wording is the front end's Wording, or one that says no remedy.
func (o Options) wording() problem.Wording {
	if o.Wording == nil {
		return func(problem.Problem) string { return "" }
	}
	return o.Wording
}

// warnErr warns of err, the remedy of the damage it is worded for the
// front end's reader.
func (o Options) warnErr(err error) {
	o.Warn(problem.Say(err, o.wording()))
}
