package search

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"time"

	"github.com/recall-dev/recall/store/snapshot"

	"github.com/recall-dev/recall/filter"
	"github.com/recall-dev/recall/internal/parallel"
	"github.com/recall-dev/recall/query"
	"github.com/recall-dev/recall/rank"
	"github.com/recall-dev/recall/record"
)

// Result is what a search found.
type Result struct {
	Query    *query.Query
	Sessions []rank.Session // best first, near-duplicates collapsed
	Stats    Stats
	// Ranked is the query as ranking weighed it: its positive terms and
	// their document frequencies (rank.IDFs gives each term's weight).
	Ranked rank.Query
}

// Stats says how much work a search did, for --explain and benchmarks.
type Stats struct {
	Blocks        int // blocks in the index
	BlocksRead    int // blocks decompressed
	RowsScanned   int
	RowsMatched   int
	CutoffDropped int // matches dropped by the recall cutoff
	BadRows       int // rows that are not v1 rows (a damaged index)
	// Damaged counts rows blocks that could not be read and were skipped
	// (their rows were not searched); DamageExample is the first reason.
	Damaged       int
	DamageExample string
	// Problems are damaged derived files the search worked around (the
	// answer came from the rows), each a problem.Problem naming its fix.
	Problems []error
	// TermIndex: sessions were ranked from the term index, and only the
	// blocks of those near the top were read.
	TermIndex bool
	// Fallback says why a search the term index could have answered read
	// the rows instead (nil when it did not): -v prints it.
	Fallback error
	// Unserved says why the term index cannot answer this query at all
	// ("" when it can, or when the search was asked to read every row):
	// -v prints it.
	Unserved string
}

// Run searches the snapshot. Damage it meets is worked around and listed
// in the result's Stats (Warnings).
func Run(snap *snapshot.Snapshot, req Request) (*Result, error) {
	res, err := runSearch(snap, req)
	if err == nil && res != nil {
		err = nameSessions(snap, res.Sessions, req.Limit)
	}
	if res != nil {
		res.Stats.Problems = snap.Problems()
		if left := res.Query.LeftOut(); left != "" {
			res.Stats.Problems = append(res.Stats.Problems, errors.New(left))
		}
	}
	return res, err
}

func runSearch(snap *snapshot.Snapshot, req Request) (*Result, error) {
	q, err := query.ParseQuery(req.Terms, req.Require, req.Exclude, req.Match)
	if err != nil {
		return nil, err
	}
	if req.Now.IsZero() {
		req.Now = time.Now()
	}
	var fallback error
	unserved := ""
	if !req.FullScan {
		unserved = unservedReason(q, &req)
	}
	if !req.FullScan && unserved == "" {
		res, why, err := runAccelerated(snap, q, &req)
		if res != nil || err != nil {
			return res, err
		}
		fallback = why
	}
	s := newScan(snap, q, &req)
	found := s.run()
	if err := found.err; err != nil {
		return nil, err
	}
	matches := selectMatches(q, &req, found)
	stats := Stats{Blocks: len(snap.Blocks), BlocksRead: found.blocksRead, RowsScanned: found.rowsScanned, BadRows: found.badRows, Fallback: fallback, Unserved: unserved,
		Damaged: found.damaged, DamageExample: found.damageExample}
	if req.Cutoff {
		events, err := snap.Events()
		if err != nil {
			return nil, fmt.Errorf("search: %w", err)
		}
		matches, stats.CutoffDropped = applyCutoff(matches, events, req.Window)
	}
	stats.RowsMatched = len(matches)
	msgs := rankMessages(q, matches)
	rq := rankQuery(q, snap, found)
	opt := rankOptions(q, &req)
	opt.Limit = req.Limit
	conv := newConversations(snap)
	opt.Conversations = conv.of
	sessions := rank.Rank(msgs, rq, opt)
	if conv.err != nil {
		return nil, conv.err
	}
	return &Result{Query: q, Sessions: sessions, Stats: stats, Ranked: rq}, nil
}

// nameSessions sets the title of the sessions a search shows (the first
// limit; all when limit is 0), from the titles the index lists.
func nameSessions(snap *snapshot.Snapshot, sessions []rank.Session, limit int) error {
	if limit > 0 && len(sessions) > limit {
		sessions = sessions[:limit]
	}
	if len(sessions) == 0 {
		return nil
	}
	ids := make(map[string]bool, len(sessions))
	for i := range sessions {
		ids[sessions[i].ID] = true
	}
	titles, err := snap.Titles(ids)
	if err != nil {
		return fmt.Errorf("search: %w", err)
	}
	for i := range sessions {
		sessions[i].Title = titles[sessions[i].ID]
	}
	return nil
}

// rankMessages turns matches into what ranking takes: each hit with its
// form (how it matched: exact, inside a word, accents folded, word form)
// and each message with its place in its transcript, where its
// neighbours lend it context.
func rankMessages(q *query.Query, matches []match) []rank.Message {
	terms := q.Positive()
	msgs := make([]rank.Message, len(matches))
	for i := range matches {
		rankMessage(terms, &matches[i], &msgs[i])
	}
	return msgs
}

// scoredMessages is rankMessages into the messages of one session, as
// rank.ScoreSessionMessages takes them.
func scoredMessages(q *query.Query, matches []match) []rank.ScoredMessage {
	terms := q.Positive()
	msgs := make([]rank.ScoredMessage, len(matches))
	for i := range matches {
		rankMessage(terms, &matches[i], &msgs[i].Message)
	}
	return msgs
}

// rankMessage sets m to match's message, its hits' forms and its place.
func rankMessage(terms []*query.Term, match *match, m *rank.Message) {
	*m = match.msg
	m.Ordinal = match.ordinal
	for j, h := range m.Hits {
		if h.Term >= 0 && h.Term < len(terms) {
			m.Hits[j].Form = terms[h.Term].HitForm(m.Text, h.Start, h.End)
		}
	}
}

// rankOptions are the session-level settings of ranking for req, the
// time the query names included.
func rankOptions(q *query.Query, req *Request) rank.Options {
	opt := rank.Options{Now: req.Now, HalfLife: req.HalfLife, CurrentProject: req.CurrentProject, NoNotes: !req.Explain}
	if w := q.When; w != nil {
		from, to := w.Span(req.Now)
		opt.When = &rank.TimeWindow{From: from, To: to, Phrase: w.Phrase}
	}
	return opt
}

// match is a row that satisfied the query at its scope, already in the
// form ranking takes (with the spans of every positive term).
type match struct {
	msg      rank.Message
	ordinal  int    // position among its transcript's rows, for the cutoff window
	positive uint64 // bit i: Positive()[i] occurs in the text
	excluded bool
}

// selectMatches applies the scope. At message scope the scan already kept
// only messages that satisfy the query; at session scope it kept every
// message with a positive or excluded term, and whole sessions are judged
// here.
func selectMatches(q *query.Query, req *Request, found *scanResult) []match {
	if req.Scope != ScopeSession {
		return found.matches
	}
	bySession := map[string]uint64{}
	excluded := map[string]bool{}
	for _, m := range found.matches {
		bySession[m.msg.Session] |= m.positive
		excluded[m.msg.Session] = excluded[m.msg.Session] || m.excluded
	}
	out := found.matches[:0]
	for _, m := range found.matches {
		if excluded[m.msg.Session] || m.positive == 0 || !q.Satisfied(bySession[m.msg.Session]) {
			continue
		}
		out = append(out, m)
	}
	return out
}

// applyCutoff drops matches that echo a recall: the event itself and the
// messages in the window after it that share words with what was recalled.
func applyCutoff(matches []match, events map[string][]snapshot.Event, w filter.Window) ([]match, int) {
	if len(events) == 0 {
		return matches, 0
	}
	out := matches[:0]
	dropped := 0
	for _, m := range matches {
		if echoesRecall(&m, events[m.msg.Session], w) {
			dropped++
			continue
		}
		out = append(out, m)
	}
	return out, dropped
}

func echoesRecall(m *match, events []snapshot.Event, w filter.Window) bool {
	for i := range events {
		e := &events[i].RecallEvent
		if m.msg.Source == e.Source && m.msg.Line == e.Line {
			return true
		}
		if e.InWindow(w, m.msg.Timestamp, m.msg.Source, m.ordinal) && e.SharesWords(m.msg.Text) {
			return true
		}
	}
	return false
}

func rankQuery(q *query.Query, snap *snapshot.Snapshot, found *scanResult) rank.Query {
	terms := q.Positive()
	rq := rank.Query{Terms: make([]string, len(terms)), DocFreq: found.docFreq, TotalDocs: int(snap.M.Rows)}
	for i, t := range terms {
		rq.Terms[i] = t.String()
	}
	if snap.M.Rows > 0 {
		rq.AvgLen = float64(snap.M.TextBytes) / float64(snap.M.Rows)
	}
	return rq
}

// scan reads the blocks that may hold matches, on all cores.
type scan struct {
	snap   *snapshot.Snapshot
	q      *query.Query
	req    *Request
	terms  []*query.Term
	filter rowFilter
}

type scanResult struct {
	matches       []match
	docFreq       []int
	blocksRead    int
	rowsScanned   int
	badRows       int
	damaged       int
	damageExample string
	err           error
}

func newScan(snap *snapshot.Snapshot, q *query.Query, req *Request) *scan {
	return &scan{snap: snap, q: q, req: req, terms: q.Positive(), filter: newRowFilter(snap, req)}
}

// plan lists the blocks to read. A search the term index could answer
// reads every block, even those its filters rule out, since every live row
// counts towards the terms' document frequencies as in the term index: the
// results are then the same with or without the index (and --full-scan
// can check them). Other searches (--count, --scope session, patterns
// without words) skip the blocks whose time range, types or session
// filter rule them out, and count frequencies over the blocks read. Block
// summaries built under other rules (Snapshot.SkipBlocks) rule nothing out.
func (s *scan) plan() []int {
	everyBlock := s.req.FullScan || accelerable(s.q, s.req) || !s.snap.SkipBlocks()
	var out []int
	for i := range s.snap.Blocks {
		if everyBlock || s.filter.blockMayPass(&s.snap.Blocks[i]) {
			out = append(out, i)
		}
	}
	return out
}

func (s *scan) run() *scanResult {
	plans := s.plan()
	results := make([]blockResult, len(plans))
	workers := make([]*blockWorker, min(runtime.GOMAXPROCS(0), max(len(plans), 1)))
	for i := range workers {
		w, err := newBlockWorker(s)
		if err != nil {
			for j := range results {
				results[j].err = err
			}
			return s.merge(results)
		}
		defer w.close()
		workers[i] = w
	}
	parallel.EachOn(len(workers), len(plans), func(w, i int) { results[i] = workers[w].process(plans[i]) })
	return s.merge(results)
}

// merge combines block results in block order, so output is deterministic.
func (s *scan) merge(results []blockResult) *scanResult {
	out := &scanResult{docFreq: make([]int, len(s.terms))}
	total := 0
	for i := range results {
		total += len(results[i].matches)
	}
	out.matches = make([]match, 0, total)
	for i := range results {
		r := &results[i]
		if errors.Is(r.err, snapshot.ErrBlockDamaged) {
			// The rest of the index still answers: skip the block, say so.
			if out.damaged++; out.damageExample == "" {
				out.damageExample = r.err.Error()
			}
			continue
		}
		if r.err != nil {
			out.err = fmt.Errorf("search: %w", r.err)
			return out
		}
		out.blocksRead++
		out.rowsScanned += r.rows
		out.badRows += r.badRows
		out.matches = append(out.matches, r.matches...)
		for j, n := range r.docFreq {
			out.docFreq[j] += n
		}
	}
	return out
}

// rowFilter holds the non-text filters.
type rowFilter struct {
	snap     *snapshot.Snapshot
	req      *Request
	types    map[string]bool
	since    int64 // Unix ms, 0 unbounded
	until    int64
	excluded map[string]bool // the current session and its lineage
	headless bool            // leave out the rows of headless runs
	// agents, when not nil, are the agents whose rows pass (--agent),
	// by record.AgentCode.
	agents []bool
}

// agentPasses reports whether rows of the agent numbered code pass.
func (f *rowFilter) agentPasses(code uint8) bool { return int(code) < len(f.agents) && f.agents[code] }

func newRowFilter(snap *snapshot.Snapshot, req *Request) rowFilter {
	f := rowFilter{snap: snap, req: req, excluded: req.excluded(), headless: req.excludesHeadless()}
	if len(req.Types) > 0 {
		f.types = map[string]bool{}
		for _, t := range req.Types {
			f.types[t] = true
		}
	}
	if len(req.Agents) > 0 {
		f.agents = make([]bool, len(record.Agents()))
		for _, a := range req.Agents {
			if record.IsAgent(a) {
				f.agents[record.AgentCode(a)] = true
			}
		}
	}
	if !req.Since.IsZero() {
		f.since = req.Since.UnixMilli()
	}
	if !req.Until.IsZero() {
		f.until = req.Until.UnixMilli()
	}
	return f
}

// blockMayPass rules out blocks by time range, type and exact session.
func (f *rowFilter) blockMayPass(b *snapshot.Block) bool {
	if f.since != 0 && b.MaxTime != 0 && b.MaxTime < f.since {
		return false
	}
	if f.until != 0 && b.MinTime != 0 && b.MinTime > f.until {
		return false
	}
	if !f.blockMaySession(b) {
		return false
	}
	if f.types != nil {
		any := false
		for t := range f.types {
			any = any || b.HasType(t)
		}
		if !any {
			return false
		}
	}
	return true
}

// blockMaySession uses the block's session filter when every --session
// value is a whole session id (a prefix cannot be looked up in a Bloom
// filter).
func (f *rowFilter) blockMaySession(b *snapshot.Block) bool {
	if len(f.req.Sessions) == 0 {
		return true
	}
	for _, s := range f.req.Sessions {
		// An id written with \x escapes may be of an older index that
		// holds the raw bytes (record.SessionIDOf): no Bloom test.
		if len(s) < fullSessionIDLen || strings.Contains(s, `\`) || b.MaySession(s) {
			return true
		}
	}
	return false
}

// fullSessionIDLen is the length of a Claude Code session id (a UUID).
const fullSessionIDLen = 36

// sessionMatches accepts a full id or a unique-looking prefix.
func (f *rowFilter) sessionMatches(id string) bool {
	if len(f.req.Sessions) == 0 {
		return true
	}
	for _, s := range f.req.Sessions {
		if record.SessionHasPrefix(id, s) {
			return true
		}
	}
	return false
}
