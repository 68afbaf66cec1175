package rank

import (
	"math/rand/v2"
	"slices"
	"strings"
	"time"
)

// baseTime is the "now" of every fixture, so recency is reproducible.
var baseTime = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// fillerWords all have five letters, so fillers of the same word count have
// the same length whatever their seed, and none contains a query term used
// in the tests.
var fillerWords = strings.Fields(`amber birch cedar delta ember fable grove haven ivory jolly
	karma lemon mango noble ocean pearl quilt raven solar tiger umber vivid waltz xenon yacht
	zebra acorn bloom crisp dwell eagle flint glide heron inlet jewel knoll latch marsh nudge`)

// filler returns n words of unrelated prose. Different seeds give word
// sequences that share almost no three-word runs, so fixtures built from
// them are not near-duplicates of each other.
func filler(seed uint64, n int) string {
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	words := make([]string, n)
	for i := range words {
		words[i] = fillerWords[r.IntN(len(fillerWords))]
	}
	return strings.Join(words, " ")
}

// newQuery builds a query over a 1000-message index whose messages average
// 400 bytes. docFreq gives each term's document frequency; a missing entry
// means 50 (5% of messages).
func newQuery(terms []string, docFreq map[string]int) Query {
	q := Query{Terms: terms, TotalDocs: 1000, AvgLen: 400}
	for _, t := range terms {
		df, ok := docFreq[t]
		if !ok {
			df = 50
		}
		q.DocFreq = append(q.DocFreq, df)
	}
	return q
}

// findHits returns every case-insensitive occurrence of every term in
// text, sorted by Start, as the search package would.
func findHits(text string, terms []string) []Hit {
	lower := strings.ToLower(text)
	var hits []Hit
	for ti, term := range terms {
		term = strings.ToLower(term)
		for from := 0; ; {
			i := strings.Index(lower[from:], term)
			if i < 0 {
				break
			}
			hits = append(hits, Hit{Term: ti, Start: from + i, End: from + i + len(term)})
			from += i + len(term)
		}
	}
	slices.SortFunc(hits, compareHits)
	return hits
}

// msg builds a message of session sid with hits for q's terms. Messages
// are dated at baseTime, one minute apart by line.
func msg(q Query, sid, typ string, line int, text string) Message {
	return Message{
		Session:   sid,
		Project:   "/home/u/proj",
		Type:      typ,
		Timestamp: baseTime.Add(time.Duration(line) * time.Minute),
		Text:      text,
		Source:    "/t/" + sid + ".jsonl",
		Line:      line,
		Hits:      findHits(text, q.Terms),
	}
}

// ids lists the session ids in order.
func ids(sessions []Session) []string {
	out := make([]string, len(sessions))
	for i, s := range sessions {
		out[i] = s.ID
	}
	return out
}

// shift moves every message of a session by d and returns them.
func shift(msgs []Message, d time.Duration) []Message {
	out := slices.Clone(msgs)
	for i := range out {
		out[i].Timestamp = out[i].Timestamp.Add(d)
	}
	return out
}

// withSession renames the session of every message.
func withSession(msgs []Message, sid string) []Message {
	out := slices.Clone(msgs)
	for i := range out {
		out[i].Session = sid
		out[i].Source = "/t/" + sid + ".jsonl"
	}
	return out
}
