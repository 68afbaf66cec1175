package rank

import (
	"math"
	"slices"
	"strconv"

	"github.com/recall-dev/recall/textrules"
)

// BM25 parameters: the values Lucene, Elasticsearch and most engines ship
// with. k1 sets how fast repeated hits saturate (the k1+1 ceiling per term),
// b how strongly length is normalised (0: not at all, 1: fully).
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// Type weights, relative to assistant text, the bulk of every transcript.
const (
	assistantWeight = 1.0
	// userWeight: a prompt says what the session is about in the user's own
	// words, and is what people remember and search for. It counts as much
	// as a match that is entirely in code (1 + codeBonus): both are where a
	// session's substance is stated most precisely.
	userWeight = assistantWeight + codeBonus
	// toolWeight: tool rows ("Edit: /src/pricing.ts") are short and precise.
	// BM25's length normalisation already lifts a hit in such a short row to
	// up to 1.7× a hit in an average message; weighing them more on top
	// would let a session that only read a file outrank one that discussed
	// it.
	toolWeight = assistantWeight
	// agentWeight: subagent rows are research for the main thread, which
	// reports what mattered. They count a quarter less, enough for the
	// main thread's account of a finding to rank above the research.
	agentWeight = 0.75 * assistantWeight
)

// Match-quality bonuses. Each is the most a factor can add, as a multiple
// of the score: the factor is 1 + bonus × (something between 0 and 1).
const (
	// coverageBonus: a message holding every query word scores twice one
	// that holds only one of them. BM25 saturation makes three hits of one
	// word worth well under three single hits in a message of ordinary
	// length, so together they make "3 of 3 words" beat "one word three
	// times" even when that word is the rarest.
	coverageBonus = 1.0
	// proximityBonus equals coverageBonus: two query words side by side
	// are often a phrase the user remembers ("chrome devtools"), as strong
	// a signal as the words being in the message at all.
	proximityBonus = coverageBonus
	// codeBonus is half of coverageBonus: code marks technical substance,
	// but unlike coverage says nothing about relevance to the query.
	codeBonus = coverageBonus / 2
	// proximityScale is the byte gap at which the proximity bonus halves:
	// about one line of prose, so words in the same sentence count as close
	// and words a paragraph apart barely do.
	proximityScale = 80.0
)

// ScoreMessage scores one matched message against the query and returns
// the factors that produced the score, for --explain.
//
// The score is Σ(term relevance) × type × coverage × proximity × code;
// see the package documentation.
func ScoreMessage(m *Message, q *Query) (float64, []Factor) {
	if textrules.IsAcknowledgement(m.Text) {
		return 0, []Factor{{Name: "acknowledgement", Value: 0, Note: "says only \"go on\"; weighs nothing"}}
	}
	hits := validHits(m.Hits, len(m.Text), len(q.Terms))
	if len(hits) == 0 {
		return 0, []Factor{{Name: "no hits", Value: 0, Note: "no usable match of a query term"}}
	}
	counts := hitsPerTerm(hits, len(q.Terms))
	factors := make([]Factor, 0, len(q.Terms)+4)
	factors, relevance := appendTermFactors(factors, counts, lengthRatio(m.Type, len(m.Text), q), q)
	score := relevance
	for _, f := range [...]Factor{
		typeFactor(m.Type),
		coverageFactor(counts),
		proximityFactor(hits, len(q.Terms)),
		codeFactor(m.Text, hits),
	} {
		score *= f.Value
		factors = append(factors, f)
	}
	return score, factors
}

// validHits returns the hits that point inside the text at a known term,
// sorted by Start. The input is returned as is when it is already valid,
// which is the normal case.
func validHits(hits []Hit, textLen, terms int) []Hit {
	valid := func(h Hit) bool {
		return h.Term >= 0 && h.Term < terms && h.Start >= 0 && h.Start < h.End && h.End <= textLen
	}
	ok := slices.IsSortedFunc(hits, compareHits)
	for _, h := range hits {
		ok = ok && valid(h)
	}
	if ok {
		return hits
	}
	kept := make([]Hit, 0, len(hits))
	for _, h := range hits {
		if valid(h) {
			kept = append(kept, h)
		}
	}
	slices.SortFunc(kept, compareHits)
	return kept
}

func compareHits(a, b Hit) int {
	if a.Start != b.Start {
		return a.Start - b.Start
	}
	if a.End != b.End {
		return a.End - b.End
	}
	return a.Term - b.Term
}

// hitsPerTerm counts the hits of each query term.
func hitsPerTerm(hits []Hit, terms int) []int {
	counts := make([]int, terms)
	for _, h := range hits {
		counts[h.Term]++
	}
	return counts
}

// lengthRatio is the message's length relative to the average, as BM25
// normalises it. Assistant and subagent text shorter than average counts as
// average: their one-liners are narration ("I'll open Chrome"), and with
// BM25's short-message bonus ten of them would outweigh the long messages
// where the work is explained. User prompts and tool rows are short by
// nature and precise, so they keep the bonus.
func lengthRatio(typ string, textLen int, q *Query) float64 {
	if q.AvgLen <= 0 {
		return 1
	}
	ratio := float64(textLen) / q.AvgLen
	if typ == typeAssistant || typ == typeAgent {
		ratio = max(ratio, 1)
	}
	return ratio
}

// appendTermFactors appends one factor per matched term, idf × saturated
// tf, and returns their sum, the message's relevance.
func appendTermFactors(factors []Factor, counts []int, lengthRatio float64, q *Query) ([]Factor, float64) {
	sum := 0.0
	for term, n := range counts {
		if n == 0 {
			continue
		}
		idf := inverseDocFreq(q, term)
		tf := saturatedTermFreq(n, lengthRatio)
		sum += idf * tf
		factors = append(factors, Factor{Name: "term", Value: idf * tf, Note: termNote(q.Terms[term], idf, tf, n, lengthRatio)})
	}
	return factors, sum
}

// termNote reads `"chrome": idf 2.99 × tf 0.38 (1 hit, length 5.00×
// average)`. Notes are built for every matched message, so they are
// appended into one buffer rather than formatted.
func termNote(term string, idf, tf float64, hits int, lengthRatio float64) string {
	var buf [128]byte
	b := strconv.AppendQuote(buf[:0], term)
	b = append(b, ": idf "...)
	b = appendFloat(b, idf)
	b = append(b, " × tf "...)
	b = appendFloat(b, tf)
	b = append(b, " ("...)
	b = appendPlural(b, hits, "hit")
	b = append(b, ", length "...)
	b = appendFloat(b, lengthRatio)
	b = append(b, "× average)"...)
	return string(b)
}

// inverseDocFreq is BM25's IDF in Lucene's form, which never goes
// negative: a term in most messages weighs almost nothing rather than
// counting against a match. Without index statistics every term weighs 1.
func inverseDocFreq(q *Query, term int) float64 {
	if q.TotalDocs <= 0 || term >= len(q.DocFreq) {
		return 1
	}
	n := float64(q.TotalDocs)
	// A term that matched has a document frequency of at least 1, and can
	// not match more messages than were searched.
	df := math.Min(math.Max(float64(q.DocFreq[term]), 1), n)
	return math.Log(1 + (n-df+0.5)/(df+0.5))
}

// saturatedTermFreq is BM25's term-frequency part: hits count with
// diminishing returns up to k1+1, and a message longer than average needs
// more hits for the same value.
func saturatedTermFreq(hits int, lengthRatio float64) float64 {
	tf := float64(hits)
	norm := bm25K1 * (1 - bm25B + bm25B*lengthRatio)
	return tf * (bm25K1 + 1) / (tf + norm)
}

// typeWeight is typeFactor's value.
func typeWeight(typ string) float64 {
	switch typ {
	case typeUser:
		return userWeight
	case typeTool:
		return toolWeight
	case typeAgent:
		return agentWeight
	}
	return assistantWeight
}

// typeFactor weighs who wrote the message.
func typeFactor(typ string) Factor {
	switch typ {
	case typeUser:
		return Factor{Name: "type", Value: userWeight, Note: "user prompt"}
	case typeTool:
		return Factor{Name: "type", Value: toolWeight, Note: "tool call"}
	case typeAgent:
		return Factor{Name: "type", Value: agentWeight, Note: "subagent"}
	case typeAssistant:
		return Factor{Name: "type", Value: assistantWeight, Note: "assistant"}
	}
	return Factor{Name: "type", Value: assistantWeight, Note: "unknown type " + strconv.Quote(typ) + ", weighed as assistant"}
}

// coverageFactor rewards holding more of the query's distinct terms.
func coverageFactor(counts []int) Factor {
	matched := 0
	for _, n := range counts {
		if n > 0 {
			matched++
		}
	}
	return Factor{
		Name:  "coverage",
		Value: 1 + coverageBonus*coverageFraction(matched, len(counts)),
		Note:  ofNote(matched, len(counts), "terms"),
	}
}

// coverageFraction maps matched-of-total terms onto 0..1 so that matching
// one term is neutral and matching all is the full bonus; a one-term query
// is always neutral.
func coverageFraction(matched, total int) float64 {
	if total <= 1 || matched <= 1 {
		return 0
	}
	return float64(matched-1) / float64(total-1)
}

// proximityFactor rewards two different terms close together, by the
// smallest byte gap between hits of different terms.
func proximityFactor(hits []Hit, terms int) Factor {
	gap, ok := smallestGap(hits, terms)
	if !ok {
		return Factor{Name: "proximity", Value: 1, Note: "needs two different terms"}
	}
	closeness := proximityScale / (proximityScale + float64(gap))
	return Factor{
		Name:  "proximity",
		Value: 1 + proximityBonus*closeness,
		Note:  string(append(appendPlural([]byte("two terms "), gap, "byte"), " apart"...)),
	}
}

// smallestGap returns the smallest number of bytes between the end of a hit
// and the start of a later hit of a different term. Overlapping hits (one
// term inside another, "pricing" in "pricing.ts") are the same words
// matched twice, not two words near each other, so they do not count.
func smallestGap(hits []Hit, terms int) (int, bool) {
	lastEnd := make([]int, terms) // per term: end of its latest hit, -1 if none yet
	for i := range lastEnd {
		lastEnd[i] = -1
	}
	best, found := 0, false
	for _, h := range hits {
		for term, end := range lastEnd {
			if term == h.Term || end < 0 || end > h.Start {
				continue
			}
			if gap := h.Start - end; !found || gap < best {
				best, found = gap, true
			}
		}
		lastEnd[h.Term] = max(lastEnd[h.Term], h.End)
	}
	return best, found
}

// codeFactor rewards hits inside fenced or inline code.
func codeFactor(text string, hits []Hit) Factor {
	inCode := countInCode(textrules.CodeSpans(text), hits)
	fraction := float64(inCode) / float64(len(hits))
	return Factor{
		Name:  "code",
		Value: 1 + codeBonus*fraction,
		Note:  ofNote(inCode, len(hits), "hits in code"),
	}
}

// countInCode counts the hits that start inside a code span. Both lists
// are sorted, so one pass suffices.
func countInCode(spans []textrules.Span, hits []Hit) int {
	n, i := 0, 0
	for _, h := range hits {
		for i < len(spans) && spans[i].End <= h.Start {
			i++
		}
		if i < len(spans) && spans[i].Start <= h.Start {
			n++
		}
	}
	return n
}

// ofNote reads "2/3 what".
func ofNote(n, total int, what string) string {
	var buf [64]byte
	b := strconv.AppendInt(buf[:0], int64(n), 10)
	b = append(b, '/')
	b = strconv.AppendInt(b, int64(total), 10)
	b = append(b, ' ')
	return string(append(b, what...))
}

func appendFloat(b []byte, v float64) []byte { return strconv.AppendFloat(b, v, 'f', 2, 64) }

func fmtFloat(v float64) string { return string(appendFloat(nil, v)) }

// appendPlural appends "1 unit" or "n units".
func appendPlural(b []byte, n int, unit string) []byte {
	b = strconv.AppendInt(b, int64(n), 10)
	b = append(b, ' ')
	b = append(b, unit...)
	if n != 1 {
		b = append(b, 's')
	}
	return b
}

func plural(n int, unit string) string { return string(appendPlural(nil, n, unit)) }
