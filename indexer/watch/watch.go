package watch

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/recall-dev/recall/indexer"

	"github.com/recall-dev/recall/store/lockfile"

	"github.com/fsnotify/fsnotify"
)

// Defaults for WatchOptions fields left zero.
const (
	// DefaultDebounce is the quiet time after the last event before a run:
	// long enough to swallow the burst of lines one assistant turn writes.
	DefaultDebounce = 200 * time.Millisecond
	// DefaultMaxDelay bounds how long a continuous stream of events can put
	// a run off.
	DefaultMaxDelay = 2 * time.Second
	// DefaultBackstop is how often everything is rescanned whatever the
	// events said, in case some were lost.
	DefaultBackstop = 5 * time.Minute
)

// Options configures a Watcher.
type Options struct {
	// Options are used for every run, exactly as `recall index` uses them.
	indexer.Options
	Debounce time.Duration // quiet time after the last event; 0 means DefaultDebounce
	MaxDelay time.Duration // longest a burst can delay a run; 0 means DefaultMaxDelay
	Backstop time.Duration // period of full rescans; 0 means DefaultBackstop
	// Log receives one line per run (the run's FormatSummary). nil discards.
	Log func(string)
	// OnError receives failures the watcher survives: a run that failed, a
	// folder it could not watch. nil sends them to Options.Warn.
	OnError func(error)
	// Index runs one incremental pass. nil means Run(Options), the same
	// path as `recall index`; tests put a recording fake here.
	Index func() (indexer.Summary, error)
}

// Watcher keeps an index up to date from filesystem events. It watches every
// transcript root and the folders below it that can hold transcripts
// (fsnotify is not recursive), coalesces bursts of events, and runs the
// ordinary incremental indexer, which stats every transcript and reads only
// new bytes. Events only say when to run, never what to read, so a lost or
// misread event costs latency, not correctness.
type Watcher struct {
	opts  Options
	roots []string
	lock  *lockfile.Lock // the watch lock, held until Close
	fsw   *fsnotify.Watcher
	// events and errs are fsw's channels; tests swap in their own to
	// inject errors or to starve the watcher of events.
	events <-chan fsnotify.Event
	errs   <-chan error
	// dirs are the folders under watch. Only the run goroutine touches it.
	dirs map[string]bool
	// agentPaths are the other agents' watched paths under watch.
	agentPaths map[string]bool
}

// New takes the index's watch lock and prepares a watcher. If
// another watcher holds the lock it returns a *WatchRunningError.
func New(opts Options) (*Watcher, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	lock, err := takeWatchLock(opts.IndexDir)
	if err != nil {
		return nil, err
	}
	fsw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, errors.Join(fmt.Errorf("watch %s: %w", opts.IndexDir, err), lock.Unlock())
	}
	w := &Watcher{
		opts:   opts,
		lock:   lock,
		fsw:    fsw,
		events: fsw.Events,
		errs:   fsw.Errors,
		dirs:   map[string]bool{},

		agentPaths: map[string]bool{},
	}
	for _, r := range opts.Sources {
		w.roots = append(w.roots, filepath.Clean(r))
	}
	w.watchIndexDir()
	return w, nil
}

func (o Options) withDefaults() (Options, error) {
	durations := []struct {
		name string
		d    time.Duration
	}{{"debounce", o.Debounce}, {"max delay", o.MaxDelay}, {"backstop", o.Backstop}}
	for _, f := range durations {
		if f.d < 0 {
			return o, fmt.Errorf("watch: %s %v is negative", f.name, f.d)
		}
	}
	if o.Debounce == 0 {
		o.Debounce = DefaultDebounce
	}
	if o.MaxDelay == 0 {
		o.MaxDelay = DefaultMaxDelay
	}
	if o.Backstop == 0 {
		o.Backstop = DefaultBackstop
	}
	if o.Warn == nil {
		o.Warn = func(string) {}
	}
	if o.Log == nil {
		o.Log = func(string) {}
	}
	if o.OnError == nil {
		warn := o.Warn
		o.OnError = func(err error) { warn(err.Error()) }
	}
	if o.Index == nil {
		indexOpts := o.Options
		o.Index = func() (indexer.Summary, error) { return indexer.Run(indexOpts) }
	}
	return o, nil
}

// Run watches and indexes until ctx is cancelled, then returns nil; it
// returns an error only if fsnotify stops delivering events. A run
// in progress when ctx is cancelled is finished (each run commits at its
// end); changes still waiting for their debounce are left to the next
// indexer, which finds them by stat like any other change. Run releases the
// watcher and its lock when it returns; call it once.
//
// Runs happen on this goroutine, one at a time. Events that arrive during a
// run wait in the kernel queue; if it overflows, the overflow rescan covers
// them.
func (w *Watcher) Run(ctx context.Context) error {
	defer w.Close()
	// Watch before the first run, so nothing written after that run's
	// stat can slip by unseen.
	w.watchRoots()
	if err := w.runIndex("start"); err != nil {
		return err
	}

	// This goroutine owns the debounce timer and the watched-folder set.
	pending := newDebouncer(w.opts.Debounce, w.opts.MaxDelay)
	backstop := time.NewTicker(w.opts.Backstop)
	defer backstop.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-w.events:
			if !ok {
				return fmt.Errorf("watch %s: event stream closed", w.opts.IndexDir)
			}
			// The watch lock's file went away (the index directory
			// deleted): the run after the debounce takes it again
			// (keepWatchLock), once an `rm -rf` is through.
			if w.lockEvent(ev) || w.handle(ev) {
				pending.note(time.Now())
			}
		case err, ok := <-w.errs:
			if !ok {
				return fmt.Errorf("watch %s: error stream closed", w.opts.IndexDir)
			}
			pending.clear()
			if err := w.handleError(err); err != nil {
				return err
			}
		case <-pending.due():
			pending.clear()
			if ctx.Err() == nil {
				if err := w.runIndex("changes"); err != nil {
					return err
				}
			}
		case <-backstop.C:
			pending.clear()
			if err := w.rescan("backstop"); err != nil {
				return err
			}
		}
	}
}

// handleError rescans after any watch error: the kernel dropped events
// (ErrEventOverflow) or may have, and a rescan finds whatever they said.
func (w *Watcher) handleError(err error) error {
	if errors.Is(err, fsnotify.ErrEventOverflow) {
		return w.rescan("event overflow")
	}
	w.opts.OnError(fmt.Errorf("watch: %w", err))
	return w.rescan("watch error")
}

// rescan rewatches every folder, in case events about new ones were lost,
// and runs the indexer.
func (w *Watcher) rescan(why string) error {
	w.watchRoots()
	return w.runIndex(why)
}

// runIndex runs the indexer once. A failed run is reported, not fatal: the
// next event or the backstop tries again, and a watcher that exits on a
// transient error (a full disk) would silently stop indexing.
//
// The watch lock is checked first (keepWatchLock): the only error runIndex
// returns is that another watcher now keeps the index, which ends Run.
func (w *Watcher) runIndex(why string) error {
	if err := w.keepWatchLock(); err != nil {
		return err
	}
	sum, err := w.opts.Index()
	if err != nil {
		w.opts.OnError(fmt.Errorf("index (%s): %w", why, err))
		return nil
	}
	w.opts.Log(why + ": " + indexer.FormatSummary(&sum))
	return nil
}

// Close stops watching and releases the watch lock. Run calls it; call it
// yourself only for a Watcher you never Run.
func (w *Watcher) Close() error {
	var errs []error
	if w.fsw != nil {
		errs = append(errs, w.fsw.Close())
		w.fsw = nil
	}
	if w.lock != nil {
		errs = append(errs, w.lock.Unlock())
		w.lock = nil
	}
	return errors.Join(errs...)
}
