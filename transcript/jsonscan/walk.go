package jsonscan

// ObjectWalk steps through the members of a JSON object, for loops that
// switch on each key: a callback per member cost more than the switch in
// the walks that run on every line.
//
// A member takes two steps: Key finds its key and where its value
// starts; the caller reads or skips the value and tells Skipped where it
// ends. Next takes both, skipping the value with SkipValue. The walk
// checks the object's braces, colons and commas, and (from
// WalkValidObject) its keys as ValidString does; the values are the
// caller's to check.
type ObjectWalk struct{ walk }

// WalkObject walks the object starting at the first byte at or after
// b[i] that is not space; its keys are found by StringEnd, unchecked.
func WalkObject(b []byte, i int) ObjectWalk {
	return ObjectWalk{walk{b: b, i: i, object: true}}
}

// WalkValidObject is WalkObject that checks each key as ValidString does.
func WalkValidObject(b []byte, i int) ObjectWalk {
	return ObjectWalk{walk{b: b, i: i, object: true, validKeys: true}}
}

// Key returns the next member's raw key (without its quotes, still
// escaped) and the index where its value starts; ok is false at the
// object's end (End) or where it is malformed (Failed).
func (w *ObjectWalk) Key() (key []byte, at int, ok bool) {
	key, at, _, ok = w.advance(false)
	return key, at, ok
}

// Next returns the next member's raw key (as Key) and its raw value,
// skipped by SkipValue.
func (w *ObjectWalk) Next() (key, val []byte, ok bool) {
	key, at, end, ok := w.advance(true) // at, end: 0 when not ok
	return key, w.b[at:end], ok
}

// ArrayWalk steps through the elements of a JSON array: Elem finds where
// the next one starts, and the caller reads or skips it and tells
// Skipped where it ends; Next takes both, skipping it with SkipValue. The
// walk checks the brackets and commas; the elements are the caller's to
// check.
type ArrayWalk struct{ walk }

// WalkArray walks the array starting at the first byte at or after b[i]
// that is not space.
func WalkArray(b []byte, i int) ArrayWalk {
	return ArrayWalk{walk{b: b, i: i}}
}

// Elem returns the index where the next element starts; ok is false at
// the array's end (End) or where it is malformed (Failed).
func (w *ArrayWalk) Elem() (at int, ok bool) {
	_, at, _, ok = w.advance(false)
	return at, ok
}

// Next returns the next element's raw value, skipped by SkipValue.
func (w *ArrayWalk) Next() (val []byte, ok bool) {
	_, at, end, ok := w.advance(true) // at, end: 0 when not ok
	return w.b[at:end], ok
}

// walk is ObjectWalk and ArrayWalk: where they are in their container,
// which they read in one function (advance), one call per member: a call
// more per member (a step, then the skip) cost a few percent of a
// reader's time.
type walk struct {
	b         []byte
	i         int // the next byte to read; after the closing bracket, just past it
	state     walkState
	object    bool // an object's members, else an array's elements
	validKeys bool // keys checked by ValidString, else found by StringEnd
}

type walkState uint8

const (
	beforeOpen walkState = iota // the opening bracket next
	inside                      // a member (after the opening bracket or a value's end) or the end next
	ended                       // past the closing bracket
	failed                      // malformed
)

// advance passes the opening bracket or the comma after a value and, in
// an object, the next member's key and colon; with skip, it skips the
// value too (SkipValue). It returns the key, where the value starts and,
// with skip, where it ends; ok is false at the closing bracket and where
// the container is malformed.
func (w *walk) advance(skip bool) (key []byte, at, end int, ok bool) {
	b := w.b
	i := SkipSpace(b, w.i)
	open, close := byte('['), byte(']')
	if w.object {
		open, close = '{', '}'
	}
	switch w.state {
	case beforeOpen:
		if i >= len(b) || b[i] != open {
			return w.fail()
		}
		w.state = inside
		i = SkipSpace(b, i+1)
		if i < len(b) && b[i] == close {
			return w.end(i)
		}
	case inside:
		if i < len(b) && b[i] == close {
			return w.end(i)
		}
		if i >= len(b) || b[i] != ',' {
			return w.fail()
		}
		i = SkipSpace(b, i+1)
	default:
		return nil, 0, 0, false
	}
	if w.object {
		if i >= len(b) || b[i] != '"' {
			return w.fail()
		}
		kend := w.keyEnd(i)
		if kend < 0 {
			return w.fail()
		}
		key = b[i+1 : kend-1]
		i = SkipSpace(b, kend)
		if i >= len(b) || b[i] != ':' {
			return w.fail()
		}
		i = SkipSpace(b, i+1)
	}
	if i >= len(b) {
		return w.fail()
	}
	if !skip {
		w.i = i
		return key, i, 0, true
	}
	end = SkipValue(b, i)
	if end < 0 {
		return w.fail()
	}
	w.i = end
	return key, i, end, true
}

func (w *walk) keyEnd(i int) int {
	if !w.validKeys {
		return StringEnd(w.b, i)
	}
	end, _, ok := ValidString(w.b, i)
	if !ok {
		return -1
	}
	return end
}

// Skipped tells the walk where the value Key or Elem found ends. An end
// not past the value's start (as -1 from SkipValue, 0 from ValidValue)
// marks it malformed: the walk fails.
func (w *walk) Skipped(end int) {
	if end <= w.i {
		w.fail()
		return
	}
	w.i = end
}

// End returns the index just past the container's closing bracket once
// the walk has reached it; ok is false before, and when the walk failed.
func (w *walk) End() (end int, ok bool) {
	if w.state != ended {
		return 0, false
	}
	return w.i, true
}

// Failed reports whether the walk stopped where the container is
// malformed.
func (w *walk) Failed() bool { return w.state == failed }

func (w *walk) fail() ([]byte, int, int, bool) {
	w.state = failed
	w.i = len(w.b)
	return nil, 0, 0, false
}

func (w *walk) end(close int) ([]byte, int, int, bool) {
	w.state = ended
	w.i = close + 1
	return nil, 0, 0, false
}
