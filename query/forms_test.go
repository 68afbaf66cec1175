package query

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/recall-dev/recall/textrules"
)

// positional compiles one positional word as ParseQuery does, with its
// channels.
func positional(t testing.TB, word string) *Term {
	t.Helper()
	q, err := ParseQuery([]string{word}, nil, nil, MatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(q.Any) != 1 {
		t.Fatalf("%q: %d terms", word, len(q.Any))
	}
	return q.Any[0]
}

func TestChannelMatches(t *testing.T) {
	tests := []struct {
		word, text string
		want       []string // the hits' text and form
	}{
		{"painted", "I love painting and the painter painted it", []string{"painting word form", "painted exact"}},
		{"translated", "Agent: Translate CZ article 1 to EN", []string{"Translate word form"}},
		{"articles", "Agent: Translate CZ article 1 to EN; more articles", []string{"article word form", "articles exact"}},
		{"cestiny", "překlad do češtiny a cestiny", []string{"češtiny accents folded", "cestiny exact"}},
		{"češtiny", "překlad do ČEŠTINY a cestiny", []string{"ČEŠTINY exact", "cestiny accents folded"}},
		{"cafe", "the café and the cafeteria", []string{"café accents folded", "cafe exact"}},
		{"lock", "a deadlock and a lock", []string{"lock inside a word", "lock exact"}},
		{"pets", "her pet dog and two pets", []string{"pet word form", "pets exact"}},
		{"die", "the plant was dying", nil},                                                          // Porter2 exceptional forms do not start with their stem
		{"go", "we go to Google", []string{"go exact"}},                                              // a short word is a word of its own
		{"id", "the user_id, an id_rsa, a Guide, mid-air, userId", []string{"id exact", "id exact"}}, // parts between underscores count
		{"v2", "the v2 api", []string{"v2 exact"}},
		{"1", "version 1 of 10, 3.1, 1x", []string{"1 exact", "1 exact"}},
		{"log", "the changelog and the log", []string{"log inside a word", "log exact"}}, // three letters stay substrings
		{"tokenizer", "tokens, a token and the tokenizer", []string{"tokenizer exact"}},  // a derivation, not an inflection
		{"tokens", "the tokenizer tokenized a token", []string{"token word form"}},
	}
	for _, tt := range tests {
		t.Run(tt.word, func(t *testing.T) {
			term := positional(t, tt.word)
			text := []byte(tt.text)
			var got []string
			for _, sp := range term.FindAll(text, nil) {
				got = append(got, tt.text[sp.Start:sp.End]+" "+term.HitForm(string(text), sp.Start, sp.End).String())
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("FindAll(%q) = %q, want %q", tt.text, got, tt.want)
			}
			if term.Match(text) != (len(tt.want) > 0) {
				t.Errorf("Match(%q) = %v", tt.text, term.Match(text))
			}
		})
	}
}

func TestChannelsOnlyForPlainPositionalWords(t *testing.T) {
	text := []byte("Translate the article")
	for _, tc := range []struct {
		name    string
		pos     []string
		require []string
		opt     MatchOptions
		match   bool
	}{
		{"positional", []string{"translated"}, nil, MatchOptions{}, true},
		{"word option", []string{"translated"}, nil, MatchOptions{Word: true}, false},
		{"case-sensitive", []string{"translated"}, nil, MatchOptions{CaseSensitive: true}, false},
		{"phrase", []string{`"translated article"`}, nil, MatchOptions{}, false},
		{"require", []string{"article"}, []string{"translated"}, MatchOptions{}, false},
		{"wildcard", []string{"translated_x"}, nil, MatchOptions{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q, err := ParseQuery(tc.pos, tc.require, nil, tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			if got := q.MatchMessage(text); got != tc.match {
				t.Errorf("MatchMessage = %v, want %v (%s)", got, tc.match, q)
			}
		})
	}
}

// The scan of the text and the term index must take the same words: a
// text's channel hits are exactly its tokens that Forms.Classify takes,
// and its exact hits lie in the tokens Classify counts as exact.
func TestChannelsAgreeWithTokenClassification(t *testing.T) {
	words := []string{"painted", "translated", "articles", "cestiny", "češtiny", "cafe", "lock", "pets",
		"review", "rounds", "issues", "found", "agents", "decided", "Über", "naïve", "stare",
		"fix", "test", "flaky", "scheduler", "tests", "kelvin", "task"}
	pieces := strings.Fields("painting paint painted painter PAINTS Translate translation translating article " +
		"ARTICLES češtiny ČEŠTINA cestiny čeština café cafes CAFÉ cafeteria deadlock locks lock pet pets petal " +
		"reviews reviewed rounded round issue issues found founder agent Agent agents deciding decision über " +
		"uber naive naïvety stared staring star dying die — ’ `code` ïssues x_y 42 ∑ " +
		"fix fixes fixed FIXING prefix tes test tests tested Testing tesla latest flaky flakiness FLAKE " +
		"scheduler schedule scheduled SCHEDULES rescheduler teſt teſting Kelvin kelvins taſk tasks")
	r := rand.New(rand.NewPCG(3, 4))
	for range 400 {
		var b strings.Builder
		for range 1 + r.IntN(12) {
			b.WriteString(pieces[r.IntN(len(pieces))])
			b.WriteString([]string{" ", "", "-", ". ", "\n"}[r.IntN(5)])
		}
		text := []byte(b.String())
		for _, w := range words {
			checkChannelsAgree(t, positional(t, w), text)
		}
	}
}

// FuzzChannelsAgreeWithTokens checks a positional word's hits in any
// text against the term index's classification of the text's tokens:
// FindAll's shortcuts (a word holding an exact hit is not classified;
// an ASCII text is not searched for channel words when none can be one)
// must not change which words are channel hits.
func FuzzChannelsAgreeWithTokens(f *testing.F) {
	for _, seed := range [][2]string{
		{"fix", "we fixed the prefix, fixes FIX"}, {"test", "tests tested tesla Testing latest"},
		{"tests", "a test, the tests"}, {"flaky", "flakiness of flaky FLAKE"}, {"scheduler", "schedule scheduled rescheduler"},
		{"test", "teſt teſting"}, {"kelvin", "\u212aelvin kelvins"}, {"cestiny", "překlad do češtiny a cestiny"},
		{"painted", "I love painting and the painter painted it"}, {"naïve", "naive naïvety"},
	} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, word, text string) {
		q, err := ParseQuery([]string{word}, nil, nil, MatchOptions{})
		if err != nil || len(q.Any) != 1 || q.Any[0].Forms() == nil {
			return
		}
		checkChannelsAgree(t, q.Any[0], []byte(text))
	})
}

// checkChannelsAgree fails the test where channelsDisagree finds a
// difference.
func checkChannelsAgree(t *testing.T, term *Term, text []byte) {
	t.Helper()
	if d := channelsDisagree(term, text); d != "" {
		t.Fatal(d)
	}
}

// channelsDisagree checks that term's channel hits in text are the
// tokens Forms.Classify takes by a channel, and that it has exact hits
// where a token holds the word; it says how they differ, or "".
func channelsDisagree(term *Term, text []byte) string {
	var z textrules.Tokenizer
	forms := term.Forms()
	var want []Span
	exactTokens := 0
	z.EachSpan(text, func(tok []byte, start, end int, _ bool) {
		m := forms.Classify(tok)
		switch {
		case m.OK && m.Form >= FormAccent:
			want = append(want, Span{start, end})
		case m.OK:
			exactTokens++
		}
	})
	var channel []Span
	exact := 0
	for _, sp := range term.FindAll(text, nil) {
		if f := term.HitForm(string(text), sp.Start, sp.End); f >= FormAccent {
			channel = append(channel, sp)
		} else {
			exact++
		}
	}
	if !slices.Equal(channel, want) {
		return fmt.Sprintf("%s in %q: channel hits %v, tokens %v", term, text, channel, want)
	}
	if (exact > 0) != (exactTokens > 0) || term.Match(text) != (exact+len(channel) > 0) {
		return fmt.Sprintf("%s in %q: %d exact hits, %d exact tokens, Match %v", term, text, exact, exactTokens, term.Match(text))
	}
	return ""
}

func TestFoldASCIIIsCanonicalFold(t *testing.T) {
	for c := range byte(utf8.RuneSelf) {
		if got, want := foldASCII(c), byte(textrules.CanonicalFold(rune(c))); got != want {
			t.Errorf("foldASCII(%q) = %q, CanonicalFold %q", c, got, want)
		}
	}
}

func TestChannelMatchDoesNotAllocate(t *testing.T) {
	text := []byte(strings.Repeat("The quick brown fox jumps over the lazy dog — naïve café, přeložené články. ", 20))
	for _, w := range []string{"zebra", "translated", "cestiny", "painted"} {
		term := positional(t, w)
		if allocs := testing.AllocsPerRun(100, func() { term.Match(text) }); allocs != 0 {
			t.Errorf("%s.Match allocates %.1f times per call", term, allocs)
		}
	}
}

// TestChannelsAgreeConcurrently shares terms between goroutines, as a
// search's workers do: the word-form memo is written while others read
// it (run under -race).
func TestChannelsAgreeConcurrently(t *testing.T) {
	terms := []*Term{positional(t, "fix"), positional(t, "test"), positional(t, "flaky"), positional(t, "painted")}
	texts := []string{"we fixed the prefix, fixes FIX and first files", "tests tested tesla Testing latest",
		"flakiness of flaky FLAKE flakes", "I love painting and the painter painted it"}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				for _, term := range terms {
					if d := channelsDisagree(term, []byte(texts[(g+i)%len(texts)])); d != "" {
						t.Error(d)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
}

func TestIsShortWord(t *testing.T) {
	for _, tt := range []struct {
		word string
		want bool
	}{
		{"id", true}, {"Go", true}, {"1", true}, {"42", true}, {"v2", true}, {"já", true}, {"он", true},
		{"log", false}, {"", false}, {"a_", false}, {"_", false}, {".h", false}, {"c#", false},
		{"日本", false}, {"세션", false}, // scripts that do not put spaces between words
	} {
		if got := IsShortWord(tt.word); got != tt.want {
			t.Errorf("IsShortWord(%q) = %v, want %v", tt.word, got, tt.want)
		}
	}
}

// TestShortWordPartsAgreeWithTokens holds the term index's count of a
// short word's hits in a token (PartsIn) to the hits a scan of the text
// finds, token by token, as the accelerated search and the full scan
// must agree.
func TestShortWordPartsAgreeWithTokens(t *testing.T) {
	for _, tt := range []struct {
		word, token string
		want        int
	}{
		{"id", "id", 1},
		{"id", "user_id", 1},
		{"id", "id_user_id", 2},
		{"id", "id__id", 2},
		{"id", "_id_", 1},
		{"id", "guide", 0},
		{"id", "idid", 0},
		{"id", "userid", 0},
		{"id", "ids", 0},
		{"1", "1_10_1", 2},
		{"aa", "aaa_aa", 1},
		{"aa", "aa_aaa", 1},
	} {
		term := positional(t, tt.word)
		tok := bytes.ToUpper([]byte(tt.token))
		run := strings.ToUpper(tt.word)
		if got := PartsIn(tok, run); got != tt.want {
			t.Errorf("PartsIn(%q, %q) = %d, want %d", tok, run, got, tt.want)
		}
		if got := len(term.FindAll([]byte(tt.token), nil)); got != tt.want {
			t.Errorf("%q in %q: %d hits, want %d", tt.word, tt.token, got, tt.want)
		}
	}
}
