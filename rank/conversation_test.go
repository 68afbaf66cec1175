package rank

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// conversationsFrom answers Options.Conversations from every message of
// msgs, matched or not, as the index's row tables do.
func conversationsFrom(msgs []Message) func(ids []string) []Conversation {
	all := map[string]Conversation{}
	for _, m := range msgs {
		all[m.Session] = append(all[m.Session], MessageShape{Type: m.Type, Len: len(m.Text)})
	}
	return func(ids []string) []Conversation {
		out := make([]Conversation, len(ids))
		for i, id := range ids {
			out[i] = all[id]
		}
		return out
	}
}

// matchedOnly keeps the messages that hold a query word: what a search
// hands to Rank.
func matchedOnly(msgs []Message) []Message {
	return slices.DeleteFunc(slices.Clone(msgs), func(m Message) bool { return len(m.Hits) == 0 })
}

// assignment is a pasted block of about n bytes: a brief the query's
// words come from.
func assignment(n int) string {
	var b strings.Builder
	b.WriteString("Assignment 3: build a quota service for the course project.\n")
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "Part %d. %s quota %s.\n", i+1, filler(uint64(9000+i), 12), filler(uint64(9500+i), 6))
	}
	return b.String()
}

// work is a session of its own work after the pasted assignment: replies
// and tool rows of lengths its seed chooses.
func work(q Query, sid string, seed uint64, pasted string) []Message {
	msgs := []Message{msg(q, sid, typeUser, 0, pasted)}
	for i := range 6 {
		s := seed*100 + uint64(i)
		switch i % 3 {
		case 0:
			msgs = append(msgs, msg(q, sid, typeAssistant, i+1, filler(s, 20+int(s%37))))
		case 1:
			msgs = append(msgs, msg(q, sid, typeTool, i+1, fmt.Sprintf("Edit: /src/%s.go", filler(s, 1+int(s%3)))))
		default:
			msgs = append(msgs, msg(q, sid, typeUser, i+1, filler(s, 5+int(s%11))))
		}
	}
	return msgs
}

// resumed is a copy of msgs under session sid: every message, with the
// edits applied (message index → new text), and then extra.
func resumed(msgs []Message, sid string, edits map[int]string, extra ...Message) []Message {
	out := withSession(msgs, sid)
	for i, text := range edits {
		out[i].Text = text
	}
	for _, m := range extra {
		m.Session, m.Source = sid, "/t/"+sid+".jsonl"
		out = append(out, m)
	}
	return out
}

// TestCollapse_WholeConversations is the criterion: two sessions are
// collapsed only when most messages of both correspond, never for a
// shared pasted block, however long.
func TestCollapse_WholeConversations(t *testing.T) {
	q := newQuery([]string{"quota", "assignment"}, nil)
	talk := newQuery([]string{"stripe", "webhook"}, nil)
	// orig is a discussion of twelve messages, the query's words in
	// several of them.
	var orig []Message
	for i := range 12 {
		text := filler(uint64(700+i), 15+i)
		if i%3 == 0 {
			text = "the stripe webhook " + text
		}
		orig = append(orig, msg(talk, "orig", []string{typeUser, typeAssistant, typeTool}[i%3], i, text))
	}
	extra := msg(talk, "", typeAssistant, 12, "the stripe webhook retries are logged now "+filler(801, 9))
	tests := []struct {
		name  string
		q     Query
		msgs  []Message // every message of every session
		whole bool      // give Rank the whole conversations
		kept  int
		why   string // SimilarWhy of the first result, if it absorbed one
	}{
		{"pasted block of 200 bytes shared by two sessions", q,
			append(work(q, "monday", 1, assignment(200)), work(q, "tuesday", 2, assignment(200))...), true, 2, ""},
		{"pasted block of 3 KB shared by two sessions", q,
			append(work(q, "monday", 1, assignment(3<<10)), work(q, "tuesday", 2, assignment(3<<10))...), true, 2, ""},
		{"pasted block of 30 KB shared by two sessions", q,
			append(work(q, "monday", 1, assignment(30<<10)), work(q, "tuesday", 2, assignment(30<<10))...), true, 2, ""},
		{"pasted block shared, conversations not known", q,
			append(work(q, "monday", 1, assignment(3<<10)), work(q, "tuesday", 2, assignment(3<<10))...), false, 2, ""},
		{"pasted block and a tool row shared", q,
			append(append(work(q, "monday", 1, assignment(3<<10)), msg(q, "monday", typeTool, 9, "Bash: go test ./...")),
				append(work(q, "tuesday", 2, assignment(3<<10)), msg(q, "tuesday", typeTool, 9, "Bash: go test ./..."))...), true, 2, ""},
		{"resumed copy with one extra message", talk,
			append(slices.Clone(orig), resumed(orig, "fork", nil, extra)...), true, 1, "12 of 13 messages the same (a resumed copy)"},
		{"copy under another id", talk,
			append(slices.Clone(orig), resumed(orig, "copy", nil)...), true, 1, "12 of 12 messages the same (a copy)"},
		{"copy with a few edited messages", talk,
			append(slices.Clone(orig), resumed(orig, "edited", map[int]string{
				4:  orig[4].Text + " and then some",
				10: "reworded: " + orig[10].Text,
			})...), true, 1, "10 of 12 messages the same (an edited copy)"},
		{"copy that went on with as much new work", talk,
			append(slices.Clone(orig), resumed(orig, "longer", nil, work(talk, "", 5, filler(3, 40))...)...), true, 2, ""},
		{"same topic written separately", talk,
			append(discussion(talk, "a", 100), discussion(talk, "b", 200)...), true, 2, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opt := Options{Now: baseTime}
			if tt.whole {
				opt.Conversations = conversationsFrom(tt.msgs)
			}
			got := Rank(matchedOnly(tt.msgs), tt.q, opt)
			if len(got) != tt.kept {
				t.Fatalf("%d results %v, want %d", len(got), ids(got), tt.kept)
			}
			var whys []string
			for _, s := range got {
				whys = append(whys, s.SimilarWhy...)
				if len(s.SimilarWhy) != len(s.Similar) {
					t.Errorf("%s: similar %v, why %q", s.ID, s.Similar, s.SimilarWhy)
				}
			}
			if tt.why == "" {
				if len(whys) != 0 {
					t.Errorf("collapsed: %q", whys)
				}
				return
			}
			if !slices.Equal(whys, []string{tt.why}) {
				t.Errorf("why %q, want %q", whys, tt.why)
			}
		})
	}
}

// TestCollapse_ExplainFactor: the session that absorbed another says so
// in its factors, which still multiply to its score.
func TestCollapse_ExplainFactor(t *testing.T) {
	q := newQuery([]string{"stripe", "webhook"}, nil)
	orig := discussion(q, "11111111-aaaa", 100)
	fork := resumed(orig, "22222222-bbbb", nil, msg(q, "", typeAssistant, 4, "the stripe webhook passes now "+filler(5, 10)))
	all := append(slices.Clone(orig), fork...)
	got := Rank(all, q, Options{Now: baseTime, Conversations: conversationsFrom(all)})
	if len(got) != 1 {
		t.Fatalf("%d results, want 1", len(got))
	}
	s := got[0]
	other := "22222222-bbbb"
	if s.ID == other {
		other = "11111111-aaaa"
	}
	want := Factor{Name: "collapsed", Value: 1, Note: other[:7] + ": 4 of 5 messages the same (a resumed copy)"}
	if i := slices.IndexFunc(s.Factors, func(f Factor) bool { return f.Name == "collapsed" }); i < 0 || s.Factors[i] != want {
		t.Errorf("factors %+v, want %+v among them", s.Factors, want)
	}
	product := 1.0
	for _, f := range s.Factors {
		product *= f.Value
	}
	if product != s.Score {
		t.Errorf("factors multiply to %v, score %v", product, s.Score)
	}
}

// TestCompareConversations checks the counting itself: counterparts are
// used once, types and lengths both count, titles and subagent rows are
// not the conversation.
func TestCompareConversations(t *testing.T) {
	c := func(ms ...string) Conversation {
		var out Conversation
		for _, m := range ms {
			typ, n, _ := strings.Cut(m, ":")
			var length int
			fmt.Sscan(n, &length)
			out = append(out, MessageShape{Type: typ, Len: length})
		}
		return out
	}
	tests := []struct {
		name string
		a, b Conversation
		same int
		one  bool
	}{
		{"one shared message is never enough", c("user:3000"), c("user:3000"), 1, false},
		{"two shared of two", c("user:3000", "tool:19"), c("user:3000", "tool:19"), 2, true},
		{"repeats pair once each", c("tool:19", "tool:19", "tool:19", "user:40"), c("tool:19", "user:41"), 1, false},
		{"type matters", c("user:40", "assistant:40"), c("assistant:40", "assistant:40"), 1, false},
		{"three of four", c("user:1", "user:2", "user:3", "user:4"), c("user:1", "user:2", "user:3"), 3, true},
		{"two of three", c("user:1", "user:2", "user:3"), c("user:1", "user:2"), 2, false},
		{"titles left out", c("user:1", "user:2", "title:9"), c("user:1", "user:2"), 2, true},
		{"subagent rows left out", c("user:1", "user:2", "agent:5", "agent:6", "agent:7"), c("user:1", "user:2"), 2, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := compareConversations(shapesOf(tt.a), shapesOf(tt.b))
			if v.same != tt.same || v.oneSession() != tt.one {
				t.Errorf("same %d, one session %v; want %d, %v", v.same, v.oneSession(), tt.same, tt.one)
			}
		})
	}
}
