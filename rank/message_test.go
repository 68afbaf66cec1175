package rank

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// scoreOf scores text as a message of type typ.
func scoreOf(t *testing.T, q Query, typ, text string) float64 {
	t.Helper()
	m := msg(q, "s", typ, 0, text)
	score, factors := ScoreMessage(&m, &q)
	if math.IsNaN(score) || score < 0 {
		t.Fatalf("score of %q = %v, want a non-negative number (factors %v)", text, score, factors)
	}
	return score
}

// TestScoreMessage_Orders checks that each pair of messages is scored in
// the expected order. Each case changes one thing between the two.
func TestScoreMessage_Orders(t *testing.T) {
	chrome := newQuery([]string{"chrome", "devtools"}, nil)
	pricing := newQuery([]string{"pricing.ts"}, nil)
	long := filler(1, 150) // about 900 bytes, over twice the average
	tests := []struct {
		name       string
		q          Query
		betterType string
		better     string
		worseType  string
		worse      string
	}{
		{
			name:       "user prompt beats the same text from the assistant",
			q:          chrome,
			betterType: typeUser, better: "open chrome and check the devtools " + filler(2, 20),
			worseType: typeAssistant, worse: "open chrome and check the devtools " + filler(2, 20),
		},
		{
			name:       "assistant beats the same text from a subagent",
			q:          chrome,
			betterType: typeAssistant, better: "open chrome and check the devtools " + filler(2, 20),
			worseType: typeAgent, worse: "open chrome and check the devtools " + filler(2, 20),
		},
		{
			name:       "match in a code block beats the same words in prose",
			q:          chrome,
			betterType: typeAssistant, better: "```\nchrome --devtools\n```\n" + filler(3, 20),
			worseType: typeAssistant, worse: "use: chrome --devtools xx " + filler(3, 20),
		},
		{
			name:       "inline code counts as code",
			q:          chrome,
			betterType: typeAssistant, better: "run `chrome --devtools` " + filler(3, 20),
			worseType: typeAssistant, worse: "run 'chrome --devtools' " + filler(3, 20),
		},
		{
			name:       "two terms close together beat the same terms far apart",
			q:          chrome,
			betterType: typeAssistant, better: "chrome devtools " + filler(4, 60),
			worseType: typeAssistant, worse: "chrome " + filler(4, 60) + " devtools",
		},
		{
			name:       "one mention in a short message beats one in a long message",
			q:          chrome,
			betterType: typeAssistant, better: "we use chrome " + filler(5, 30),
			worseType: typeAssistant, worse: "we use chrome " + long,
		},
		{
			name:       "a short tool row beats a passing mention in a long message",
			q:          pricing,
			betterType: typeTool, better: "Edit: /src/pricing.ts",
			worseType: typeAssistant, worse: long + " see pricing.ts " + long,
		},
		{
			name:       "repeated hits count, with diminishing returns",
			q:          chrome,
			betterType: typeAssistant, better: "chrome chrome " + filler(6, 30),
			worseType: typeAssistant, worse: "chrome xxxxxx " + filler(6, 30),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			better := scoreOf(t, tt.q, tt.betterType, tt.better)
			worse := scoreOf(t, tt.q, tt.worseType, tt.worse)
			if better <= worse {
				t.Errorf("score %v <= %v:\n better %s %q\n worse  %s %q", better, worse, tt.betterType, tt.better, tt.worseType, tt.worse)
			}
		})
	}
}

// TestScoreMessage_ShortNarration: an assistant one-liner ("I'll use
// Chrome") gets no short-message bonus and scores like the same mention in
// a message of average length, while a short user prompt keeps the bonus.
func TestScoreMessage_ShortNarration(t *testing.T) {
	q := newQuery([]string{"chrome"}, nil)
	average := "I'll use Chrome  " + filler(17, 64) // 400 bytes, the fixture average
	if len(average) != int(q.AvgLen) {
		t.Fatalf("fixture: average message is %d bytes, want %v", len(average), q.AvgLen)
	}
	for _, typ := range []string{typeAssistant, typeAgent} {
		if short, avg := scoreOf(t, q, typ, "I'll use Chrome."), scoreOf(t, q, typ, average); short != avg {
			t.Errorf("%s: one-liner scores %v, average-length message %v; want equal", typ, short, avg)
		}
	}
	for _, typ := range []string{typeUser, typeTool} {
		if short, avg := scoreOf(t, q, typ, "I'll use Chrome."), scoreOf(t, q, typ, average); short <= avg {
			t.Errorf("%s: one-liner scores %v, average-length message %v; want the one-liner higher", typ, short, avg)
		}
	}
}

// TestScoreMessage_ShortAnswer: an assistant one-liner holding every
// query word keeps BM25's bonus for short text, as a prompt does, and
// beats a longer, earlier claim in the same words; one holding a single
// word stays narration (TestScoreMessage_ShortNarration), and one holding
// some of them keeps that share of the bonus.
func TestScoreMessage_ShortAnswer(t *testing.T) {
	q := newQuery([]string{"model", "id", "gemini"}, nil)
	answer := scoreOf(t, q, typeAssistant, "Model ID je gemini-3.1-pro-preview.")
	claim := scoreOf(t, q, typeAssistant, "The model ID should be gemini-3.1-pro, as the gemini-2.5-pro model ID was, so I will use that model "+filler(3, 40))
	if answer <= claim {
		t.Errorf("one-line answer scored %v, the longer claim %v; want the answer higher", answer, claim)
	}
	for _, tt := range []struct {
		held float64
		want float64 // the ratio of a line a tenth of the average long
	}{
		{0, 1}, {1, 1}, {2, 0.55}, {3, 0.1},
	} {
		if got := lengthRatio(typeAssistant, int(q.AvgLen/10), &q, tt.held); math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("holding %v of 3 terms: ratio %v, want %v", tt.held, got, tt.want)
		}
		if got := lengthRatio(typeUser, int(q.AvgLen/10), &q, tt.held); math.Abs(got-0.1) > 1e-9 {
			t.Errorf("a prompt holding %v of 3 terms: ratio %v, want 0.1", tt.held, got)
		}
	}
}

// TestScoreMessage_CoverageBeatsRepetition is must-hold 5: a message
// matching 3 of 3 distinct query words beats one matching the same word 3
// times, whichever word is repeated, even when it is by far the rarest.
func TestScoreMessage_CoverageBeatsRepetition(t *testing.T) {
	terms := []string{"alpha", "bravo", "gamma"}
	tests := []struct {
		name    string
		docFreq map[string]int
	}{
		{"equal rarity", nil},
		{"repeated word rarest", map[string]int{"alpha": 1, "bravo": 500, "gamma": 500}},
		{"repeated word commonest", map[string]int{"alpha": 900, "bravo": 5, "gamma": 5}},
	}
	tail := filler(7, 20)
	for _, tt := range tests {
		for _, repeated := range terms {
			t.Run(tt.name+"/"+repeated, func(t *testing.T) {
				q := newQuery(terms, tt.docFreq)
				all := scoreOf(t, q, typeAssistant, "alpha bravo gamma "+tail)
				same := scoreOf(t, q, typeAssistant, strings.Repeat(repeated+" ", 3)+tail)
				if all <= same {
					t.Errorf("3 of 3 words scored %v, %q three times %v", all, repeated, same)
				}
			})
		}
	}
}

// TestScoreMessage_AcknowledgementIsZero is must-hold 6 at message level.
func TestScoreMessage_AcknowledgementIsZero(t *testing.T) {
	q := newQuery([]string{"thanks", "good", "help"}, nil)
	for _, text := range []string{"ok thanks", "Sounds good!", "I'll help with that."} {
		t.Run(text, func(t *testing.T) {
			m := msg(q, "s", typeUser, 0, text)
			if len(m.Hits) == 0 {
				t.Fatalf("fixture %q has no hits", text)
			}
			if score, factors := ScoreMessage(&m, &q); score != 0 {
				t.Errorf("score = %v, want 0 (factors %v)", score, factors)
			}
		})
	}
}

// TestScoreMessage_BadInput checks that hits ScoreMessage cannot trust are
// ignored rather than crash or count.
func TestScoreMessage_BadInput(t *testing.T) {
	q := newQuery([]string{"chrome"}, nil)
	text := "chrome " + filler(8, 10)
	good := []Hit{{Term: 0, Start: 0, End: 6}}
	tests := []struct {
		name string
		hits []Hit
		want float64 // as a multiple of the score with good hits only
	}{
		{"no hits", nil, 0},
		{"unknown term", []Hit{{Term: 3, Start: 0, End: 6}}, 0},
		{"negative term", []Hit{{Term: -1, Start: 0, End: 6}}, 0},
		{"past the end", []Hit{{Term: 0, Start: 5, End: len(text) + 1}}, 0},
		{"empty", []Hit{{Term: 0, Start: 4, End: 4}}, 0},
		{"good plus junk", append(slices.Clone(good), Hit{Term: 9, Start: 0, End: 1}, Hit{Term: 0, Start: -2, End: 1}), 1},
	}
	m := Message{Type: typeAssistant, Text: text, Hits: good}
	want, _ := ScoreMessage(&m, &q)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := Message{Type: typeAssistant, Text: text, Hits: tt.hits}
			if got, _ := ScoreMessage(&m, &q); got != tt.want*want {
				t.Errorf("score = %v, want %v", got, tt.want*want)
			}
		})
	}
}

// TestScoreMessage_Factors checks that the factors multiply out to the
// score, so --explain shows the whole story.
func TestScoreMessage_Factors(t *testing.T) {
	q := newQuery([]string{"chrome", "devtools", "absent"}, map[string]int{"devtools": 3})
	m := msg(q, "s", typeUser, 0, "open `chrome` devtools "+filler(9, 40))
	score, factors := ScoreMessage(&m, &q)
	relevance, product := 0.0, 1.0
	names := map[string]bool{}
	for _, f := range factors {
		names[f.Name] = true
		if f.Name == "term" {
			relevance += f.Value
		} else {
			product *= f.Value
		}
	}
	if got := relevance * product; math.Abs(got-score) > 1e-9*score {
		t.Errorf("factors multiply to %v, score is %v", got, score)
	}
	for _, name := range []string{"term", "type", "coverage", "proximity", "code"} {
		if !names[name] {
			t.Errorf("no factor %q in %v", name, factors)
		}
	}
	var termNotes []string
	for _, f := range factors {
		if f.Name == "term" {
			termNotes = append(termNotes, f.Note)
		}
	}
	if len(termNotes) != 2 || !strings.HasPrefix(termNotes[0], `"chrome": idf `) || !strings.HasPrefix(termNotes[1], `"devtools": idf `) {
		t.Errorf("term notes %q, want one each for chrome and devtools", termNotes)
	}
}

func TestInverseDocFreq(t *testing.T) {
	q := Query{Terms: []string{"rare", "common", "everywhere", "overcounted"}, DocFreq: []int{1, 100, 1000, 5000}, TotalDocs: 1000}
	rare, common, everywhere, over := inverseDocFreq(&q, 0), inverseDocFreq(&q, 1), inverseDocFreq(&q, 2), inverseDocFreq(&q, 3)
	if !(rare > common && common > everywhere && everywhere > 0) {
		t.Errorf("idf rare %v, common %v, everywhere %v: want decreasing and positive", rare, common, everywhere)
	}
	if over != everywhere {
		t.Errorf("df above TotalDocs gives %v, want it clamped to %v", over, everywhere)
	}
	if got := inverseDocFreq(&Query{Terms: []string{"x"}}, 0); got != 1 {
		t.Errorf("without statistics idf = %v, want 1", got)
	}
}

func TestSmallestGap(t *testing.T) {
	tests := []struct {
		name string
		hits []Hit
		want int
		ok   bool
	}{
		{"one term", []Hit{{0, 0, 3, 0}, {0, 10, 13, 0}}, 0, false},
		{"adjacent", []Hit{{0, 0, 3, 0}, {1, 4, 7, 0}}, 1, true},
		{"closest pair wins", []Hit{{0, 0, 3, 0}, {1, 50, 53, 0}, {0, 60, 63, 0}, {1, 64, 66, 0}}, 1, true},
		{"nested terms do not count", []Hit{{0, 0, 10, 0}, {1, 0, 7, 0}}, 0, false},
		{"nested then apart", []Hit{{0, 0, 10, 0}, {1, 0, 7, 0}, {1, 30, 37, 0}}, 20, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := smallestGap(tt.hits, 2)
			if got != tt.want || ok != tt.ok {
				t.Errorf("smallestGap = %d, %v; want %d, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}

// ScoreMessage scores one matched message against the query, on its
// own (without the neighbours a session gives it; see scoreMessages), and
// returns the factors that produced the score, for --explain.
//
// The score is Σ(term relevance) × type × coverage × proximity × code;
// see the package documentation.
func ScoreMessage(m *Message, q *Query) (float64, []Factor) {
	idf := termIDFs(q)
	own := measure(m, q, idf)
	return finishMessage(m, &own, nil, q, true, make([]Factor, 0, maxMessageFactors(len(q.Terms))))
}
