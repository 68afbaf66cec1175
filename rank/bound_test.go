package rank

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/recall-dev/recall/textrules"
)

// boundPieces are what the random messages are made of: the query's
// terms, filler, code spans, tool-call prose and acknowledgements.
var boundPieces = []string{
	"deadlock", "mutex", "review", "translated", "cache", "the", "and", "we", "fixed", "it",
	"`deadlock`", "`mutex.Lock()`", "```\ncache.Get(review)\n```", "ok", "deadlocks", "review-round",
}

// randomBoundMessage makes a message of a random type whose hits of the
// query's terms have random forms.
func randomBoundMessage(r *rand.Rand, q *Query, sid string, ordinal int) Message {
	typ := []string{typeUser, typeAssistant, typeTool, typeAgent}[r.IntN(4)]
	var b strings.Builder
	if typ == typeTool {
		b.WriteString("Bash: gemini -p \"")
	}
	for range 1 + r.IntN(30) {
		b.WriteString(boundPieces[r.IntN(len(boundPieces))])
		b.WriteByte(' ')
	}
	if typ == typeTool {
		b.WriteString("\" && go test ./cache")
	}
	text := b.String()
	if r.IntN(12) == 0 {
		text = "ok thanks" // an acknowledgement: scores and lends nothing
	}
	m := Message{Session: sid, Project: "/home/u/proj", Type: typ, Text: text,
		Timestamp: baseTime.Add(time.Duration(ordinal) * time.Minute),
		Source:    "/t/" + sid + ".jsonl", Line: ordinal, Ordinal: ordinal,
		Hits: findHits(text, q.Terms)}
	for i := range m.Hits {
		m.Hits[i].Form = Form(r.IntN(int(FormStem) + 1))
	}
	return m
}

// exactFeatures are the features the term index would know of m at best:
// its hits' weights and those of the hits in code, exactly.
// With unknownForms every hit counts MaxFormUnits, as the index counts a
// hit whose form it cannot know.
func exactFeatures(m *Message, terms int, unknownForms bool) Features {
	f := Features{Type: m.Type, Len: len(m.Text), Ack: textrules.IsAcknowledgement(m.Text),
		Units: make([]int, terms), CodeUnits: make([]int, terms), Exact: true, CodeKnown: true}
	code := textrules.CodeSpans(m.Text)
	for _, h := range m.Hits {
		u := FormUnits(h.Form)
		if unknownForms {
			u = MaxFormUnits
		}
		f.Units[h.Term] += u
		for _, sp := range code {
			if sp.Start <= h.Start && h.Start < sp.End {
				f.CodeUnits[h.Term] += u
				break
			}
		}
	}
	return f
}

// TestBoundsNeverBelowScores: on random sessions of messages with hits of
// every form, in tool prose and code, with neighbours that lend context,
// every message scores at most its PassageBound and every session at most
// its SessionBound, for exact features and for the looser ones an index
// has when it cannot know forms or code.
func TestBoundsNeverBelowScores(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 3))
	allTerms := []string{"deadlock", "mutex", "review", "translated", "cache"}
	for iter := range 400 {
		terms := allTerms[:1+r.IntN(len(allTerms))]
		df := map[string]int{}
		for _, term := range terms {
			df[term] = 1 + r.IntN(600)
		}
		q := newQuery(terms, df)
		opt := Options{Now: baseTime.Add(30 * 24 * time.Hour), CurrentProject: "/home/u/proj", DedupThreshold: 2}
		switch r.IntN(3) {
		case 0:
			opt.When = &TimeWindow{From: opt.Now.Add(-40 * 24 * time.Hour), To: opt.Now, Phrase: "last month"}
		case 1: // a day: the larger boost
			day := baseTime.Add(-time.Duration(r.IntN(48)) * time.Hour) // holds the messages half the time
			opt.When = &TimeWindow{From: day, To: day.Add(24 * time.Hour), Phrase: "on a day"}
		}
		var msgs []Message
		sid := fmt.Sprintf("s%d", iter)
		n := 1 + r.IntN(8)
		for ordinal := 1; ordinal <= n; ordinal++ {
			if r.IntN(5) == 0 {
				continue // a message that did not match: no neighbour there
			}
			msgs = append(msgs, randomBoundMessage(r, &q, sid, ordinal))
		}
		if len(msgs) == 0 {
			continue
		}
		sessions := Rank(msgs, q, opt)
		if len(sessions) != 1 {
			t.Fatalf("%d sessions", len(sessions))
		}
		b := NewBounder(&q)
		for loose := range 3 {
			checkBounds(t, b, &q, opt, msgs, &sessions[0], loose)
		}
	}
}

// checkBounds bounds every message of msgs as the term-index search does
// (own contributions, context from the neighbours' contributions) and
// compares with the scores of s. loose 1 counts every hit as exact and
// which are in code as unknown; loose 2 counts every hit as exact.
func checkBounds(t *testing.T, b *Bounder, q *Query, opt Options, msgs []Message, s *Session, loose int) {
	t.Helper()
	byOrdinal := map[int]int{}
	feats := make([]Features, len(msgs))
	contrib := make([][]float64, len(msgs))
	for i := range msgs {
		byOrdinal[msgs[i].Ordinal] = i
		feats[i] = exactFeatures(&msgs[i], len(q.Terms), loose > 0)
		if loose > 0 {
			feats[i].Exact = false
			feats[i].CodeKnown = loose == 2
		}
		contrib[i] = b.Contributions(&feats[i], nil)
	}
	scores := map[int]float64{}
	for _, m := range s.Messages {
		scores[m.Ordinal] = m.Score
	}
	var sb, linked SessionBound
	prevOf, nextOf := make([]int32, len(msgs)), make([]int32, len(msgs))
	for i := range msgs {
		prevOf[i], nextOf[i] = -1, -1
		if j, ok := byOrdinal[msgs[i].Ordinal-1]; ok {
			prevOf[i] = int32(j)
		}
		if j, ok := byOrdinal[msgs[i].Ordinal+1]; ok {
			nextOf[i] = int32(j)
		}
	}
	for i := range msgs {
		var prev, next []float64
		if j, ok := byOrdinal[msgs[i].Ordinal-1]; ok {
			prev = contrib[j]
		}
		if j, ok := byOrdinal[msgs[i].Ordinal+1]; ok {
			next = contrib[j]
		}
		var ctx []float64
		if prev != nil || next != nil {
			ctx = Context(nil, prev, next)
		}
		bound := b.PassageBound(&feats[i], contrib[i], ctx)
		if got := scores[msgs[i].Ordinal]; got > bound*(1+1e-9)+1e-12 {
			t.Fatalf("loose %d, terms %q: message %q (%s) scores %v above its bound %v",
				loose, q.Terms, msgs[i].Text, msgs[i].Type, got, bound)
		}
		sb.Add(bound, msgs[i].Timestamp, &feats[i], InProject(msgs[i].Project, opt.CurrentProject), opt.InWindow(msgs[i].Timestamp))
		linked.Add(bound, msgs[i].Timestamp, &feats[i], InProject(msgs[i].Project, opt.CurrentProject), opt.InWindow(msgs[i].Timestamp))
	}
	unlinkedBound := sb.Bound(b, opt, nil, nil)
	if s.Score > unlinkedBound*(1+1e-9)+1e-12 {
		t.Fatalf("loose %d, terms %q: session scores %v above its bound %v", loose, q.Terms, s.Score, unlinkedBound)
	}
	linkedBound := linked.Bound(b, opt, prevOf, nextOf)
	if s.Score > linkedBound*(1+1e-9)+1e-12 {
		t.Fatalf("loose %d, terms %q: session scores %v above its bound %v with the messages linked", loose, q.Terms, s.Score, linkedBound)
	}
	if linkedBound > unlinkedBound*(1+1e-9) {
		t.Fatalf("loose %d, terms %q: linked bound %v above the unlinked %v", loose, q.Terms, linkedBound, unlinkedBound)
	}
}

// TestLargestAscending checks the partial selection against a full sort:
// the k largest, ascending, for sizes around k and orders that stress a
// heap (ascending input replaces the root every time, ties).
func TestLargestAscending(t *testing.T) {
	const k = 5
	rng := rand.New(rand.NewPCG(1, 2))
	cases := map[string][]float64{
		"empty":      {},
		"fewer":      {3, 1, 2},
		"exactly k":  {5, 4, 3, 2, 1},
		"ascending":  {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12},
		"descending": {12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1},
		"ties":       {2, 2, 2, 1, 2, 3, 3, 0, 2, 2},
	}
	random := make([]float64, 1000)
	for i := range random {
		random[i] = rng.Float64()
	}
	cases["random"] = random
	for name, xs := range cases {
		t.Run(name, func(t *testing.T) {
			want := slices.Clone(xs)
			slices.Sort(want)
			want = want[max(len(want)-k, 0):]
			got := largestAscending(slices.Clone(xs), k)
			if !slices.Equal(got, want) {
				t.Errorf("largestAscending(%v, %d) = %v, want %v", xs, k, got, want)
			}
		})
	}
}
