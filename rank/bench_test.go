package rank

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// benchTerms are the query of the benchmarks.
var benchTerms = []string{"webhook", "retry", "stripe"}

// benchCorpus builds the matched messages of a heavy query: about 20k
// messages in 2k sessions, every message holding at least one term. Types,
// lengths and code blocks are mixed roughly as in real transcripts, and
// one session in twenty is a copy of another, so that collapsing has work
// to do.
func benchCorpus() ([]Message, Query) {
	r := rand.New(rand.NewPCG(42, 42))
	vocab := benchVocabulary(r, 3000)
	zipf := rand.NewZipf(r, 1.1, 1, uint64(len(vocab)-1))
	words := func(n int) string {
		w := make([]string, n)
		for i := range w {
			w[i] = vocab[zipf.Uint64()]
		}
		return strings.Join(w, " ")
	}
	q := Query{Terms: benchTerms}
	var msgs []Message
	var sessions [][]Message
	for s := range 2000 {
		sid := fmt.Sprintf("%08x-session", s)
		if s%20 == 19 {
			sessions = append(sessions, withSession(sessions[r.IntN(len(sessions))], sid))
			continue
		}
		start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(r.IntN(400*24)) * time.Hour)
		var session []Message
		for line := range 1 + r.IntN(19) {
			m := benchMessage(r, words, sid, line)
			m.Timestamp = start.Add(time.Duration(line) * time.Minute)
			m.Project = fmt.Sprintf("/home/u/p%d", s%17)
			session = append(session, m)
		}
		sessions = append(sessions, session)
	}
	for _, s := range sessions {
		msgs = append(msgs, s...)
	}
	q.DocFreq = make([]int, len(q.Terms))
	total := 0
	for _, m := range msgs {
		total += len(m.Text)
		seen := map[int]bool{}
		for _, h := range m.Hits {
			if !seen[h.Term] {
				seen[h.Term] = true
				q.DocFreq[h.Term]++
			}
		}
	}
	q.TotalDocs = 5 * len(msgs) // the query matched a fifth of the index
	q.AvgLen = float64(total) / float64(len(msgs))
	return msgs, q
}

func benchVocabulary(r *rand.Rand, n int) []string {
	vocab := make([]string, n)
	for i := range vocab {
		b := make([]byte, 3+r.IntN(7))
		for j := range b {
			b[j] = byte('a' + r.IntN(26))
		}
		vocab[i] = string(b)
	}
	return vocab
}

// benchMessage is one message with one to three term occurrences.
func benchMessage(r *rand.Rand, words func(int) string, sid string, line int) Message {
	term := func() string { return benchTerms[r.IntN(len(benchTerms))] }
	var typ, text string
	switch p := r.IntN(100); {
	case p < 20:
		typ, text = typeUser, words(5+r.IntN(20))+" "+term()+" "+words(5+r.IntN(10))
	case p < 45:
		typ, text = typeTool, "Edit: /src/"+term()+"/"+words(1)+".go"
	case p < 50:
		typ, text = typeAgent, words(40+r.IntN(100))+" "+term()+" "+words(20)
	default:
		typ, text = typeAssistant, words(30+r.IntN(150))+" "+term()+" "+words(10+r.IntN(60))
		if r.IntN(4) == 0 {
			text += "\n```go\n" + term() + "." + words(2) + "()\n```\n" + words(10)
		}
		if r.IntN(3) == 0 {
			text += " " + term() + " " + words(5)
		}
	}
	return Message{Session: sid, Type: typ, Text: text, Source: "/t/" + sid + ".jsonl", Line: line, Hits: findHits(text, benchTerms)}
}

func BenchmarkRank(b *testing.B) {
	msgs, q := benchCorpus()
	opt := Options{Now: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), CurrentProject: "/home/u/p3"}
	b.ReportAllocs()
	var sessions []Session
	for b.Loop() {
		sessions = Rank(msgs, q, opt)
	}
	b.ReportMetric(float64(len(msgs)), "msgs")
	b.ReportMetric(float64(len(sessions)), "sessions")
}

func BenchmarkScoreMessage(b *testing.B) {
	q := Query{Terms: benchTerms, DocFreq: []int{120, 900, 60}, TotalDocs: 100000, AvgLen: 450}
	text := "The stripe webhook handler retries on 5xx. " + filler(1, 40) +
		"\n```go\nfor attempt := range maxRetry { stripe.Webhook(ctx) }\n```\n" + filler(2, 30)
	m := Message{Type: typeAssistant, Text: text, Hits: findHits(text, benchTerms)}
	b.ReportAllocs()
	for b.Loop() {
		ScoreMessage(&m, &q)
	}
}

func BenchmarkMakeSnippet(b *testing.B) {
	text := filler(3, 300) + " the stripe webhook retry loop " + filler(4, 300)
	hits := findHits(text, benchTerms)
	b.ReportAllocs()
	for b.Loop() {
		MakeSnippet(text, hits, 160)
	}
}
