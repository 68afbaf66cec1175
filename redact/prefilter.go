package redact

// prefilter finds every occurrence of every keyword in one pass over the
// text, ASCII case folded, without copying the text: an Aho-Corasick
// automaton compiled to a dense table over byte classes. Only the bytes
// that occur in some keyword get a class of their own; every other byte
// shares class 0, which keeps the table small (a few hundred KiB for
// gitleaks' ~250 keywords) and the inner loop one load per byte.
type prefilter struct {
	class  [256]uint8
	stride int32 // number of classes: a state's row length in next
	// next[s+c] is the state after reading a byte of class c in state s,
	// where states are stored premultiplied by stride. A state at which
	// some keyword ends is stored negated minus one, so the hot loop tests
	// one sign bit.
	next []int32
	// ends lists, per state (index s/stride), the keywords that end there.
	ends    [][]int32
	lens    []int32 // keyword length by keyword id
	longest int
}

// hit is one keyword occurrence: text[end-len(keyword):end].
type hit struct {
	kw  int32
	end int
}

// newPrefilter builds the automaton for keywords, which must be lower case
// ASCII and non-empty; their ids are their indexes.
func newPrefilter(keywords []string) *prefilter {
	p := &prefilter{lens: make([]int32, len(keywords))}
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
	trie := p.buildTrie(keywords)
	p.link(trie)
	p.next = make([]int32, len(trie)*classes)
	p.ends = make([][]int32, len(trie))
	for s, n := range trie {
		p.ends[s] = n.ends
	}
	for s, n := range trie {
		for c, t := range n.child {
			v := t * p.stride
			if len(trie[t].ends) > 0 {
				v = -v - 1
			}
			p.next[s*classes+c] = v
		}
	}
	return p
}

type trieNode struct {
	child []int32 // by class; after link, the full transition function
	fail  int32
	ends  []int32
}

func (p *prefilter) buildTrie(keywords []string) []trieNode {
	trie := []trieNode{{child: make([]int32, p.stride)}}
	for id, k := range keywords {
		p.lens[id] = int32(len(k))
		p.longest = max(p.longest, len(k))
		s := int32(0)
		for i := 0; i < len(k); i++ {
			c := p.class[k[i]]
			if trie[s].child[c] == 0 {
				trie = append(trie, trieNode{child: make([]int32, p.stride)})
				trie[s].child[c] = int32(len(trie) - 1)
			}
			s = trie[s].child[c]
		}
		trie[s].ends = append(trie[s].ends, int32(id))
	}
	return trie
}

// link computes failure links breadth first and turns the trie into the
// automaton's transition function; a state inherits the keywords that end
// at its failure state (the keywords that are suffixes of its path).
func (p *prefilter) link(trie []trieNode) {
	var queue []int32
	for c := 1; c < int(p.stride); c++ {
		if t := trie[0].child[c]; t != 0 {
			queue = append(queue, t)
		}
	}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		n := &trie[s]
		n.ends = append(n.ends, trie[n.fail].ends...)
		for c := 1; c < int(p.stride); c++ {
			if t := n.child[c]; t != 0 {
				trie[t].fail = trie[n.fail].child[c]
				queue = append(queue, t)
			} else {
				n.child[c] = trie[n.fail].child[c]
			}
		}
	}
}

// lanes is how many parts of a text the automaton reads at once. One
// automaton's walk is a chain of dependent loads (each state is needed
// to find the next); walking four independent parts in one loop lets the
// processor overlap them, which more than doubles the throughput.
const lanes = 4

// minLane is the shortest part worth a lane of its own.
const minLane = 64

// scan appends every keyword occurrence in text to hits, each lane's in
// order of their ends; found is working memory for the lanes.
func (p *prefilter) scan(text string, hits []hit, found *[lanes][]hit) []hit {
	if len(text) < lanes*minLane {
		_, hits = p.walk(text, 0, 0, len(text), len(text), hits)
		return hits
	}
	n := len(text) / lanes
	next, class := p.next, &p.class
	var st [lanes]int32
	for l := range found {
		found[l] = found[l][:0]
	}
	for i := 0; i < n; i++ {
		// The lanes read text[l*n+i]; a state below zero ends a keyword.
		st[0] = next[st[0]+int32(class[text[i]])]
		st[1] = next[st[1]+int32(class[text[n+i]])]
		st[2] = next[st[2]+int32(class[text[2*n+i]])]
		st[3] = next[st[3]+int32(class[text[3*n+i]])]
		if st[0]|st[1]|st[2]|st[3] < 0 {
			for l := range lanes {
				if st[l] < 0 {
					st[l] = -st[l] - 1
					found[l] = p.emit(st[l], l*n+i+1, found[l])
				}
			}
		}
	}
	// Each lane reads on past its part for the keywords that start in it
	// and end in the next; the last lane reads to the end.
	for l := range lanes {
		from, to, limit := (l+1)*n, min(len(text), (l+1)*n+p.longest-1), (l+1)*n
		if l == lanes-1 {
			to, limit = len(text), len(text)
		}
		_, found[l] = p.walk(text, st[l], from, to, limit, found[l])
		hits = append(hits, found[l]...)
	}
	return hits
}

// walk runs the automaton from state s over text[from:to], appending the
// keywords that start before limit.
func (p *prefilter) walk(text string, s int32, from, to, limit int, hits []hit) (int32, []hit) {
	next, class := p.next, &p.class
	for i := from; i < to; i++ {
		s = next[s+int32(class[text[i]])]
		if s < 0 {
			s = -s - 1
			hits = p.emitBefore(s, i+1, limit, hits)
		}
	}
	return s, hits
}

// emit appends the keywords that end at end in state s.
func (p *prefilter) emit(s int32, end int, hits []hit) []hit {
	for _, kw := range p.ends[s/p.stride] {
		hits = append(hits, hit{kw: kw, end: end})
	}
	return hits
}

// emitBefore is emit for the keywords that start before limit.
func (p *prefilter) emitBefore(s int32, end, limit int, hits []hit) []hit {
	for _, kw := range p.ends[s/p.stride] {
		if end-int(p.lens[kw]) < limit {
			hits = append(hits, hit{kw: kw, end: end})
		}
	}
	return hits
}
