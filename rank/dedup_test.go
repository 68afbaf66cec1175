package rank

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// discussion is a session of four messages about the query, each with its
// own filler.
func discussion(q Query, sid string, seed uint64) []Message {
	return []Message{
		msg(q, sid, typeUser, 0, "why does the stripe webhook retry "+filler(seed, 30)),
		msg(q, sid, typeAssistant, 1, filler(seed+1, 30)+" the stripe webhook signature "+filler(seed+2, 20)),
		msg(q, sid, typeAssistant, 2, "```go\nstripe.ConstructEvent(webhook)\n```\n"+filler(seed+3, 40)),
		msg(q, sid, typeTool, 3, "Edit: /srv/stripe/webhook.go"),
	}
}

// TestRank_CollapsesDuplicates is must-hold 2.
func TestRank_CollapsesDuplicates(t *testing.T) {
	q := newQuery([]string{"stripe", "webhook"}, nil)
	orig := discussion(q, "orig", 100)
	unrelated := discussion(q, "unrelated", 200)
	extra := msg(q, "fork", typeAssistant, 4, "the stripe webhook now passes "+filler(300, 20))
	tests := []struct {
		name  string
		msgs  []Message
		group []string // sessions expected to collapse into one result
	}{
		{"exact copy", append(withSession(orig, "copy"), orig...), []string{"copy", "orig"}},
		{"resumed copy with one extra message", append(append(withSession(orig, "fork"), extra), orig...), []string{"fork", "orig"}},
		{"three copies", append(append(withSession(orig, "c1"), withSession(orig, "c2")...), orig...), []string{"c1", "c2", "orig"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msgs := append(slices.Clone(tt.msgs), unrelated...)
			got := Rank(msgs, q, Options{Now: baseTime})
			if len(got) != 2 {
				t.Fatalf("%d results %v, want the group and unrelated", len(got), ids(got))
			}
			// The group collapses into its best session, as ranked without
			// collapsing.
			var best string
			for _, s := range rankNoDedup(msgs, q, Options{Now: baseTime}) {
				if slices.Contains(tt.group, s.ID) {
					best = s.ID
					break
				}
			}
			rep := got[slices.IndexFunc(got, func(s Session) bool { return s.ID == best })]
			others := slices.DeleteFunc(slices.Clone(tt.group), func(id string) bool { return id == best })
			if sorted := slices.Sorted(slices.Values(rep.Similar)); !slices.Equal(sorted, others) {
				t.Errorf("%s.Similar = %v, want %v", best, rep.Similar, others)
			}
			u := got[slices.IndexFunc(got, func(s Session) bool { return s.ID == "unrelated" })]
			if len(u.Similar) != 0 {
				t.Errorf("unrelated.Similar = %v, want none", u.Similar)
			}
		})
	}
}

// TestRank_KeepsDistinctSessions: sessions that share words, or even
// identical short rows, are not copies.
func TestRank_KeepsDistinctSessions(t *testing.T) {
	q := newQuery([]string{"stripe", "webhook", "go", "test"}, nil)
	var boilerplate []Message
	for i := range 20 {
		sid := fmt.Sprintf("ran-tests-%02d", i)
		boilerplate = append(boilerplate,
			msg(q, sid, typeTool, 0, "Bash: go test ./..."),
			msg(q, sid, typeUser, 1, "run go test again"))
	}
	sameTopic := append(discussion(q, "a", 100), discussion(q, "b", 200)...)
	sharedSentence := " we verify the stripe webhook signature with the signing secret from the dashboard before trusting the event "
	for i := range sameTopic {
		sameTopic[i].Text += sharedSentence
		sameTopic[i].Hits = findHits(sameTopic[i].Text, q.Terms)
	}
	// A whole discussion pasted into a new session is one message there:
	// its matched text is the discussion's, its conversation is not.
	orig := discussion(q, "orig", 100)
	var paste strings.Builder
	for _, m := range orig {
		paste.WriteString(m.Text + "\n\n")
	}
	pasted := append([]Message{msg(q, "paste", typeUser, 0, paste.String())}, orig...)
	tests := []struct {
		name string
		msgs []Message
		want int
	}{
		{"identical short tool rows and prompts", boilerplate, 20},
		{"same topic written separately, one sentence in common", sameTopic, 2},
		{"discussion pasted into a new session", pasted, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Rank(tt.msgs, q, Options{Now: baseTime})
			if len(got) != tt.want {
				t.Errorf("%d results, want %d: %v", len(got), tt.want, ids(got))
			}
		})
	}
}

// TestRank_DedupThreshold: the threshold applies to the matched text;
// the whole conversations, as Options.Conversations gives them, are one.
func TestRank_DedupThreshold(t *testing.T) {
	q := newQuery([]string{"stripe", "webhook"}, nil)
	orig := discussion(q, "orig", 100)
	// Half of the copy's messages are new, so the pair is about 0.5 similar
	// (fillers of one word count have one length: the shapes are equal).
	half := append(withSession(orig[:2], "half"), discussion(q, "half", 400)[2:]...)
	msgs := append(slices.Clone(orig), half...)
	whole := conversationsFrom(msgs)
	tests := []struct {
		threshold float64
		results   int
	}{
		{0, 2},   // default 0.8
		{0.4, 1}, // low enough to collapse
		{0.6, 2},
		{2, 2}, // disabled
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.threshold), func(t *testing.T) {
			got := Rank(msgs, q, Options{DedupThreshold: tt.threshold, Conversations: whole})
			if len(got) != tt.results {
				t.Errorf("%d results, want %d", len(got), tt.results)
			}
		})
	}
	if got := Rank(append(slices.Clone(orig), withSession(orig, "copy")...), q, Options{DedupThreshold: 2}); len(got) != 2 {
		t.Errorf("threshold above 1 still collapsed exact copies: %v", ids(got))
	}
}

// TestCollapseDuplicates_MatchesBruteForce compares the LSH path with
// comparing every pair exactly, on sessions drawn from a shared pool of
// messages so that similarities spread over the whole range. LSH can in
// principle miss a pair right at the threshold (see lshRows); the seeds
// are fixed, so this test is deterministic.
func TestCollapseDuplicates_MatchesBruteForce(t *testing.T) {
	q := newQuery([]string{"alpha"}, nil)
	pool := make([]string, 40)
	for i := range pool {
		pool[i] = "alpha " + filler(uint64(1000+i), 15)
	}
	for _, threshold := range []float64{0.3, 0.5, 0.8, 0.95} {
		t.Run(fmt.Sprint(threshold), func(t *testing.T) {
			r := rand.New(rand.NewPCG(7, uint64(threshold*100)))
			var msgs []Message
			for s := range 150 {
				sid := fmt.Sprintf("s%03d", s)
				start, n := r.IntN(len(pool)-10), 3+r.IntN(7)
				for line, text := range pool[start : start+n] {
					msgs = append(msgs, msg(q, sid, typeAssistant, line, text))
				}
			}
			ranked := rankNoDedup(msgs, q, Options{})
			want := bruteForceCollapse(slices.Clone(ranked), threshold)
			got := collapseDuplicates(slices.Clone(ranked), Options{DedupThreshold: threshold})
			if !slices.EqualFunc(got, want, func(a, b Session) bool { return a.ID == b.ID && slices.Equal(a.Similar, b.Similar) }) {
				t.Errorf("LSH kept %d sessions, brute force %d", len(got), len(want))
			}
			if len(want) == len(ranked) || len(want) < 2 {
				t.Errorf("fixture collapses %d of %d sessions; want some but not all", len(ranked)-len(want), len(ranked))
			}
		})
	}
}

// bruteForceCollapse is the reference: the same greedy rule over every
// pair, with exact Jaccard, then the matched messages as conversations.
func bruteForceCollapse(sessions []Session, threshold float64) []Session {
	sets := make([][]uint64, len(sessions))
	for i := range sessions {
		sets[i] = shingleSet(&sessions[i])
	}
	absorbed := make([]bool, len(sessions))
	var kept []Session
	for i := range sessions {
		if absorbed[i] {
			continue
		}
		for j := i + 1; j < len(sessions); j++ {
			if !absorbed[j] && len(sets[i]) >= minDedupShingles && len(sets[j]) >= minDedupShingles && jaccard(sets[i], sets[j]) >= threshold &&
				compareConversations(matchedShapes(&sessions[i]), matchedShapes(&sessions[j])).oneSession() {
				absorbed[j] = true
				sessions[i].Similar = append(sessions[i].Similar, sessions[j].ID)
			}
		}
		kept = append(kept, sessions[i])
	}
	return kept
}

func TestLSHRows(t *testing.T) {
	tests := []struct {
		threshold float64
		rows      int
	}{{0.95, 4}, {0.8, 4}, {0.6, 2}, {0.3, 1}}
	for _, tt := range tests {
		if got := lshRows(tt.threshold); got != tt.rows {
			t.Errorf("lshRows(%v) = %d, want %d", tt.threshold, got, tt.rows)
		}
	}
}

func TestJaccard(t *testing.T) {
	tests := []struct {
		a, b []uint64
		want float64
	}{
		{nil, nil, 1},
		{[]uint64{1, 2, 3}, nil, 0},
		{[]uint64{1, 2, 3}, []uint64{1, 2, 3}, 1},
		{[]uint64{1, 2, 3, 4}, []uint64{3, 4, 5, 6}, 2.0 / 6},
	}
	for _, tt := range tests {
		if got := jaccard(tt.a, tt.b); got != tt.want {
			t.Errorf("jaccard(%v, %v) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestAppendShingles(t *testing.T) {
	collect := func(text string) []uint64 { return appendShingles(nil, text) }
	tests := []struct {
		name   string
		a, b   string
		equal  bool
		length int // shingles of a
	}{
		{"case, punctuation and spacing are ignored", "Fix the JWT refresh.", "fix   the jwt\nrefresh", true, 2},
		{"word order matters", "a b c", "c b a", false, 1},
		{"short text is one shingle", "hello world", "hello world", true, 1},
		{"non-ASCII letters are words", "Größe ändern jetzt", "größe ÄNDERN jetzt", true, 1},
		{"no words, no shingles", "--- !!", "", true, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b := collect(tt.a), collect(tt.b)
			if slices.Equal(a, b) != tt.equal {
				t.Errorf("shingles equal = %v, want %v (%x vs %x)", !tt.equal, tt.equal, a, b)
			}
			if len(a) != tt.length {
				t.Errorf("%q has %d shingles, want %d", tt.a, len(a), tt.length)
			}
		})
	}
}

// With a Limit, Rank returns the same best sessions as without one, and
// duplicates of a shown session still collapse into it.
func TestRankLimitKeepsTheBestAndCollapses(t *testing.T) {
	q := newQuery([]string{"alpha"}, nil)
	var msgs []Message
	for s := range 60 {
		sid := fmt.Sprintf("s%03d", s)
		n := 1 + s%5
		if s == 4 {
			n = 6 // the best session; its copy ties with it alone
		}
		for line := range n {
			msgs = append(msgs, msg(q, sid, typeAssistant, line, "alpha "+filler(uint64(s*10+line), 15)))
		}
	}
	// s999 is a copy of s004, the session with the most messages. Copies
	// score alike, so they rank next to each other and the pool that
	// duplicate collapse looks at under a limit holds both.
	for _, m := range msgs {
		if m.Session == "s004" {
			c := m
			c.Session = "s999"
			msgs = append(msgs, c)
		}
	}
	all := Rank(msgs, q, Options{})
	top := Rank(msgs, q, Options{Limit: 5})
	if len(top) != 5 {
		t.Fatalf("Limit 5 returned %d sessions", len(top))
	}
	for i := range top {
		if top[i].ID != all[i].ID || !slices.Equal(top[i].Similar, all[i].Similar) {
			t.Fatalf("rank %d: limited %s %v, unlimited %s %v", i+1, top[i].ID, top[i].Similar, all[i].ID, all[i].Similar)
		}
	}
	collapsed := false
	for _, s := range top {
		collapsed = collapsed || slices.Contains(s.Similar, "s999") || slices.Contains(s.Similar, "s004")
	}
	if !collapsed {
		t.Fatal("the copy did not collapse under a limit")
	}
}

// TestSketchAllMatchesSerial checks the sketches made on all cores (a
// few sessions of many messages, as a search's pool) against those made
// one session after another.
func TestSketchAllMatchesSerial(t *testing.T) {
	q := newQuery([]string{"alpha"}, nil)
	for _, shape := range []struct{ sessions, messages int }{{1, 600}, {3, 200}, {15, 90}, {40, 3}, {2, 5}} {
		var msgs []Message
		for s := range shape.sessions {
			for line := range shape.messages {
				msgs = append(msgs, msg(q, fmt.Sprintf("s%03d", s), typeAssistant, line, "alpha "+filler(uint64(s*1000+line%17), 12)))
			}
		}
		ranked := rankNoDedup(msgs, q, Options{})
		d := newDeduper(ranked, DefaultDedupThreshold)
		for i := range ranked {
			want := sketchSession(&ranked[i])
			if (want == nil) != (d.sketches[i] == nil) || want != nil && *want != *d.sketches[i] {
				t.Fatalf("%d sessions of %d messages: sketch %d differs from the serial one", shape.sessions, shape.messages, i)
			}
		}
	}
}

// TestSketchSessionMatchesShingleList checks that sketching a session's
// shingles as they are made gives the sketch of the list of them
// (appendShingles, then each to its bin), for texts of every length
// around a shingle, non-ASCII words and sessions below the shingle floor.
func TestSketchSessionMatchesShingleList(t *testing.T) {
	reference := func(s *Session) *sketch {
		var all []uint64
		for _, m := range s.Messages {
			all = appendShingles(all, m.Text)
		}
		if len(all) < minDedupShingles {
			return nil
		}
		var sk sketch
		for i := range sk {
			sk[i] = emptyBin
		}
		for _, h := range all {
			if bin := h % sketchSize; h < sk[bin] {
				sk[bin] = h
			}
		}
		densify(&sk)
		return &sk
	}
	texts := []string{"", "one", "two words", "three words here", "Čeština a ÚŘAD, déjà vu", "x_y 12 --- !!"}
	for seed := range uint64(40) {
		var s Session
		for m := range int(seed % 13) {
			text := texts[(int(seed)+m)%len(texts)]
			if m%3 == 0 {
				text += " " + filler(seed*100+uint64(m), int(seed%9)*m)
			}
			s.Messages = append(s.Messages, ScoredMessage{Message: Message{Text: text}})
		}
		got, want := sketchSession(&s), reference(&s)
		if (got == nil) != (want == nil) || got != nil && *got != *want {
			t.Fatalf("seed %d: sketch of %d messages differs from the sketch of the shingle list", seed, len(s.Messages))
		}
	}
}
