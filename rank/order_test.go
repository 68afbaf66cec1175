package rank

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"testing"
	"time"
)

// valueOrdered is what scoreSession did before it sorted indices: the
// messages sorted as values, in transcript order, then best first, with
// the chronological walk of describeSession in between.
func valueOrdered(msgs []ScoredMessage) (sorted []ScoredMessage, first, last time.Time, project, source string) {
	sorted = slices.Clone(msgs)
	slices.SortFunc(sorted, func(a, b ScoredMessage) int { return compareChronological(&a, &b) })
	scoring := func(m ScoredMessage) bool { return m.Score > 0 }
	i, j := slices.IndexFunc(sorted, scoring), lastIndexFunc(sorted, scoring)
	if i < 0 {
		i, j = 0, len(sorted)-1
	}
	first, last = sorted[i].Timestamp, sorted[j].Timestamp
	for _, m := range sorted {
		if project == "" {
			project = m.Project
		}
		if source == "" && m.Type != typeAgent {
			source = m.Source
		}
	}
	if source == "" {
		source = sorted[0].Source
	}
	slices.SortFunc(sorted, func(a, b ScoredMessage) int { return compareMessages(&a, &b) })
	return sorted, first, last, project, source
}

// TestScoreSessionOrderMatchesValueSort checks that ordering the messages
// through a permutation of their indices gives what sorting the values
// gave, ties included: messages equal in every compared field (time,
// source, line, text, score) but told apart by their ordinal must come
// out in the same places.
func TestScoreSessionOrderMatchesValueSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 13))
	for round := range 500 {
		n := 1 + rng.IntN(300)
		if round%50 == 0 {
			n = 1 + rng.IntN(3)
		}
		msgs := make([]ScoredMessage, n)
		for i := range msgs {
			m := &msgs[i]
			m.Session = "s"
			m.Project = "p" + strconv.Itoa(rng.IntN(3))
			m.Type = []string{typeUser, typeAssistant, typeAgent, typeTool}[rng.IntN(4)]
			m.Timestamp = baseTime.Add(time.Duration(rng.IntN(5)) * time.Minute)
			m.Source = "src" + strconv.Itoa(rng.IntN(2))
			m.Line = rng.IntN(4)
			m.Text = "t" + strconv.Itoa(rng.IntN(2))
			m.Ordinal = i // tells ties apart
			m.Score = float64(rng.IntN(3))
		}
		wantMsgs, wantFirst, wantLast, wantProject, wantSource := valueOrdered(msgs)
		s := Session{Messages: slices.Clone(msgs)}
		scoreSession(&s, nil, Options{})
		got := make([]int, n)
		want := make([]int, n)
		for i := range n {
			got[i], want[i] = s.Messages[i].Ordinal, wantMsgs[i].Ordinal
		}
		if !slices.Equal(got, want) {
			t.Fatalf("round %d: order %v, value sort %v", round, got, want)
		}
		if !reflect.DeepEqual(s.Messages, wantMsgs) {
			t.Fatalf("round %d: messages differ from the value sort's", round)
		}
		if !s.First.Equal(wantFirst) || !s.Last.Equal(wantLast) || s.Project != wantProject || s.Source != wantSource || s.Matches != n {
			t.Fatalf("round %d: first %v last %v project %q source %q, want %v %v %q %q", round, s.First, s.Last, s.Project, s.Source, wantFirst, wantLast, wantProject, wantSource)
		}
	}
}

// TestPermute moves every element to its place, for random permutations
// (cycles of every length, fixed points).
func TestPermute(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		n := rng.IntN(50)
		order := make([]int32, n)
		for i := range order {
			order[i] = int32(i)
		}
		rng.Shuffle(n, func(i, j int) { order[i], order[j] = order[j], order[i] })
		msgs := make([]ScoredMessage, n)
		for i := range msgs {
			msgs[i].Ordinal = i
		}
		want := slices.Clone(order)
		permute(msgs, order)
		for k := range msgs {
			if msgs[k].Ordinal != int(want[k]) {
				t.Fatalf("order %v: place %d holds %d", want, k, msgs[k].Ordinal)
			}
		}
	}
}
