package judge

import (
	"cmp"
	"math"
	"slices"
	"strings"

	"github.com/recall-dev/recall/store/terms"
	"github.com/recall-dev/recall/textrules"
)

// The quick judge answers the hook from the term index alone, in a few
// milliseconds at 1 GB where a search takes tens: it matches a prompt's
// words by word form (textrules.StemKey) and as the first part of an
// identifier (JWT in JWT_SECRET), never as any substring; it leaves out
// words so common they say nothing of which session is meant; and it
// scores a session by its best passage alone (a message and the messages
// either side of it), which is what the bar asks of a hint: one place
// that holds most of what the prompt asks.
//
// The bar is the same as the search's (Bar): the best passage must hold
// Cover of the prompt's weight, and its session must lead the next by
// Lead. Both measures are the passage's share of the weight here, where
// the search's lead compares its ranking scores.

// maxCommonShare is the share of rows past which a word says nothing of
// which session is meant ("test", "file" in a coding history): such a
// word is left out of the prompt's weight and never read. Its postings
// would be most of the judge's time.
const maxCommonShare = 0.005

// minCommonRows is the fewest rows a common word is in: in a small
// index every word is in a large share of the rows, and reading them all
// costs nothing.
const minCommonRows = 1000

// commonRows is how many rows a word may be in before it is common.
func commonRows(total int) float64 {
	return max(maxCommonShare*float64(total), minCommonRows)
}

// maxIdentifierParts bounds, per segment, the identifiers a word is
// looked for as the first part of (JWT_SECRET, JWT_ISSUER for JWT).
const maxIdentifierParts = 32

// quickTerm is one word of the prompt as the quick judge reads it.
type quickTerm struct {
	word  string     // as folded by the tokenizer (upper case)
	stem  string     // its word-form key, "" when it has none
	refs  []tokenRef // in every segment
	bytes int
	// common is whether its postings are too many to read (bytes).
	common bool
	rows   int
	idf    float64
	// posts are the rows holding it, per segment, ascending, each with
	// its hits (summed over its forms).
	posts [][]terms.Posting
}

// bytesPerPosting is what a common word's posting takes on average (a
// small row delta and, for one row in three or so, its counts): its rows
// are estimated from its postings' size without reading them.
const bytesPerPosting = 1.4

// QuickOptions are Options for QuickJudge: the prompt, the sessions never
// hinted, and whether headless runs may answer.
type QuickOptions struct {
	Prompt          string
	Exclude         []string
	IncludeHeadless bool
	// Dead reports the generations whose rows are hidden (a transcript
	// replaced and read again: snapshot.Dead); nil hides none.
	Dead func(gen uint32) bool
	// Early stops, silent, as soon as the postings show that no passage
	// can hold the bar's Cover, before any row's session, type or length
	// is read (the prompt hook's small binary: most prompts end there).
	// The verdict is the same; Why names no best session, and the
	// measures are not those of a bar the caller may try after.
	Early bool
	// Lexicon, when not nil, is where the words are looked up for the
	// segments it covers (terms.Lexicon); the others are looked up one
	// by one. The measures are the same.
	Lexicon *terms.Lexicon
}

// QuickJudge measures the prompt against the segments and judges the
// result against bar, as Find does with a search.
func QuickJudge(segs []*Segment, o QuickOptions, bar Bar) *Measures {
	if why := Skip(o.Prompt); why != "" {
		return &Measures{Why: "not searched: " + why}
	}
	total := 0
	for _, s := range segs {
		total += s.rows
	}
	words := promptTerms(o.Prompt)
	lex := lexiconOf(o.Lexicon, segs)
	// Every word is found before any is read, so that the postings read
	// go to one allocation (a posting takes a byte or more of a list):
	// this runs in a process that lives a few milliseconds, where every
	// new page of heap is a page fault.
	listBytes := 0
	refs := make([]tokenRef, 0, 8*len(words))
	for i := range words {
		t := &words[i]
		t.find(segs, lex, &refs)
		if t.common = float64(t.bytes) > bytesPerPosting*commonRows(total); t.common {
			// Common by its postings' size: weighed, never read.
			t.rows = int(float64(t.bytes) / bytesPerPosting)
		} else {
			listBytes += t.bytes
		}
	}
	arena := make([]terms.Posting, 0, listBytes)
	read := make([]*quickTerm, 0, len(words))
	weight := 0.0
	for i := range words {
		t := &words[i]
		if !t.common {
			arena = t.read(segs, arena)
		}
		t.idf = math.Log(1 + float64(total)/(float64(t.rows)+0.5))
		weight += t.idf
		if float64(t.rows) <= commonRows(total) {
			read = append(read, t)
		}
	}
	h := &Measures{Terms: len(words), Unread: unread(segs)}
	matched := matchedRows(len(segs), read)
	if o.Early && weight > 0 {
		if bound := coverBound(matched, read) / weight; bound < bar.Cover {
			h.Cover, h.Bounded = bound, true
			h.Verdict(bar)
			return h
		}
	}
	best := bestPassages(segs, matched, read, weight, o)
	h.Unread = unread(segs)
	if len(best) > 0 {
		h.Best, h.Cover, h.Lead = best[0].session, best[0].cover, 1e9
		if len(best) > 1 {
			h.Second = best[1].session
			if best[1].score > 0 {
				h.Lead = best[0].score / best[1].score
			}
		}
	}
	h.Verdict(bar)
	return h
}

// promptTerms are the prompt's words the judge weighs: its first
// MaxPromptWords words' tokens, stop words left out, each once.
func promptTerms(prompt string) []quickTerm {
	fields := strings.Fields(prompt)
	if len(fields) > MaxPromptWords {
		fields = fields[:MaxPromptWords]
	}
	seen := map[string]bool{}
	var out []quickTerm
	var buf []byte
	for _, f := range fields {
		buf = textrules.EachToken([]byte(f), buf, func(tok []byte) bool {
			word := string(tok)
			if len(word) < 2 || textrules.IsStopWord(word) {
				return true
			}
			stem, _ := textrules.StemKey(tok)
			key := word
			if stem != "" {
				key = "\x00" + stem
			}
			if !seen[key] && len(out) < 64 { // a bit of a mask each
				seen[key] = true
				out = append(out, quickTerm{word: word, stem: stem})
			}
			return true
		})
	}
	return out
}

// tokenRef is a token of a segment that holds a prompt's word, and its
// postings when the lexicon carries them.
type tokenRef struct {
	seg      int32 // the judged segment's index
	id       int
	inline   bool
	postings []byte
	// bytes is its postings' size; offset, where they lie in its
	// segment's file, when the lexicon says (offset > 0).
	offset int64
	bytes  int
}

// lexiconView is a lexicon as it maps onto the segments judged.
type lexiconView struct {
	lex *terms.Lexicon
	// seg is the judged segment of each of the lexicon's (-1: not
	// judged); covered, whether each judged segment is the lexicon's.
	seg     []int
	covered []bool
}

// unread is the first error opening one of segs, or nil.
func unread(segs []*Segment) error {
	for _, s := range segs {
		if s.err != nil {
			return s.err
		}
	}
	return nil
}

// lexiconOf maps lex onto segs; nil when lex is nil or covers none.
func lexiconOf(lex *terms.Lexicon, segs []*Segment) *lexiconView {
	if lex == nil {
		return nil
	}
	v := &lexiconView{lex: lex, seg: make([]int, len(lex.Segments)), covered: make([]bool, len(segs))}
	for i := range v.seg {
		v.seg[i] = -1
	}
	covers := false
	for si, s := range segs {
		li := s.lex
		if li < 0 && s.seg != nil {
			li = lex.Covers(s.seg)
		}
		if li >= 0 && li < len(v.seg) {
			v.seg[li], v.covered[si], covers = si, true, true
		}
	}
	if !covers {
		return nil
	}
	return v
}

// find looks the term up in every segment, through the lexicon for the
// segments it covers: its word forms (or the word itself, when it has
// none) and the identifiers it starts. Their refs are appended to refs,
// which every term shares (one allocation, not one a segment a term).
func (t *quickTerm) find(segs []*Segment, lex *lexiconView, refs *[]tokenRef) {
	start := len(*refs)
	defer func() { t.refs = (*refs)[start:len(*refs):len(*refs)] }()
	parts := make([]int, len(segs))
	add := func(si int, ref tokenRef) {
		ref.seg = int32(si)
		*refs = append(*refs, ref)
		t.bytes += ref.bytes
	}
	addPart := func(si int, ref tokenRef) {
		if parts[si] < maxIdentifierParts {
			add(si, ref)
		}
		parts[si]++
	}
	if lex != nil {
		forms := func(e terms.LexEntry) {
			if si := lex.seg[e.Seg]; si >= 0 {
				add(si, lexRef(e))
			}
		}
		if t.stem != "" {
			lex.lex.FindStem(t.stem, forms)
		} else {
			lex.lex.FindWhole(t.word, forms)
		}
		lex.lex.FindPrefixed(t.word+"_", func(e terms.LexEntry) {
			if si := lex.seg[e.Seg]; si >= 0 {
				addPart(si, lexRef(e))
			}
		})
	}
	for si, src := range segs {
		if lex != nil && lex.covered[si] {
			continue
		}
		s := src.get()
		if s == nil {
			continue // an error Measures reports
		}
		ref := func(id int) tokenRef { return tokenRef{id: id, bytes: s.PostingBytes(id)} }
		if t.stem != "" {
			s.FindStem(t.stem, func(id int, _ []byte) { add(si, ref(id)) })
		} else {
			s.FindTokens(t.word, true, func(id, _ int) { add(si, ref(id)) })
		}
		s.FindPrefixed(t.word+"_", func(id int, _ []byte) { addPart(si, ref(id)) })
	}
}

// lexRef is the tokenRef of a lexicon entry.
func lexRef(e terms.LexEntry) tokenRef {
	return tokenRef{id: e.ID, inline: e.Inline, postings: e.Postings, offset: e.Offset, bytes: e.Bytes}
}

// read reads the rows holding the term in each segment, a row holding
// two of its forms once, and counts them. They are appended to arena,
// which it returns.
func (t *quickTerm) read(segs []*Segment, arena []terms.Posting) []terms.Posting {
	t.rows = 0
	t.posts = make([][]terms.Posting, len(segs))
	for si, src := range segs {
		start, forms := len(arena), 0
		for _, ref := range t.refs {
			if int(ref.seg) != si {
				continue
			}
			forms++
			if ref.inline {
				arena, _ = terms.DecodePostings(ref.postings, src.rows, arena) // damage keeps a hint silent
			} else if list, ok := src.postingsAt(ref); ok {
				if list != nil {
					arena, _ = terms.DecodePostings(list, src.rows, arena)
				}
			} else if s := src.get(); s != nil {
				arena, _ = s.AppendPostings(ref.id, arena) // a damaged segment: s.Err says so
			}
		}
		ps := arena[start:len(arena):len(arena)]
		if forms > 1 {
			ps = mergeForms(ps)
			arena = arena[:start+len(ps)]
		}
		t.posts[si] = ps
		t.rows += len(ps)
	}
	return arena
}

// mergeForms sorts postings by row and sums the hits of a row's forms.
func mergeForms(ps []terms.Posting) []terms.Posting {
	slices.SortFunc(ps, func(a, b terms.Posting) int { return cmp.Compare(a.Row, b.Row) })
	out := ps[:0]
	for _, p := range ps {
		if n := len(out); n > 0 && out[n-1].Row == p.Row {
			out[n-1].Hits += p.Hits
			continue
		}
		out = append(out, p)
	}
	return out
}

// rowOverhead is about what a row takes in the rows file beside its
// text (its session, project, time, type and evidence columns).
const rowOverhead = 200

// rowMatch is a matched row: which of the read terms it holds and how
// often (tf, one per read term, in a slab shared by the segment's rows).
type rowMatch struct {
	row  int32
	mask uint64
	tf   []float32
}

// passage is a session's best passage: its share of the prompt's weight.
type passage struct {
	session string
	cover   float64
	score   float64
	newest  int64 // its newest matched row's time
}

// sessionTally collects a session's measures over its matched rows.
type sessionTally struct {
	cover  float64
	scores []float64
	shape  []uint64 // its matched rows' (length, type), in any order
	newest int64
}

// bestPassages returns every session's best passage, best first: the
// matched row whose words, with those of the rows right before and after
// it in the same session, hold the most of the prompt's weight.
func bestPassages(segs []*Segment, matchedBySeg [][]rowMatch, read []*quickTerm, weight float64, o QuickOptions) []passage {
	if weight <= 0 || len(read) == 0 {
		return nil
	}
	excluded := map[string]bool{}
	for _, id := range o.Exclude {
		excluded[id] = true
	}
	avgLen := averageLength(segs)
	tallies := map[string]*sessionTally{}
	for si, src := range segs {
		matched := matchedBySeg[si]
		if len(matched) == 0 {
			continue
		}
		s := src.get()
		if s == nil {
			continue // an error Measures reports
		}
		names := map[uint32]string{}
		for i := range matched {
			m := &matched[i]
			info := s.Row(int(m.row))
			if info.Flags&terms.FlagAck != 0 || info.Flags&terms.FlagHeadless != 0 && !o.IncludeHeadless ||
				o.Dead != nil && o.Dead(info.Gen) {
				continue
			}
			name, ok := names[info.Key]
			if !ok {
				name = s.Session(info.Key)
				names[info.Key] = name
			}
			if excluded[name] {
				continue
			}
			mask := m.mask | neighbourMask(s, matched, i, info.Key)
			got := 0.0
			for bit, t := range read {
				if mask&(1<<bit) != 0 {
					got += t.idf
				}
			}
			tl := tallies[name]
			if tl == nil {
				tl = &sessionTally{}
				tallies[name] = tl
			}
			tl.cover = max(tl.cover, got/weight)
			tl.scores = append(tl.scores, messageScore(m, info, read, avgLen))
			tl.newest = max(tl.newest, info.TimeMs)
			tl.shape = append(tl.shape, uint64(info.Len)<<8|uint64(info.Type))
		}
	}
	return ranked(tallies)
}

// coverBound is the most of the read terms' weight any passage can hold:
// a matched row's terms with those of the matched rows right before and
// after it, whatever their sessions and whether they count (the passages
// bestPassages measures hold at most that). It reads the postings alone.
func coverBound(matched [][]rowMatch, read []*quickTerm) float64 {
	best := 0.0
	for _, rows := range matched {
		for i, m := range rows {
			mask := m.mask
			if i > 0 && rows[i-1].row == m.row-1 {
				mask |= rows[i-1].mask
			}
			if i+1 < len(rows) && rows[i+1].row == m.row+1 {
				mask |= rows[i+1].mask
			}
			got := 0.0
			for bit, t := range read {
				if mask&(1<<bit) != 0 {
					got += t.idf
				}
			}
			best = max(best, got)
		}
	}
	return best
}

// averageLength is the average row's text length, from the segments'
// raw bytes.
func averageLength(segs []*Segment) float64 {
	raw, rows := 0.0, 0
	for _, s := range segs {
		raw += float64(s.raw)
		rows += s.rows
	}
	return max(raw/float64(max(rows, 1))-rowOverhead, 1)
}

// matchedRows merges the read terms' postings into one list of rows per
// segment, ascending, each with the terms it holds. The rows of every
// segment share one allocation, and their counts another.
func matchedRows(segs int, read []*quickTerm) [][]rowMatch {
	postings := 0
	for _, t := range read {
		for _, ps := range t.posts {
			postings += len(ps)
		}
	}
	rows := make([]rowMatch, 0, postings) // at most one row a posting
	slab := make([]float32, postings*len(read))
	heads := make([]int, len(read))
	out := make([][]rowMatch, segs)
	for si := range out {
		start := len(rows)
		clear(heads)
		for {
			// The least row at the terms' heads (a prompt has a few
			// terms: a scan is as quick as a heap).
			least := int32(-1)
			for bit, t := range read {
				if ps := t.posts[si]; heads[bit] < len(ps) && (least < 0 || ps[heads[bit]].Row < least) {
					least = ps[heads[bit]].Row
				}
			}
			if least < 0 {
				break
			}
			m := rowMatch{row: least, tf: slab[:len(read):len(read)]}
			slab = slab[len(read):]
			for bit, t := range read {
				if ps := t.posts[si]; heads[bit] < len(ps) && ps[heads[bit]].Row == least {
					m.mask |= 1 << bit
					m.tf[bit] = float32(ps[heads[bit]].Hits)
					heads[bit]++
				}
			}
			rows = append(rows, m)
		}
		out[si] = rows[start:len(rows):len(rows)]
	}
	return out
}

// neighbourMask is the terms of the matched rows right before and after
// matched[i] in its session.
func neighbourMask(s *terms.Segment, matched []rowMatch, i int, key uint32) uint64 {
	var mask uint64
	if i > 0 && matched[i-1].row == matched[i].row-1 && s.Row(int(matched[i-1].row)).Key == key {
		mask |= matched[i-1].mask
	}
	if i+1 < len(matched) && matched[i+1].row == matched[i].row+1 && s.Row(int(matched[i+1].row)).Key == key {
		mask |= matched[i+1].mask
	}
	return mask
}

// ranked orders the sessions best first: a session by its four best rows
// (s1 + s2/2 + s3/4 + s4/8); among equals the newer, as the search ranks
// them. A copy of the best session (a resume under new ids, a transcript
// copied under another id) is not a rival: its matched rows have the same
// lengths and types.
func ranked(tallies map[string]*sessionTally) []passage {
	out := make([]passage, 0, len(tallies))
	for name, tl := range tallies {
		slices.SortFunc(tl.scores, func(a, b float64) int { return cmp.Compare(b, a) })
		score, w := 0.0, 1.0
		for _, v := range tl.scores[:min(len(tl.scores), 4)] {
			score += w * v
			w /= 2
		}
		out = append(out, passage{name, tl.cover, score, tl.newest})
	}
	slices.SortFunc(out, func(a, b passage) int {
		if c := cmp.Compare(b.score, a.score); c != 0 {
			return c
		}
		if c := cmp.Compare(b.newest, a.newest); c != 0 {
			return c
		}
		return strings.Compare(a.session, b.session)
	})
	for len(out) > 1 && alike(tallies[out[0].session].shape, tallies[out[1].session].shape) {
		out = slices.Delete(out, 1, 2)
	}
	return out
}

// alike reports whether two sessions' matched rows are mostly the same
// (length, type) pairs: one is a copy of the other.
func alike(a, b []uint64) bool {
	a, b = distinct(a), distinct(b)
	common := 0
	for _, k := range a {
		if _, found := slices.BinarySearch(b, k); found {
			common++
		}
	}
	return float64(common) >= 0.8*float64(max(len(a), len(b)))
}

// distinct sorts s and drops its repeats, in place.
func distinct(s []uint64) []uint64 {
	slices.Sort(s)
	return slices.Compact(s)
}

// messageScore is a row's BM25 score for the prompt's terms, weighed by
// its type (a prompt states what a session is about) and by how many of
// the terms it holds, as rank scores a message.
func messageScore(rm *rowMatch, info terms.RowInfo, read []*quickTerm, avgLen float64) float64 {
	const k1, b = 1.2, 0.75
	norm := k1 * (1 - b + b*float64(info.Len)/avgLen)
	score, held := 0.0, 0
	for bit, t := range read {
		if tf := float64(rm.tf[bit]); tf > 0 {
			score += t.idf * tf * (k1 + 1) / (tf + norm)
			held++
		}
	}
	switch info.Type {
	case terms.TypeUser, terms.TypeTitle:
		score *= 1.5
	case terms.TypeAgent:
		score *= 0.75
	}
	return score * (1 + float64(held)/float64(max(len(read), 1)))
}
