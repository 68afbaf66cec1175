package rank

import "testing"

// TestExactHitsWeighMost: the same message scores most when its hits are
// exact substrings, less when they are the word with accents folded, less
// again for the word inside another, and least as another word form — for
// one hit, several, and with a second term beside them.
func TestExactHitsWeighMost(t *testing.T) {
	for _, text := range []string{
		"translated the articles yesterday",
		"translated it, and translated the rest of them later " + filler(3, 40),
		"```\ntranslated\n``` then the articles",
	} {
		q := newQuery([]string{"translated", "articles"}, nil)
		scores := make([]float64, FormStem+1)
		for f := FormWord; f <= FormStem; f++ {
			m := msg(q, "s", typeAssistant, 1, text)
			for i := range m.Hits {
				if m.Hits[i].Term == 0 {
					m.Hits[i].Form = f
				}
			}
			scores[f], _ = ScoreMessage(&m, &q)
		}
		if !(scores[FormWord] > scores[FormAccent] && scores[FormAccent] > scores[FormInside] && scores[FormInside] > scores[FormStem]) {
			t.Errorf("%.40q: scores by form (exact, accent, inside, word form) %v, want strictly decreasing", text, scores)
		}
	}
}
