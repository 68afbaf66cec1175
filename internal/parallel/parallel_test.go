package parallel

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"testing"
)

// TestEachOnCallsEachIndexOnce: every index is handed to exactly one
// worker, once, and workers are numbered below the count asked for, for
// counts around the run sizes (none, fewer than the workers, not a
// multiple of a run) and for one worker and several.
func TestEachOnCallsEachIndexOnce(t *testing.T) {
	for _, workers := range []int{0, 1, 2, 3, 8} {
		for _, n := range []int{0, 1, 2, 3, 7, 127, 128, 129, 1000, 8173} {
			calls := make([]atomic.Int32, n)
			var badWorker atomic.Bool
			EachOn(workers, n, func(w, i int) {
				if w < 0 || w >= max(workers, 1) {
					badWorker.Store(true)
				}
				calls[i].Add(1)
			})
			if badWorker.Load() {
				t.Fatalf("workers=%d n=%d: a worker numbered outside [0, %d)", workers, n, max(workers, 1))
			}
			for i := range calls {
				if c := calls[i].Load(); c != 1 {
					t.Fatalf("workers=%d n=%d: index %d called %d times", workers, n, i, c)
				}
			}
		}
	}
}

// TestEachCallsEachIndexOnce: Each covers [0, n) once.
func TestEachCallsEachIndexOnce(t *testing.T) {
	for _, n := range []int{0, 1, 5, 4096} {
		calls := make([]atomic.Int32, n)
		Each(n, func(i int) { calls[i].Add(1) })
		for i := range calls {
			if c := calls[i].Load(); c != 1 {
				t.Fatalf("n=%d: index %d called %d times", n, i, c)
			}
		}
	}
}

// caughtPanic runs fn and returns what it panicked with, on this
// goroutine (nil for nothing).
func caughtPanic(fn func()) (v any) {
	defer func() { v = recover() }()
	fn()
	return nil
}

// TestPanicsComeBackToTheCaller: a panic on any worker of a loop comes
// back on the caller's goroutine as a *PanicError holding its value and
// the worker's stack, whether the loop ran on workers or on the caller;
// a Group returns it from Wait; Go hands it to done.
func TestPanicsComeBackToTheCaller(t *testing.T) {
	boom := func(i int) {
		if i == 57 {
			panic("bad row 57")
		}
	}
	for _, tt := range []struct {
		name string
		run  func()
	}{
		{"EachOn, several workers", func() { EachOn(4, 1000, func(_, i int) { boom(i) }) }},
		{"EachOn, one worker", func() { EachOn(1, 100, func(_, i int) { boom(i) }) }},
		{"Each", func() { Each(100, boom) }},
		{"Ranges", func() {
			Ranges(1000, 1, func(lo, hi int) {
				for i := lo; i < hi; i++ {
					boom(i)
				}
			})
		}},
	} {
		v := caughtPanic(tt.run)
		if v == nil {
			t.Errorf("%s: no panic came back", tt.name)
			continue
		}
		msg := fmt.Sprint(v)
		if p, ok := v.(*PanicError); ok {
			msg = p.Error()
			if !strings.Contains(string(p.Stack), "TestPanicsComeBackToTheCaller") {
				t.Errorf("%s: the stack does not reach the worker's function:\n%s", tt.name, p.Stack)
			}
		}
		if !strings.Contains(msg, "bad row 57") {
			t.Errorf("%s: panic %q lost its value", tt.name, msg)
		}
	}

	g := NewGroup(context.Background(), 2)
	for i := range 10 {
		g.Go(func() error { boom(i + 50); return nil })
	}
	var p *PanicError
	if err := g.Wait(); !errors.As(err, &p) || p.Value != "bad row 57" {
		t.Errorf("Group.Wait: %v, want the task's panic as a *PanicError", err)
	}

	done := make(chan error, 1)
	Go(func() error { boom(57); return nil }, func(err error) { done <- err })
	if err := <-done; !errors.As(err, &p) {
		t.Errorf("Go: %v, want the panic as a *PanicError", err)
	}
	Go(func() error { return io.EOF }, func(err error) { done <- err })
	if err := <-done; err != io.EOF {
		t.Errorf("Go: %v, want the function's own error", err)
	}
}

// TestEachOnStopsAfterAPanic: once a worker panics, the others take no
// new run: far fewer than all the indexes are called.
func TestEachOnStopsAfterAPanic(t *testing.T) {
	const n = 1 << 20
	var calls atomic.Int64
	caughtPanic(func() {
		EachOn(2, n, func(_, i int) {
			calls.Add(1)
			if i == 0 {
				panic("first")
			}
		})
	})
	if c := calls.Load(); c > n/2 {
		t.Errorf("%d of %d indexes called after the first panicked", c, n)
	}
}
