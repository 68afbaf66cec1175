// Package parallel is recall's one way to run work on several
// goroutines: loops over indexes (Each, EachOn, Ranges) and groups of
// tasks (Group, on errgroup). Every worker recovers a panic: a Group
// returns it as an error; a loop, which has no error to return, raises
// it again on the caller's goroutine once every worker has stopped. A
// panic on a goroutine of its own would end the process whatever the
// caller does; raised on the caller's, the MCP server's per-request
// recover turns it into an error reply and serves the next request.
package parallel

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
	"sync/atomic"

	"golang.org/x/sync/errgroup"
)

// PanicError is a panic recovered on a worker: its value and the
// worker's stack at the panic.
type PanicError struct {
	Value any
	Stack []byte
}

func (p *PanicError) Error() string {
	return fmt.Sprintf("internal error: panic: %v\n%s", p.Value, p.Stack)
}

// Unwrap gives the panic's value when it was an error.
func (p *PanicError) Unwrap() error {
	err, _ := p.Value.(error)
	return err
}

// Recovered turns a recovered value into a *PanicError (nil for none).
// Call it as recover's caller in a deferred function:
//
//	defer func() { err = parallel.Recovered(recover(), err) }()
//
// It keeps err when nothing panicked.
func Recovered(v any, err error) error {
	if v == nil {
		return err
	}
	if p, ok := v.(*PanicError); ok {
		return p // raised again from a worker: keep the worker's stack
	}
	return &PanicError{Value: v, Stack: debug.Stack()}
}

// Go runs fn on a goroutine of its own, its panic recovered into the
// error passed to done (done(nil) when fn returns nil). done runs on
// that goroutine.
func Go(fn func() error, done func(error)) {
	go func() {
		var err error
		defer func() { done(Recovered(recover(), err)) }()
		err = fn()
	}()
}

// Group runs tasks on at most a limit of goroutines (errgroup.Group with
// SetLimit), each task's panic recovered into its error. The first
// error cancels the group's context and is what Wait returns.
type Group struct{ g *errgroup.Group }

// NewGroup returns a group of at most limit goroutines at once (no limit
// when limit < 1) under ctx.
func NewGroup(ctx context.Context, limit int) *Group {
	g, _ := errgroup.WithContext(ctx)
	if limit > 0 {
		g.SetLimit(limit)
	}
	return &Group{g: g}
}

// Go runs fn when a goroutine is free (it blocks until then).
func (g *Group) Go(fn func() error) {
	g.g.Go(func() (err error) {
		defer func() { err = Recovered(recover(), err) }()
		return fn()
	})
}

// Wait waits for every task and returns the first error.
func (g *Group) Wait() error { return g.g.Wait() }

// Each calls fn(i) for every i in [0, n) on all cores.
func Each(n int, fn func(i int)) {
	EachOn(runtime.GOMAXPROCS(0), n, func(_, i int) { fn(i) })
}

// EachOn calls fn(w, i) for every i in [0, n) on at most workers
// goroutines, w being the goroutine's number (below workers), for
// scratch space of its own; with one worker or fewer, on the caller's.
// Workers take the next run of indexes as they finish one, so that a
// core the machine gives less time to, or a run of larger items, does
// not leave the others waiting at the end. Runs are short enough for
// the last to be short (a run is one index when there are fewer than
// chunksPerWorker per worker). A panic in fn stops the workers at their
// next run and is raised again on the caller's goroutine, as a
// *PanicError with the worker's stack.
func EachOn(workers, n int, fn func(w, i int)) {
	workers = min(workers, n)
	if workers <= 1 {
		for i := range n {
			fn(0, i)
		}
		return
	}
	chunk := max(n/(workers*chunksPerWorker), 1)
	var next atomic.Int64
	g := NewGroup(context.Background(), 0)
	for w := range workers {
		g.Go(func() error {
			defer stopOnPanic(&next, n)
			for {
				start := int(next.Add(int64(chunk))) - chunk
				if start >= n {
					return nil
				}
				for i := start; i < min(start+chunk, n); i++ {
					fn(w, i)
				}
			}
		})
	}
	if err := g.Wait(); err != nil {
		panic(err)
	}
}

// stopOnPanic, deferred by a worker of EachOn, moves the index counter
// past n when the worker panics, so that the others stop at their next
// run, and lets the panic go on, with this worker's stack, to the
// group's recover.
func stopOnPanic(next *atomic.Int64, n int) {
	if v := recover(); v != nil {
		next.Store(int64(n))
		panic(Recovered(v, nil))
	}
}

// chunksPerWorker is how many runs of indexes EachOn makes per worker:
// enough for the last to be short, few enough that taking one costs
// nothing against the items.
const chunksPerWorker = 64

// Ranges calls fn on disjoint ranges [lo, hi) that cover [0, n), one per
// goroutine, at most GOMAXPROCS of them and none of fewer than minChunk
// indexes (starting a goroutine costs more than a few items), and
// returns when all are done. Each index belongs to exactly one call, so
// fn may write its own slots of a shared slice without locks, and the
// split does not depend on scheduling. A panic is raised again on the
// caller's goroutine, as in EachOn.
func Ranges(n, minChunk int, fn func(lo, hi int)) {
	workers := min(runtime.GOMAXPROCS(0), (n+minChunk-1)/max(minChunk, 1))
	if workers <= 1 {
		fn(0, n)
		return
	}
	g := NewGroup(context.Background(), 0)
	for w := range workers {
		lo, hi := n*w/workers, n*(w+1)/workers
		g.Go(func() error { fn(lo, hi); return nil })
	}
	if err := g.Wait(); err != nil {
		panic(err)
	}
}
