package rank

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"
)

// rankNoDedup ranks with collapsing off, to test scoring on its own.
func rankNoDedup(msgs []Message, q Query, opt Options) []Session {
	opt.DedupThreshold = 2
	return Rank(msgs, q, opt)
}

// passingMentions is a session of n long assistant messages about
// something else, each mentioning word once in passing.
func passingMentions(q Query, sid, word string, n int) []Message {
	var msgs []Message
	for i := range n {
		seed := uint64(len(sid)*1000 + i)
		text := filler(seed, 80) + " we could also use " + word + " here " + filler(seed+500, 80)
		msgs = append(msgs, msg(q, sid, typeAssistant, i, text))
	}
	return msgs
}

// TestRank_QualityOverQuantity is must-hold 1: ten passing mentions rank
// below two in-depth discussions.
func TestRank_QualityOverQuantity(t *testing.T) {
	q := newQuery([]string{"chrome", "devtools"}, map[string]int{"devtools": 10})
	tests := []struct {
		name string
		deep []Message
	}{
		{"user prompt and code block", []Message{
			msg(q, "deep", typeUser, 0, "How do I attach to Chrome DevTools from a Go test? "+filler(11, 10)),
			msg(q, "deep", typeAssistant, 1, "Start chrome with the devtools port open:\n```sh\nchrome --remote-debugging-port=9222 # devtools\n```\n"+filler(12, 40)),
		}},
		{"two assistant code blocks", []Message{
			msg(q, "deep", typeAssistant, 0, "```go\nctx := chrome.NewContext() // devtools protocol\n```\n"+filler(13, 40)),
			msg(q, "deep", typeAssistant, 1, "```go\ndevtools.Attach(chrome.Target())\n```\n"+filler(14, 40)),
		}},
		{"two user prompts", []Message{
			msg(q, "deep", typeUser, 0, "the chrome devtools panel hangs when I profile "+filler(15, 10)),
			msg(q, "deep", typeUser, 1, "still hangs: chrome devtools memory tab "+filler(16, 10)),
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msgs := append(passingMentions(q, "passing", "chrome", 10), tt.deep...)
			got := rankNoDedup(msgs, q, Options{Now: baseTime})
			if want := []string{"deep", "passing"}; !slices.Equal(ids(got), want) {
				t.Fatalf("order %v, want %v", ids(got), want)
			}
			if got[0].Matches != 2 || got[1].Matches != 10 {
				t.Errorf("matches %d and %d, fixture wants 2 and 10", got[0].Matches, got[1].Matches)
			}
		})
	}
}

// twin builds one of several sessions that match equally: same message
// types, lengths and hit positions, different filler words.
func twin(q Query, sid, project string, seed uint64) []Message {
	msgs := []Message{
		msg(q, sid, typeUser, 0, "fix the jwt refresh "+filler(seed, 12)),
		msg(q, sid, typeAssistant, 1, filler(seed+1, 30)+" the jwt refresh token "+filler(seed+2, 30)),
	}
	for i := range msgs {
		msgs[i].Project = project
	}
	return msgs
}

// TestRank_CurrentProject is must-hold 3.
func TestRank_CurrentProject(t *testing.T) {
	q := newQuery([]string{"jwt", "refresh"}, nil)
	msgs := append(twin(q, "a", "/home/u/other", 21), twin(q, "b", "/home/u/app/web", 31)...)
	if plain := rankNoDedup(msgs, q, Options{Now: baseTime}); plain[0].Score != plain[1].Score || plain[0].ID != "a" {
		t.Fatalf("fixture: want equal scores and a first without a project, got %v %v/%v", ids(plain), plain[0].Score, plain[1].Score)
	}
	tests := []struct {
		current string
		want    []string
	}{
		{"/home/u/app/web", []string{"b", "a"}},
		{"/home/u/app", []string{"b", "a"}},  // b lies inside it
		{"/home/u/app/", []string{"b", "a"}}, // trailing slash
		{"/home/u/ap", []string{"a", "b"}},   // a prefix of the name is not a parent
		{"/home/u/app/web/sub", []string{"a", "b"}},
		{"/home/u/other", []string{"a", "b"}},
	}
	for _, tt := range tests {
		t.Run(tt.current, func(t *testing.T) {
			got := rankNoDedup(msgs, q, Options{Now: baseTime, CurrentProject: tt.current})
			if !slices.Equal(ids(got), tt.want) {
				t.Errorf("order %v, want %v", ids(got), tt.want)
			}
		})
	}
}

// TestRank_RecencyIsMild is must-hold 4.
func TestRank_RecencyIsMild(t *testing.T) {
	q := newQuery([]string{"chrome", "devtools", "jwt", "refresh"}, nil)
	const day = 24 * time.Hour
	deep := []Message{
		msg(q, "old", typeUser, 0, "chrome devtools network tab is empty "+filler(41, 10)),
		msg(q, "old", typeAssistant, 1, "```\nchrome --auto-open-devtools-for-tabs\n```\n"+filler(42, 30)),
	}
	weak := passingMentions(q, "new", "chrome", 1)
	t.Run("much better old match beats weak new one", func(t *testing.T) {
		msgs := append(shift(deep, -183*day), weak...)
		if got := rankNoDedup(msgs, q, Options{Now: baseTime}); !slices.Equal(ids(got), []string{"old", "new"}) {
			t.Errorf("order %v, want [old new]", ids(got))
		}
	})
	t.Run("among equals newer wins", func(t *testing.T) {
		for _, ages := range [][2]time.Duration{{0, day}, {10 * day, 100 * day}, {300 * day, 400 * day}} {
			newer := shift(twin(q, "x", "/p", 51), -ages[0])
			older := shift(twin(q, "a", "/p", 61), -ages[1])
			got := rankNoDedup(append(older, newer...), q, Options{Now: baseTime})
			if !slices.Equal(ids(got), []string{"x", "a"}) || got[0].Score <= got[1].Score {
				t.Errorf("ages %v: order %v scores %v, %v; want x strictly first", ages, ids(got), got[0].Score, got[1].Score)
			}
		}
	})
}

func TestRecencyFactor(t *testing.T) {
	prev := math.Inf(1)
	for _, age := range []time.Duration{-time.Hour, 0, time.Hour, 30 * 24 * time.Hour, DefaultHalfLife, 365 * 24 * time.Hour, 10 * 365 * 24 * time.Hour} {
		f := recencyFactor(baseTime.Add(-age), baseTime, 0)
		if f.Value > 1 || f.Value < 1-recencyWeight {
			t.Errorf("age %v: factor %v outside [%v, 1]", age, f.Value, 1-recencyWeight)
		}
		if age > 0 && f.Value >= prev {
			t.Errorf("age %v: factor %v did not decrease from %v", age, f.Value, prev)
		}
		prev = f.Value
	}
	if f := recencyFactor(baseTime.Add(-DefaultHalfLife), baseTime, 0); math.Abs(f.Value-(1-recencyWeight/2)) > 1e-12 {
		t.Errorf("at one half-life the factor is %v, want %v", f.Value, 1-recencyWeight/2)
	}
	if f := recencyFactor(baseTime.Add(-10*24*time.Hour), time.Time{}, 0); f.Value != 1 {
		t.Errorf("without a reference time the factor is %v, want 1", f.Value)
	}
}

// TestRank_AcknowledgementsAddNothing is must-hold 6 at session level.
func TestRank_AcknowledgementsAddNothing(t *testing.T) {
	q := newQuery([]string{"deploy", "good"}, nil)
	base := twinDeploy(q, "y", 71)
	acks := []Message{
		msg(q, "y", typeUser, 5, "sounds good"),
		msg(q, "y", typeUser, 6, "Looks good!"),
		msg(q, "y", typeUser, 7, "good, thanks"),
		msg(q, "y", typeAssistant, 8, "Sounds good."),
	}
	acks = shift(acks, 30*24*time.Hour) // later, so they would make y newer if they counted
	other := twinDeploy(q, "x", 81)
	opt := Options{Now: baseTime.Add(60 * 24 * time.Hour)}

	without := rankNoDedup(append(slices.Clone(base), other...), q, opt)
	with := rankNoDedup(append(append(slices.Clone(base), acks...), other...), q, opt)
	if !slices.Equal(ids(with), ids(without)) {
		t.Errorf("order with acknowledgements %v, without %v", ids(with), ids(without))
	}
	scoreOfY := func(ss []Session) float64 {
		return ss[slices.IndexFunc(ss, func(s Session) bool { return s.ID == "y" })].Score
	}
	if a, b := scoreOfY(with), scoreOfY(without); a != b {
		t.Errorf("y scores %v with acknowledgements, %v without", a, b)
	}
	onlyAcks := withSession(acks, "z")
	got := rankNoDedup(append(slices.Clone(other), onlyAcks...), q, opt)
	if !slices.Equal(ids(got), []string{"x", "z"}) || got[1].Score != 0 {
		t.Errorf("a session of acknowledgements: order %v, score %v; want last with 0", ids(got), got[len(got)-1].Score)
	}
}

func twinDeploy(q Query, sid string, seed uint64) []Message {
	return []Message{
		msg(q, sid, typeUser, 0, "deploy the worker to staging "+filler(seed, 12)),
		msg(q, sid, typeAssistant, 1, filler(seed+1, 30)+" the deploy script "+filler(seed+2, 30)),
	}
}

// TestRank_SessionCoverage: matching more distinct words across a session
// counts even when no single message holds them all.
func TestRank_SessionCoverage(t *testing.T) {
	q := newQuery([]string{"kafka", "consumer"}, nil)
	both := []Message{
		msg(q, "both", typeAssistant, 0, "kafka "+filler(91, 40)),
		msg(q, "both", typeAssistant, 1, "consumer "+filler(92, 40)),
	}
	one := []Message{
		msg(q, "one", typeAssistant, 0, "kafka "+filler(93, 40)),
		msg(q, "one", typeAssistant, 1, "kafka "+filler(94, 40)),
	}
	got := rankNoDedup(append(one, both...), q, Options{})
	if !slices.Equal(ids(got), []string{"both", "one"}) {
		t.Errorf("order %v, want [both one]", ids(got))
	}
}

// TestRank_Deterministic: the order of the input does not change the
// output.
func TestRank_Deterministic(t *testing.T) {
	q := newQuery([]string{"chrome", "devtools"}, nil)
	var msgs []Message
	for s := range 30 {
		sid := fmt.Sprintf("s%02d", s)
		msgs = append(msgs, twin(q, sid, "/p", uint64(s%3))...) // many equal scores and copies
	}
	msgs = append(msgs, passingMentions(q, "p", "chrome", 5)...)
	want := Rank(msgs, q, Options{Now: baseTime})
	r := rand.New(rand.NewPCG(1, 2))
	for range 10 {
		shuffled := slices.Clone(msgs)
		r.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		if got := Rank(shuffled, q, Options{Now: baseTime}); !reflect.DeepEqual(got, want) {
			t.Fatalf("shuffled input ranks %v, want %v", ids(got), ids(want))
		}
	}
}

// TestRank_SessionFields checks the descriptive fields and the explain
// breakdown.
func TestRank_SessionFields(t *testing.T) {
	q := newQuery([]string{"chrome"}, nil)
	msgs := []Message{
		msg(q, "s", typeAgent, 2, "chrome in a subagent "+filler(1, 5)),
		msg(q, "s", typeAssistant, 1, "chrome "+filler(2, 50)),
		msg(q, "s", typeUser, 3, "chrome please "+filler(3, 5)),
	}
	msgs[0].Source = "/t/s/subagents/agent-1.jsonl"
	msgs[0].Project = ""
	got := Rank(msgs, q, Options{Now: baseTime})
	if len(got) != 1 {
		t.Fatalf("%d sessions, want 1", len(got))
	}
	s := got[0]
	if s.Source != "/t/s.jsonl" || s.Project != "/home/u/proj" || s.Matches != 3 {
		t.Errorf("source %q project %q matches %d", s.Source, s.Project, s.Matches)
	}
	if !s.First.Equal(baseTime.Add(time.Minute)) || !s.Last.Equal(baseTime.Add(3*time.Minute)) {
		t.Errorf("first %v last %v", s.First, s.Last)
	}
	for i := 1; i < len(s.Messages); i++ {
		if s.Messages[i].Score > s.Messages[i-1].Score {
			t.Errorf("messages not best first: %v", s.Messages)
		}
	}
	product := 1.0
	for _, f := range s.Factors {
		product *= f.Value
	}
	if math.Abs(product-s.Score) > 1e-9*s.Score {
		t.Errorf("session factors multiply to %v, score %v", product, s.Score)
	}
	if best := s.Factors[0].Value; best >= 2*s.Messages[0].Score || best < s.Messages[0].Score {
		t.Errorf("best messages %v, want in [s1, 2·s1) with s1 = %v", best, s.Messages[0].Score)
	}
}

// TestBestMessagesFactor: the best passage adds with halving weights, the
// messages elsewhere likewise at a quarter, so no number of messages adds
// up to two and a quarter times the best one.
func TestBestMessagesFactor(t *testing.T) {
	type msg struct {
		score   float64
		ordinal int
		source  string
	}
	tests := []struct {
		name string
		msgs []msg // best first
		want float64
	}{
		{"one", []msg{{4, 10, "a"}}, 4},
		{"a passage halves", []msg{{4, 10, "a"}, {2, 11, "a"}, {1, 9, "a"}}, 4 + 2.0/2 + 1.0/4},
		{"one deep on each side", []msg{{5, 10, "a"}, {4, 11, "a"}, {3, 9, "a"}, {2, 12, "a"}, {1, 8, "a"}}, 5 + 4.0/2 + 3.0/4 + (2+1.0/2)/4},
		{"a row that did not match ends it", []msg{{4, 10, "a"}, {2, 12, "a"}}, 4 + 2.0/4},
		{"elsewhere a quarter", []msg{{4, 10, "a"}, {2, 13, "a"}, {1, 7, "a"}}, 4 + (2+1.0/2)/4},
		{"both", []msg{{4, 10, "a"}, {3, 30, "a"}, {2, 11, "a"}}, 4 + 2.0/2 + 3.0/4},
		{"another transcript is elsewhere", []msg{{4, 10, "a"}, {2, 11, "b"}}, 4 + 2.0/4},
		{"unknown places are elsewhere", []msg{{4, 0, "a"}, {2, 0, "a"}}, 4 + 2.0/4},
		{"zeros add nothing", []msg{{3, 1, "a"}, {0, 2, "a"}, {0, 9, "a"}}, 3},
		{"ten scattered stay under half more", func() []msg {
			var ms []msg
			for i := range 10 {
				ms = append(ms, msg{1, 1 + 10*i, "a"})
			}
			return ms
		}(), 1 + (2-1.0/256)/4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msgs := make([]ScoredMessage, len(tt.msgs))
			for i, m := range tt.msgs {
				msgs[i].Score, msgs[i].Ordinal, msgs[i].Source = m.score, m.ordinal, m.source
			}
			if got := bestMessagesFactor(msgs, true).Value; math.Abs(got-tt.want) > 1e-12 {
				t.Errorf("value %v, want %v", got, tt.want)
			}
		})
	}
}

func TestBestMessagesNote(t *testing.T) {
	msgs := []ScoredMessage{{Score: 4}, {Score: 3}, {Score: 2}}
	for i, o := range []int{10, 30, 11} {
		msgs[i].Ordinal, msgs[i].Source = o, "a"
	}
	want := "3 messages: passage 4.00 + 2.00/2, 1 elsewhere × 0.25: 3.00"
	if got := bestMessagesFactor(msgs, true).Note; got != want {
		t.Errorf("note %q, want %q", got, want)
	}
	if got := bestMessagesFactor(msgs, false).Note; got != "" {
		t.Errorf("note %q without notes, want none", got)
	}
}

// TestBoundWeightsCoverEveryPassage: whichever messages make the best
// passage, the weights bestMessagesFactor gives them, largest first, are
// each at most boundWeights' at the same place.
func TestBoundWeightsCoverEveryPassage(t *testing.T) {
	for inPassage := 1; inPassage <= 2*passageReach+1; inPassage++ {
		var ws []float64
		for w, k := 1.0, 0; k < inPassage; w, k = w/2, k+1 {
			ws = append(ws, w)
		}
		for w, k := restWeight, 0; k < 60; w, k = w/2, k+1 {
			ws = append(ws, w)
		}
		slices.SortFunc(ws, func(a, b float64) int { return cmp.Compare(b, a) })
		for i, w := range boundWeights {
			if ws[i] > w {
				t.Fatalf("%d in the passage: weight %d is %v, above the bound's %v", inPassage, i, ws[i], w)
			}
		}
	}
}

// TestRank_LargeDeterministic runs the parallel paths (scoring, session
// scoring, sketching) on the benchmark corpus: input order must not
// matter. Run with -race to check the workers share nothing.
func TestRank_LargeDeterministic(t *testing.T) {
	if testing.Short() {
		t.Skip("20k messages")
	}
	msgs, q := benchCorpus()
	opt := Options{Now: baseTime, CurrentProject: "/home/u/p3"}
	want := Rank(msgs, q, opt)
	slices.Reverse(msgs)
	got := Rank(msgs, q, opt)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("reversed input ranks differently: first ids %v vs %v", ids(got[:5]), ids(want[:5]))
	}
	collapsed := 0
	for _, s := range got {
		collapsed += len(s.Similar)
	}
	if collapsed == 0 || len(got)+collapsed != 2000 {
		t.Errorf("%d results + %d collapsed, want some collapsed and 2000 in all", len(got), collapsed)
	}
}

func TestWhenFactorByWindow(t *testing.T) {
	at := time.Date(2026, 3, 3, 15, 0, 0, 0, time.UTC)
	msgs := []ScoredMessage{{Message: Message{Timestamp: at}, Score: 1}}
	day := 24 * time.Hour
	for _, tt := range []struct {
		name     string
		from, to time.Time
		want     float64
	}{
		{"a named day", at.Add(-10 * time.Hour), at.Add(20 * time.Hour), 1 + dayBoost},
		{"yesterday", at.Add(-day), at.Add(day), 1 + dayBoost},
		{"a month", at.Add(-10 * day), at.Add(20 * day), 1 + whenBoost},
		{"another day", at.Add(day), at.Add(2 * day), 1},
		{"the day before: told of after", at.Add(-2 * day), at.Add(-day), 1 + whenBoost},
		{"four days before: too long after", at.Add(-5 * day), at.Add(-4 * day), 1},
		{"a month before: no days after", at.Add(-40 * day), at.Add(-10 * day), 1},
	} {
		w := &TimeWindow{From: tt.from, To: tt.to, Phrase: tt.name}
		if got := whenFactor(msgs, w).Value; got != tt.want {
			t.Errorf("%s: when %v, want %v", tt.name, got, tt.want)
		}
	}
}
