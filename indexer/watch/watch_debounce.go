package watch

import "time"

// debouncer turns a burst of events into one run: it fires once no event
// has come for quiet, but never later than maxDelay after the burst's first
// event, so a session that writes without pause is still indexed every
// maxDelay.
//
// The watcher's run goroutine owns it (it is not safe for concurrent use),
// as litestream's DirectoryMonitor owns its timer: no locks, and a stopped
// timer never delivers a stale tick (Go ≥ 1.23 timer semantics).
type debouncer struct {
	quiet    time.Duration
	maxDelay time.Duration
	timer    *time.Timer
	first    time.Time // first event of the pending burst; zero when idle
}

func newDebouncer(quiet, maxDelay time.Duration) *debouncer {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return &debouncer{quiet: quiet, maxDelay: maxDelay, timer: t}
}

// note records an event at now and moves the deadline.
func (d *debouncer) note(now time.Time) {
	if d.first.IsZero() {
		d.first = now
	}
	wait := min(d.quiet, d.first.Add(d.maxDelay).Sub(now))
	d.timer.Reset(max(wait, 0))
}

// due delivers a tick when the pending burst should be indexed.
func (d *debouncer) due() <-chan time.Time { return d.timer.C }

// clear forgets the pending burst; called when a run starts, since that
// run sees every change made so far.
func (d *debouncer) clear() {
	d.first = time.Time{}
	d.timer.Stop()
}
