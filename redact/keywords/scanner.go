// Package keywords finds every occurrence of a set of keywords in one pass
// over a text: the redactor runs a rule's expression only where one of its
// keywords is.
package keywords

import "fmt"

// Scanner finds every occurrence of every keyword in one pass over the
// text, ASCII case folded, without copying the text: an Aho-Corasick
// automaton compiled to a dense table over byte classes. Only the bytes
// that occur in some keyword get a class of their own; every other byte
// shares class 0, which keeps the table small (a few hundred KiB for
// gitleaks' ~250 keywords) and the inner loop one load per byte.
type Scanner struct {
	*table
	stride int32 // number of classes: a state's row length in next
	// ends lists, per state (index s/stride), the keywords that end there.
	ends    [][]int32
	depth   []int32 // per state: the length of the keyword prefix it stands for
	lens    []int32 // keyword length by keyword id
	longest int
}

// table is the automaton's byte classes and transitions, in one block
// of fixed size: the lanes' loop reaches both from one pointer and needs
// no bounds check (an index masked to the array's length), which keeps
// its four states in registers.
type table struct {
	class [256]uint8
	// next[s+c] is the state after reading a byte of class c in state s,
	// where states are stored premultiplied by stride. A state at which
	// some keyword ends is stored negated minus one, so the hot loop tests
	// one sign bit.
	next [tableSize]int32
}

// tableSize bounds the automaton: states times classes (gitleaks' and
// recall's keywords need about 140,000; New panics past it,
// which every test of the package would show).
const tableSize = 1 << 18

// at is next[s], s a state plus a class: the mask is a no-op for the
// indexes New makes, and spares the bounds check.
func (t *table) at(s int32) int32 { return t.next[uint32(s)&(tableSize-1)] }

// Hit is one keyword occurrence: text[end-len(keyword):end].
type Hit struct {
	Keyword int32
	End     int
}

// New builds the automaton for keywords, which must be lower case
// ASCII and non-empty; their ids are their indexes.
//
// The trie is built in the transition table itself (a state's children
// in its row, by class), then linked and encoded there. A trie of nodes
// with a row each, copied into the table at the end, was 60% of building
// a redactor, which every process that reads a transcript does once
// (redact's BenchmarkNew: 1.40 -> 1.06 ms, half the allocations).
func New(keywords []string) *Scanner {
	p := &Scanner{table: new(table), lens: make([]int32, len(keywords))}
	classes := 1
	for _, k := range keywords {
		for i := 0; i < len(k); i++ {
			c := k[i]
			if p.class[c] != 0 {
				continue
			}
			p.class[c] = uint8(classes)
			if c >= 'a' && c <= 'z' {
				p.class[c-'a'+'A'] = uint8(classes)
			}
			classes++
		}
	}
	p.stride = int32(classes)
	p.depth = []int32{0} // the root
	p.ends = [][]int32{nil}
	p.buildTrie(keywords)
	p.link()
	p.encode()
	return p
}

// row is the offset of state s's row in next.
func (p *Scanner) row(s int32) int32 { return s * p.stride }

// buildTrie adds the keywords' trie to next: next[row(s)+c] is the child
// of state s by class c, 0 for none (no child is the root).
func (p *Scanner) buildTrie(keywords []string) {
	for id, k := range keywords {
		p.lens[id] = int32(len(k))
		p.longest = max(p.longest, len(k))
		s := int32(0)
		for i := 0; i < len(k); i++ {
			at := p.row(s) + int32(p.class[k[i]])
			if p.next[at] == 0 {
				p.next[at] = p.newState(int32(i + 1))
			}
			s = p.next[at]
		}
		p.ends[s] = append(p.ends[s], int32(id))
	}
}

// newState adds a state of the given depth and returns it.
func (p *Scanner) newState(depth int32) int32 {
	s := int32(len(p.depth))
	if int(s+1)*int(p.stride) > tableSize {
		panic(fmt.Sprintf("redact: over %d keyword states of %d classes exceed the prefilter's table of %d", s, p.stride, tableSize))
	}
	p.depth = append(p.depth, depth)
	p.ends = append(p.ends, nil)
	return s
}

// link computes failure links breadth first and turns the trie into the
// automaton's transition function; a state inherits the keywords that end
// at its failure state (the keywords that are suffixes of its path). A
// state's row is completed when the state is taken from the queue, after
// every shallower state's: until then its non-zero entries are its
// children.
func (p *Scanner) link() {
	fail := make([]int32, len(p.depth))
	queue := make([]int32, 0, len(p.depth))
	for c := int32(1); c < p.stride; c++ {
		if t := p.next[c]; t != 0 {
			queue = append(queue, t)
		}
	}
	for i := 0; i < len(queue); i++ {
		s := queue[i]
		f := fail[s]
		p.ends[s] = append(p.ends[s], p.ends[f]...)
		row, frow := p.row(s), p.row(f)
		for c := int32(1); c < p.stride; c++ {
			if t := p.next[row+c]; t != 0 {
				fail[t] = p.next[frow+c]
				queue = append(queue, t)
			} else {
				p.next[row+c] = p.next[frow+c]
			}
		}
	}
}

// encode turns next's states into row offsets, negated minus one where
// a keyword ends.
func (p *Scanner) encode() {
	ending := make([]bool, len(p.ends)) // read per entry: a byte, not a slice header
	for s, e := range p.ends {
		ending[s] = len(e) > 0
	}
	n := int32(len(p.depth)) * p.stride
	for i := int32(0); i < n; i++ {
		t := p.next[i]
		v := p.row(t)
		if ending[t] {
			v = -v - 1
		}
		p.next[i] = v
	}
}

// Lanes is how many parts of a text the automaton reads at once. One
// automaton's walk is a chain of dependent loads (each state is needed
// to find the next); walking four independent parts in one loop lets the
// processor overlap them, which more than doubles the throughput.
const Lanes = 4

// minLane is the shortest part worth a lane of its own.
const minLane = 16

// Scan appends every keyword occurrence in text to hits, each lane's in
// order of their ends; found is working memory for the lanes.
func (p *Scanner) Scan(text string, hits []Hit, found *[Lanes][]Hit) []Hit {
	if len(text) < Lanes*minLane {
		_, hits = p.walk(text, 0, 0, len(text), len(text), hits)
		return hits
	}
	n := len(text) / Lanes
	for l := range found {
		found[l] = found[l][:0]
	}
	st := p.runLanes(text, n, found)
	// Each lane reads on past its part for the keywords that start in it
	// and end in the next; the last lane reads to the end.
	for l := range Lanes - 1 {
		found[l] = p.walkOn(text, st[l], (l+1)*n, found[l])
		hits = append(hits, found[l]...)
	}
	_, found[Lanes-1] = p.walk(text, st[Lanes-1], Lanes*n, len(text), len(text), found[Lanes-1])
	return append(hits, found[Lanes-1]...)
}

// runLanes runs the automaton over the four parts of n bytes that start
// text, appending each lane's keywords to found, and returns the lanes'
// states. The states are four variables, not an array, so that they stay
// in registers: each step's load of the next state then waits only for
// the previous load, not for a store and a load of the stack.
func (p *Scanner) runLanes(text string, n int, found *[Lanes][]Hit) [Lanes]int32 {
	var s0, s1, s2, s3 int32
	for i := 0; ; i++ {
		i, s0, s1, s2, s3 = p.table.run(text, n, i, s0, s1, s2, s3)
		if i >= n {
			return [Lanes]int32{s0, s1, s2, s3}
		}
		if s0 < 0 {
			s0 = -s0 - 1
			found[0] = p.emit(s0, i+1, found[0])
		}
		if s1 < 0 {
			s1 = -s1 - 1
			found[1] = p.emit(s1, n+i+1, found[1])
		}
		if s2 < 0 {
			s2 = -s2 - 1
			found[2] = p.emit(s2, 2*n+i+1, found[2])
		}
		if s3 < 0 {
			s3 = -s3 - 1
			found[3] = p.emit(s3, 3*n+i+1, found[3])
		}
	}
}

// run steps the four lanes from i, in states s0 to s3, until one of them
// ends a keyword (its state below zero) at the i it returns, or to n. A
// function of its own without calls, so that nothing is spilled to the
// stack in the loop.
//
//go:noinline
func (t *table) run(text string, n, i int, s0, s1, s2, s3 int32) (int, int32, int32, int32, int32) {
	t0, t1, t2, t3 := text[:n], text[n:][:n], text[2*n:][:n], text[3*n:][:n]
	for ; i < n; i++ {
		s0 = t.at(s0 + int32(t.class[t0[i]]))
		s1 = t.at(s1 + int32(t.class[t1[i]]))
		s2 = t.at(s2 + int32(t.class[t2[i]]))
		s3 = t.at(s3 + int32(t.class[t3[i]]))
		if s0|s1|s2|s3 < 0 {
			break
		}
	}
	return i, s0, s1, s2, s3
}

// walkOn runs the automaton from state s on from text[from:], appending
// the keywords that start before from, and stops as soon as none can:
// the state stands for the longest keyword prefix that ends the text
// read, so once it is no longer than the bytes read past from, every
// keyword still open started at from or later.
func (p *Scanner) walkOn(text string, s int32, from int, hits []Hit) []Hit {
	t := p.table
	for i := from; i < len(text); i++ {
		if int(p.depth[s/p.stride]) <= i-from {
			break
		}
		s = t.at(s + int32(t.class[text[i]]))
		if s < 0 {
			s = -s - 1
			hits = p.emitBefore(s, i+1, from, hits)
		}
	}
	return hits
}

// walk runs the automaton from state s over text[from:to], appending the
// keywords that start before limit.
func (p *Scanner) walk(text string, s int32, from, to, limit int, hits []Hit) (int32, []Hit) {
	t := p.table
	for i := from; i < to; i++ {
		s = t.at(s + int32(t.class[text[i]]))
		if s < 0 {
			s = -s - 1
			hits = p.emitBefore(s, i+1, limit, hits)
		}
	}
	return s, hits
}

// emit appends the keywords that end at end in state s.
func (p *Scanner) emit(s int32, end int, hits []Hit) []Hit {
	for _, kw := range p.ends[s/p.stride] {
		hits = append(hits, Hit{Keyword: kw, End: end})
	}
	return hits
}

// emitBefore is emit for the keywords that start before limit.
func (p *Scanner) emitBefore(s int32, end, limit int, hits []Hit) []Hit {
	for _, kw := range p.ends[s/p.stride] {
		if end-int(p.lens[kw]) < limit {
			hits = append(hits, Hit{Keyword: kw, End: end})
		}
	}
	return hits
}

// Start is where hit h's keyword begins in the text.
func (p *Scanner) Start(h Hit) int { return h.End - int(p.lens[h.Keyword]) }
