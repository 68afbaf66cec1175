package search

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/recall-dev/recall/store/snapshot"

	"github.com/recall-dev/recall/internal/parallel"
	"github.com/recall-dev/recall/internal/problem"
	"github.com/recall-dev/recall/query"
	"github.com/recall-dev/recall/rank"
	"github.com/recall-dev/recall/record"
	"github.com/recall-dev/recall/store/terms"
)

// accel is one accelerated search.
type accel struct {
	snap      *snapshot.Snapshot
	q         *query.Query
	req       *Request
	segs      []*terms.Segment
	rowStarts [][]int
	positive  []*query.Term
	shapes    []query.Shape
	exclude   []query.Shape
	filter    rowFilter
	scan      *scan // the exact matcher, shared with the full scan

	results []segResult // every segment's candidates, once found; candRef points into them
	// events holds the recall events of the sessions in early (eventsEarly
	// marks them, with or without events), read in one pass over the events
	// file while the first sessions are confirmed (eventsReady is closed
	// once events and eventsErr are set); a session read later asks
	// snapshot.Snapshot.SessionEvents.
	events      map[string][]snapshot.Event
	eventsErr   error
	eventsReady chan struct{}
	eventsEarly map[string]bool
	cache       blockCache     // decoded blocks
	workers     []*blockWorker // one per core, kept for the whole search
}

// boundSlack inflates every bound a little, so that a bound computed in
// another order of floating-point operations than the exact score is still
// not below it, and an exact tie is never taken for a win.
const boundSlack = 1 + 1e-9

// errScanCheaper stops an accelerated search whose sessions still to be
// read lie in so many blocks that reading every block once costs less:
// a phrase whose words are common but which itself is rare ("x := 1")
// leaves the bounds of thousands of sessions above every exact score, and
// the decoded-block cache, bounded in memory, decoded the same blocks
// again and again (6,765 block reads of 1,794 at 1 GB, 4× a full scan).
var errScanCheaper = errors.New("scan cheaper")

// readBudgetOf is how many block reads an accelerated search makes before
// it reads every block once instead: half the blocks, so that the switch
// costs at most half a scan more than scanning from the start, and at
// least minReadBudget, so that small indexes, which scan in no time
// anyway, keep ranking from the term index.
func readBudgetOf(blocks int) int { return max(blocks/2, minReadBudget) }

const minReadBudget = 256

// errSegmentDisagrees marks a term segment whose rows are not the rows of
// the blocks it covers: damage its checks did not catch. The search then
// reads the rows, which are the truth.
var errSegmentDisagrees = errors.New("the term index disagrees with the rows")

// runAccelerated answers the request, one the term index serves
// (unservedReason says none is missing), from the term index. It returns
// a nil result when the index cannot answer, with why saying what is
// wrong; the caller then scans.
func runAccelerated(snap *snapshot.Snapshot, q *query.Query, req *Request) (res *Result, why error, err error) {
	segs, why := snap.TermSegments()
	if segs == nil {
		return nil, why, nil // read the rows instead: they are the truth
	}
	rowStarts, sound := rowStartsOf(snap, segs)
	if !sound {
		return nil, problem.Problem{Err: errors.New("a term segment's row count disagrees with the blocks it covers (damaged)"), Remedy: problem.Index, Mends: "rebuilds it"}, nil
	}
	a := &accel{snap: snap, q: q, req: req, segs: segs, rowStarts: rowStarts,
		positive: q.Positive(), filter: newRowFilter(snap, req), scan: newScan(snap, q, req)}
	a.cache.blocks = map[int]*cachedBlock{}
	if err := a.startWorkers(); err != nil {
		return nil, nil, err
	}
	defer a.close()
	for _, t := range a.positive {
		a.shapes = append(a.shapes, t.Shape())
	}
	for _, t := range q.Exclude {
		a.exclude = append(a.exclude, t.Shape())
	}
	results := a.candidatesOf()
	for _, r := range results {
		if r.err != nil {
			return nil, problem.NeedsRepair(r.err, "rebuilds it from the rows"), nil
		}
	}
	if err := a.segmentDamage(); err != nil {
		return nil, problem.NeedsRepair(err, "rebuilds it from the rows"), nil
	}
	res, err = a.rank(results)
	if errors.Is(err, terms.ErrDamaged) {
		return nil, problem.NeedsRepair(err, "rebuilds it from the rows"), nil
	}
	if errors.Is(err, errSegmentDisagrees) {
		return nil, problem.NeedsRepair(fmt.Errorf("%w (damaged)", err), "rebuilds the term index"), nil
	}
	if errors.Is(err, errScanCheaper) {
		return nil, fmt.Errorf("the sessions the term index could not rule out lie in most blocks (%d block reads of %d blocks), so each block is read once instead", a.readsMade(), len(snap.Blocks)), nil
	}
	if errors.Is(err, snapshot.ErrBlockDamaged) {
		// Rank from what is readable: the scan skips the damaged block.
		return nil, problem.NeedsRepair(err, "re-reads it from its transcripts"), nil
	}
	return res, nil, err
}

// segmentDamage returns the first checksum failure a read of a segment
// found (terms.Segment.Err): what was read from it cannot be trusted for
// bounds, so the search reads the rows instead.
func (a *accel) segmentDamage() error {
	for _, seg := range a.segs {
		if err := seg.Err(); err != nil {
			return err
		}
	}
	return nil
}

// candRef names a candidate by its segment and its index in that
// segment's candidates. Lists of them hold no pointers, so the collector
// does not scan them: as []*candidate, a question's 175k candidates in
// two lists each were about a tenth of its CPU in the collector.
type candRef struct{ seg, idx int32 }

// keepRowsOnly drops what bounding needed of every candidate, keeping
// its row and which terms the index counts in it (segResult.holds), all
// that confirming reads: the candidates of a question at 4 GB are
// 16 MB, live while sessions are read and their matches scored. It
// returns the bytes dropped.
func (a *accel) keepRowsOnly() int {
	dropped := make([]int, len(a.results))
	terms := len(a.positive)
	parallel.Each(len(a.results), func(i int) {
		r := &a.results[i]
		r.rows = make([]int32, len(r.cands))
		for j := range r.cands {
			r.rows[j] = r.cands[j].row
		}
		if terms <= maxHeldTerms {
			r.holds = make([]uint8, len(r.cands))
			for j := range r.cands {
				r.holds[j] = r.cands[j].held
			}
		}
		dropped[i] = r.candidateBytes()
		r.cands, r.counts, r.wide = nil, nil, nil
	})
	total := 0
	for _, n := range dropped {
		total += n
	}
	return total
}

// collectAfterBounds is how many bytes of dropped candidates make a
// search collect before it confirms: then they are most of its heap, and
// the runtime would let the heap grow to twice what was live at its last
// collection (the candidates with it) while confirmation allocates. The
// heap is then mostly pointer-free arrays, so the collection is short
// (docs/performance.md, "Measurements behind the code": a collection
// before confirming).
const collectAfterBounds = 8 << 20

// sessionBound is one session's candidates and the bound of its score.
type sessionBound struct {
	id    string
	parts []keyBound // its candidates, per segment key in rows-file order
	bound float64
}

// refs returns the session's candidates, in rows-file order, appended
// to dst.
func (sb *sessionBound) refs(dst []candRef) []candRef {
	for _, p := range sb.parts {
		for idx := p.start; idx < p.end; idx++ {
			dst = append(dst, candRef{p.seg, idx})
		}
	}
	return dst
}

func (a *accel) rank(results []segResult) (*Result, error) {
	a.results = results
	df := make([]int, len(a.positive))
	for _, r := range results {
		for i, n := range r.df {
			df[i] += n
		}
	}
	rq := rankQuery(a.q, a.snap, &scanResult{docFreq: df})
	sessions := a.bounds(results, &rq)
	if a.keepRowsOnly() >= collectAfterBounds {
		runtime.GC()
	}
	if err := a.segmentDamage(); err != nil {
		return nil, err // the bounds read row tables: a checksum failed
	}
	order := newBoundOrder(sessions)

	pool := rank.DedupPool(a.req.Limit)
	c := confirmation{stats: Stats{Blocks: len(a.snap.Blocks), TermIndex: true}}
	opt := rankOptions(a.q, a.req)
	opt.Limit = a.req.Limit
	conv := newConversations(a.snap)
	opt.Conversations = conv.of
	for {
		if err := a.confirmBest(order, pool, &c, rq); err != nil {
			return nil, err
		}
		ranked, used := rank.Order(slices.Clone(c.scored), opt)
		if conv.err != nil {
			return nil, conv.err
		}
		if used <= pool || c.next == order.len() {
			c.stats.BlocksRead = a.readsMade()
			return &Result{Query: a.q, Sessions: ranked, Stats: c.stats, Ranked: rq}, nil
		}
		pool = used // duplicates collapsed: the pool must hold more exact scores
	}
}

// confirmation is the state of reading sessions best bound first.
type confirmation struct {
	next   int            // sessions[:next] are read or being read
	scored []rank.Session // those with matches, scored exactly
	exact  []float64      // their scores
	stats  Stats
	err    error // the first error a worker met; the others stop
}

// confirmBest reads sessions, best bound first, until the pool best exact
// scores are at least the bound of every session not read. Each core's
// worker takes the next session as soon as it is done with one, reads
// its blocks (decoding those no other session has decoded) and scores
// it: in batches of sessions, each core waited at each batch's end for
// the other's last session and at each batch's start for the blocks of
// every session of the batch (a question reads about ten batches). A
// worker takes a session only while the scores known so far leave it
// possibly among the best; one in flight when that stops being so is
// read for nothing, as the rest of a batch was, and changes no result:
// the ranking is that of every session read.
func (a *accel) confirmBest(sessions *boundOrder, pool int, c *confirmation, rq rank.Query) error {
	a.loadEarlyEvents(sessions, c.next, eventsAhead*pool)
	if a.eventsReady != nil {
		defer func() { <-a.eventsReady }() // nothing reads the snapshot once the search is done
	}
	var mu sync.Mutex
	best := newBestScores(pool, c.exact)
	take := func() (*sessionBound, bool) {
		mu.Lock()
		defer mu.Unlock()
		if c.err != nil || c.next == sessions.len() {
			return nil, false
		}
		sb := sessions.at(c.next)
		switch {
		case best.beats(sb.bound):
			return nil, false
		case a.readsMade() > a.readBudget():
			c.err = errScanCheaper
			return nil, false
		}
		c.next++
		return sb, true
	}
	done := func(ms confirmed) {
		mu.Lock()
		defer mu.Unlock()
		if ms.err != nil {
			if c.err == nil {
				c.err = ms.err
			}
			return
		}
		c.stats.RowsScanned += ms.scanned
		c.stats.CutoffDropped += ms.dropped
		if ms.matched == 0 {
			return
		}
		c.stats.RowsMatched += ms.matched
		c.scored = append(c.scored, ms.scored)
		c.exact = append(c.exact, ms.scored.Score)
		best.add(ms.scored.Score)
	}
	g := parallel.NewGroup(context.Background(), 0)
	for _, w := range a.workers {
		g.Go(func() error {
			for {
				sb, ok := take()
				if !ok {
					return nil
				}
				done(a.confirmSession(w, sb, rq))
			}
		})
	}
	if err := g.Wait(); err != nil {
		panic(err) // a worker's panic, raised on the search's goroutine (package parallel)
	}
	return c.err
}

// readBudget is the request's block-read budget, or readBudgetOf.
func (a *accel) readBudget() int {
	if a.req.readBudget > 0 {
		return a.req.readBudget
	}
	return readBudgetOf(len(a.snap.Blocks))
}

// eventsAhead is how many times the pool's size of the best-bound
// sessions have their recall events read in one pass over the events
// file: a search reads a few times its pool in sessions, and grouping
// the whole file by session (SessionEvents) costs one that reads few
// sessions more than a pass for them (docs/performance.md,
// "Measurements behind the code": recall events read ahead).
const eventsAhead = 4

// loadEarlyEvents starts reading, in one pass, the recall events of the
// n best-bound sessions from the from-th on, if the cutoff applies and
// this was not done yet (the heap is popped only then: a later round of
// confirmation must not sort sessions it may never read). It runs beside
// the confirming workers, which need a session's events only once its
// rows are matched: read before they started, it held both cores up
// (0.4 ms of one core at 1 GB, the other waiting).
func (a *accel) loadEarlyEvents(order *boundOrder, from, n int) {
	if !a.req.Cutoff || a.eventsEarly != nil {
		return
	}
	sessions := order.prefix(from + n)[from:]
	a.eventsEarly = make(map[string]bool, len(sessions))
	if a.req.lateEvents {
		return
	}
	for _, sb := range sessions {
		a.eventsEarly[sb.id] = true
	}
	a.eventsReady = make(chan struct{})
	parallel.Go(func() (err error) {
		a.events, err = a.snap.EventsOf(a.eventsEarly)
		return err
	}, func(err error) {
		a.eventsErr = err
		close(a.eventsReady)
	})
}

// eventsOf returns the recall events of session id, if the cutoff
// applies, as applyCutoff takes them.
func (a *accel) eventsOf(id string) (map[string][]snapshot.Event, error) {
	if !a.req.Cutoff {
		return nil, nil
	}
	if a.eventsEarly[id] {
		<-a.eventsReady
		if a.eventsErr != nil {
			return nil, fmt.Errorf("search: %w", a.eventsErr)
		}
		return a.events, nil
	}
	events, err := a.snap.SessionEvents(id)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	if len(events) == 0 {
		return nil, nil
	}
	return map[string][]snapshot.Event{id: events}, nil
}

// bestScores keeps the n best exact scores, best first: once it holds n,
// the last is what a session not read must be able to beat. Workers
// check it for every session they take, under their shared lock, so it
// is kept up to date as scores come instead of sorted at each check.
type bestScores struct {
	n      int
	scores []float64
}

func newBestScores(n int, scores []float64) *bestScores {
	// Sized by what it is given, not by n: n is a caller's count, and
	// the scores grow as they come.
	b := &bestScores{n: n, scores: make([]float64, 0, min(n, len(scores))+1)}
	for _, x := range scores {
		b.add(x)
	}
	return b
}

// add counts a score: it is kept if it is among the n best.
func (b *bestScores) add(x float64) {
	i, _ := slices.BinarySearchFunc(b.scores, x, func(have, x float64) int { return cmp.Compare(x, have) })
	if i >= b.n {
		return
	}
	b.scores = slices.Insert(b.scores, i, x)
	if len(b.scores) > b.n {
		b.scores = b.scores[:b.n]
	}
}

// beats reports whether n scores are known and the n-th best is at
// least bound.
func (b *bestScores) beats(bound float64) bool {
	return len(b.scores) == b.n && b.scores[b.n-1] >= bound
}

// score scores one session's confirmed matches as Rank does.
func (a *accel) score(matches []match, rq rank.Query) rank.Session {
	return rank.ScoreSessionMessages(scoredMessages(a.q, matches), rq, rankOptions(a.q, a.req))
}

// bounds groups candidates by session and bounds each session's score.
// Candidates are gathered per segment key on all cores, then per session,
// in rows-file order; there, on all cores, every candidate's own
// contributions (rank.Bounder.Contributions) are worked out, each
// borrows context from the candidates that may be its neighbours in its
// transcript and is bounded (rank.Bounder.PassageBound), and the
// session's bound is summed up. Contributions live only while their
// session is bounded: kept for every candidate, they were a fifth of a
// question's heap.
func (a *accel) bounds(results []segResult, rq *rank.Query) []*sessionBound {
	bounder := rank.NewBounder(rq)
	perSeg := make([][]keyBound, len(results))
	parallel.Each(len(results), func(i int) { perSeg[i] = a.byKey(results, i) })
	order := groupBySession(perSeg)
	opt := rankOptions(a.q, a.req)
	kind := a.featureKind()
	// Segments came in order, and a transcript's rows (one generation,
	// one key) in row order within each: every generation's candidates are
	// in rows-file order, as possibleNeighbours needs.
	scratch := make([]boundScratch, runtime.GOMAXPROCS(0))
	parallel.EachOn(len(scratch), len(order), func(w, i int) { a.boundSession(order[i], bounder, opt, kind, &scratch[w]) })
	return order
}

// groupBySession gathers the segment keys of perSeg by session, in the
// order each session first appears, each session's keys in perSeg's
// order. From minShardedKeys keys on it runs on all cores, each taking
// the sessions of one shard (by a byte of the id), between two parallel
// stages: on one core, the question's 8,000 sessions took about a
// millisecond while the other core waited. Each shard's sessions are one
// allocation and their keys another, its map sized for them: grown as it
// went, the map and the list were rebuilt a dozen times, and a list grown
// per session was 8,000 small allocations.
func groupBySession(perSeg [][]keyBound) []*sessionBound {
	keys := 0
	for _, kbs := range perSeg {
		keys += len(kbs)
	}
	shards := 1
	if keys >= minShardedKeys {
		shards = runtime.GOMAXPROCS(0)
	}
	return groupInShards(perSeg, keys, shards)
}

// groupInShards is groupBySession over keys keys in shards shards.
func groupInShards(perSeg [][]keyBound, keys, shards int) []*sessionBound {
	// byFirst holds each session at the place of its first key: read in
	// order, they come as first seen, whichever shard took them.
	byFirst := make([]*sessionBound, keys)
	parallel.Each(shards, func(shard int) { groupShard(perSeg, keys, shard, shards, byFirst) })
	order := byFirst[:0]
	for _, sb := range byFirst {
		if sb != nil {
			order = append(order, sb)
		}
	}
	return order
}

// minShardedKeys is how many segment keys make grouping them worth a
// goroutine per core.
const minShardedKeys = 2048

// groupShard groups the keys of perSeg whose session is in shard (of
// shards), and puts each of its sessions in byFirst at the place of the
// session's first key among all keys.
func groupShard(perSeg [][]keyBound, keys, shard, shards int, byFirst []*sessionBound) {
	guess := keys/shards + keys/16 // shards are about even: ids end in any hex digit
	bySession := make(map[string]int32, guess)
	slab := make([]sessionBound, 0, guess)
	firstAt := make([]int32, 0, guess)   // per session, where its first key is among all keys
	partsOf := make([]int32, 0, guess)   // per session, its keys
	sessionOf := make([]int32, 0, guess) // per key of the shard, in perSeg's order
	at := int32(0)
	for _, kbs := range perSeg {
		for _, kb := range kbs {
			if shardOf(kb.key.Session, shards) == shard {
				k, ok := bySession[kb.key.Session]
				if !ok {
					k = int32(len(slab))
					slab = append(slab, sessionBound{id: kb.key.Session})
					firstAt = append(firstAt, at)
					partsOf = append(partsOf, 0)
					bySession[kb.key.Session] = k
				}
				sessionOf = append(sessionOf, k)
				partsOf[k]++
			}
			at++
		}
	}
	parts := make([]keyBound, len(sessionOf))
	next := 0
	for k := range slab {
		slab[k].parts = parts[next : next : next+int(partsOf[k])]
		next += int(partsOf[k])
	}
	i := 0
	for _, kbs := range perSeg {
		for _, kb := range kbs {
			if shardOf(kb.key.Session, shards) == shard {
				sb := &slab[sessionOf[i]]
				sb.parts = append(sb.parts, kb) // within its room in parts
				i++
			}
		}
	}
	for k := range slab {
		byFirst[firstAt[k]] = &slab[k]
	}
}

// shardOf is the shard of session id among shards: by its last byte, a
// hex digit for Claude Code's ids (any id has one shard; only the balance
// depends on the digit).
func shardOf(id string, shards int) int {
	if shards <= 1 || id == "" {
		return 0
	}
	return int(id[len(id)-1]) % shards
}

// boundScratch is what bounding a session needs only while it runs,
// reused from one session to the next by each worker.
type boundScratch struct {
	units      []int     // per candidate, per term: its counts (rank.Features.Units)
	code       []int     // the same, of hits in code (rank.Features.CodeUnits)
	own        []float64 // per candidate, its own contributions (rank.Bounder.Contributions)
	prev, next []int32
	last       []genLast
	ctx        []float64
	sb         rank.SessionBound
}

// featureKind is what the query's terms say of every candidate's counts
// (rank.Features.Exact and CodeKnown).
type featureKind struct{ exact, codeKnown bool }

// featureKind returns what the query's terms say of every candidate's
// counts.
func (a *accel) featureKind() featureKind {
	k := featureKind{exact: true, codeKnown: true}
	for _, s := range a.shapes {
		k.exact = k.exact && s.Exact
		k.codeKnown = k.codeKnown && (s.Exact || s.Anchored)
	}
	return k
}

// countsOf sets, for candidate idx, each term's count into units and that
// of its hits in code into code (one entry per term).
func (r *segResult) countsOf(idx int, units, code []int) {
	n := len(units)
	counts := r.counts[idx*2*n : (idx+1)*2*n : (idx+1)*2*n]
	code = code[:n]
	for t := range units {
		u, c := counts[2*t], counts[2*t+1]
		units[t], code[t] = int(u), int(c)
		if u == wideCount || c == wideCount {
			units[t], code[t] = r.count(idx*2*n+2*t), r.count(idx*2*n+2*t+1)
		}
	}
}

// setFeatures sets f to candidate c's features, with units and code its
// counts.
func setFeatures(f *rank.Features, c *candidate, units, code []int) {
	f.Units, f.CodeUnits = units, code
	f.Type, f.Len, f.Ack = terms.TypeName(c.typ), int(c.length), c.flags&terms.FlagAck != 0
}

// boundSession bounds every candidate of one session with the context its
// possible neighbours lend, then the session. The candidates are walked
// per segment key, as sb.parts holds them, in rows-file order.
func (a *accel) boundSession(sb *sessionBound, bounder *rank.Bounder, opt rank.Options, kind featureKind, s *boundScratch) {
	n := 0
	for _, p := range sb.parts {
		n += int(p.end - p.start)
	}
	s.sb.Reset()
	a.possibleNeighbours(sb, n, s)
	terms := len(a.positive)
	s.own = slices.Grow(s.own[:0], n*terms)[:n*terms]
	// Each candidate's counts, read once for both passes.
	s.units, s.code = slices.Grow(s.units[:0], n*terms)[:n*terms], slices.Grow(s.code[:0], n*terms)[:n*terms]
	// On the stack: each candidate sets the features' slices and type
	// name, pointers whose every write to a heap object took the
	// collector's write barrier while it marked (8.5% of bounding's CPU
	// in a profile where collections overlapped it).
	f := &rank.Features{Exact: kind.exact, CodeKnown: kind.codeKnown}
	i := 0
	for _, p := range sb.parts {
		r := &a.results[p.seg]
		for idx := p.start; idx < p.end; idx++ {
			units, code := perTerm(s.units, i, terms), perTerm(s.code, i, terms)
			r.countsOf(int(idx), units, code)
			setFeatures(f, &r.cands[idx], units, code)
			own := perTerm(s.own, i, terms)
			copy(own, bounder.Contributions(f, own)) // in place unless the bounder has another term count
			i++
		}
	}
	i = 0
	ctx := s.ctx[:0] // a local: written back to s once, not for each candidate
	for _, p := range sb.parts {
		r := &a.results[p.seg]
		for idx := p.start; idx < p.end; idx++ {
			c := &r.cands[idx]
			setFeatures(f, c, perTerm(s.units, i, terms), perTerm(s.code, i, terms))
			var prev, next []float64
			if s.prev[i] >= 0 {
				prev = perTerm(s.own, int(s.prev[i]), terms)
			}
			if s.next[i] >= 0 {
				next = perTerm(s.own, int(s.next[i]), terms)
			}
			lent := []float64(nil)
			if prev != nil || next != nil {
				ctx = rank.Context(ctx, prev, next)
				lent = ctx
			}
			bound := bounder.PassageBound(f, perTerm(s.own, i, terms), lent) * boundSlack
			at := time.UnixMilli(c.timeMs)
			s.sb.Add(bound, at, f, p.current, opt.InWindow(at))
			i++
		}
	}
	s.ctx = ctx
	sb.bound = s.sb.Bound(bounder, opt, s.prev, s.next) * boundSlack
}

// perTerm returns candidate i's entries of xs, which holds terms
// entries per candidate, capped so that appending cannot reach the next
// candidate's.
func perTerm[T any](xs []T, i, terms int) []T { return xs[i*terms : (i+1)*terms : (i+1)*terms] }

// maxNeighbourScan bounds how many rows between two candidates of one
// transcript are looked at to rule out that they are neighbours; past it
// they are taken as possible neighbours, which only loosens a bound.
const maxNeighbourScan = 64

// genLast is the last candidate seen of one generation: its index among
// the session's candidates and where it lies.
type genLast struct {
	gen      uint32
	at       int
	seg, idx int32 // no pointer: writing one each candidate took the collector's write barrier
}

// possibleNeighbours finds, for each candidate of sb (in rows-file
// order, n in all), the candidate that may be the message just before
// it in its transcript and the one that may be just after, or -1 (into
// s.prev and s.next). A transcript's rows lie in the rows file in order,
// each run appending its new ones, so the message before a row is the
// last earlier row of its generation: the nearest earlier candidate of
// that generation is it unless a row of the same generation lies
// between them, which the row table shows.
func (a *accel) possibleNeighbours(sb *sessionBound, n int, s *boundScratch) {
	s.prev, s.next = slices.Grow(s.prev[:0], n)[:n], slices.Grow(s.next[:0], n)[:n]
	s.last = s.last[:0] // a session has few transcripts: a list beats a map
	i := 0
	for _, p := range sb.parts {
		cands := a.results[p.seg].cands[p.start:p.end]
		for k := range cands {
			c := &cands[k]
			s.prev[i], s.next[i] = -1, -1
			l := s.lastOf(c.gen)
			if l == nil {
				s.last = append(s.last, genLast{c.gen, i, p.seg, p.start + int32(k)})
			} else {
				if !a.rowBetween(l.seg, &a.results[l.seg].cands[l.idx], p.seg, c) {
					s.prev[i], s.next[l.at] = int32(l.at), int32(i)
				}
				l.at, l.seg, l.idx = i, p.seg, p.start+int32(k)
			}
			i++
		}
	}
}

// lastOf returns the last candidate seen of generation gen, or nil.
func (s *boundScratch) lastOf(gen uint32) *genLast {
	for k := range s.last {
		if s.last[k].gen == gen {
			return &s.last[k]
		}
	}
	return nil
}

// rowBetween reports whether a row of x's generation surely lies between
// candidates x (of segment xs) and y (of segment ys), x before y, same
// generation.
func (a *accel) rowBetween(xs int32, x *candidate, ys int32, y *candidate) bool {
	if xs != ys {
		return false // not known: they may be neighbours
	}
	if y.row-x.row-1 > maxNeighbourScan {
		return false // not known: they may be neighbours
	}
	if y.row > x.row+1 && x.nextSame {
		return true // the row just after x lies between them
	}
	return a.segs[xs].HasGenBetween(int(x.row)+1, int(y.row), x.gen)
}

// keyBound is where the candidates of one segment key (session and
// project) lie: results[seg].cands[start:end].
type keyBound struct {
	key        terms.Key
	current    bool // the key's project is the current one
	seg        int32
	start, end int32
}

// byKey names the keys of one segment's candidates (results[i]), in key
// order.
func (a *accel) byKey(results []segResult, i int) []keyBound {
	r := &results[i]
	if len(r.keys) == 0 {
		return nil
	}
	seg := a.segs[i]
	out := make([]keyBound, 0, len(r.keys))
	// Keys share few projects, and rank.InProject cleans both paths each
	// call: once per project is enough.
	current := map[string]bool{}
	for _, run := range r.keys {
		key := seg.Key(run.key)
		in, ok := current[key.Project]
		if !ok && a.req.CurrentProject != "" {
			in = rank.InProject(key.Project, a.req.CurrentProject)
			current[key.Project] = in
		}
		out = append(out, keyBound{key: key, seg: int32(i), start: run.start, end: run.end, current: in})
	}
	return out
}

// confirmed is what reading one session's candidates found.
type confirmed struct {
	scored  rank.Session // its exact score, if it has matches
	matched int          // rows that match, past the cutoff
	scanned int
	dropped int // matches dropped by the recall cutoff
	err     error
}

// maxCachedBlocks is how many decoded blocks a search keeps for later
// sessions beyond those the sessions being read use.
const maxCachedBlocks = 32

// blockCache holds the decoded blocks of a search, shared by the workers
// reading sessions: each block is decoded once while it is kept, by the
// first worker that needs it, while another that needs it waits.
type blockCache struct {
	mu     sync.Mutex
	blocks map[int]*cachedBlock
	spare  []decodedBlock // dropped blocks, whose buffers decode the next ones
	reads  int            // blocks decoded
}

// cachedBlock is one block of the cache: ready is closed once block (or
// err) is set; users counts the sessions reading it, which keep it.
type cachedBlock struct {
	ready chan struct{}
	block decodedBlock
	err   error
	users int
}

// readsMade is how many blocks the search has decoded.
func (a *accel) readsMade() int {
	a.cache.mu.Lock()
	defer a.cache.mu.Unlock()
	return a.cache.reads
}

// acquire returns block b, decoded, for a session that reads it; release
// gives it back. w decodes it if no one has.
func (a *accel) acquire(w *blockWorker, b int) (*cachedBlock, error) {
	c := &a.cache
	c.mu.Lock()
	cb, ok := c.blocks[b]
	if ok {
		cb.users++
		c.mu.Unlock()
		<-cb.ready
		return cb, cb.err
	}
	cb = &cachedBlock{ready: make(chan struct{}), users: 1}
	c.blocks[b] = cb
	c.reads++
	var buf decodedBlock
	if n := len(c.spare); n > 0 {
		buf, c.spare = c.spare[n-1], c.spare[:n-1]
	}
	c.mu.Unlock()
	cb.block, cb.err = a.decodeBlock(w, b, buf)
	close(cb.ready)
	return cb, cb.err
}

// release gives back the blocks a session read. Past the cache's size,
// the blocks no session is reading are dropped: a later session that
// needs one decodes it again, which costs less than the memory of every
// block a question reads (about 100 of 128 KiB).
func (a *accel) release(read []*cachedBlock) {
	c := &a.cache
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, cb := range read {
		cb.users--
	}
	keep := a.req.keepBlocks
	if keep <= 0 {
		keep = maxCachedBlocks
	}
	if len(c.blocks) <= keep {
		return
	}
	for b, cb := range c.blocks {
		if cb.users == 0 {
			delete(c.blocks, b)
			if cb.err == nil && cb.block.raw != nil {
				c.spare = append(c.spare, cb.block) // matches copy what they keep of a row
			}
		}
	}
}

// confirmSession reads one session's candidate rows (decoding their
// blocks as needed), matches them and scores what matches.
func (a *accel) confirmSession(w *blockWorker, sb *sessionBound, rq rank.Query) confirmed {
	var res blockResult
	res.docFreq = make([]int, len(a.positive))
	var f [record.NumColumns][]byte
	w.refs = sb.refs(w.refs[:0])
	// At most one match per candidate, and almost every candidate
	// matches: grown by appending, the matches (large values holding
	// pointers) were copied about log n times each.
	res.matches = make([]match, 0, len(w.refs))
	w.read = w.read[:0]
	defer func() { a.release(w.read) }()
	current, cb := -1, (*cachedBlock)(nil)
	for _, r := range w.refs {
		b, line := a.blockOf(int(r.seg), int(a.results[r.seg].rows[r.idx]))
		if b != current {
			// A session's rows lie in rows-file order, so its blocks come
			// one after another; one may come back after another
			// transcript's (a resumed session), and is acquired again.
			var err error
			if cb, err = a.acquire(w, b); err != nil {
				w.read = append(w.read, cb)
				return confirmed{err: fmt.Errorf("search: %w", err)}
			}
			w.read = append(w.read, cb)
			current = b
		}
		lines := cb.block.lines
		if line >= len(lines) || !record.SplitRow(lines[line], &f) {
			res.badRows++
			continue
		}
		if string(f[record.ColSession]) != sb.id && record.Unescape(f[record.ColSession]) != sb.id {
			return confirmed{err: fmt.Errorf("%w: row %d of block %d belongs to another session than its term segment says", errSegmentDisagrees, line, b)}
		}
		res.rows++
		held := ^uint64(0)
		if holds := a.results[r.seg].holds; holds != nil {
			held = uint64(holds[r.idx])
		}
		w.confirmRow(&f, &res, held)
	}
	out := confirmed{scanned: res.rows}
	matches := res.matches
	if a.req.Cutoff {
		events, err := a.eventsOf(sb.id) // asked only now: the early ones may still be read
		if err != nil {
			return confirmed{err: err}
		}
		matches, out.dropped = applyCutoff(matches, events, a.req.Window)
	}
	if len(matches) > 0 {
		out.matched = len(matches)
		out.scored = a.score(matches, rq)
	}
	return out
}

// spareBlockRoom is the room made for a decoded block: a block holds
// 128 KiB of rows and the row that crosses that size (131–134 KB at
// 1 GB), and ReadBlock wants snapshot.DecodeSlack past it.
const spareBlockRoom = 136 << 10

// decodedBlock is a block's text and its lines (slices of it).
type decodedBlock struct {
	raw   []byte
	lines [][]byte
}

// decodeBlock decompresses block b with w's decoder and splits it into
// lines, into the buffers of a dropped block when there is one (buf): a
// question decodes about 160 blocks of up to 128 KiB, each a new
// allocation (a quarter of its bytes allocated) before they were reused.
func (a *accel) decodeBlock(w *blockWorker, b int, buf decodedBlock) (decodedBlock, error) {
	rec := &a.snap.Blocks[b]
	if want := rec.RawSize + snapshot.DecodeSlack; int64(cap(buf.raw)) < want && rec.RawSize+snapshot.DecodeSlack <= spareBlockRoom {
		// Room for any usual block, so that this buffer, once dropped,
		// holds the next block it is lent to: sized to each block, most
		// were a little short for the next and were allocated again.
		buf.raw = make([]byte, 0, spareBlockRoom)
	}
	var err error
	buf.raw, w.scratch, err = a.snap.ReadBlock(w.dec, rec, buf.raw, w.scratch) // ReadBlock makes room for a larger one
	if err != nil {
		return decodedBlock{}, err
	}
	buf.lines = splitLines(buf.raw, buf.lines[:0])
	return buf, nil
}

// startWorkers makes one block worker per core, kept for every session of
// the search: each decodes blocks with its own zstd decoder (whose tables
// and history cost about as much to set up as a block costs to decode)
// and matches sessions with its own buffers.
func (a *accel) startWorkers() error {
	for range runtime.GOMAXPROCS(0) {
		w, err := newBlockWorker(a.scan)
		if err != nil {
			return fmt.Errorf("search: %w", err)
		}
		a.workers = append(a.workers, w)
	}
	return nil
}

// close releases the block workers.
func (a *accel) close() {
	for _, w := range a.workers {
		w.close()
	}
	a.workers = nil
}

// splitLines appends raw's lines to lines.
func splitLines(raw []byte, lines [][]byte) [][]byte {
	if need := bytes.Count(raw, []byte{'\n'}) + 1; cap(lines)-len(lines) < need {
		// A quarter more, so that the next block lent these lines fits.
		lines = slices.Grow(lines, need+need/4)
	}
	for len(raw) > 0 {
		i := bytes.IndexByte(raw, '\n')
		if i < 0 {
			lines = append(lines, raw)
			break
		}
		lines = append(lines, raw[:i])
		raw = raw[i+1:]
	}
	return lines
}
