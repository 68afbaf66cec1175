package hint

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
const maxCommonShare = 0.02

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
	word  string // as folded by the tokenizer (upper case)
	stem  string // its word-form key, "" when it has none
	ids   [][]int
	bytes int
	rows  int
	idf   float64
}

// QuickOptions are Options for QuickJudge: the prompt, the sessions never
// hinted, and whether headless runs may answer.
type QuickOptions struct {
	Prompt          string
	Exclude         []string
	IncludeHeadless bool
	// Dead reports the generations whose rows are hidden (a transcript
	// replaced and read again: snapshot.Dead); nil hides none.
	Dead func(gen uint32) bool
}

// rowRef names a row: its segment's index and its row in it.
type rowRef uint64

func refOf(seg, row int) rowRef { return rowRef(uint64(seg)<<32 | uint64(uint32(row))) }
func (r rowRef) seg() int       { return int(r >> 32) }
func (r rowRef) row() int       { return int(uint32(r)) }

// QuickJudge measures the prompt against the segments and judges the
// result against bar, as Find does with a search.
func QuickJudge(segs []*terms.Segment, o QuickOptions, bar Bar) *Hint {
	if why := Skip(o.Prompt); why != "" {
		return &Hint{Why: "not searched: " + why}
	}
	total := 0
	for _, s := range segs {
		total += s.Rows()
	}
	words := promptTerms(o.Prompt)
	kept := make([]*quickTerm, 0, len(words))
	for i := range words {
		t := &words[i]
		t.find(segs)
		if float64(t.bytes) > 2*commonRows(total) {
			continue // common by its postings' size alone
		}
		kept = append(kept, t)
	}
	masks := map[rowRef]*rowMatch{}
	var buf []int32
	kept = slices.DeleteFunc(kept, func(t *quickTerm) bool {
		buf = t.readRows(segs, buf)
		return float64(t.rows) > commonRows(total)
	})
	for bit, t := range kept {
		t.idf = math.Log(1 + float64(total)/(float64(t.rows)+0.5))
		for si, s := range segs {
			for _, id := range t.ids[si] {
				var ps []terms.Posting
				ps, _ = s.AppendPostings(id, ps)
				for _, p := range ps {
					m := masks[refOf(si, int(p.Row))]
					if m == nil {
						m = &rowMatch{}
						masks[refOf(si, int(p.Row))] = m
					}
					m.mask |= 1 << bit
					m.tf[bit] += float64(p.Hits)
				}
			}
		}
	}
	h := &Hint{Terms: len(kept)}
	weight := 0.0
	for _, t := range kept {
		weight += t.idf
	}
	best := bestPassages(segs, masks, kept, weight, o)
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
// maxPromptWords words' tokens, stop words left out, each once.
func promptTerms(prompt string) []quickTerm {
	fields := strings.Fields(prompt)
	if len(fields) > maxPromptWords {
		fields = fields[:maxPromptWords]
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

// find looks the term up in every segment: its word forms (or the word
// itself, when it has none) and the identifiers it starts.
func (t *quickTerm) find(segs []*terms.Segment) {
	t.ids = make([][]int, len(segs))
	for si, s := range segs {
		var ids []int
		add := func(id int, _ []byte) {
			ids = append(ids, id)
			t.bytes += s.PostingBytes(id)
		}
		if t.stem != "" {
			s.FindStem(t.stem, add)
		} else {
			s.FindTokens(t.word, true, func(id, _ int) { add(id, nil) })
		}
		parts := 0
		s.FindPrefixed(t.word+"_", func(id int, tok []byte) {
			if parts < maxIdentifierParts {
				add(id, tok)
			}
			parts++
		})
		t.ids[si] = ids
	}
}

// readRows counts the rows holding the term (a row holding two of its
// forms once).
func (t *quickTerm) readRows(segs []*terms.Segment, buf []int32) []int32 {
	t.rows = 0
	for si, s := range segs {
		buf = buf[:0]
		for _, id := range t.ids[si] {
			buf, _ = s.AppendPostingRows(id, buf)
		}
		if len(t.ids[si]) > 1 {
			slices.Sort(buf)
			buf = slices.Compact(buf)
		}
		t.rows += len(buf)
	}
	return buf
}

// rowOverhead is about what a row takes in the rows file beside its
// text (its session, project, time, type and evidence columns).
const rowOverhead = 200

// rowMatch is what a row holds of the prompt: which terms, how often.
type rowMatch struct {
	mask uint64
	tf   [64]float64
}

// passage is a session's best passage: its share of the prompt's weight.
type passage struct {
	session string
	cover   float64
	score   float64
	newest  int64 // its newest matched row's time
}

// bestPassages returns every session's best passage, best first: the
// matched row whose words, with those of the rows right before and after
// it in the same session, hold the most of the prompt's weight.
func bestPassages(segs []*terms.Segment, masks map[rowRef]*rowMatch, kept []*quickTerm, weight float64, o QuickOptions) []passage {
	if weight <= 0 {
		return nil
	}
	excluded := map[string]bool{}
	for _, id := range o.Exclude {
		excluded[id] = true
	}
	best := map[string]float64{}
	mass := map[string][]float64{}
	shape := map[string]map[uint64]bool{}
	newest := map[string]int64{}
	raw, rows := 0.0, 0
	for _, s := range segs {
		raw += float64(s.RawBytes())
		rows += s.Rows()
	}
	avgLen := max(raw/float64(max(rows, 1))-rowOverhead, 1)
	for ref, rm := range masks {
		s := segs[ref.seg()]
		info := s.Row(ref.row())
		if info.Flags&terms.FlagAck != 0 || info.Flags&terms.FlagHeadless != 0 && !o.IncludeHeadless ||
			o.Dead != nil && o.Dead(info.Gen) {
			continue
		}
		mask := rm.mask
		for _, d := range []int{-1, 1} {
			if n := ref.row() + d; n >= 0 && n < s.Rows() {
				if m, ok := masks[refOf(ref.seg(), n)]; ok && s.Row(n).Key == info.Key {
					mask |= m.mask
				}
			}
		}
		session := s.Key(info.Key).Session
		if excluded[session] {
			continue
		}
		got := 0.0
		for bit, t := range kept {
			if mask&(1<<bit) != 0 {
				got += t.idf
			}
		}
		best[session] = max(best[session], got/weight)
		mass[session] = append(mass[session], messageScore(rm, info, kept, avgLen))
		newest[session] = max(newest[session], info.TimeMs)
		if shape[session] == nil {
			shape[session] = map[uint64]bool{}
		}
		shape[session][uint64(info.Len)<<8|uint64(info.Type)] = true
	}
	out := make([]passage, 0, len(best))
	for s, c := range best {
		ms := mass[s]
		slices.SortFunc(ms, func(a, b float64) int { return cmp.Compare(b, a) })
		score, w := 0.0, 1.0
		for _, v := range ms[:min(len(ms), 4)] {
			score += w * v
			w /= 2
		}
		out = append(out, passage{s, c, score, newest[s]})
	}
	// Best first; among equals the newer, as the search ranks them.
	slices.SortFunc(out, func(a, b passage) int {
		if c := cmp.Compare(b.score, a.score); c != 0 {
			return c
		}
		if c := cmp.Compare(b.newest, a.newest); c != 0 {
			return c
		}
		return strings.Compare(a.session, b.session)
	})
	// A copy of the best session (a resume under new ids, a transcript
	// copied under another id) is not a rival: its matched rows have the
	// same lengths and types.
	for len(out) > 1 && alike(shape[out[0].session], shape[out[1].session]) {
		out = slices.Delete(out, 1, 2)
	}
	return out
}

// alike reports whether two sessions' matched rows are mostly the same
// (length, type) pairs: one is a copy of the other.
func alike(a, b map[uint64]bool) bool {
	common := 0
	for k := range a {
		if b[k] {
			common++
		}
	}
	return float64(common) >= 0.8*float64(max(len(a), len(b)))
}

// messageScore is a row's BM25 score for the prompt's terms, weighed by
// its type (a prompt states what a session is about) and by how many of
// the terms it holds, as rank scores a message.
func messageScore(rm *rowMatch, info terms.RowInfo, kept []*quickTerm, avgLen float64) float64 {
	const k1, b = 1.2, 0.75
	norm := k1 * (1 - b + b*float64(info.Len)/avgLen)
	score, held := 0.0, 0
	for bit, t := range kept {
		if tf := rm.tf[bit]; tf > 0 {
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
	return score * (1 + float64(held)/float64(max(len(kept), 1)))
}
