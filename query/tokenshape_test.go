package query

import (
	"slices"
	"testing"

	"github.com/recall-dev/recall/textrules"
)

// indexView is what the term index makes of a text for a term: whether
// it counts the row (its tokens hold every piece of one alternative) and
// the bound of the term's hits it adds (per alternative, the fewest
// matches any piece's tokens can hold, summed), computed from the tokens
// as the index stores them (textrules.Tokenizer), not from IndexMatch.
func indexView(s Shape, text []byte) (counted bool, bound int) {
	var toks [][]byte
	var z textrules.Tokenizer
	z.Each(text, func(tok []byte, _ bool) { toks = append(toks, slices.Clone(tok)) })
	for _, alt := range s.Pieces {
		least := -1
		for _, p := range alt {
			n := 0
			for _, tok := range toks {
				n += p.Times(tok)
			}
			if least < 0 || n < least {
				least = n
			}
		}
		if least > 0 {
			counted = true
			bound += least
		}
	}
	return counted, bound
}

// checkShape checks a term's shape against a text: a text that matches
// is counted by the index, with a bound of at least its matches, and
// IndexMatch says what the index counts.
func checkShape(t *testing.T, term *Term, text string) {
	t.Helper()
	s := term.Shape()
	if s.Alts == nil || s.Forms != nil {
		return // no lookup; or channels, which the index counts beside the pieces
	}
	counted, bound := indexView(s, []byte(text))
	if got := term.IndexMatch([]byte(text)); got != counted {
		t.Errorf("%s on %q: IndexMatch %v, the index counts %v (pieces %+v)", term, text, got, counted, s.Pieces)
	}
	spans := term.FindAll([]byte(text), nil)
	if term.Match([]byte(text)) && !counted {
		t.Errorf("%s matches %q but the index does not count it (pieces %+v)", term, text, s.Pieces)
	}
	if len(spans) > bound {
		t.Errorf("%s: %d matches in %q, bound %d (pieces %+v)", term, len(spans), text, bound, s.Pieces)
	}
}

func TestPieceTimes(t *testing.T) {
	cases := []struct {
		piece Piece
		tok   string
		want  int
	}{
		{Piece{Runs: []string{"DEAD"}}, "DEADDEAD", 2},
		{Piece{Runs: []string{"DEAD"}, End: true}, "DEADDEAD", 1},
		{Piece{Runs: []string{"DEAD"}, End: true}, "DEADLINE", 0},
		{Piece{Runs: []string{"LOCK"}, Start: true}, "LOCKS", 1},
		{Piece{Runs: []string{"LOCK"}, Start: true}, "DEADLOCK", 0},
		{Piece{Runs: []string{"LOCK"}, Start: true, End: true}, "LOCK", 1},
		{Piece{Runs: []string{"LOCK"}, Start: true, End: true}, "LOCKS", 0},
		{Piece{Runs: []string{"DEAD", "LOCK"}}, "DEADLOCK", 1},
		{Piece{Runs: []string{"DEAD", "LOCK"}}, "XDEADXLOCKDEADLOCK", 2},
		{Piece{Runs: []string{"DEAD", "LOCK"}}, "LOCKDEAD", 0},
		{Piece{Runs: []string{"AB", "BC"}}, "ABC", 0}, // no overlaps
		{Piece{Runs: []string{"AB", "BC"}, Start: true, End: true}, "ABBC", 1},
		{Piece{Runs: []string{"AB", "BC"}, Start: true, End: true}, "ABC", 0},
		{Piece{Runs: []string{"AB", "C", "AB"}, Start: true, End: true}, "ABCAB", 1},
		{Piece{Runs: []string{"AB", "C", "AB"}, Start: true, End: true}, "ABCB", 0},
	}
	for _, c := range cases {
		if got := c.piece.Times([]byte(c.tok)); got != c.want {
			t.Errorf("%+v in %s: %d, want %d", c.piece, c.tok, got, c.want)
		}
	}
}

func TestShapePieces(t *testing.T) {
	p := func(start bool, end bool, runs ...string) Piece { return Piece{Runs: runs, Start: start, End: end} }
	cases := []struct {
		term string
		kind termKind
		opt  MatchOptions
		want [][]Piece
	}{
		{`dead.?lock|race condition`, regexTerm, MatchOptions{}, [][]Piece{
			{p(false, false, "DEAD", "LOCK")}, {p(false, true, "DEAD"), p(true, false, "LOCK")},
			{p(false, true, "RACE"), p(true, false, "CONDITION")}}},
		{`dead.?lock`, regexTerm, MatchOptions{Word: true}, [][]Piece{
			{p(true, true, "DEAD", "LOCK")}, {p(true, true, "DEAD"), p(true, true, "LOCK")}}},
		{`foo.*bar`, regexTerm, MatchOptions{}, [][]Piece{{p(false, false, "FOO"), p(false, false, "BAR")}}},
		{`\bfoo`, regexTerm, MatchOptions{}, [][]Piece{{p(false, false, "FOO")}}},
		{`colou?r`, regexTerm, MatchOptions{}, [][]Piece{{p(false, false, "COLO", "R")}}},
		{`x\s+y`, regexTerm, MatchOptions{}, [][]Piece{{p(false, true, "X"), p(true, false, "Y")}}},
		{`foo\w+bar`, regexTerm, MatchOptions{}, [][]Piece{{p(false, false, "FOO", "BAR")}}},
		{`(dead|live)lock`, regexTerm, MatchOptions{}, [][]Piece{{p(false, false, "DEADLOCK")}, {p(false, false, "LIVELOCK")}}},
		{`ab(cd)+ef`, regexTerm, MatchOptions{}, [][]Piece{{p(false, false, "ABCD"), p(false, false, "EF")}}},
		{`a|b`, regexTerm, MatchOptions{}, nil},
		{`\d+`, regexTerm, MatchOptions{}, nil},
		{`garbage collector`, phraseTerm, MatchOptions{}, [][]Piece{{p(false, true, "GARBAGE"), p(true, false, "COLLECTOR")}}},
		{`mu.Lock()`, phraseTerm, MatchOptions{}, [][]Piece{{p(false, true, "MU"), p(true, true, "LOCK")}}},
		{`rate-limiter`, wordTerm, MatchOptions{Word: true}, [][]Piece{{p(true, true, "RATE"), p(true, true, "LIMITER")}}},
		{`dead_lock`, wordTerm, MatchOptions{}, [][]Piece{{p(false, false, "DEAD", "LOCK")}, {p(false, true, "DEAD"), p(true, false, "LOCK")}}},
		{`École`, wordTerm, MatchOptions{CaseSensitive: true}, [][]Piece{{p(false, false, "ÉCOLE")}}},
		// ι's case orbit holds U+0345, a combining mark, which is not a word
		// character: nothing is known on either side of it.
		{`ι foo`, regexTerm, MatchOptions{}, [][]Piece{{p(true, false, "FOO")}}},
	}
	for _, c := range cases {
		term, err := compileTerm(c.term, c.kind, c.opt)
		if err != nil {
			t.Fatal(err)
		}
		if got := term.Shape().Pieces; !slices.EqualFunc(got, c.want, func(a, b []Piece) bool { return slices.EqualFunc(a, b, equalPiece) }) {
			t.Errorf("%s %+v: pieces %+v, want %+v", c.term, c.opt, got, c.want)
		}
	}
}

// shapeTexts are texts around the edges of tokens.
var shapeTexts = []string{
	"a deadlock here", "dead lock", "dead-lock", "deadline and lock", "the deadxlock", "DEAD\nLOCK", "dead  lock",
	"race condition", "racecondition", "race-conditions", "a race, condition", "embrace conditions",
	"garbage collector", "garbage collectors ran", "garbagecollector", "the garbage and the collector",
	"mu.Lock() twice", "mu.Lockx()", "colour color colr", "x y", "x\t\ty", "xy",
	"ίι foo", "ι\u0345foo", "\u0345 foo", "\u0345", "dead\xfflock", "dead\u00e9lock", "dead\u212alock", "dead·lock",
	"deaddeadlocklock", "dead lock dead lock dead-lock", "rate-limiter rate limiter ratelimiter",
}

func TestShapeHoldsMatches(t *testing.T) {
	terms := []struct {
		text string
		kind termKind
	}{
		{`dead.?lock|race condition`, regexTerm}, {`dead.lock`, regexTerm}, {`dead[- ]?lock`, regexTerm},
		{`dead\s*lock`, regexTerm}, {`\bdead`, regexTerm}, {`dead.*lock`, regexTerm}, {`colou?r`, regexTerm},
		{`(dead|live)lock`, regexTerm}, {`x\s+y`, regexTerm}, {`^dead lock$`, regexTerm}, {`ι foo`, regexTerm},
		{`dead\W?lock`, regexTerm}, {`dead[^a-z]lock`, regexTerm}, {`(dead )+lock`, regexTerm}, {`(?i)DEAD.LOCK`, regexTerm},
		{`garbage collector`, phraseTerm}, {`mu.Lock()`, phraseTerm}, {`race, condition`, phraseTerm},
		{`dead_lock`, wordTerm}, {`rate-limiter`, wordTerm}, {`dead lock`, phraseTerm}, {`ι`, phraseTerm},
	}
	for _, tm := range terms {
		for _, opt := range []MatchOptions{{}, {Word: true}, {CaseSensitive: true}, {Word: true, CaseSensitive: true}} {
			term, err := compileTerm(tm.text, tm.kind, opt)
			if err != nil {
				t.Fatal(err)
			}
			for _, text := range shapeTexts {
				checkShape(t, term, text)
			}
		}
	}
}

func TestEachTokenAsTokenizer(t *testing.T) {
	for _, text := range append(shapeTexts, "", "`code` and ~~~\nfence\n~~~ words", "école ÉCOLE \u212a") {
		var want, got []string
		var z textrules.Tokenizer
		z.Each([]byte(text), func(tok []byte, _ bool) { want = append(want, string(tok)) })
		textrules.EachToken([]byte(text), nil, func(tok []byte) bool { got = append(got, string(tok)); return true })
		if !slices.Equal(got, want) {
			t.Errorf("%q: EachToken %q, Tokenizer %q", text, got, want)
		}
	}
}

// FuzzShape: for any pattern, options and text, a match is counted by
// the term index with a bound of at least the matches, and IndexMatch
// counts what the index counts.
func FuzzShape(f *testing.F) {
	f.Add(`dead.?lock|race condition`, "deadline and a dead-lock", uint8(0))
	f.Add(`garbage collector`, "the garbage collector", uint8(1))
	f.Add(`dead_lock`, "dead lock deadxlock", uint8(2))
	f.Add(`(?i)ι\s*k`, "\u0345 \u212a", uint8(4))
	f.Add(`a{2}(b|c)?d[^e]f`, "aabdxf aa d-f", uint8(8))
	f.Fuzz(func(t *testing.T, pattern, text string, mode uint8) {
		kind := termKind(mode % 3)
		opt := MatchOptions{Word: mode&4 != 0, CaseSensitive: mode&8 != 0}
		term, err := compileTerm(pattern, kind, opt)
		if err != nil {
			return
		}
		checkShape(t, term, text)
	})
}
