package benchgen

import (
	"fmt"
	"strings"
	"time"
)

// recallRound is the agent using recall itself: it says it will search
// its memory, runs recall (or the older `memory search`) through Bash and
// gets recall-style hits back. A recall index must not feed its own
// output back as new matches, so the corpus needs plenty of these.
func (g *sessionGen) recallRound() {
	words := g.queryWords(2 + g.r.IntN(2))
	resp := g.newResponse(g.model)
	g.tick(time.Second, 6*time.Second)
	g.assistantText(resp, "I'll search my memory for "+strings.Join(words, " ")+" to see how we handled this before.", "")
	call := bashCall(recallCommand(g, words), "Search past sessions", g.recallOutput(words), 0)
	id := newToolUseID(g.r)
	g.tick(50*time.Millisecond, 500*time.Millisecond)
	assistantUUID := g.assistantToolUse(resp, id, call)
	g.runTool(plannedCall{id: id, call: call}, assistantUUID)
	next := g.newResponse(g.model)
	g.tick(time.Second, 8*time.Second)
	g.assistantText(next, "Found an earlier session about this. "+g.topic.sentence(g.r), "")
}

func recallCommand(g *sessionGen, words []string) string {
	switch g.r.IntN(5) {
	case 0:
		return `recall "` + strings.Join(words, " ") + `"`
	case 1:
		return "recall " + strings.Join(words[:len(words)-1], " ") + " --require " + words[len(words)-1]
	case 2:
		return `recall "` + words[0] + `" ` + strings.Join(words[1:], " ") + " --exclude test"
	case 3:
		return `memory search "` + strings.Join(words, " ") + `"`
	default:
		return "recall -r " + words[0] + " " + strings.Join(words[1:], " ") + " | head -40"
	}
}

// queryWords picks the longest word of a few topic sentences: long words
// are the distinctive ones people search for.
func (g *sessionGen) queryWords(n int) []string {
	var words []string
	for tries := 0; len(words) < n && tries < 20; tries++ {
		best := ""
		for _, w := range strings.Fields(g.topic.sentence(g.r)) {
			w = strings.ToLower(strings.Trim(w, ".,;:()\"'`"))
			if len(w) > len(best) && isLetters(w) {
				best = w
			}
		}
		if len(best) >= 5 {
			words = append(words, best)
		}
	}
	for len(words) < n {
		words = append(words, strings.ToLower(g.topic.ident(g.r)))
	}
	return words
}

func isLetters(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 'a' || s[i] > 'z' {
			return false
		}
	}
	return true
}

// recallOutput imitates recall's result list: one header line per
// session, `[i/n] id • date • project • hits`, then matching lines.
func (g *sessionGen) recallOutput(words []string) string {
	n := 1 + g.r.IntN(6)
	var b strings.Builder
	for i := range n {
		when := g.clock.Add(-time.Duration(1+g.r.IntN(90*24)) * time.Hour)
		fmt.Fprintf(&b, "[%d/%d] %s • %s • %s • %d hits\n", i+1, n, randomHex(g.r, 7), when.Format("Jan 2 15:04"), g.proj.name, 1+g.r.IntN(20))
		for range 1 + g.r.IntN(3) {
			who := pick(g.r, []string{"you", "claude"})
			fmt.Fprintf(&b, "    %s: %s\n", who, truncateRunes(g.topic.sentence(g.r)+" ("+words[0]+")", 160))
		}
	}
	return b.String()
}
