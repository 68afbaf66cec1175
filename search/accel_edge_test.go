package search

import (
	"fmt"
	"testing"
	"time"

	"github.com/recall-dev/recall/query"
)

// edgeTexts are messages around the edges of case folding and tokens:
// long s, sharp s, the Kelvin sign, final sigma, U+0345 (in ι's case
// orbit, not a word character), ligatures, dotted I, titlecase, micro
// sign, and words joined by punctuation, underscores and spaces.
var edgeTexts = []string{
	"the ſtraße and STRASSE and strasse", "ſs and ss and SS", "\u212Aelvin and Kelvin", "ΣΊΣΥΦΟΣ σίσυφος ς end",
	"a.b and a-b and ab and a\nb", "foo_bar foobar foo bar FOO_BAR", "x y and x\ty", "aaa aa a", "dead lock deadlock",
	"lock() mu.lock() mu.Lockx()", "über ÜBER uber", "ﬁle file FILE", "İstanbul istanbul", "ǅ ǆ Ǆ", "µs μs Μs",
	"snake_case_name and snake case name", "x := 1 and x = 1", "dead\u00a0lock", "DEAD-LOCK deadLock", "ypogegrammeni \u0345 alone",
}

// TestAcceleratedMatchesFullScanOnEdgeTexts runs patterns, phrases and
// words over those edges under every match option, ranked from the term
// index and by a full scan: the sessions must be the same.
func TestAcceleratedMatchesFullScanOnEdgeTexts(t *testing.T) {
	sessions := genCorpus()
	for i, text := range edgeTexts {
		src := sessions[i]
		g := &genSession{id: fmt.Sprintf("eeeeeeee-%04d-4111-8111-%012d", i, i), cwd: src.cwd, start: src.start.Add(time.Hour)}
		g.add("user", "edge "+text)
		g.add("assistant", text+" again")
		sessions = append(sessions, g)
	}
	snap := buildAccelIndex(t, sessions, accelIndex{batches: 1, checkpoint: 64 << 10})
	re := func(p string, o query.MatchOptions) Request {
		o.Regex = true
		return Request{Terms: []string{p}, Match: o}
	}
	none, word, cs, wcs := query.MatchOptions{}, query.MatchOptions{Word: true}, query.MatchOptions{CaseSensitive: true}, query.MatchOptions{Word: true, CaseSensitive: true}
	var reqs []Request
	for _, p := range []string{`ſ`, `(?i)ſ`, `ſtra`, `straße`, `(?i)STRASSE`, `\x{212A}elvin`, `(?i)\x{212A}`, `Σ`, `ς`, `(?i)σίσυφος`, `σ\b`, `ς\b`, `(?i)ς\b`,
		`a.b`, `a\.b`, `a\nb`, `(?s)a.b`, `foo_bar`, `foo.bar`, `x\x20y`, `x\sy`, `\ba\b`, `\Ba`, `a\B`, `^edge`, `again$`, `(?m)^dead`, `lock\(\)`,
		`dead(|x)lock`, `dead(?:)lock`, `dead.{0,2}lock`, `dead[\w-]lock`, `dead[^\w]lock`, `dead[-a]lock`, `dead\W{0,3}lock`, `(dead|x)+lock`,
		`a{0,3}b`, `a{2}`, `ü`, `(?i)Ü`, `ﬁ`, `(?i)FI`, `İ`, `(?i)i̇`, `ǅ`, `µ`, `(?i)µ`, `(?i)Μs`, `snake.case`, `x\s*:?=\s*1`, `dead\x{a0}lock`,
		`(?i)dead(?-i)Lock`, `dead(?i:LOCK)`, `[[:alpha:]]+lock`, `\pL+lock`, `[^\s]lock`, `.lock`, `lock.`, `.?lock`, `l.?o.?c.?k`} {
		for _, o := range []query.MatchOptions{none, word, cs, wcs} {
			reqs = append(reqs, re(p, o))
		}
	}
	for _, p := range []string{`"ſtraße"`, `"x y"`, `"a.b"`, `foo_bar`, `"mu.lock()"`, `"ΣΊΣΥΦΟΣ σίσυφος"`, `ς`, `"dead lock"`, `"x := 1"`, `µs`, `ﬁle`, `"snake case"`, `über`, `"İstanbul"`, `ι`, `Ι`} {
		for _, o := range []query.MatchOptions{none, word, cs, wcs} {
			reqs = append(reqs, Request{Terms: []string{p}, Match: o})
		}
	}
	for _, req := range reqs {
		req.Now, req.Limit = accelNow, 500
		name := fmt.Sprintf("%q %+v", req.Terms, req.Match)
		full := req
		full.FullScan = true
		want, err := Run(snap, full)
		if err != nil {
			t.Errorf("%s: full scan: %v", name, err)
			continue
		}
		got, err := Run(snap, req)
		if err != nil {
			t.Errorf("%s: accelerated: %v", name, err)
			continue
		}
		t.Run(name, func(t *testing.T) { compareSessions(t, got.Sessions, want.Sessions) })
	}
}
