package query

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/recall-dev/recall/textrules"
)

// mustTerm compiles one term or fails the test.
func mustTerm(t testing.TB, text string, kind termKind, opt MatchOptions) *Term {
	t.Helper()
	term, err := compileTerm(text, kind, opt)
	if err != nil {
		t.Fatalf("compileTerm(%q): %v", text, err)
	}
	return term
}

var (
	folded    = MatchOptions{}
	exact     = MatchOptions{CaseSensitive: true}
	words     = MatchOptions{Word: true}
	regex     = MatchOptions{Regex: true}
	regexWord = MatchOptions{Regex: true, Word: true}
)

func TestTermMatch(t *testing.T) {
	tests := []struct {
		name string
		term string
		kind termKind
		opt  MatchOptions
		text string
		want bool
	}{
		{"ascii fold", "jwt", wordTerm, folded, "use JWT tokens", true},
		{"ascii fold mixed", "JwT", wordTerm, folded, "a jWt b", true},
		{"absent", "jwt", wordTerm, folded, "use OAuth tokens", false},
		{"needle longer than text", "authentication", wordTerm, folded, "auth", false},
		{"at end", "auth", wordTerm, folded, "jwt auth", true},
		{"at start", "jwt", wordTerm, folded, "jwt auth", true},
		{"empty text", "jwt", wordTerm, folded, "", false},
		{"non-letter bytes fold to nothing", "a@b", wordTerm, folded, "A`B", false},
		{"brackets are not letters", "[x]", wordTerm, folded, "{X}", false},
		{"unicode fold", "ÉCOLE", wordTerm, folded, "une école", true},
		{"unicode fold reverse", "école", wordTerm, folded, "UNE ÉCOLE", true},
		{"ascii needle in unicode text", "cole", wordTerm, folded, "ÉCOLE", true},
		{"no full folding", "STRASSE", wordTerm, folded, "Straße", false},
		{"sharp s pair", "ẞ", wordTerm, folded, "straße", true},
		{"kelvin sign is k", "kelvin", wordTerm, folded, "\u212Aelvin scale", true},
		{"kelvin sign in needle", "\u212Aelvin", wordTerm, folded, "KELVIN", true},
		{"long s is s", "session", wordTerm, folded, "\u017Fe\u017F\u017Fion", true},
		{"long s only where text has it", "session", wordTerm, folded, "\u017Fe\u017Fion", false},
		{"greek sigma orbit", "σοφία", wordTerm, folded, "ΣΟΦΊΑ", true},
		{"final sigma", "ς", wordTerm, folded, "Σ", true},
		{"cyrillic", "привет", wordTerm, folded, "ПРИВЕТ мир", true},
		{"cjk", "日本語", wordTerm, folded, "これは日本語です", true},
		{"emoji", "🚀", wordTerm, folded, "ship it 🚀", true},
		{"case sensitive miss", "JWT", wordTerm, exact, "jwt", false},
		{"case sensitive hit", "JWT", wordTerm, exact, "a JWT", true},
		{"case sensitive unicode", "École", wordTerm, exact, "ÉCOLE", false},
		{"case sensitive no kelvin", "k", wordTerm, exact, "\u212A", false},
		{"wildcard space", "reset_windows", wordTerm, folded, "Reset Windows", true},
		{"wildcard underscore", "reset_windows", wordTerm, folded, "reset_windows()", true},
		{"wildcard dash", "reset_windows", wordTerm, folded, "reset-windows", true},
		{"wildcard multibyte", "reset_windows", wordTerm, folded, "reset—windows", true},
		{"wildcard newline", "reset_windows", wordTerm, folded, "reset\nwindows", true},
		{"wildcard is one char", "reset_windows", wordTerm, folded, "reset  windows", false},
		{"wildcard needs a char", "reset_windows", wordTerm, folded, "resetwindows", false},
		{"leading wildcard", "_ab", wordTerm, folded, "ab", false},
		{"leading wildcard hit", "_ab", wordTerm, folded, "xab", true},
		{"trailing wildcard", "ab_", wordTerm, folded, "ab", false},
		{"trailing wildcard hit", "ab_", wordTerm, folded, "abé", true},
		{"wildcard case sensitive", "A_B", wordTerm, exact, "A-B", true},
		{"underscores only are literal", "___", wordTerm, folded, "abc", false},
		{"underscores only hit", "___", wordTerm, folded, "a___b", true},
		{"phrase", "jwt auth", phraseTerm, folded, "the JWT Auth flow", true},
		{"phrase needs its space", "jwt auth", phraseTerm, folded, "jwt-auth", false},
		{"phrase underscore literal", "reset_windows", phraseTerm, folded, "reset windows", false},
		{"phrase underscore hit", "reset_windows", phraseTerm, folded, "RESET_WINDOWS", true},
		{"word whole", "auth", wordTerm, words, "jwt auth.", true},
		{"word inside", "auth", wordTerm, words, "oauth2 authentication", false},
		{"word second occurrence", "auth", wordTerm, words, "oauth auth", true},
		{"word underscore is word char", "auth", wordTerm, words, "auth_token", false},
		{"word digit is word char", "auth", wordTerm, words, "auth2", false},
		{"word unicode letter", "cole", wordTerm, words, "école", false},
		{"word unicode punctuation", "cole", wordTerm, words, "«cole»", true},
		{"word invalid utf8 is a boundary", "cole", wordTerm, words, "\xffcole\xfe", true},
		{"word kelvin path", "kit", wordTerm, words, "\u212Ait \u212Aits", true},
		{"word wildcard", "a_b", wordTerm, words, "xa-b a-b", true},
		{"word wildcard miss", "a_b", wordTerm, words, "xa-b a-bc", false},
		{"invalid utf8 text", "cole", wordTerm, folded, "\xff\xfeCOLE", true},
		{"replacement char matches invalid byte", "a\uFFFDb", wordTerm, folded, "a\xffb", true},
		{"replacement char matches itself", "a\uFFFDb", phraseTerm, exact, "a\uFFFDb", true},
		{"wildcard matches invalid byte", "a_b", wordTerm, folded, "a\xffb", true},
		{"regex alternation", "mutex|deadlock", regexTerm, regex, "a DEADLOCK here", true},
		{"regex miss", "mutex|deadlock", regexTerm, regex, "a lock here", false},
		{"regex case sensitive", "Mutex", regexTerm, MatchOptions{Regex: true, CaseSensitive: true}, "mutex", false},
		{"regex unicode fold", "école", regexTerm, regex, "ÉCOLE", true},
		{"regex word", "auth\\w*", regexTerm, regexWord, "oauth authz", true},
		{"regex word miss", "auth", regexTerm, regexWord, "oauth authz", false},
		{"regex word unicode", "cole", regexTerm, regexWord, "école", false},
		{"regex word at start", "jwt", regexTerm, regexWord, "jwt!", true},
		{"regex word alternative", "foo|foobar", regexTerm, regexWord, "foobar", true},
		{"regex word unterminated quote", `\Qa)b`, regexTerm, regexWord, "x A)B y", true},
		{"regex word unterminated quote miss", `\Qa)b`, regexTerm, regexWord, "xa)b", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			term := mustTerm(t, tt.term, tt.kind, tt.opt)
			if got := term.Match([]byte(tt.text)); got != tt.want {
				t.Errorf("%s.Match(%q) = %v, want %v", term, tt.text, got, tt.want)
			}
			if got := len(term.FindAll([]byte(tt.text), nil)) > 0; got != tt.want {
				t.Errorf("%s.FindAll(%q) found = %v, want %v", term, tt.text, got, tt.want)
			}
		})
	}
}

func TestTermFindAll(t *testing.T) {
	tests := []struct {
		term string
		kind termKind
		opt  MatchOptions
		text string
		want []Span
	}{
		{"ab", wordTerm, folded, "ab AB aB", []Span{{0, 2}, {3, 5}, {6, 8}}},
		{"aa", wordTerm, folded, "aaa", []Span{{0, 2}}}, // non-overlapping
		{"aa", wordTerm, folded, "aaaa", []Span{{0, 2}, {2, 4}}},
		{"é", wordTerm, folded, "É é", []Span{{0, 2}, {3, 5}}},
		{"k", wordTerm, folded, "k\u212AK", []Span{{0, 1}, {1, 4}, {4, 5}}},
		{"sk", wordTerm, folded, "\u017F\u212A", []Span{{0, 5}}},
		{"s_s", wordTerm, folded, "s—ſ", []Span{{0, 6}}},
		{"reset_windows", wordTerm, folded, "reset windows, Reset_Windows", []Span{{0, 13}, {15, 28}}},
		{"auth", wordTerm, words, "oauth auth auth_x (auth)", []Span{{6, 10}, {19, 23}}},
		{"a", wordTerm, words, "a a", []Span{{0, 1}, {2, 3}}},
		{"x", wordTerm, exact, "xXx", []Span{{0, 1}, {2, 3}}},
		{"m.x", regexTerm, regex, "mux MAX", []Span{{0, 3}, {4, 7}}},
		{"auth", regexTerm, regexWord, "auth auth oauth (auth)", []Span{{0, 4}, {5, 9}, {17, 21}}},
		{"a", regexTerm, regexWord, "a a", []Span{{0, 1}, {2, 3}}},
		{"x*", regexTerm, regex, "ab", []Span{{0, 0}, {1, 1}, {2, 2}}},
	}
	for _, tt := range tests {
		t.Run(tt.term+" in "+tt.text, func(t *testing.T) {
			term := mustTerm(t, tt.term, tt.kind, tt.opt)
			if got := term.FindAll([]byte(tt.text), nil); !slices.Equal(got, tt.want) {
				t.Errorf("%s.FindAll(%q) = %v, want %v", term, tt.text, got, tt.want)
			}
		})
	}
}

func TestFindAllAppendsToDst(t *testing.T) {
	term := mustTerm(t, "ab", wordTerm, folded)
	dst := []Span{{100, 101}}
	got := term.FindAll([]byte("xab"), dst)
	if want := []Span{{100, 101}, {1, 3}}; !slices.Equal(got, want) {
		t.Errorf("FindAll appended %v, want %v", got, want)
	}
}

// TestRegexEnginesAgree checks that the prefilter, the exact shortcut and
// both engines give regexp's answer.
func TestRegexEnginesAgree(t *testing.T) {
	filler := strings.Repeat("lorem ipsum dolor sit amet, ", 200)
	patterns := []string{"mutex|deadlock", `dead\w+`, "^lorem", "amet,$", "école", "DEAD(lock|ly)", "x*", `\bsit\b`}
	tails := []string{"", " DEADLOCK", " deadlocks", " deadly", " école.", " ÉCOLE", " mutex"}
	for _, opt := range []MatchOptions{regex, regexWord, {Regex: true, CaseSensitive: true}} {
		for _, pattern := range patterns {
			term := mustTerm(t, pattern, regexTerm, opt)
			for _, tail := range tails {
				for _, text := range [][]byte{[]byte(tail), []byte(filler + tail)} {
					want := term.re.first.std.Match(text)
					if got := term.Match(text); got != want {
						t.Errorf("%s %v on %q: Match = %v, regexp %v", term, opt, tail, got, want)
					}
					if re := term.re.first.re2(); re != nil && re.Match(text) != want {
						t.Errorf("%s %v on %q: go-re2 says %v, regexp %v", term, opt, tail, !want, want)
					}
				}
			}
		}
	}
}

func TestRegexInvalidUTF8UsesStdlib(t *testing.T) {
	// go-re2 stops at invalid UTF-8; regexp reads it as U+FFFD and goes on.
	text := []byte("some text \xff then dead\xfflock and deadline")
	term := mustTerm(t, `dead\w+`, regexTerm, regex)
	if !term.Match(text) {
		t.Error("a match after invalid UTF-8 was missed")
	}
	if got, want := term.FindAll(text, nil), []Span{{31, 39}}; !slices.Equal(got, want) {
		t.Errorf("FindAll = %v, want %v", got, want)
	}
}

func TestRegexPrefilter(t *testing.T) {
	tests := []struct {
		pattern string
		opt     MatchOptions
		want    []string // the prefilter's strings, nil for none
		exact   bool
	}{
		{"deadlock", regex, []string{"deadlock"}, true},
		{"mutex|deadlock", regex, []string{"mutex", "deadlock"}, true},
		{`dead\w+`, regex, []string{"dead"}, false},
		{"dead(lock|ly)", regex, []string{"dead"}, false},
		{"(?:jwt|oauth)_?token", regex, []string{"token"}, false},
		{"foo.*barbaz", regex, []string{"barbaz"}, false},
		{"(abc)+", regex, []string{"abc"}, false},
		{`\bfoo\b`, regex, []string{"foo"}, false},
		{"^foo", regex, []string{"foo"}, false},
		{"foo?", regex, []string{"fo"}, false},
		{"x*", regex, nil, false},
		{"[ab]c", regex, []string{"c"}, false},
		{"a|b*", regex, nil, false},
		{"a|b|c|d|e|f|g|h|i", regex, nil, false},
	}
	for _, tt := range tests {
		term := mustTerm(t, tt.pattern, regexTerm, tt.opt)
		var got []string
		for _, l := range term.re.prefilter {
			var b strings.Builder
			for _, u := range l.units {
				b.WriteRune(unicode.ToLower(u.alts[0]))
			}
			got = append(got, b.String())
		}
		if !slices.Equal(got, tt.want) || term.re.exact != tt.exact {
			t.Errorf("/%s/ prefilter %q exact %v, want %q exact %v", tt.pattern, got, term.re.exact, tt.want, tt.exact)
		}
	}
}

func TestOnlyKAndSFoldOutsideASCII(t *testing.T) {
	// The fast path's correctness note names exactly these two; the code
	// derives them from the tables, this guards the documentation.
	var got []string
	for r := rune(0); r < utf8.RuneSelf; r++ {
		for _, enc := range nonASCIIFolds(r) {
			got = append(got, fmt.Sprintf("%c→%U", r, []rune(string(enc))[0]))
		}
	}
	want := []string{"K→U+212A", "S→U+017F", "k→U+212A", "s→U+017F"}
	if !slices.Equal(got, want) {
		t.Errorf("ASCII runes with non-ASCII folds: %v, want %v", got, want)
	}
}

func TestChooseAnchorPrefersRareBytes(t *testing.T) {
	l := compileLiteral("the jwt", false, folded)
	if got := l.fixed.lower[l.fixed.offset]; got != 'j' {
		t.Errorf("fixed anchor of %q is %q, want 'j'", "the jwt", got)
	}
	g := compileLiteral("t_e_jwt", true, folded) // wildcards: the general path
	if !g.hasAnchor || g.anchor.unit != 4 {
		t.Errorf("general anchor of %q is unit %d, want the j (4)", "t_e_jwt", g.anchor.unit)
	}
	w := compileLiteral("_\uFFFD_", true, folded)
	if w.hasAnchor {
		t.Errorf("a needle of wildcards and U+FFFD got anchor %+v", w.anchor)
	}
	if !w.match([]byte("a\xffb")) || w.match([]byte("a\xff")) {
		t.Error("the anchorless fallback does not match as the needle says")
	}
}

func TestMatchDoesNotAllocate(t *testing.T) {
	text := []byte(strings.Repeat("The quick brown fox jumps over the lazy dog — naïve café. ", 20))
	for _, tc := range []struct {
		term string
		kind termKind
		opt  MatchOptions
	}{
		{"zebra", wordTerm, folded},
		{"the", wordTerm, folded},
		{"session", wordTerm, folded},
		{"jumps over", phraseTerm, folded},
		{"reset_windows", wordTerm, folded},
		{"CAFÉ", wordTerm, folded},
		{"fox", wordTerm, words},
		{"Fox", wordTerm, exact},
		{"zebra|okapi", regexTerm, regex},
	} {
		term := mustTerm(t, tc.term, tc.kind, tc.opt)
		if allocs := testing.AllocsPerRun(100, func() { term.Match(text) }); allocs != 0 {
			t.Errorf("%s.Match allocates %.1f times per call", term, allocs)
		}
	}
}

// referenceRegexp spells a literal needle as a standard-library regexp:
// an independent implementation of the same folding (regexp's (?i) uses
// unicode.SimpleFold orbits), of `_` (any character, newline included)
// and of invalid UTF-8 (read as U+FFFD).
func referenceRegexp(needle string, wildcards bool, opt MatchOptions) *regexp.Regexp {
	var b strings.Builder
	b.WriteString("(?s)")
	if !opt.CaseSensitive {
		b.WriteString("(?i)")
	}
	for _, r := range needle {
		if wildcards && r == '_' {
			b.WriteString(".")
		} else {
			b.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	return regexp.MustCompile(b.String())
}

var referenceWordRune = regexp.MustCompile(`^[\p{L}\p{N}_]$`)

// referenceFindAll finds the leftmost non-overlapping matches by trying
// the reference regexp anchored at every character start, checking the
// --word boundaries with regexp classes.
func referenceFindAll(text []byte, re *regexp.Regexp, word bool) []Span {
	anchored := regexp.MustCompile(`^(?:` + re.String() + `)`)
	isWord := func(r rune) bool {
		return referenceWordRune.MatchString(string(r))
	}
	var spans []Span
	for at := 0; at < len(text); {
		_, w := utf8.DecodeRune(text[at:])
		loc := anchored.FindIndex(text[at:])
		if loc == nil {
			at += w
			continue
		}
		start, end := at, at+loc[1]
		if word {
			before, _ := utf8.DecodeLastRune(text[:start])
			after, _ := utf8.DecodeRune(text[end:])
			if start > 0 && isWord(before) || end < len(text) && isWord(after) {
				at += w
				continue
			}
		}
		spans = append(spans, Span{start, end})
		at = end
	}
	return spans
}

// FuzzMatch checks the literal matcher (fixed and general paths, with and
// without wildcards, folding and --word) against the reference regexp,
// and the --word regex path against the literal one.
func FuzzMatch(f *testing.F) {
	seeds := []struct {
		text, needle string
	}{
		{"use JWT tokens", "jwt"},
		{"\u212Aelvin ſeſſion", "kelvin"},
		{"ſeſſion SESSION", "session"},
		{"une ÉCOLE, une école", "école"},
		{"reset windows reset—windows", "reset_windows"},
		{"ΣΟΦΊΑ σοφία", "σοφία"},
		{"a\xffb a\uFFFDb", "a\uFFFDb"},
		{"x_y x y", "_"},
		{"straße STRASSE", "ß"},
		{"aaaa", "aa"},
		{"auth oauth auth_x", "auth"},
	}
	for i, s := range seeds {
		f.Add([]byte(s.text), s.needle, i%2 == 0, i%3 == 0, i%4 != 0)
	}
	f.Fuzz(func(t *testing.T, text []byte, needle string, caseSensitive, word, wildcards bool) {
		needle = strings.ToValidUTF8(needle, "\uFFFD")
		if needle == "" || len(needle) > 64 {
			return
		}
		opt := MatchOptions{CaseSensitive: caseSensitive, Word: word}
		kind := phraseTerm
		if wildcards {
			kind = wordTerm
		}
		term := mustTerm(t, needle, kind, opt)
		ref := referenceRegexp(needle, wildcards && strings.Trim(needle, "_") != "", opt)

		// Repeating a short text makes false candidates dense enough for
		// the fixed path to switch to its pair scan.
		if len(text) <= 32 {
			text = bytes.Repeat(text, 9)
		}
		want := referenceFindAll(text, ref, word)
		if got := term.FindAll(text, nil); !slices.Equal(got, want) {
			t.Fatalf("%s %v FindAll(%q) = %v, reference %v", term, opt, text, got, want)
		}
		if got := term.Match(text); got != (len(want) > 0) {
			t.Fatalf("%s %v Match(%q) = %v, reference found %v", term, opt, text, got, want)
		}
		if !word {
			if got, want := term.Match(text), ref.Match(text); got != want {
				t.Fatalf("%s %v Match(%q) = %v, regexp %v", term, opt, text, got, want)
			}
			return
		}
		pattern := strings.TrimPrefix(strings.TrimPrefix(ref.String(), "(?s)"), "(?i)")
		re, err := compileRegex(`(?s)`+pattern, opt)
		if err != nil {
			t.Fatalf("compileRegex(%q): %v", pattern, err)
		}
		if got := re.findAll(text, nil); !slices.Equal(got, want) {
			t.Fatalf("--word regex /%s/ %v FindAll(%q) = %v, reference %v", pattern, opt, text, got, want)
		}
	})
}

// TestWordRuneClassesAgree keeps IsWordRune and the regex classes used for
// --word regexes in step.
func TestWordRuneClassesAgree(t *testing.T) {
	class := regexp.MustCompile(`^` + wordRegexClass + `$`)
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if r >= 0xD800 && r <= 0xDFFF {
			continue
		}
		if got, want := textrules.IsWordRune(r), class.MatchString(string(r)); got != want {
			t.Fatalf("textrules.IsWordRune(%U) = %v, regex class says %v", r, got, want)
		}
	}
}

// FuzzRegex checks regex terms — prefilter, exact shortcut, engine choice
// and the --word search loop — against the standard library running the
// same expression.
func FuzzRegex(f *testing.F) {
	for i, s := range []struct{ pattern, text string }{
		{"mutex|deadlock", "a DEADLOCK here"},
		{`dead\w+`, "deadline deadlock"},
		{"(?:jwt|oauth)_?token", "oauth_token jwttoken"},
		{"école", "ÉCOLE \xff école"},
		{"x*", "abc"},
		{`\bfoo\b|bar`, "foo barfoo"},
		{"a+", "aaa a"},
		{"condition", "CONDITIONS precondition"},      // one literal: found by the literal matcher
		{`dead.?lock|race`, "trace the deadline"},     // race alone is a match
		{`dead.?lock|race`, "trace RACES ra\u212Ace"}, // only the race branch can match
		{`race\w*|racer|rac`, "racers race rac"},
		{"kelvin", "\u212Aelvin KELVIN ſ"},
		{"ss", "ſſſ SSs \xffss"},
	} {
		f.Add(s.pattern, []byte(s.text), i%2 == 0, i%3 == 0)
	}
	f.Fuzz(func(t *testing.T, pattern string, text []byte, caseSensitive, word bool) {
		opt := MatchOptions{Regex: true, CaseSensitive: caseSensitive, Word: word}
		m, err := compileRegex(pattern, opt)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "query:") {
				t.Fatalf("error %q does not start with query:", err)
			}
			return
		}
		std := m.first.std
		if got, want := m.match(text), std.Match(text); got != want {
			t.Fatalf("/%s/ %v Match(%q) = %v, regexp %v", pattern, opt, text, got, want)
		}
		typed := regexp.MustCompile(map[bool]string{false: "(?i)", true: ""}[caseSensitive] + pattern)
		if word {
			// --word wraps the parsed form: it must mean what was typed.
			flags := syntax.Perl
			if !caseSensitive {
				flags |= syntax.FoldCase
			}
			tree, err := syntax.Parse(pattern, flags)
			if err != nil {
				t.Fatal(err)
			}
			parsed := regexp.MustCompile(tree.String())
			if !slices.EqualFunc(parsed.FindAllIndex(text, -1), typed.FindAllIndex(text, -1), slices.Equal) {
				t.Fatalf("/%s/ parsed as /%s/ finds other matches in %q", pattern, parsed, text)
			}
			return // FindAll for --word is checked against literals in FuzzMatch
		}
		std = typed
		var want []Span
		for _, loc := range std.FindAllIndex(text, -1) {
			want = append(want, Span{loc[0], loc[1]})
		}
		if got := m.findAll(text, nil); !slices.Equal(got, want) {
			t.Fatalf("/%s/ %v FindAll(%q) = %v, regexp %v", pattern, opt, text, got, want)
		}
	})
}

// TestFixedPairScan drives the fixed path into its pair scan (texts dense
// with the needle's letters) and compares with the reference at every
// alignment of the 8-byte words.
func TestFixedPairScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const alphabet = "sSeEiIoOnN -_"
	for _, needle := range []string{"session", "SESSION", "noise", "on", "ss"} {
		for _, opt := range []MatchOptions{folded, exact, words} {
			term := mustTerm(t, needle, phraseTerm, opt)
			if term.lit.fixed == nil || term.lit.fixed.second < 0 {
				t.Fatalf("%q does not take the fixed path with a pair", needle)
			}
			ref := referenceRegexp(needle, false, opt)
			for range 200 {
				text := make([]byte, 40+rng.IntN(200))
				for i := range text {
					text[i] = alphabet[rng.IntN(len(alphabet))]
				}
				if rng.IntN(2) == 0 {
					at := rng.IntN(len(text) - len(needle))
					copy(text[at:], strings.ToUpper(needle))
				}
				want := referenceFindAll(text, ref, opt.Word)
				if got := term.FindAll(text, nil); !slices.Equal(got, want) {
					t.Fatalf("%s %v FindAll(%q) = %v, reference %v", term, opt, text, got, want)
				}
			}
		}
	}
}

// TestTermConcurrentUse shares terms between goroutines, as a parallel
// search does; run with -race it checks that matching writes nothing
// shared (the lazily compiled go-re2 engine included).
func TestTermConcurrentUse(t *testing.T) {
	q, err := ParseQuery([]string{"jwt reset_windows école"}, nil, nil, folded)
	if err != nil {
		t.Fatal(err)
	}
	re, err := ParseQuery([]string{`dead\w+`}, nil, nil, regexWord)
	if err != nil {
		t.Fatal(err)
	}
	texts := [][]byte{[]byte("the JWT flow"), []byte("reset windows"), []byte("une ÉCOLE"), []byte("a deadlock!"), []byte("nothing")}
	done := make(chan bool)
	for range 4 {
		go func() {
			ok := true
			for range 50 {
				for i, text := range texts {
					ok = ok && q.MatchMessage(text) == (i < 3) && re.MatchMessage(text) == (i == 3)
					re.Any[0].FindAll(text, nil)
				}
			}
			done <- ok
		}()
	}
	for range 4 {
		if !<-done {
			t.Error("a concurrent match gave a wrong answer")
		}
	}
}

// TestRegexAloneLiterals: the prefilter strings whose presence alone is
// a match are those of an alternation's literal branches, and none with
// --word; a text holding one matches without the engine.
func TestRegexAloneLiterals(t *testing.T) {
	cases := []struct {
		pattern string
		word    bool
		alone   int
		text    string // holds an alone string, or "" when none
	}{
		{`dead.?lock|race`, false, 1, "trace"},
		{`mutex|dead\w+|spin`, false, 2, "spinlock"},
		{`(dead|live)lock`, false, 0, ""},
		{`a+|b`, false, 1, "b"},
		{`(?:race)+|x\d`, false, 0, ""},
		{`mutex|deadlock`, false, 0, ""}, // exact: the prefilter decides alone
		{`dead.?lock|race`, true, 0, ""},
		{`Race|dead\d`, false, 1, "RACE"},
	}
	for _, c := range cases {
		m, err := compileRegex(c.pattern, MatchOptions{Word: c.word})
		if err != nil {
			t.Fatal(err)
		}
		if len(m.alone) != c.alone {
			t.Errorf("/%s/ word=%v: %d strings alone, want %d", c.pattern, c.word, len(m.alone), c.alone)
		}
		if c.text != "" && (!m.match([]byte(c.text)) || !m.first.std.MatchString(c.text)) {
			t.Errorf("/%s/ does not match %q", c.pattern, c.text)
		}
	}
	// With one literal branch, a text holding no other branch's string
	// is searched for that literal alone.
	m, err := compileRegex(`dead.?lock|race`, MatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for text, only := range map[string]bool{"a trace": true, "a trace and a deadlock": false, "dead race": false, "nothing": true} {
		if got := m.onlyBranch([]byte(text)) != nil; got != only {
			t.Errorf("onlyBranch(%q) = %v, want %v", text, got, only)
		}
	}
}

// compileTerm compiles one token. Invalid UTF-8 in a word or phrase is
// replaced by U+FFFD, which matches invalid bytes in the text as it does
// in regexp.
func compileTerm(text string, kind termKind, opt MatchOptions) (*Term, error) {
	return compileTermWith(text, kind, opt, false)
}
