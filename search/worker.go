package search

import (
	"bytes"
	"cmp"
	"slices"
	"strconv"
	"time"
	"unsafe"

	"github.com/recall-dev/recall/store/snapshot"

	"github.com/klauspost/compress/zstd"

	"github.com/recall-dev/recall/query"
	"github.com/recall-dev/recall/rank"
	"github.com/recall-dev/recall/record"
	"github.com/recall-dev/recall/textrules"
)

// blockWorker decodes and scans blocks; one per goroutine, reusing its
// decoder and buffers.
type blockWorker struct {
	s       *scan
	dec     *zstd.Decoder
	raw     []byte
	scratch []byte
	text    []byte
	spans   []query.Span
	strs    map[string]interned         // interned session ids, projects, sources, types, by their column bytes
	last    [record.NumColumns]interned // per column, the value interned last
	refs    []candRef                   // the candidates of the session being confirmed
	read    []*cachedBlock              // the blocks it acquired, to release
	rowHits []rank.Hit                  // the hits of the row being confirmed
	kept    arenas                      // what confirmed matches keep of their rows
}

type blockResult struct {
	matches []match
	docFreq []int
	rows    int
	badRows int
	err     error
}

func newBlockWorker(s *scan) (*blockWorker, error) {
	dec, err := snapshot.NewDecoder()
	if err != nil {
		return nil, err
	}
	return &blockWorker{s: s, dec: dec, strs: map[string]interned{}}, nil
}

func (w *blockWorker) close() { w.dec.Close() }

func (w *blockWorker) process(block int) blockResult {
	res := blockResult{docFreq: make([]int, len(w.s.terms))}
	var err error
	w.raw, w.scratch, err = w.s.snap.ReadBlock(w.dec, &w.s.snap.Blocks[block], w.raw, w.scratch)
	if err != nil {
		res.err = err
		return res
	}
	var f [record.NumColumns][]byte
	raw := w.raw
	for len(raw) > 0 {
		var line []byte
		line, raw, _ = bytes.Cut(raw, []byte{'\n'})
		if !record.SplitRow(line, &f) {
			res.badRows++
			continue
		}
		res.rows++
		w.scanRow(&f, line, &res)
	}
	return res
}

// scanRow applies the query and the filters to one row.
func (w *blockWorker) scanRow(f *[record.NumColumns][]byte, line []byte, res *blockResult) {
	if gen, _ := strconv.ParseUint(string(f[record.ColGen]), 10, 32); w.s.snap.Dead(uint32(gen)) {
		return
	}
	text := w.unescapedText(f[record.ColText])
	positive, excluded := w.s.q.TermHits(text)
	w.countDocFreq(text, positive, res.docFreq)
	if positive == 0 && !excluded {
		return
	}
	if w.s.req.Scope != ScopeSession && (excluded || !w.s.q.Satisfied(positive)) {
		return
	}
	if !w.passes(f) {
		return
	}
	res.matches = append(res.matches, w.newMatch(f, text, positive, excluded))
}

// countDocFreq counts the row towards each term's document frequency as
// the term index does (query.Term.IndexMatch): for a plain word, when it
// matches; for a phrase or pattern, when the row holds its words. The
// full scan and the index then weigh every term alike.
func (w *blockWorker) countDocFreq(text []byte, positive uint64, df []int) {
	for i, t := range w.s.terms {
		shape := t.Shape()
		if shape.Exact || shape.Alts == nil {
			if positive&(1<<i) != 0 {
				df[i]++
			}
			continue
		}
		if positive&(1<<i) != 0 || t.IndexMatch(text) {
			df[i]++
		}
	}
}

// confirmRow is scanRow for a candidate row the term index sends to be
// read, at message scope, without document frequencies (the index
// counted them). Almost every such row matches, and scanRow would ask
// each term whether it matches and then find every hit of it: a term
// whose shape is exact (a plain word, query.Shape.Exact) is found once
// here, present when it has a hit, since for it Match holds exactly when
// FindAll finds something. Other terms are asked as scanRow asks them.
// The hits are listed as hits lists them. held has bit t set for each
// term t the index may find in the row: one it does not is not looked
// for, since the index counts every token that can hold a match of a
// term (the candidate pass trusts the same for --require).
func (w *blockWorker) confirmRow(f *[record.NumColumns][]byte, res *blockResult, held uint64) {
	if gen, _ := strconv.ParseUint(string(f[record.ColGen]), 10, 32); w.s.snap.Dead(uint32(gen)) {
		return
	}
	text := w.unescapedText(f[record.ColText])
	var positive uint64
	hits := w.rowHits[:0]
	for ti, t := range w.s.terms {
		if held&(1<<ti) == 0 || !t.Shape().Exact && !t.Match(text) {
			continue
		}
		w.spans = t.FindAll(text, w.spans[:0])
		if t.Shape().Exact && len(w.spans) == 0 {
			continue
		}
		positive |= 1 << ti
		for _, sp := range w.spans {
			if sp.End > sp.Start {
				hits = append(hits, rank.Hit{Term: ti, Start: sp.Start, End: sp.End})
			}
		}
	}
	w.rowHits = hits
	excluded := slices.ContainsFunc(w.s.q.Exclude, func(t *query.Term) bool { return t.Match(text) })
	if excluded || !w.s.q.Satisfied(positive) || !w.passes(f) {
		return
	}
	sortHits(hits)
	res.matches = append(res.matches, w.matchWithHits(f, w.kept.text(text), positive, excluded, w.kept.hits(hits)))
}

// arenas hold the texts and hits of confirmed matches, a chunk at a time:
// a question confirms about 5,000 rows, and a string and a grown hits
// slice for each were about a tenth of confirming a row. Chunks are only
// ever appended to, and each match's text and hits are capped slices of
// one, so nothing handed out is written again (rankMessages sets the
// Form of its own hits only).
type arenas struct {
	texts   []byte
	hitsBuf []rank.Hit
}

// arenaTexts and arenaHits size the chunks; a text longer than a
// quarter chunk gets its own allocation, as before.
const (
	arenaTexts = 64 << 10
	arenaHits  = 1024
)

// text returns a string holding text, copied into the current chunk.
func (k *arenas) text(text []byte) string {
	if len(text) == 0 || len(text) > arenaTexts/4 {
		return string(text)
	}
	if len(text) > cap(k.texts)-len(k.texts) {
		k.texts = make([]byte, 0, arenaTexts)
	}
	start := len(k.texts)
	k.texts = append(k.texts, text...)
	// The bytes are never written again: later texts go after them or
	// into a new chunk.
	return unsafe.String(&k.texts[start], len(text))
}

// hits returns a copy of hits (nil for none), its capacity its length.
func (k *arenas) hits(hits []rank.Hit) []rank.Hit {
	if len(hits) == 0 {
		return nil
	}
	if len(hits) > arenaHits/4 {
		return slices.Clone(hits)
	}
	if len(hits) > cap(k.hitsBuf)-len(k.hitsBuf) {
		k.hitsBuf = make([]rank.Hit, 0, arenaHits)
	}
	start := len(k.hitsBuf)
	k.hitsBuf = append(k.hitsBuf, hits...)
	return k.hitsBuf[start:len(k.hitsBuf):len(k.hitsBuf)]
}

// newMatch builds the rank message of a matched row: only the text is
// copied; the columns that repeat from row to row are interned.
func (w *blockWorker) newMatch(f *[record.NumColumns][]byte, text []byte, positive uint64, excluded bool) match {
	return w.matchWithHits(f, string(text), positive, excluded, w.hits(text, positive))
}

// matchWithHits is newMatch with the row's text copied and its hits
// found.
func (w *blockWorker) matchWithHits(f *[record.NumColumns][]byte, text string, positive uint64, excluded bool, hits []rank.Hit) match {
	lineNo, _ := strconv.Atoi(string(f[record.ColLine]))
	ordinal, _ := strconv.Atoi(string(f[record.ColOrdinal]))
	return match{
		msg: rank.Message{
			Session:   w.internColumn(record.ColSession, f[record.ColSession]),
			Project:   w.internColumn(record.ColProject, f[record.ColProject]),
			Type:      w.internColumn(record.ColType, f[record.ColType]),
			Timestamp: rowTime(f[record.ColTimestamp]),
			Text:      text,
			Source:    w.internColumn(record.ColSource, f[record.ColSource]),
			Line:      lineNo,
			Agent:     record.AgentOf(w.internColumn(record.ColAgentName, f[record.ColAgentName])),
			Hits:      hits,
		},
		ordinal:  ordinal,
		positive: positive,
		excluded: excluded,
	}
}

// rowTime reads a row's timestamp as time.Parse(time.RFC3339Nano) does
// (the zero time when it fails): the form Claude Code writes is read by
// record.CanonicalTimestamp, whose milliseconds make the same UTC time.
func rowTime(col []byte) time.Time {
	if ms, ok := record.CanonicalTimestamp(col); ok {
		return time.UnixMilli(ms).UTC()
	}
	t, _ := time.Parse(time.RFC3339Nano, string(col))
	return t
}

// hits lists every match of every positive term in text, by position.
func (w *blockWorker) hits(text []byte, positive uint64) []rank.Hit {
	var hits []rank.Hit
	for ti, t := range w.s.terms {
		if positive&(1<<ti) == 0 {
			continue
		}
		w.spans = t.FindAll(text, w.spans[:0])
		for _, sp := range w.spans {
			if sp.End > sp.Start {
				hits = append(hits, rank.Hit{Term: ti, Start: sp.Start, End: sp.End})
			}
		}
	}
	sortHits(hits)
	return hits
}

// sortHits orders hits by Start. slices.SortFunc runs the pattern-defeating
// quicksort sort.Slice runs, comparing alike, so hits starting at one
// place keep the order sort.Slice gave them; it takes no interface value
// and no reflection-made swapper, which sort.Slice allocated per row.
func sortHits(hits []rank.Hit) {
	slices.SortFunc(hits, func(a, b rank.Hit) int { return cmp.Compare(a.Start, b.Start) })
}

// interned is a column value as the rows file holds it (raw) and as
// read (s, escapes undone).
type interned struct{ raw, s string }

// intern returns one shared string for equal column values, unescaped.
func (w *blockWorker) intern(col []byte) string { return w.internValue(col).s }

// internValue returns the interned value of col, made on its first use.
func (w *blockWorker) internValue(col []byte) interned {
	if v, ok := w.strs[string(col)]; ok {
		return v
	}
	v := interned{raw: string(col), s: record.Unescape(col)}
	w.strs[v.raw] = v
	return v
}

// internColumn is intern for column c of a row, which first compares the
// value with the column's last one: the rows a session is confirmed
// from repeat its session, project, type and source, and hashing a
// transcript's path for each was a third of building a match.
func (w *blockWorker) internColumn(c int, col []byte) string {
	if last := &w.last[c]; last.raw == string(col) && last.raw != "" {
		return last.s
	}
	w.last[c] = w.internValue(col)
	return w.last[c].s
}

// passes applies the non-text filters to a row.
func (w *blockWorker) passes(f *[record.NumColumns][]byte) bool {
	rf := &w.s.filter
	session := w.internColumn(record.ColSession, f[record.ColSession]) // unescaped: an id may hold a backslash (record.SessionIDOf)
	if rf.excluded != nil && rf.excluded[session] {
		return false
	}
	if !rf.sessionMatches(session) {
		return false
	}
	if rf.types != nil && !rf.types[string(f[record.ColType])] {
		return false
	}
	if rf.headless && textrules.IsHeadlessEntrypoint(string(f[record.ColEntrypoint])) {
		return false
	}
	if rf.agents != nil && !rf.agentPasses(record.AgentCode(record.AgentOf(string(f[record.ColAgentName])))) {
		return false
	}
	if rf.since != 0 || rf.until != 0 {
		t, err := time.Parse(time.RFC3339Nano, string(f[record.ColTimestamp]))
		if err != nil {
			return false
		}
		ms := t.UnixMilli()
		if rf.since != 0 && ms < rf.since || rf.until != 0 && ms > rf.until {
			return false
		}
	}
	if len(w.s.req.Projects) == 0 {
		return true
	}
	return projectMatches(w.intern(f[record.ColProject]), w.s.req.Projects)
}

// unescapedText returns the text column as matched: escapes undone, in a
// reused buffer when there are any.
func (w *blockWorker) unescapedText(col []byte) []byte {
	if bytes.IndexByte(col, '\\') < 0 {
		return col
	}
	w.text = record.UnescapeAppend(w.text[:0], col)
	return w.text
}
