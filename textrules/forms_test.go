package textrules

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestAccentFold(t *testing.T) {
	tests := []struct{ in, want string }{
		{"češtiny", "CESTINY"},
		{"ČEŠTINY", "CESTINY"},
		{"cestiny", "CESTINY"},
		{"café naïve", "CAFE NAIVE"},
		{"ệ", "E"},      // two marks
		{"øłß", "ØŁß"},  // no decomposition: kept (case-folded)
		{"한국", "한국"},    // Hangul decomposes into letters, not marks
		{"\u212A", "K"}, // Kelvin sign: case folding
		{"Straße", "STRAßE"},
	}
	for _, tt := range tests {
		got := string(AppendAccentFolded(nil, []byte(tt.in)))
		if got != tt.want {
			t.Errorf("AppendAccentFolded(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// Folding is stable: folding a folded rune, or a case-folded one, gives
// the same rune, so tokens (stored case-folded) and text fold alike.
func TestAccentFoldKeepsTokens(t *testing.T) {
	for r := rune(0); r <= utf8.MaxRune; r++ {
		if !utf8.ValidRune(r) {
			continue
		}
		a := AccentFold(r)
		if AccentFold(a) != a || AccentFold(CanonicalFold(r)) != a {
			t.Fatalf("AccentFold(%U) = %U is not stable", r, a)
		}
		if IsAccented(r) != (a != CanonicalFold(r) && r >= utf8.RuneSelf) {
			t.Fatalf("IsAccented(%U) disagrees", r)
		}
	}
}

func TestStemKey(t *testing.T) {
	tests := []struct {
		word, key string
		ok        bool
	}{
		{"translated", "TRANSLAT", true},
		{"Translate", "TRANSLAT", true},
		{"TRANSLATION", "TRANSLAT", true},
		{"articles", "ARTICL", true},
		{"article", "ARTICL", true},
		{"painted", "PAINT", true},
		{"painting", "PAINT", true},
		{"pets", "PET", true},
		{"cafés", "", false}, // accents: the accent channel's
		{"pět", "", false},
		{"go", "", false}, // too short
		{"v2", "", false}, // a digit
		{"snake_case", "", false},
		{"články", "", false}, // accents fold, but ľ-like letters are not ASCII: here all fold; see below
		{strings.Repeat("a", 41), "", false},
	}
	for _, tt := range tests {
		key, ok := StemKey([]byte(tt.word))
		if key != tt.key || ok != tt.ok {
			t.Errorf("StemKey(%q) = %q, %v; want %q, %v", tt.word, key, ok, tt.key, tt.ok)
		}
	}
}

// MayHaveStemKey only rules out words StemKey has no key for: on every
// StemKey case, a few edge words, and fuzzed input (FuzzMayHaveStemKey).
func TestMayHaveStemKey(t *testing.T) {
	tests := []struct {
		word string
		may  bool
	}{
		{"TRANSLATED", true},
		{"pets", true},
		{"go", false},
		{"v2", false},
		{"snake_case", false},
		{"0XDEADBEEF", false},
		{strings.Repeat("A", 40), true},
		{strings.Repeat("A", 41), false},
		{"\u212Aelvin", true}, // the Kelvin sign folds to k: StemKey decides
		{"caf\u00e9", true},   // non-ASCII: StemKey decides
	}
	for _, tt := range tests {
		if got := MayHaveStemKey(tt.word); got != tt.may {
			t.Errorf("MayHaveStemKey(%q) = %v, want %v", tt.word, got, tt.may)
		}
		checkMayHaveStemKey(t, tt.word)
	}
	for _, w := range fingerprintStemWords {
		checkMayHaveStemKey(t, w)
		checkMayHaveStemKey(t, strings.ToUpper(w))
	}
}

func FuzzMayHaveStemKey(f *testing.F) {
	for _, w := range []string{"pets", "v2", "\u212Aelvin", "snake_case", strings.Repeat("a", 41)} {
		f.Add(w)
	}
	f.Fuzz(func(t *testing.T, word string) { checkMayHaveStemKey(t, word) })
}

func checkMayHaveStemKey(t *testing.T, word string) {
	t.Helper()
	if _, ok := StemKey([]byte(word)); ok && !MayHaveStemKey(word) {
		t.Errorf("MayHaveStemKey(%q) is false but StemKey has a key", word)
	}
}

// The word-form channel relies on every form of a key starting with
// FormPrefix(key), accents folded (see FormPrefix); the channel's
// definition enforces it, and this checks the stemmer mostly agrees.
func TestFormPrefixHoldsForRegularWords(t *testing.T) {
	for _, w := range fingerprintStemWords {
		key, ok := StemKey([]byte(w))
		if !ok || w == "dying" || w == "lying" || w == "tying" {
			continue
		}
		folded := string(AppendAccentFolded(nil, []byte(w)))
		if !strings.HasPrefix(folded, FormPrefix(key)) {
			t.Errorf("%q (key %s) does not start with %q", w, key, FormPrefix(key))
		}
	}
}

func TestEachSpanPositions(t *testing.T) {
	text := "Přeložené `code_x` ok"
	var z Tokenizer
	var got []string
	z.EachSpan([]byte(text), func(tok []byte, start, end int, inCode bool) {
		if string(AppendAccentFolded(nil, []byte(text[start:end]))) != string(AppendAccentFolded(nil, tok)) {
			t.Errorf("span %q does not hold token %q", text[start:end], tok)
		}
		got = append(got, text[start:end])
	})
	if strings.Join(got, "|") != "Přeložené|code_x|ok" {
		t.Errorf("spans %q", got)
	}
}
