package query

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParseQueryString(t *testing.T) {
	tests := []struct {
		name                         string
		positional, require, exclude []string
		opt                          MatchOptions
		want                         string
	}{
		{"one word", []string{"jwt"}, nil, nil, folded, "(or jwt)"},
		{"arguments split on space", []string{"jwt auth", "token"}, nil, nil, folded, "(or jwt auth token)"},
		{"all groups", []string{"jwt auth"}, []string{"implement"}, []string{"test"}, folded, "(or jwt auth) (and implement) (not test)"},
		{"repeated flag values", []string{"x"}, []string{"a b", "c"}, []string{"d", "e f"}, folded, "(or x) (and a b c) (not d e f)"},
		{"require only", nil, []string{"jwt"}, nil, folded, "(and jwt)"},
		{"question", []string{"how did we implement jwt auth?"}, nil, nil, folded, "(or implement jwt auth)"},
		{"question as separate args", []string{"how", "did", "we", "implement", "jwt", "auth?"}, nil, nil, folded, "(or implement jwt auth)"},
		{"question with quoted phrase", []string{`where is the "rate limiter"?`}, nil, nil, folded, `(or "rate limiter")`},
		{"only stop words kept", []string{"what is it"}, nil, nil, folded, "(or what is it)"},
		{"stop words kept in require", []string{"jwt"}, []string{"the"}, []string{"a"}, folded, "(or jwt) (and the) (not a)"},
		{"stop words dropped any case", []string{"How DID We fix Redis"}, nil, nil, folded, "(or fix Redis)"},
		{"typographic apostrophe stop word", []string{"what’s the cache key"}, nil, nil, folded, "(or cache key)"},
		{"punctuation stripped", []string{"(jwt), 'auth'; `config`!"}, nil, nil, folded, "(or jwt auth config)"},
		{"inner punctuation kept", []string{"main.go reset_windows foo-bar a/b o'brien"}, nil, nil, folded, "(or main.go reset_windows foo-bar a/b o'brien)"},
		{"possessive searched without 's", []string{"What is Caroline's identity? the users’s"}, nil, nil, folded, "(or Caroline identity users)"},
		{"stop word contraction not cut", []string{"let's fix it's cache"}, nil, nil, folded, "(or fix cache)"},
		{"stray quote is a plain character", []string{`why did the "load pattern glider fly away`}, nil, nil, folded, "(or load pattern glider fly away)"},
		{"inch mark", []string{`the 3" cube size`}, nil, nil, folded, "(or 3 cube size)"},
		{"last of an odd number of quotes is stray", []string{`"a b" c "d`}, nil, nil, folded, `(or "a b" c d)`},
		{"stray quote in require is kept as typed", []string{"x"}, []string{`"a" "b`}, nil, folded, `(or x) (and "a" "b)`},
		{"only punctuation searched as typed", []string{"?!"}, nil, nil, folded, "(or ?!)"},
		{"time named", []string{"what did we decide last week about the cache?"}, nil, nil, folded, "(or decide last week cache) (when last week)"},
		{"time ago", []string{"the flaky test from 3 days ago"}, nil, nil, folded, "(or flaky test 3 days ago) (when 3 days ago)"},
		{"date named", []string{"what did we deploy on March 3?"}, nil, nil, folded, "(or deploy) (when march 3)"},
		{"month name not searched as a word", []string{"what did Nate watch on 1 May, 2022?"}, nil, nil, folded, "(or Nate watch) (when 1 may 2022)"},
		{"only a date searched as text too", []string{"on March 3"}, nil, nil, folded, "(or March 3) (when march 3)"},
		{"only stop words beside a date kept whole", []string{"what did we do in May"}, nil, nil, folded, "(or May) (when may)"},
		{"trailing dot stripped", []string{"edit main.go."}, nil, nil, folded, "(or edit main.go)"},
		{"leading dot of a name kept", []string{"(.env) .gitignore"}, nil, nil, folded, "(or .env .gitignore)"},
		{"ellipsis stripped", []string{"...and then"}, nil, nil, folded, "(or and then)"},
		{"punctuation-only words dropped", []string{"jwt ? ..."}, nil, nil, folded, "(or jwt)"},
		{"require keeps punctuation", []string{"x"}, []string{"jwt?"}, nil, folded, "(or x) (and jwt?)"},
		{"phrase keeps spaces and stop words", []string{`"how did we"`}, nil, nil, folded, `(or "how did we")`},
		{"phrase adjacent to word", []string{`foo"bar baz"qux`}, nil, nil, folded, `(or foo "bar baz" qux)`},
		{"empty phrase dropped", []string{`"" jwt " "`}, nil, nil, folded, "(or jwt)"},
		{"phrase in require", []string{"x"}, []string{`"jwt auth" token`}, nil, folded, `(or x) (and "jwt auth" token)`},
		{"duplicates dropped", []string{"jwt JWT jwt?"}, nil, nil, folded, "(or jwt)"},
		{"case-sensitive keeps case variants", []string{"jwt JWT"}, nil, nil, exact, "(or jwt JWT) [case-sensitive]"},
		{"wildcard differs from literal underscore", []string{`a_b "a_b"`}, nil, nil, folded, `(or a_b "a_b")`},
		{"regex", []string{"mutex|deadlock dead\\w+"}, nil, nil, regex, `(or /mutex|deadlock/ /dead\w+/) [regex]`},
		{"regex keeps punctuation and stop words", []string{"how? (a|b)"}, nil, nil, regex, `(or /how?/ /(a|b)/) [regex]`},
		{"regex quotes not special", []string{`"a b"`}, nil, nil, regex, `(or /"a/ /b"/) [regex]`},
		{"all options", []string{"x"}, nil, nil, MatchOptions{Regex: true, CaseSensitive: true, Word: true}, "(or /x/) [regex case-sensitive word]"},
		{"unicode spaces split", []string{"jwt\u00a0auth\tx"}, nil, nil, folded, "(or jwt auth x)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, err := ParseQuery(tt.positional, tt.require, tt.exclude, tt.opt)
			if err != nil {
				t.Fatalf("ParseQuery: %v", err)
			}
			if got := q.String(); got != tt.want {
				t.Errorf("String() = %s, want %s", got, tt.want)
			}
		})
	}
}

func TestParseQueryErrors(t *testing.T) {
	tests := []struct {
		name                         string
		positional, require, exclude []string
		opt                          MatchOptions
		want                         string // the error starts with it
	}{
		{"no arguments", nil, nil, nil, folded, "query: empty query"},
		{"only spaces", []string{"  ", ""}, nil, nil, folded, "query: empty query"},
		{"only empty phrases", []string{`"" " "`}, nil, nil, folded, "query: empty query"},
		{"only exclude", nil, nil, []string{"test"}, folded, "query: nothing to search for"},
		{"bad regex", []string{"a(b"}, nil, nil, regex, "query: bad regex /a(b/"},
		{"bad regex in exclude", []string{"x"}, nil, []string{"*a"}, regex, "query: bad regex /*a/"},
		{"wrapping does not hide a bad regex", []string{"a)(b"}, nil, nil, regexWord, "query: bad regex"},
		{"too many required terms", []string{"x"}, []string{manyWords("r", 65)}, nil, folded, "query: too many required terms: 65"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseQuery(tt.positional, tt.require, tt.exclude, tt.opt)
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("error = %v, want one starting %q", err, tt.want)
			}
		})
	}
}

// TestRegexErrorSaysWhereSpacesCut checks that a --regex error names the
// split at white space when an argument held some (`race[ ]condition`
// is the patterns `race[` and `]condition`), and only then.
func TestRegexErrorSaysWhereSpacesCut(t *testing.T) {
	regex := MatchOptions{Regex: true}
	for _, tt := range []struct {
		positional, exclude []string
		hint                bool
	}{
		{[]string{"race[ ]condition"}, nil, true},
		{[]string{"ok"}, []string{"a (b"}, true},
		{[]string{"a(b"}, nil, false},
		{[]string{"a(b", "c"}, nil, false},
	} {
		_, err := ParseQuery(tt.positional, nil, tt.exclude, regex)
		if err == nil {
			t.Fatalf("%q -x %q: no error", tt.positional, tt.exclude)
		}
		if got := strings.Contains(err.Error(), `\x20`); got != tt.hint {
			t.Errorf("%q -x %q: %v; hint %v, want %v", tt.positional, tt.exclude, err, got, tt.hint)
		}
	}
}

// manyWords returns n distinct words prefix00z … none of which contains
// another.
func manyWords(prefix string, n int) string {
	words := make([]string, n)
	for i := range words {
		words[i] = fmt.Sprintf("%s%02dz", prefix, i)
	}
	return strings.Join(words, " ")
}

func TestParseQueryAcceptsSixtyFourTerms(t *testing.T) {
	q, err := ParseQuery([]string{manyWords("w", 64)}, nil, []string{manyWords("x", 100)}, folded)
	if err != nil {
		t.Fatalf("64 positive terms (and 100 excluded) rejected: %v", err)
	}
	text := []byte("w63z only")
	if hits, _ := q.TermHits(text); hits != 1<<63 {
		t.Errorf("TermHits(%q) = %b, want bit 63", text, hits)
	}
}

func TestMatchMessage(t *testing.T) {
	type check struct {
		text string
		want bool
	}
	tests := []struct {
		name                         string
		positional, require, exclude []string
		checks                       []check
	}{
		{"or", []string{"jwt oauth"}, nil, nil, []check{
			{"uses JWT", true}, {"uses OAuth", true}, {"uses both jwt and oauth", true}, {"uses saml", false},
		}},
		{"require", []string{"jwt oauth"}, []string{"token"}, nil, []check{
			{"jwt token", true}, {"jwt only", false}, {"token only", false},
		}},
		{"every required", nil, []string{"jwt token"}, nil, []check{
			{"jwt token", true}, {"jwt", false}, {"token", false},
		}},
		{"exclude", []string{"jwt"}, nil, []string{"test mock"}, []check{
			{"jwt code", true}, {"jwt test", false}, {"jwt MOCK", false},
		}},
		{"all three", []string{"jwt oauth"}, []string{"token"}, []string{"test"}, []check{
			{"oauth token", true}, {"oauth token test", false}, {"oauth", false},
		}},
		{"question", []string{"how did we implement jwt auth?"}, nil, nil, []check{
			{"we did it", false}, {"the JWT middleware", true}, {"Authorization header", true},
		}},
		{"phrase", []string{`"rate limiter"`}, nil, nil, []check{
			{"the Rate Limiter", true}, {"rate-limiter", false}, {"limiter rate", false},
		}},
		{"wildcard", []string{"reset_windows"}, nil, nil, []check{
			{"Reset Windows", true}, {"reset-windows", true}, {"resetwindows", false},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, err := ParseQuery(tt.positional, tt.require, tt.exclude, folded)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range tt.checks {
				if got := q.MatchMessage([]byte(c.text)); got != c.want {
					t.Errorf("%s MatchMessage(%q) = %v, want %v", q, c.text, got, c.want)
				}
			}
		})
	}
}

func TestMatchMessageOptions(t *testing.T) {
	tests := []struct {
		opt  MatchOptions
		args string
		text string
		want bool
	}{
		{words, "auth", "oauth2", false},
		{words, "auth", "jwt auth.", true},
		{exact, "JWT", "jwt", false},
		{regex, "jwt|oauth", "OAuth", true},
		{MatchOptions{Regex: true, Word: true}, "o?auth", "oauth", true},
		{MatchOptions{Regex: true, Word: true}, "auth", "oauth", false},
	}
	for _, tt := range tests {
		q, err := ParseQuery([]string{tt.args}, nil, nil, tt.opt)
		if err != nil {
			t.Fatal(err)
		}
		if got := q.MatchMessage([]byte(tt.text)); got != tt.want {
			t.Errorf("%s MatchMessage(%q) = %v, want %v", q, tt.text, got, tt.want)
		}
	}
}

func TestPositiveAndTermHits(t *testing.T) {
	q, err := ParseQuery([]string{"jwt oauth"}, []string{"token JWT"}, []string{"test"}, folded)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, term := range q.Positive() {
		names = append(names, term.String())
	}
	if want := []string{"jwt", "oauth", "token"}; !slices.Equal(names, want) {
		t.Fatalf("Positive() = %v, want %v (JWT is jwt)", names, want)
	}
	tests := []struct {
		text      string
		positive  uint64
		excluded  bool
		satisfied bool // on this message alone
	}{
		{"jwt token", 0b101, false, true},
		{"oauth", 0b010, false, false},
		{"token test", 0b100, true, false},
		{"nothing", 0, false, false},
	}
	for _, tt := range tests {
		positive, excluded := q.TermHits([]byte(tt.text))
		if positive != tt.positive || excluded != tt.excluded {
			t.Errorf("TermHits(%q) = %03b, %v; want %03b, %v", tt.text, positive, excluded, tt.positive, tt.excluded)
		}
		if got := q.Satisfied(positive); got != tt.satisfied {
			t.Errorf("Satisfied(%03b) = %v, want %v", positive, got, tt.satisfied)
		}
	}
	// Across a session: "jwt" in one message, "token" in another.
	if !q.Satisfied(0b001 | 0b100) {
		t.Error("hits OR'ed over messages do not satisfy the query")
	}
	if q.Satisfied(0b010 | 0b100) {
		t.Error("the query is satisfied without its required jwt")
	}
}

func TestSatisfiedWithoutAnyTerms(t *testing.T) {
	q, err := ParseQuery(nil, []string{"jwt token"}, nil, folded)
	if err != nil {
		t.Fatal(err)
	}
	if q.Satisfied(0b01) || !q.Satisfied(0b11) {
		t.Error("with only --require, every required term must hit")
	}
}

func TestPositiveReturnsACopy(t *testing.T) {
	q, err := ParseQuery([]string{"a b"}, nil, nil, folded)
	if err != nil {
		t.Fatal(err)
	}
	q.Positive()[0] = nil
	if q.Positive()[0] == nil {
		t.Error("Positive exposes the query's own slice")
	}
}

// FuzzParseQuery checks that any input parses or fails with a "query:"
// error, and that a parsed query evaluates without panicking.
func FuzzParseQuery(f *testing.F) {
	f.Add("how did we implement jwt auth?", "token", "test", false, false, false)
	f.Add(`"rate limiter" reset_windows`, `"a b`, "", false, false, true)
	f.Add("mutex|deadlock (a", "", "x", true, false, false)
	f.Add("...", "", "", false, true, false)
	f.Add("___ _", "\xff", "", false, false, false)
	f.Fuzz(func(t *testing.T, positional, require, exclude string, regexMode, caseSensitive, word bool) {
		opt := MatchOptions{Regex: regexMode, CaseSensitive: caseSensitive, Word: word}
		q, err := ParseQuery([]string{positional}, []string{require}, []string{exclude}, opt)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "query:") {
				t.Fatalf("error %q does not start with query:", err)
			}
			return
		}
		if len(q.Any)+len(q.Require) == 0 {
			t.Fatal("a query without positive terms parsed")
		}
		if q.String() == "" {
			t.Fatal("empty String()")
		}
		text := []byte(positional + " " + require)
		q.MatchMessage(text)
		positive, _ := q.TermHits(text)
		for i, term := range q.Positive() {
			if got := term.Match(text); got != (positive&(1<<i) != 0) {
				t.Fatalf("TermHits bit %d = %v, %s.Match = %v", i, !got, term, got)
			}
			term.FindAll(text, nil)
		}
	})
}

// TestParseQueryDropsPositionalPastLimit: a pasted paragraph is searched by
// its first maxPositiveTerms distinct terms; required terms are all kept.
func TestParseQueryDropsPositionalPastLimit(t *testing.T) {
	tests := []struct {
		name                string
		positional, require string
		wantAny, wantDrop   int
	}{
		{"positional only", manyWords("w", 70), "", 64, 6},
		{"required first", manyWords("w", 40), manyWords("r", 25) + " w00z", 39, 1},
		{"at the limit", manyWords("w", 64), "", 64, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, err := ParseQuery([]string{tt.positional}, strings.Fields(tt.require), nil, folded)
			if err != nil {
				t.Fatal(err)
			}
			if len(q.Any) != tt.wantAny || q.Dropped != tt.wantDrop || len(q.positive) > maxPositiveTerms {
				t.Errorf("any %d dropped %d positive %d, want any %d dropped %d", len(q.Any), q.Dropped, len(q.positive), tt.wantAny, tt.wantDrop)
			}
		})
	}
}

// heapAllocated is how many bytes f allocates.
func heapAllocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestParseQuerySizeCaps: a query of any size costs what its first
// MaxQueryWords words and MaxQueryBytes bytes cost. The positional words
// past the caps are left out with a warning naming them, never an error
// (typed text); --require and --exclude past theirs are an error naming
// the cap, refused before a word is compiled.
func TestParseQuerySizeCaps(t *testing.T) {
	words := func(n int) string { return strings.Repeat("lorem ipsum dolor sit amet ", n/5) }
	huge := words(2_000_000) // 10.8 MB
	var q *Query
	var err error
	alloc := heapAllocated(func() { q, err = ParseQuery([]string{huge}, nil, nil, folded) })
	if err != nil {
		t.Fatalf("a 10 MB query: %v", err)
	}
	if alloc > 4<<20 {
		t.Errorf("a 10 MB query allocated %d bytes parsing, want what its first %d KiB cost", alloc, MaxQueryBytes>>10)
	}
	if q.Unread < 1_900_000 || len(q.Any) == 0 {
		t.Errorf("unread %d, any %d", q.Unread, len(q.Any))
	}
	for _, want := range []string{"256 words", "64 KiB", "left out"} {
		if !strings.Contains(q.LeftOut(), want) {
			t.Errorf("warning %q does not say %q", q.LeftOut(), want)
		}
	}
	if !strings.Contains(q.String(), "more words not searched") {
		t.Errorf("String() %q does not say words were left out", q.String())
	}

	// The caps, not the query's length, bound the cost: 40,000 words as
	// separate arguments (as a shell passes them) cost what 400 do.
	many := strings.Fields(words(40_000))
	small := heapAllocated(func() { ParseQuery(many[:400], nil, nil, folded) })
	large := heapAllocated(func() { ParseQuery(many, nil, nil, folded) })
	if large > 2*small+64<<10 {
		t.Errorf("40,000 words allocated %d bytes, 400 words %d", large, small)
	}

	// One word longer than the cap is cut at a character boundary.
	long := strings.Repeat("é", MaxQueryBytes)
	if q, err = ParseQuery([]string{long}, nil, nil, folded); err != nil || len(q.Any) != 1 || !utf8.ValidString(q.Any[0].String()) ||
		len(q.Any[0].String()) > MaxQueryBytes {
		t.Errorf("a %d-byte word: %v, %v", len(long), q, err)
	}

	// At the caps: no warning.
	if q, err = ParseQuery(many[:MaxQueryWords], nil, nil, folded); err != nil || q.Unread != 0 {
		t.Errorf("%d words: unread %d, %v", MaxQueryWords, q.Unread, err)
	}

	for _, tt := range []struct {
		name             string
		require, exclude []string
		want             string
	}{
		{"100k excluded words", nil, []string{manyWords("x", 100_000)}, "query: --exclude: 788899 bytes of words, at most 65536 (64 KiB)"},
		{"excluded words over the count", nil, strings.Fields(manyWords("x", MaxFilterWords+1)), "query: --exclude: 257 words, at most 256"},
		{"required words over the count", strings.Fields(manyWords("r", MaxFilterWords+1)), nil, "query: --require: 257 words, at most 256"},
		{"required bytes", []string{strings.Repeat("r", MaxFilterBytes+1)}, nil, "query: --require: 65537 bytes of words, at most 65536 (64 KiB)"},
	} {
		alloc := heapAllocated(func() { _, err = ParseQuery([]string{"jwt"}, tt.require, tt.exclude, folded) })
		if err == nil || err.Error() != tt.want {
			t.Errorf("%s: error %v, want %q", tt.name, err, tt.want)
		}
		if alloc > 1<<20 {
			t.Errorf("%s: %d bytes allocated before the refusal", tt.name, alloc)
		}
	}
	if _, err := ParseQuery([]string{"jwt"}, nil, strings.Fields(manyWords("x", MaxFilterWords)), folded); err != nil {
		t.Errorf("%d excluded words: %v", MaxFilterWords, err)
	}
}

func TestCutAt(t *testing.T) {
	for _, tt := range []struct {
		s    string
		n    int
		want string
	}{
		{"jwt auth token", 10, "jwt auth"},
		{"jwt auth token", 9, "jwt auth"},
		{"abcdef", 3, "abc"},
		{"aé", 2, "a"}, // not inside é
		{"é", 1, ""},
	} {
		if got := cutAt(tt.s, tt.n); got != tt.want {
			t.Errorf("cutAt(%q, %d) = %q, want %q", tt.s, tt.n, got, tt.want)
		}
	}
	if n := countWords(" a  bc\td\n"); n != 3 {
		t.Errorf("countWords = %d, want 3", n)
	}
}
