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
	// titleWeight: a session's title (a name the user gave, or Claude
	// Code's one-line account of what it is about) names its subject as
	// a prompt does, in as few words: it weighs as a prompt.
	titleWeight = userWeight
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

// IDFs is the weight of each of q's terms: its inverse document
// frequency, as scoring uses it (a rare word weighs more).
func IDFs(q Query) []float64 { return termIDFs(&q) }

// termIDFs works out every term's IDF once.
func termIDFs(q *Query) []float64 {
	idf := make([]float64, len(q.Terms))
	for i := range idf {
		idf[i] = inverseDocFreq(q, i)
	}
	return idf
}

// measured is what one message holds of each term, before its
// neighbours and the factors: the per-term weighted hits and what they
// contribute to relevance.
type measured struct {
	hits    []Hit     // the usable hits, sorted
	near    []Hit     // those the proximity factor looks at: not in a tool call's prose
	tf      []float64 // per term: hits weighed by form (FormUnits) and place (tool prose)
	contrib []float64 // per term: idf × saturated tf
	weight  float64   // all hits' weights
	inCode  float64   // the weights of hits that start in code
	prose   int       // hits in a tool call's prose
	ratio   float64   // length relative to the average, as BM25 takes it
	ack     bool      // an acknowledgement: scores nothing, lends nothing
}

// measure weighs m's hits.
func measure(m *Message, q *Query, idf []float64) measured {
	terms := len(q.Terms)
	me := measured{tf: make([]float64, terms), contrib: make([]float64, terms)}
	if textrules.IsAcknowledgement(m.Text) {
		me.ack = true
		return me
	}
	me.hits = validHits(m.Hits, len(m.Text), terms)
	var code, prose []textrules.Span
	if len(me.hits) > 0 {
		code = textrules.CodeSpans(m.Text)
		if m.Type == typeTool {
			prose = proseSpans(m.Text)
		}
	}
	ci, pi := 0, 0
	for _, h := range me.hits {
		w := formWeight(h.Form)
		var inProse, inCode bool
		if inProse, pi = inSpans(prose, pi, h.Start); inProse {
			w *= toolProseWeight
			me.prose++
		} else if me.prose > 0 {
			me.near = append(me.near, h)
		}
		if inCode, ci = inSpans(code, ci, h.Start); inCode {
			me.inCode += w
		}
		me.tf[h.Term] += w
		me.weight += w
	}
	if me.prose == 0 {
		me.near = me.hits // the common case: nothing was set aside
	}
	held := 0.0
	for _, tf := range me.tf {
		held += termCoverage(tf, false)
	}
	me.ratio = lengthRatio(m.Type, len(m.Text), q, held)
	for t, tf := range me.tf {
		if tf > 0 {
			me.contrib[t] = idf[t] * saturatedTermFreq(tf, me.ratio)
		}
	}
	return me
}

// termCoverage is how much a term counts towards coverage: its hits'
// weight up to one (a word-form hit, or a hit in a tool call's prose,
// holds the term less surely than an exact one), or contextCoverage when
// only a neighbour holds it, whichever is more.
func termCoverage(tf float64, lent bool) float64 {
	c := min(tf, 1)
	if lent {
		c = max(c, contextCoverage)
	}
	return c
}

// context is what a message's neighbours in its transcript lend it: per
// term, contextWeight times the most a neighbour contributes, and which
// neighbour that was.
type context struct {
	value []float64
	from  []int8 // -1 the message before, 1 the one after, 0 none
}

// contextWeight is the share of a neighbour's relevance a message
// borrows, term by term, where its own is less: a question and its answer
// are often split between a prompt and the reply after it ("which agents
// translated the articles?" — "Agent: Translate CZ article 1 to EN"), and
// the pair answers it where neither does alone. Half, so that a message
// holding a term itself always weighs more than one whose neighbour does.
const contextWeight = 0.5

// contextOf gathers what prev and next (either may be nil) lend.
func contextOf(prev, next *measured, terms int) *context {
	if (prev == nil || prev.ack) && (next == nil || next.ack) {
		return nil
	}
	c := &context{value: make([]float64, terms), from: make([]int8, terms)}
	for t := range terms {
		for _, n := range []struct {
			m    *measured
			from int8
		}{{prev, -1}, {next, 1}} {
			if n.m == nil || n.m.ack {
				continue
			}
			if v := contextWeight * n.m.contrib[t]; v > c.value[t] {
				c.value[t], c.from[t] = v, n.from
			}
		}
	}
	return c
}

// finishMessage scores a measured message with what its neighbours lend
// (ctx, nil for none): Σ per term of the larger of its own relevance and
// the context's, times type, coverage (of the message and its context),
// proximity and code. The factors' notes are written only when notes is
// set (Options.NoNotes).
//
// The factors are appended to dst, which has room for
// maxMessageFactors of them.
func finishMessage(m *Message, me *measured, ctx *context, q *Query, notes bool, dst []Factor) (float64, []Factor) {
	if me.ack {
		return 0, []Factor{{Name: "acknowledgement", Value: 0, Note: "says only \"go on\"; weighs nothing"}}
	}
	if len(me.hits) == 0 {
		return 0, []Factor{{Name: "no hits", Value: 0, Note: "no usable match of a query term"}}
	}
	terms := len(q.Terms)
	factors := dst[:0]
	relevance, matched := 0.0, 0.0
	own, borrowed := 0, 0
	for t := range terms {
		switch {
		case me.tf[t] > 0 && (ctx == nil || me.contrib[t] >= ctx.value[t]):
			relevance += me.contrib[t]
			f := Factor{Name: "term", Value: me.contrib[t]}
			if notes {
				f.Note = termNote(q.Terms[t], me, t)
			}
			factors = append(factors, f)
		case ctx != nil && ctx.value[t] > 0:
			relevance += ctx.value[t]
			f := Factor{Name: "context", Value: ctx.value[t]}
			if notes {
				f.Note = contextNote(q.Terms[t], ctx, t)
			}
			factors = append(factors, f)
		}
		lent := ctx != nil && ctx.value[t] > 0
		matched += termCoverage(me.tf[t], lent)
		switch {
		case me.tf[t] > 0:
			own++
		case lent:
			borrowed++
		}
	}
	score := relevance
	for _, f := range [...]Factor{
		typeFactor(m.Type),
		coverageFactor(matched, own, borrowed, terms, notes),
		proximityFactor(me.near, terms, notes),
		codeFactor(me, notes),
	} {
		score *= f.Value
		factors = append(factors, f)
	}
	if me.prose > 0 {
		f := Factor{Name: "tool prose", Value: 1}
		if notes {
			f.Note = string(appendPlural(nil, me.prose, "hit")) + " in prose passed to the command, weighed " + fmtFloat(toolProseWeight) + " (in tf)"
		}
		factors = append(factors, f)
	}
	return score, factors
}

// maxMessageFactors is the room finishMessage's factors take for a query
// of terms terms: one per term, four more, and one for tool prose, with
// one to spare (as the slice it made for them had).
func maxMessageFactors(terms int) int { return terms + 6 }

// contextCoverage is how much a term found only in a neighbour counts
// towards coverage: as much as the relevance the message borrows for it.
const contextCoverage = contextWeight

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

// lengthRatio is the length of a message holding held of the query's
// terms (as the coverage factor counts its own: termCoverage) relative
// to the average, as BM25 normalises it. Assistant and
// subagent text shorter than average counts as average when it holds one
// term: such one-liners are narration ("I'll open Chrome"), and with
// BM25's short-message bonus ten of them would outweigh the long messages
// where the work is explained. A short line that holds more of the query
// is less narration than an answer ("Model ID je gemini-3.1-pro-preview"
// for "what was the model id for gemini 3.1 pro"), and keeps that much
// more of the bonus: all of it when it holds every term (coverage-
// Fraction). User prompts and tool rows are short by nature and precise,
// so they keep the bonus.
func lengthRatio(typ string, textLen int, q *Query, held float64) float64 {
	if q.AvgLen <= 0 {
		return 1
	}
	ratio := float64(textLen) / q.AvgLen
	if (typ == typeAssistant || typ == typeAgent) && ratio < 1 {
		answer := coverageFraction(held, len(q.Terms))
		ratio += (1 - ratio) * (1 - answer)
	}
	return ratio
}

// termNote reads `"chrome": idf 2.99 × tf 0.38 (1 hit, length 5.00×
// average)`, naming the forms of hits that are not exact ones (`2 hits: 1
// exact, 1 word form`). Notes are built for every matched message, so
// they are appended into one buffer rather than formatted.
func termNote(term string, me *measured, t int) string {
	var buf [160]byte
	b := strconv.AppendQuote(buf[:0], term)
	b = append(b, ": idf "...)
	idf := 0.0
	if tf := saturatedTermFreq(me.tf[t], me.ratio); tf > 0 {
		idf = me.contrib[t] / tf
	}
	b = appendFloat(b, idf)
	b = append(b, " × tf "...)
	b = appendFloat(b, me.contrib[t]/max(idf, 1e-300))
	b = append(b, " ("...)
	b = appendHitForms(b, me.hits, t)
	b = append(b, ", length "...)
	b = appendFloat(b, me.ratio)
	b = append(b, "× average)"...)
	return string(b)
}

// appendHitForms appends "1 hit" for exact hits, or the forms:
// "3 hits: 2 exact, 1 word form".
func appendHitForms(b []byte, hits []Hit, t int) []byte {
	var byForm [FormStem + 1]int
	n := 0
	for _, h := range hits {
		if h.Term == t && h.Form <= FormStem {
			byForm[h.Form]++
			n++
		}
	}
	b = appendPlural(b, n, "hit")
	if byForm[FormWord] == n {
		return b
	}
	sep := ": "
	for f := FormWord; f <= FormStem; f++ {
		if byForm[f] > 0 {
			b = append(b, sep...)
			b = strconv.AppendInt(b, int64(byForm[f]), 10)
			b = append(b, ' ')
			b = append(b, f.String()...)
			sep = ", "
		}
	}
	return b
}

// contextNote reads `"czech": from the message before (0.50 × 1.20)`.
func contextNote(term string, ctx *context, t int) string {
	where := "the message after"
	if ctx.from[t] < 0 {
		where = "the message before"
	}
	return strconv.Quote(term) + ": from " + where + " (" + fmtFloat(contextWeight) + " × " + fmtFloat(ctx.value[t]/contextWeight) + ")"
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
func saturatedTermFreq(tf, lengthRatio float64) float64 {
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
	case typeTitle:
		return titleWeight
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
	case typeTitle:
		return Factor{Name: "type", Value: titleWeight, Note: "session title"}
	case typeAssistant:
		return Factor{Name: "type", Value: assistantWeight, Note: "assistant"}
	}
	return Factor{Name: "type", Value: assistantWeight, Note: "unknown type " + strconv.Quote(typ) + ", weighed as assistant"}
}

// coverageFactor rewards holding more of the query's distinct terms:
// matched counts the message's own terms and, at contextCoverage each,
// those only a neighbour holds.
func coverageFactor(matched float64, own, borrowed, total int, notes bool) Factor {
	f := Factor{Name: "coverage", Value: 1 + coverageBonus*coverageFraction(matched, total)}
	if notes {
		f.Note = ofNote(own, total, "terms")
		if borrowed > 0 {
			f.Note += ", " + strconv.Itoa(borrowed) + " more beside it"
		}
	}
	return f
}

// coverageFraction maps matched-of-total terms onto 0..1 so that matching
// one term is neutral and matching all is the full bonus; a one-term query
// is always neutral.
func coverageFraction(matched float64, total int) float64 {
	if total <= 1 || matched <= 1 {
		return 0
	}
	return min((matched-1)/float64(total-1), 1)
}

// proximityFactor rewards two different terms close together, by the
// smallest byte gap between hits of different terms.
func proximityFactor(hits []Hit, terms int, notes bool) Factor {
	gap, ok := smallestGap(hits, terms)
	if !ok {
		return Factor{Name: "proximity", Value: 1, Note: "needs two different terms"}
	}
	closeness := proximityScale / (proximityScale + float64(gap))
	f := Factor{Name: "proximity", Value: 1 + proximityBonus*closeness}
	if notes {
		f.Note = string(append(appendPlural([]byte("two terms "), gap, "byte"), " apart"...))
	}
	return f
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

// codeFactor rewards hits inside fenced or inline code, by their share
// of the hits' weight.
func codeFactor(me *measured, notes bool) Factor {
	fraction := 0.0
	if me.weight > 0 {
		fraction = me.inCode / me.weight
	}
	f := Factor{Name: "code", Value: 1 + codeBonus*fraction}
	if notes {
		f.Note = fmtFloat(100*fraction) + "% of the hits' weight in code"
	}
	return f
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
