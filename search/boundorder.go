package search

import "cmp"

// boundOrder hands out sessions best bound first, sorting only as far as
// they are taken: a question bounds about 8,000 sessions at 1 GB and
// confirms about 50, and sorting them all (pointers compared through a
// closure, on one core between two parallel stages) took about a
// millisecond. The rest wait in a heap, built in linear time; each
// session taken costs a pop. Equal bounds come in the order bounding
// listed the sessions, so the order is one total order whatever the
// algorithm.
type boundOrder struct {
	all    []*sessionBound
	sorted []*sessionBound // taken from the heap, best first
	heap   []boundEntry    // the rest: a max-heap by better
}

// boundEntry is a session in the heap: its bound beside it, so that
// comparisons read no session.
type boundEntry struct {
	bound float64
	at    int32 // its index in all
}

// better reports whether x comes before y: a larger bound, or an equal
// one listed first. A NaN bound comes after every other (cmp.Compare's
// order), as the sort this heap replaced put it, so that one cannot
// break the heap's order for the rest.
func (x boundEntry) better(y boundEntry) bool {
	if c := cmp.Compare(x.bound, y.bound); c != 0 {
		return c > 0
	}
	return x.at < y.at
}

func newBoundOrder(sessions []*sessionBound) *boundOrder {
	h := make([]boundEntry, len(sessions))
	for i, sb := range sessions {
		h[i] = boundEntry{bound: sb.bound, at: int32(i)}
	}
	o := &boundOrder{all: sessions, heap: h, sorted: make([]*sessionBound, 0, min(len(sessions), 256))}
	for i := len(h)/2 - 1; i >= 0; i-- {
		o.down(i)
	}
	return o
}

// len is the number of sessions.
func (o *boundOrder) len() int { return len(o.all) }

// at returns the session of rank i (0 the best bound); i < len.
func (o *boundOrder) at(i int) *sessionBound {
	o.sortTo(i + 1)
	return o.sorted[i]
}

// prefix returns the first n sessions (fewer if there are fewer), best
// first.
func (o *boundOrder) prefix(n int) []*sessionBound {
	o.sortTo(n)
	return o.sorted[:min(n, len(o.sorted))]
}

// sortTo pops the heap until the n best sessions are sorted (or all are).
func (o *boundOrder) sortTo(n int) {
	for len(o.sorted) < n && len(o.heap) > 0 {
		top := o.heap[0]
		last := len(o.heap) - 1
		o.heap[0] = o.heap[last]
		o.heap = o.heap[:last]
		if last > 0 {
			o.down(0)
		}
		o.sorted = append(o.sorted, o.all[top.at])
	}
}

// down moves heap entry i down to its place.
func (o *boundOrder) down(i int) {
	h := o.heap
	n := len(h)
	e := h[i]
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if r := c + 1; r < n && h[r].better(h[c]) {
			c = r
		}
		if !h[c].better(e) {
			break
		}
		h[i] = h[c]
		i = c
	}
	h[i] = e
}
