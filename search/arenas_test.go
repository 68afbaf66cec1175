package search

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/recall-dev/recall/rank"
)

// TestArenasKeepWhatTheyHandOut fills several chunks of texts and hits
// and checks that everything handed out still holds what it was given:
// a chunk reused, or a capacity left past a message's hits (which an
// append would write into the next message's), would change earlier
// matches.
func TestArenasKeepWhatTheyHandOut(t *testing.T) {
	var k arenas
	var texts, wantTexts []string
	var hits, wantHits [][]rank.Hit
	for i := range 3000 {
		text := strings.Repeat(fmt.Sprintf("row %d ", i), 1+i%40)
		if i%500 == 0 {
			text = strings.Repeat("x", arenaTexts/2) // its own allocation
		}
		buf := []byte(text)
		texts = append(texts, k.text(buf))
		clear(buf) // the row's block is reused
		wantTexts = append(wantTexts, text)

		h := make([]rank.Hit, i%7)
		if i%900 == 0 {
			h = make([]rank.Hit, arenaHits/2)
		}
		for j := range h {
			h[j] = rank.Hit{Term: i % 3, Start: i, End: i + j}
		}
		got := k.hits(h)
		if len(h) == 0 && got != nil || cap(got) != len(got) {
			t.Fatalf("hits %d: got len %d cap %d", i, len(got), cap(got))
		}
		hits = append(hits, got)
		wantHits = append(wantHits, slices.Clone(h))
		clear(h) // the worker's row buffer is reused
	}
	for i := range texts {
		if texts[i] != wantTexts[i] {
			t.Fatalf("text %d changed: %.40q, want %.40q", i, texts[i], wantTexts[i])
		}
		if !slices.Equal(hits[i], wantHits[i]) {
			t.Fatalf("hits %d changed: %v, want %v", i, hits[i], wantHits[i])
		}
	}
}
