package search

import (
	"bytes"
	"cmp"
	"fmt"
	"math"
	"runtime"
	"slices"
	"unsafe"

	"github.com/recall-dev/recall/store/snapshot"

	"github.com/recall-dev/recall/internal/parallel"
	"github.com/recall-dev/recall/query"
	"github.com/recall-dev/recall/rank"
	"github.com/recall-dev/recall/store/terms"
)

// The accelerated search ranks sessions from the term index: postings
// give every candidate message (one that may match) with an upper bound
// of its hits, the row table its session, time, type and length. From
// those, rank.Bounder and rank.SessionBound bound every session's score.
// Sessions are then confirmed best bound first: their candidate rows are
// read from the rows file, matched exactly and scored exactly, until the
// best rank.DedupPool(limit) exact scores (more when copies collapse) are
// at least the bound of every session not yet read. The result is the one
// a full scan gives; only the text of the sessions near the top is ever
// decompressed. docs/performance.md tells the story with numbers.

// candidate is a row that may match the query, with what ranking needs
// of its row table entry. A search holds one per row a term touches
// (half a million for the question at 4 GB), so it holds nothing it can
// find otherwise: its segment is the segResult holding it, its key the
// keyRun it lies in, its per-term counts are at its index × twice the
// number of terms in that segResult's counts, and which terms it holds
// is where those are not 0 (also in held, which outlives the counts).
type candidate struct {
	timeMs int64
	row    int32
	gen    uint32 // the generation of its transcript: rows of one are its messages in order
	length int32
	typ    uint8
	flags  uint8
	// nextSame: the row after it in its segment is of its generation,
	// read with its own entry while the row table is warm, so that
	// possibleNeighbours rarely reads the row table again.
	nextSame bool
	// held has bit t set for each positive term t the index counts in
	// the row, when there are at most maxHeldTerms (segResult.holds). It
	// lies in what was the struct's padding.
	held uint8
}

// segResult is what one segment contributes.
type segResult struct {
	cands []candidate // by key, each key's in row order
	rows  []int32     // once bounded, the row of each candidate; cands and counts are then dropped
	// holds, once bounded, per candidate, the positive terms the index
	// counts in its row (bit t for term t), when there are at most
	// maxHeldTerms: a term it does not count cannot match the row's text,
	// so confirming it does not look for that term.
	holds []uint8
	keys  []keyRun // the keys of cands, in order
	// counts holds, per candidate, two entries per positive term (at its
	// index × 2 × terms): the weight of its hits (rank.FormUnits), then
	// that of the hits that start in code, a byte each: almost every row
	// holds a term fewer than 32 times. A larger count is wideCount in
	// counts and its value in wide, by its place in counts.
	counts []uint8
	wide   map[int32]int32
	df     []int // per positive term: live rows holding it (for IDF)
	err    error
}

// accelerable reports whether the term index can answer q: every
// positive term has runs to look up, and the request ranks a limited
// number of sessions at message scope.
func accelerable(q *query.Query, req *Request) bool {
	return unservedReason(q, req) == ""
}

// unservedReason says why the term index cannot answer q ("" when it
// can), for -v: such a search reads every row by design, and a user
// wondering why it is slower deserves the reason.
func unservedReason(q *query.Query, req *Request) string {
	switch {
	case req.Limit <= 0:
		return "every session was asked for (-n 0), so none can be ruled out"
	case req.Scope == ScopeSession:
		return "--scope session applies --require and --exclude to whole sessions, which the term index does not bound"
	}
	positive := q.Positive()
	if len(positive) == 0 {
		return "the query has no word to look up, only --exclude"
	}
	for _, t := range positive {
		if t.Shape().Alts == nil {
			return fmt.Sprintf("%s holds no fixed letters or digits the term index could look up", t)
		}
	}
	return ""
}

// candidatesOf runs the postings of every segment, on all cores.
func (a *accel) candidatesOf() []segResult {
	results := make([]segResult, len(a.segs))
	counters := make([]counter, min(runtime.GOMAXPROCS(0), len(a.segs)))
	parallel.EachOn(len(counters), len(a.segs), func(w, i int) { results[i] = a.segment(i, &counters[w]) })
	if candidateBytes(results) >= collectBeforeBounds {
		counters = nil // their arrays, as large as the largest segment's rows, are garbage now
		runtime.GC()
	}
	return results
}

// collectBeforeBounds is how many bytes of candidates make a search
// collect between finding them and bounding their sessions. The runtime
// lets the heap reach twice what its last collection found live, which
// came partway through the candidate pass; bounding allocates the
// sessions' groups and keys on top of every candidate and the counters'
// garbage, and the heap peaked there. Collected first, the next
// collection comes at twice the candidates (docs/performance.md,
// "Measurements behind the code": a collection before bounding).
const collectBeforeBounds = 8 << 20

// candidateBytes is the memory the candidates of results hold.
func candidateBytes(results []segResult) int {
	n := 0
	for i := range results {
		n += results[i].candidateBytes()
	}
	return n
}

// candidateBytes is the memory r's candidates and their counts hold.
func (r *segResult) candidateBytes() int {
	return len(r.cands)*int(unsafe.Sizeof(candidate{})) + len(r.counts)
}

// segment finds one segment's candidates.
func (a *accel) segment(i int, c *counter) segResult {
	seg := a.segs[i]
	n := len(a.positive)
	res := segResult{df: make([]int, n)}
	c.reset(seg.Rows(), n, len(a.exclude))
	for t, shape := range a.shapes {
		if err := c.fill(seg, shape, &c.terms[t]); err != nil {
			res.err = err
			return res
		}
	}
	for t, shape := range a.exclude {
		if shape.Exact {
			if err := c.fill(seg, shape, &c.excluded[t]); err != nil {
				res.err = err
				return res
			}
		}
	}
	seg.ReleaseLookups() // done with; the row table is read next
	rows := c.union()
	if len(rows) == 0 {
		return res
	}
	// The candidates are gathered in row order (the row table is read
	// front to back) into the worker's buffer, then copied by key with
	// their counts, which stay in the counter until the next segment.
	// Sized for every row a term touched, which most are: grown by
	// append, it was copied a dozen times on the first segment.
	found := slices.Grow(c.cands[:0], len(rows))
	c.keys = slices.Grow(c.keys[:0], len(rows))
	noDead := len(a.snap.M.Dead) == 0
	table := seg.RowReader()
	for _, row := range rows {
		var present uint64
		for t := range n {
			if c.terms[t].counts[row].hits > 0 {
				present |= 1 << t
			}
		}
		rejected := !a.q.Satisfied(present) || c.isExcluded(row)
		if rejected && noDead {
			// Its row table entry could only say whether the row is dead,
			// and none is: skip reading (and checking) it. With --require
			// or --exclude most rows a term touches end here, and their
			// row table pages are then never faulted in nor checksummed.
			countPresent(res.df, present)
			continue
		}
		info, nextSame := table.RowNextSame(int(row))
		if !noDead && a.snap.Dead(info.Gen) { // a map lookup per row, even when the map is empty
			continue
		}
		countPresent(res.df, present)
		if rejected || !a.passes(&info, seg) {
			continue
		}
		found = append(found, candidate{row: row, gen: info.Gen,
			timeMs: info.TimeMs, length: int32(min(info.Len, math.MaxInt32)), typ: info.Type, flags: info.Flags,
			nextSame: nextSame, held: uint8(present)})
		c.keys = append(c.keys, info.Key)
	}
	seg.ReleaseRows() // what ranking needs of them is in the candidates
	c.cands = found
	res.cands, res.counts, res.wide, res.keys = c.byKey(found, max(seg.KeyCount(), 1), n) // Row reads a key past the table as 0
	return res
}

// keyRun is where the candidates of one segment key (session and
// project) lie in their segResult's cands.
type keyRun struct {
	key        uint32
	start, end int32
}

// byKey copies found's candidates (in row order) into an array of their
// size, ordered by key (c.keys, one per candidate), each key's in row
// order, as bounding takes them, with their counts of each of the n
// positive terms (segResult.counts, from c.terms), and says where each
// key's lie. A counting sort: keys are below keyCount.
func (c *counter) byKey(found []candidate, keyCount, n int) ([]candidate, []uint8, map[int32]int32, []keyRun) {
	if len(found) == 0 {
		return nil, nil, nil, nil
	}
	if cap(c.keyAt) < keyCount+1 {
		c.keyAt = make([]int32, keyCount+1)
	}
	at := c.keyAt[:keyCount+1]
	clear(at)
	runs := 0
	for _, k := range c.keys {
		if at[k+1]++; at[k+1] == 1 {
			runs++
		}
	}
	out := make([]keyRun, 0, runs)
	for k := range keyCount {
		if at[k+1] > 0 {
			out = append(out, keyRun{key: uint32(k), start: at[k], end: at[k] + at[k+1]})
		}
		at[k+1] += at[k]
	}
	width := 2 * n
	cands := make([]candidate, len(found))
	counts := make([]uint8, len(found)*width)
	var wide map[int32]int32
	for i, k := range c.keys {
		to := at[k]
		at[k]++
		cands[to] = found[i]
		row, dst := found[i].row, int(to)*width
		for t := range n {
			v := c.terms[t].counts[row]
			counts[dst+2*t], counts[dst+2*t+1] = narrowCount(v.hits), narrowCount(v.code)
			if v.hits >= wideCount || v.code >= wideCount {
				if wide == nil {
					wide = map[int32]int32{}
				}
				if v.hits >= wideCount {
					wide[int32(dst+2*t)] = v.hits
				}
				if v.code >= wideCount {
					wide[int32(dst+2*t+1)] = v.code
				}
			}
		}
	}
	return cands, counts, wide, out
}

// maxHeldTerms is how many positive terms segResult.holds can say a row
// holds; past it every term is looked for.
const maxHeldTerms = 8

// wideCount marks a count too large for a byte, kept in segResult.wide.
const wideCount = math.MaxUint8

// narrowCount is a count as counts holds it: wideCount for one kept in
// wide.
func narrowCount(v int32) uint8 { return uint8(min(v, wideCount)) }

// count returns the count at i in counts.
func (r *segResult) count(i int) int {
	if v := r.counts[i]; v != wideCount {
		return int(v)
	}
	return int(r.wide[int32(i)])
}

// countPresent counts a live row towards the document frequency of each
// term present in it.
func countPresent(df []int, present uint64) {
	for t := range df {
		if present&(1<<t) != 0 {
			df[t]++
		}
	}
}

// passes applies the non-text filters to a row's table entry; they are
// applied again, exactly, when the row is read.
func (a *accel) passes(info *terms.RowInfo, seg *terms.Segment) bool {
	f := &a.filter
	if f.types != nil && !f.types[terms.TypeName(info.Type)] {
		return false
	}
	if f.headless && info.Flags&terms.FlagHeadless != 0 {
		return false
	}
	if f.agents != nil && !f.agentPasses(info.Agent) {
		return false
	}
	if (f.since != 0 || f.until != 0) && info.TimeMs == terms.UnknownTime {
		return false // as the full scan: an unreadable time passes no time filter
	}
	if f.since != 0 && info.TimeMs < f.since || f.until != 0 && info.TimeMs > f.until {
		return false
	}
	if f.excluded == nil && len(a.req.Sessions) == 0 && len(a.req.Projects) == 0 {
		return true // no filter needs the row's session or project
	}
	k := seg.Key(info.Key)
	if f.excluded[k.Session] || !f.sessionMatches(k.Session) {
		return false
	}
	return len(a.req.Projects) == 0 || projectMatches(k.Project, a.req.Projects)
}

// counter accumulates per-row hit counts of terms in dense arrays, reset
// through the rows it touched.
type counter struct {
	terms    []rowCounts
	excluded []rowCounts
	lists    []pieceRows        // scratch for alternatives of several pieces
	at       []int              // scratch: where each piece's list is at
	scans    map[string][]int32 // per run, the tokens holding it: vocabulary scans of one term and segment
	mark     []uint8            // 1 for a row union has seen, else 0
	all      []int32
	// A segment's candidates in row order, before byKey copies them.
	cands []candidate
	keys  []uint32 // per candidate, its key
	keyAt []int32  // byKey's counts, then starts, per key
	// postings is addPostings's buffer: one token's postings.
	postings []terms.Posting
}

type rowCounts struct {
	// counts, per row of the segment: a row's hits and hits in code side
	// by side, so that adding a posting (rows at random) and reading a
	// row back touch one cache line, not one in each of two arrays.
	counts  []rowCount
	touched []int32
}

type rowCount struct{ hits, code int32 }

func (r *rowCounts) reset(rows int) {
	if cap(r.counts) < rows {
		r.counts = make([]rowCount, rows)
		// Fresh pages from the kernel: add reads a count before writing
		// it, which would map the zero page and then copy it (two faults
		// a page); writing the zeros first takes one.
		clear(r.counts)
	} else {
		for _, row := range r.touched {
			r.counts[row] = rowCount{}
		}
		r.counts = r.counts[:rows]
	}
	r.touched = r.touched[:0]
}

func (r *rowCounts) add(row int32, hits, code int32) {
	n := &r.counts[row]
	if n.hits == 0 {
		r.touched = append(r.touched, row)
	}
	n.hits = min(n.hits+hits, maxCount)
	n.code = min(n.code+code, maxCount)
}

// maxCount caps hit counts: past it a count is only a bound anyway (BM25
// saturates long before), and the cap keeps sums from overflowing int32,
// which would turn a match into a miss.
const maxCount = 1 << 30

func clampCount(n int) int32 { return int32(min(max(n, 0), maxCount)) }

func (c *counter) reset(rows, positive, excluded int) {
	for len(c.terms) < positive {
		c.terms = append(c.terms, rowCounts{})
	}
	for len(c.excluded) < excluded {
		c.excluded = append(c.excluded, rowCounts{})
	}
	for i := range c.terms {
		c.terms[i].reset(rows)
	}
	for i := range c.excluded {
		c.excluded[i].reset(rows)
	}
	if cap(c.mark) < rows {
		c.mark = make([]uint8, rows)
		clear(c.mark) // union reads a mark before writing it: see rowCounts.reset
	}
	c.mark = c.mark[:rows]
}

// fill counts, per row, the weight of a term's hits (rank.FormUnits):
// for a plain word, that of the exact occurrences in every token holding
// it, by whether they start the token, and of the tokens its channels
// take (query.Forms); for other shapes, for each alternative the fewest
// occurrences of any of its pieces (every match holds one of each), summed
// over alternatives, each at the most a hit can weigh. Hits in code are
// those of the first piece, where an anchored shape's matches start.
func (c *counter) fill(seg *terms.Segment, shape query.Shape, out *rowCounts) error {
	if shape.Forms != nil {
		return c.addForms(seg, shape.Forms, out)
	}
	if shape.Parts {
		return c.addParts(seg, shape.Alts[0][0], out)
	}
	if shape.Exact {
		return c.addRun(seg, shape.Alts[0][0], shape.Whole, true, out)
	}
	clear(c.scans)
	if c.scans == nil {
		c.scans = map[string][]int32{}
	}
	for _, alt := range shape.Pieces {
		if len(alt) == 1 {
			// Its hits are the piece's: no other piece to take the least of.
			if err := c.addPiece(seg, alt[0], out); err != nil {
				return err
			}
			continue
		}
		if err := c.addPieces(seg, alt, out); err != nil {
			return err
		}
	}
	return nil
}

// addPieces adds an alternative of several pieces: per row holding them
// all, the fewest hits of any, and of those in code at most the first
// piece's. Each piece's rows are listed rather than counted in arrays of
// every row of the segment: they are few next to the segment (a phrase's
// words at the edges of their tokens), and the arrays' zeroing and first
// page faults cost more than a phrase's whole lookup.
func (c *counter) addPieces(seg *terms.Segment, alt []query.Piece, out *rowCounts) error {
	for len(c.lists) < len(alt) {
		c.lists = append(c.lists, pieceRows{})
	}
	lists := c.lists[:len(alt)]
	for j, piece := range alt {
		lists[j].rows = lists[j].rows[:0]
		if err := c.addPiece(seg, piece, &lists[j]); err != nil {
			return err
		}
		lists[j].settle()
	}
	c.at = append(c.at[:0], make([]int, len(alt))...)
	for _, h := range lists[0].rows {
		least := h.hits
		for j := 1; j < len(alt) && least > 0; j++ {
			rows, p := lists[j].rows, c.at[j]
			for p < len(rows) && rows[p].row < h.row {
				p++
			}
			c.at[j] = p
			if p == len(rows) || rows[p].row != h.row {
				least = 0
				break
			}
			least = min(least, rows[p].hits)
		}
		if least > 0 {
			out.add(h.row, least, min(least, h.code))
		}
	}
	return nil
}

// hitSink takes a row's hits: the per-row counts of a term (rowCounts) or
// the listed rows of one piece (pieceRows).
type hitSink interface {
	add(row int32, hits, code int32)
}

// pieceRows lists the rows holding a piece, with their hits.
type pieceRows struct {
	rows []pieceHit
}

type pieceHit struct{ row, hits, code int32 }

func (l *pieceRows) add(row int32, hits, code int32) {
	l.rows = append(l.rows, pieceHit{row, hits, code})
}

// settle sorts the rows and sums the entries of a row (several tokens
// holding the piece), as rowCounts.add would.
func (l *pieceRows) settle() {
	rows := l.rows
	if !slices.IsSortedFunc(rows, comparePieceHit) {
		slices.SortFunc(rows, comparePieceHit)
	}
	n := 0
	for _, h := range rows {
		if n > 0 && rows[n-1].row == h.row {
			rows[n-1].hits = min(rows[n-1].hits+h.hits, maxCount)
			rows[n-1].code = min(rows[n-1].code+h.code, maxCount)
			continue
		}
		rows[n] = h
		n++
	}
	l.rows = rows[:n]
}

func comparePieceHit(a, b pieceHit) int { return cmp.Compare(a.row, b.row) }

// addPiece adds the postings of every token holding piece, each match it
// can hold (query.Piece.Times) at the most a hit can weigh. A piece that
// is a whole token is found by its text, one at a token's start by
// binary search (the vocabulary is sorted), others by a vocabulary scan
// for their longest run, done once per term and segment (dead.?lock
// looks DEAD up for two pieces).
func (c *counter) addPiece(seg *terms.Segment, piece query.Piece, out hitSink) error {
	if len(piece.Runs) == 1 && piece.Start == piece.End {
		return c.addRun(seg, piece.Runs[0], piece.Start, false, out)
	}
	var err error
	take := func(id int, tok []byte) {
		if err != nil {
			return
		}
		if times := piece.Times(tok); times > 0 {
			err = c.addPostings(seg, id, times*rank.MaxFormUnits, out)
		}
	}
	if piece.Start {
		seg.FindPrefixed(piece.Runs[0], take)
		return err
	}
	key := piece.Key()
	ids, ok := c.scans[key]
	if !ok {
		seg.FindTokens(key, false, func(id, _ int) { ids = append(ids, int32(id)) })
		c.scans[key] = ids
	}
	for _, id := range ids {
		take(int(id), seg.Token(int(id)))
	}
	return err
}

// addRun adds the postings of every token holding run (equal to it, with
// whole): with exact set, each occurrence weighed by its form (starting
// the token or inside it), else at the most a hit can weigh.
func (c *counter) addRun(seg *terms.Segment, run string, whole, exact bool, out hitSink) error {
	var err error
	seg.FindTokenTexts(run, whole, func(id int, tok []byte, times int) {
		if err != nil {
			return
		}
		units := times * rank.MaxFormUnits
		if exact {
			units = occurrenceUnits(tok, run, times)
		}
		err = c.addPostings(seg, id, units, out)
	})
	return err
}

// addParts adds the postings of every token holding run as the whole
// token or a whole part of it between underscores (query.Shape.Parts),
// each such occurrence a hit starting a word.
func (c *counter) addParts(seg *terms.Segment, run string, out hitSink) error {
	var err error
	seg.FindTokenTexts(run, false, func(id int, tok []byte, _ int) {
		if n := query.PartsIn(tok, run); n > 0 && err == nil {
			err = c.addPostings(seg, id, n*rank.FormUnits(rank.FormWord), out)
		}
	})
	return err
}

// occurrenceUnits weighs the times occurrences of run in tok: one starts
// the word if tok begins with it (query.StartsWord), the others lie
// inside it.
func occurrenceUnits(tok []byte, run string, times int) int {
	if query.StartsWord(tok, run) {
		return rank.FormUnits(rank.FormWord) + (times-1)*rank.FormUnits(rank.FormInside)
	}
	return times * rank.FormUnits(rank.FormInside)
}

// addForms adds the postings of every token a plain word with channels
// takes, each weighed by how it matches (query.Forms.Classify): the
// tokens holding the word, those holding it once accents are folded and
// those of its word form. A token found by several lookups counts once:
// the word's lookup gives each token once, and those holding the word
// are what Classify takes as exact, so the other lookups skip them and
// remember only their own few (a map of every token holding FIX or TEST,
// thousands per segment, was a tenth of the question's candidate pass).
func (c *counter) addForms(seg *terms.Segment, f *query.Forms, out *rowCounts) error {
	var err error
	seg.FindTokenTexts(f.Word, false, func(id int, tok []byte, times int) {
		if err == nil {
			err = c.addPostings(seg, id, occurrenceUnits(tok, f.Word, times), out)
		}
	})
	var seen map[int]bool
	other := func(id int, tok []byte) {
		if err != nil || seen[id] || bytes.Contains(tok, []byte(f.Word)) {
			return
		}
		if seen == nil {
			seen = map[int]bool{}
		}
		seen[id] = true
		m := f.Classify(tok)
		if !m.OK {
			return
		}
		// A token holding the word was skipped above, so m is an
		// accent or word-form match, weighed by its form alone.
		err = c.addPostings(seg, id, rank.FormUnits(m.Form), out)
	}
	switch {
	case f.Fold == f.Word:
		seg.FindAccented(f.Fold, other) // the tokens holding it as it is were taken above
	case f.Fold != "":
		seg.FindFolded(f.Fold, other)
	}
	if f.Stem != "" {
		seg.FindStem(f.Stem, other)
	}
	return err
}

// addPostings adds token id's postings, each occurrence weighing units.
// They are decoded into the counter's buffer, then added in a loop that
// calls nothing per posting for a term's row counts (most of a common
// word's postings), where a callback per posting and an interface call
// in it were a tenth of the candidate pass.
func (c *counter) addPostings(seg *terms.Segment, id, units int, out hitSink) error {
	var err error
	c.postings, err = seg.AppendPostings(id, c.postings[:0])
	if r, ok := out.(*rowCounts); ok {
		for _, p := range c.postings {
			r.add(p.Row, clampCount(int(p.Hits)*units), clampCount(int(p.Code)*units))
		}
		return err
	}
	for _, p := range c.postings {
		out.add(p.Row, clampCount(int(p.Hits)*units), clampCount(int(p.Code)*units))
	}
	return err
}

// union returns every row a positive term touched, once each, in
// ascending order, so that the row table is read front to back. When
// many are, they are gathered without a branch per row: about a third of
// the question's rows are touched, at random, and a branch on each mark
// was mispredicted that often.
func (c *counter) union() []int32 {
	n := 0
	for i := range c.terms {
		for _, row := range c.terms[i].touched {
			n += int(1 - c.mark[row])
			c.mark[row] = 1
		}
	}
	if n == 0 {
		return c.all[:0]
	}
	if n < len(c.mark)/8 {
		// Few rows: a branch on each mark is mostly right, and writing
		// every row's number (and a buffer that can hold them all) costs
		// more than it saves.
		c.all = slices.Grow(c.all[:0], n)
		for row, m := range c.mark {
			if m != 0 {
				c.all = append(c.all, int32(row))
				c.mark[row] = 0
			}
		}
		return c.all
	}
	all := slices.Grow(c.all[:0], len(c.mark)+1)[:len(c.mark)+1]
	k := 0
	for row, m := range c.mark {
		all[k] = int32(row)
		k += int(m)
	}
	clear(c.mark)
	c.all = all[:k]
	return c.all
}

func (c *counter) isExcluded(row int32) bool {
	for i := range c.excluded {
		if c.excluded[i].counts[row].hits > 0 {
			return true
		}
	}
	return false
}

// blockOf maps a segment row to its block and line within the block.
func (a *accel) blockOf(seg int, row int) (block, line int) {
	starts := a.rowStarts[seg]
	// starts[k] is the first row of block seg.First+k; find the last ≤ row.
	lo, hi := 0, len(starts)-1
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if starts[mid] <= row {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return a.segs[seg].First + lo, row - starts[lo]
}

// rowStartsOf returns, per segment, the first row of each of its blocks.
// ok is false when a segment's row count is not that of its blocks: a
// damaged segment, which the search must not trust.
func rowStartsOf(snap *snapshot.Snapshot, segs []*terms.Segment) (out [][]int, ok bool) {
	out = make([][]int, len(segs))
	for i, s := range segs {
		starts := make([]int, 0, s.End-s.First)
		n := 0
		for b := s.First; b < s.End; b++ {
			starts = append(starts, n)
			n += snap.Blocks[b].Rows
		}
		if n != s.Rows() {
			return nil, false
		}
		out[i] = starts
	}
	return out, true
}
