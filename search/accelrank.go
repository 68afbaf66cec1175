package search

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/recall-dev/recall/filter"
	"github.com/recall-dev/recall/rank"
	"github.com/recall-dev/recall/store"
	"github.com/recall-dev/recall/store/terms"
)

// accel is one accelerated search.
type accel struct {
	snap      *store.Snapshot
	q         *filter.Query
	req       *Request
	segs      []*terms.Segment
	rowStarts [][]int
	positive  []*filter.Term
	shapes    []filter.Shape
	exclude   []filter.Shape
	filter    rowFilter
	scan      *scan // the exact matcher, shared with the full scan

	blocks     map[int][][]byte // decoded blocks, as lines
	blocksRead int
}

// boundSlack inflates every bound a little, so that a bound computed in
// another order of floating-point operations than the exact score is still
// not below it, and an exact tie is never taken for a win.
const boundSlack = 1 + 1e-9

// errSegmentDisagrees marks a term segment whose rows are not the rows of
// the blocks it covers: damage its checks did not catch. The search then
// reads the rows, which are the truth.
var errSegmentDisagrees = errors.New("the term index disagrees with the rows")

// runAccelerated answers the request from the term index. It returns a
// nil result when the index cannot: a query shape it does not serve (why
// is "") or a term index that cannot answer (why says what is wrong); the
// caller then scans.
func runAccelerated(snap *store.Snapshot, q *filter.Query, req *Request) (res *Result, why string, err error) {
	if !accelerable(q, req) {
		return nil, "", nil
	}
	segs, why := snap.TermSegments()
	if segs == nil {
		return nil, why, nil // read the rows instead: they are the truth
	}
	rowStarts, sound := rowStartsOf(snap, segs)
	if !sound {
		return nil, "a term segment's row count disagrees with the blocks it covers (damaged); `recall index` rebuilds it", nil
	}
	a := &accel{snap: snap, q: q, req: req, segs: segs, rowStarts: rowStarts,
		positive: q.Positive(), filter: newRowFilter(snap, req), scan: newScan(snap, q, req), blocks: map[int][][]byte{}}
	for _, t := range a.positive {
		a.shapes = append(a.shapes, t.Shape())
	}
	for _, t := range q.Exclude {
		a.exclude = append(a.exclude, t.Shape())
	}
	results := a.candidatesOf()
	for _, r := range results {
		if r.err != nil {
			return nil, fmt.Sprintf("%v; `recall index` rebuilds it from the rows", r.err), nil
		}
	}
	res, err = a.rank(results)
	if errors.Is(err, errSegmentDisagrees) {
		return nil, fmt.Sprintf("%v (damaged); `recall index --repair` rebuilds the term index", err), nil
	}
	if errors.Is(err, store.ErrBlockDamaged) {
		// Rank from what is readable: the scan skips the damaged block.
		return nil, fmt.Sprintf("%v; `recall index --repair` re-reads it from its transcripts", err), nil
	}
	return res, "", err
}

// sessionBound is one session's candidates and the bound of its score.
type sessionBound struct {
	id    string
	cands []*candidate
	sb    rank.SessionBound
	bound float64
}

func (a *accel) rank(results []segResult) (*Result, error) {
	df := make([]int, len(a.positive))
	for _, r := range results {
		for i, n := range r.df {
			df[i] += n
		}
	}
	rq := rankQuery(a.q, a.snap, &scanResult{docFreq: df})
	sessions := a.bounds(results, &rq)
	slices.SortFunc(sessions, func(x, y *sessionBound) int { return cmp.Compare(y.bound, x.bound) })

	pool := rank.DedupPool(a.req.Limit)
	c := confirmation{stats: Stats{Blocks: len(a.snap.Blocks), TermIndex: true}}
	opt := rank.Options{Now: a.req.Now, HalfLife: a.req.HalfLife, CurrentProject: a.req.CurrentProject, Limit: a.req.Limit}
	for {
		if err := a.confirmBest(sessions, pool, &c, rq); err != nil {
			return nil, err
		}
		ranked, used := rank.Order(slices.Clone(c.scored), opt)
		if used <= pool || c.next == len(sessions) {
			c.stats.BlocksRead = a.blocksRead
			return &Result{Query: a.q, Sessions: ranked, Stats: c.stats}, nil
		}
		pool = used // duplicates collapsed: the pool must hold more exact scores
	}
}

// confirmation is the state of reading sessions best bound first.
type confirmation struct {
	next   int            // sessions[:next] are read
	scored []rank.Session // those with matches, scored exactly
	exact  []float64      // their scores
	stats  Stats
}

// confirmBest reads sessions, best bound first, until the pool best exact
// scores are at least the bound of every session not read.
func (a *accel) confirmBest(sessions []*sessionBound, pool int, c *confirmation, rq rank.Query) error {
	for c.next < len(sessions) {
		if len(c.exact) >= pool && nthBest(c.exact, pool) >= sessions[c.next].bound {
			return nil
		}
		batch := sessions[c.next:min(c.next+max(pool-len(c.exact), 4), len(sessions))]
		c.next += len(batch)
		found, err := a.confirm(batch)
		if err != nil {
			return err
		}
		events, err := a.eventsOf(batch)
		if err != nil {
			return err
		}
		for _, ms := range found {
			c.stats.RowsScanned += ms.scanned
			matches, dropped := ms.matches, 0
			if a.req.Cutoff {
				matches, dropped = applyCutoff(matches, events, a.req.Window)
			}
			c.stats.CutoffDropped += dropped
			if len(matches) == 0 {
				continue
			}
			c.stats.RowsMatched += len(matches)
			scored := a.score(matches, rq)
			c.scored = append(c.scored, scored)
			c.exact = append(c.exact, scored.Score)
		}
	}
	return nil
}

// eventsOf loads the recall events of a batch of sessions, if the cutoff
// applies.
func (a *accel) eventsOf(batch []*sessionBound) (map[string][]store.Event, error) {
	if !a.req.Cutoff {
		return nil, nil
	}
	ids := make(map[string]bool, len(batch))
	for _, sb := range batch {
		ids[sb.id] = true
	}
	events, err := a.snap.EventsOf(ids)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	return events, nil
}

// nthBest returns the n-th largest of scores (n ≥ 1, n ≤ len(scores)).
func nthBest(scores []float64, n int) float64 {
	s := slices.Clone(scores)
	slices.SortFunc(s, func(x, y float64) int { return cmp.Compare(y, x) })
	return s[n-1]
}

// score scores one session's confirmed matches as Rank does.
func (a *accel) score(matches []match, rq rank.Query) rank.Session {
	msgs := make([]rank.Message, len(matches))
	for i := range matches {
		msgs[i] = matches[i].msg
	}
	return rank.ScoreSession(msgs, rq, rank.Options{Now: a.req.Now, HalfLife: a.req.HalfLife, CurrentProject: a.req.CurrentProject})
}

// bounds groups candidates by session and bounds each session's score.
// Message bounds are worked out per segment on all cores, gathered per
// session key; only the keys are then merged into sessions.
func (a *accel) bounds(results []segResult, rq *rank.Query) []*sessionBound {
	bounder := rank.NewBounder(rq)
	perSeg := make([][]keyBound, len(results))
	parallelEach(len(results), func(i int) { perSeg[i] = a.segmentBounds(&results[i], bounder) })
	bySession := map[string]*sessionBound{}
	var order []*sessionBound
	for i := range perSeg {
		for _, kb := range perSeg[i] {
			if kb.cands == nil {
				continue
			}
			sb := bySession[kb.key.Session]
			if sb == nil {
				sb = &sessionBound{id: kb.key.Session}
				bySession[kb.key.Session] = sb
				order = append(order, sb)
			}
			sb.cands = append(sb.cands, kb.cands...)
			sb.sb.Merge(&kb.sb)
		}
	}
	opt := rank.Options{Now: a.req.Now, HalfLife: a.req.HalfLife, CurrentProject: a.req.CurrentProject}
	parallelEach(len(order), func(i int) {
		order[i].bound = order[i].sb.Bound(len(a.positive), opt) * boundSlack
	})
	return order
}

// keyBound gathers the candidates of one segment key (session and
// project).
type keyBound struct {
	key   terms.Key
	cands []*candidate
	sb    rank.SessionBound
}

// segmentBounds bounds the candidates of one segment, by key.
func (a *accel) segmentBounds(r *segResult, bounder *rank.Bounder) []keyBound {
	if len(r.cands) == 0 {
		return nil
	}
	allExact, codeKnown := true, true
	for _, s := range a.shapes {
		allExact = allExact && s.Exact
		codeKnown = codeKnown && (s.Exact || s.Anchored)
	}
	seg := a.segs[r.cands[0].seg]
	out := make([]keyBound, seg.KeyCount())
	current := make([]int8, len(out)) // 0 unknown, 1 in the current project, -1 not
	hits, code := make([]int, len(a.positive)), make([]int, len(a.positive))
	for ci := range r.cands {
		c := &r.cands[ci]
		kb := &out[c.key]
		if current[c.key] == 0 {
			kb.key = seg.Key(c.key)
			current[c.key] = -1
			if a.req.CurrentProject != "" && rank.InProject(kb.key.Project, a.req.CurrentProject) {
				current[c.key] = 1
			}
		}
		kb.cands = append(kb.cands, c)
		for t := range hits {
			hits[t], code[t] = int(r.hits[int(c.at)+t]), int(r.code[int(c.at)+t])
		}
		f := rank.Features{Type: terms.TypeName(c.typ), Len: int(c.length), Ack: c.flags&terms.FlagAck != 0,
			Hits: hits, CodeHits: code, Exact: allExact, CodeKnown: codeKnown}
		kb.sb.Add(bounder.UpperBound(&f)*boundSlack, time.UnixMilli(c.timeMs), c.present, current[c.key] > 0)
	}
	return out
}

// parallelEach calls fn(i) for i in [0, n) on all cores.
func parallelEach(n int, fn func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), n)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += workers {
				fn(i)
			}
		}()
	}
	wg.Wait()
}

// confirmed is what reading one session's candidates found.
type confirmed struct {
	matches []match
	scanned int
}

// confirm reads the candidate rows of a batch of sessions and matches
// them exactly, decoding each block once.
func (a *accel) confirm(batch []*sessionBound) ([]confirmed, error) {
	var need []int
	for _, sb := range batch {
		for _, c := range sb.cands {
			b, _ := a.blockOf(int(c.seg), int(c.row))
			if _, ok := a.blocks[b]; !ok {
				a.blocks[b] = nil
				need = append(need, b)
			}
		}
	}
	if err := a.decode(need); err != nil {
		return nil, err
	}
	w, err := newBlockWorker(a.scan)
	if err != nil {
		return nil, err
	}
	defer w.close()
	out := make([]confirmed, len(batch))
	var f [store.NumColumns][]byte
	for i, sb := range batch {
		var res blockResult
		res.docFreq = make([]int, len(a.positive))
		for _, c := range sb.cands {
			b, line := a.blockOf(int(c.seg), int(c.row))
			lines := a.blocks[b]
			if line >= len(lines) || !store.SplitRow(lines[line], &f) {
				res.badRows++
				continue
			}
			if string(f[store.ColSession]) != sb.id && store.Unescape(f[store.ColSession]) != sb.id {
				return nil, fmt.Errorf("%w: row %d of block %d belongs to another session than its term segment says", errSegmentDisagrees, line, b)
			}
			res.rows++
			w.scanRow(&f, lines[line], &res)
		}
		out[i] = confirmed{matches: res.matches, scanned: res.rows}
	}
	return out, nil
}

// decode decompresses blocks on all cores and splits them into lines.
func (a *accel) decode(blocks []int) error {
	lines := make([][][]byte, len(blocks))
	errs := make([]error, len(blocks))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(blocks)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			dec, err := store.NewDecoder()
			if err != nil {
				for i := range next {
					errs[i] = err
				}
				return
			}
			defer dec.Close()
			var scratch []byte
			for i := range next {
				var raw []byte
				raw, scratch, errs[i] = a.snap.ReadBlock(dec, &a.snap.Blocks[blocks[i]], nil, scratch)
				lines[i] = splitLines(raw)
			}
		}()
	}
	for i := range blocks {
		next <- i
	}
	close(next)
	wg.Wait()
	for i, b := range blocks {
		if errs[i] != nil {
			return fmt.Errorf("search: %w", errs[i])
		}
		a.blocks[b] = lines[i]
	}
	a.blocksRead += len(blocks)
	return nil
}

func splitLines(raw []byte) [][]byte {
	lines := make([][]byte, 0, bytes.Count(raw, []byte{'\n'})+1)
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
