package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"time"

	"github.com/recall-dev/recall/indexer"
	"github.com/recall-dev/recall/internal/problem"
	"github.com/recall-dev/recall/render"
	"golang.org/x/term"
)

// stderrUI writes diagnostics and, on a terminal, a progress line to
// stderr. stdout is for results only.
type stderrUI struct {
	w        io.Writer // stderr
	verbose  bool
	quiet    bool
	tty      bool
	start    time.Time
	last     time.Time
	drawn    bool
	warnings int
}

// progressDelay keeps short runs silent: the bar appears only once a run
// has taken this long.
const progressDelay = time.Second

func newStderrUI(stderr io.Writer, verbose, quiet bool) *stderrUI {
	return &stderrUI{w: stderr, verbose: verbose, quiet: quiet, tty: isTerminal(stderr), start: time.Now()}
}

// isTerminal reports whether w is a terminal: only an *os.File can be.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// indexerMemoryLimit is a soft ceiling for the indexer's heap, and
// indexerGCPercent its garbage collector's pacing. What an indexing run
// keeps live is bounded (a few files ahead, a few blocks in flight, two
// term-index segments being built) but for the message identities and the
// manifest, which grow with the transcripts. The limit keeps the peak RSS
// under 256 MB at any size; under it the default pacing collects half as
// often as pacing at half the live heap, for a few MB more (docs/
// performance.md, "Measurements behind the code": the watcher's heap).
const (
	indexerMemoryLimit = 200 << 20
	indexerGCPercent   = 100
)

// limitIndexerMemory sets the watcher's collector: a long-lived process,
// so its heap follows what it keeps live.
func limitIndexerMemory() {
	debug.SetGCPercent(indexerGCPercent)
	debug.SetMemoryLimit(indexerMemoryLimit)
}

// limitIndexRunMemory sets the collector of one `recall index` run: no
// pacing, only the limit, so it collects when the heap reaches
// indexerMemoryLimit and not each time it doubles. A run ends, so the
// memory it holds is given back when it exits; at 4 GB of transcripts
// the limit bound the default pacing already. Without pacing a full
// index collects a third as often, for half the collector's CPU (docs/
// performance.md, "Measurements behind the code": one index run's heap).
func limitIndexRunMemory() {
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(indexerMemoryLimit)
}

// maxWarnings bounds per-file warnings on stderr; the rest are counted in
// the summary.
const maxWarnings = 20

func (u *stderrUI) warn(msg string) {
	u.warnings++
	if u.warnings > maxWarnings && !u.verbose {
		return
	}
	u.clearLine()
	// Warnings name transcript files and quote what went wrong in them:
	// a file name is as hostile as a transcript's text.
	fmt.Fprintln(u.w, "recall:", render.SafeText(msg))
}

// verboseWarn reports only with -v: a search's own index update stays quiet
// about per-file problems that `recall index` reports.
func (u *stderrUI) verboseWarn(msg string) {
	if u.verbose {
		u.warn(msg)
	}
}

func (u *stderrUI) progress(done, total int, bytes int64) {
	if !u.tty || u.quiet || time.Since(u.start) < progressDelay || time.Since(u.last) < 100*time.Millisecond && done != total {
		return
	}
	u.last = time.Now()
	secs := time.Since(u.start).Seconds()
	fmt.Fprintf(u.w, "\r\x1b[Kindexing %d/%d files  %.0f%%  %.0f MB  %.0f MB/s",
		done, total, 100*float64(done)/float64(max(total, 1)), float64(bytes)/1e6, float64(bytes)/1e6/secs)
	u.drawn = true
}

// rebuilding draws the progress of a rebuild of derived data from the
// rows (indexer.Options.Rebuilding), on a terminal only.
func (u *stderrUI) rebuilding(done, total int) {
	if !u.tty || u.quiet || time.Since(u.start) < progressDelay || time.Since(u.last) < 100*time.Millisecond && done != total {
		return
	}
	u.last = time.Now()
	fmt.Fprintf(u.w, "\r\x1b[Krebuilding derived data from the rows: block %d/%d  %.0f%%",
		done, total, 100*float64(done)/float64(max(total, 1)))
	u.drawn = true
}

// notice says something once, -v or not (unless quiet): what a user
// should hear even from a search, such as a rebuild and its reason.
func (u *stderrUI) notice(msg string) {
	if u.quiet {
		return
	}
	u.clearLine()
	// Warnings name transcript files and quote what went wrong in them:
	// a file name is as hostile as a transcript's text.
	fmt.Fprintln(u.w, "recall:", render.SafeText(msg))
}

// indexOptions wires an indexing run's callbacks to this UI: per-file
// warnings through warn, progress and rebuild progress on a terminal, and
// the once-only notices.
func (u *stderrUI) indexOptions(opts indexer.Options, warn func(string)) indexer.Options {
	opts.Warn, opts.Progress, opts.Rebuilding, opts.Notice = warn, u.progress, u.rebuilding, u.notice
	opts.Wording = problem.ShellWording
	return opts
}

func (u *stderrUI) clearLine() {
	if u.drawn {
		fmt.Fprint(u.w, "\r\x1b[K")
		u.drawn = false
	}
}

func (u *stderrUI) endProgress() {
	if u.warnings > maxWarnings && !u.verbose {
		u.warn(fmt.Sprintf("%d more warnings not shown (use -v)", u.warnings-maxWarnings))
	}
	u.clearLine()
}

// searchFirstGCPercent paces a search's first garbage collection. With
// the default 100 it comes at 4 MB of heap, and a short search runs
// several collections while its heap is still small, each touching
// fresh pages of the runtime's span sets. At 400 the first comes at
// 16 MB; the collector then paces as before from the live heap it finds,
// so peak RSS stays that of the default (docs/performance.md,
// "Measurements behind the code": a search's first collection).
const searchFirstGCPercent = 400

// delayFirstCollection lets a search's heap reach 16 MB before its first
// collection, then restores the previous pacing. When a collection has
// run already (the search's own index update), the live heap may be
// larger, and pacing is left alone.
//
// The count of collections comes from debug.ReadGCStats rather than
// runtime/metrics: linking runtime/metrics costs every start of recall its
// package initialisation (a description per GODEBUG setting).
func delayFirstCollection() {
	var stats debug.GCStats
	debug.ReadGCStats(&stats)
	if stats.NumGC != 0 {
		return
	}
	old := debug.SetGCPercent(searchFirstGCPercent)
	runtime.SetFinalizer(&firstCollection{}, func(*firstCollection) { debug.SetGCPercent(old) })
}

// firstCollection is a heap object whose finalizer runs after the first
// collection; it holds a pointer so that it is not a tiny allocation,
// whose finalizer may never run.
type firstCollection struct{ _ *int }
