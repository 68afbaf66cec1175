package rank

import (
	"math"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// highlighted returns the highlighted parts of a snippet.
func highlighted(s Snippet) []string {
	var out []string
	for _, h := range s.Highlights {
		out = append(out, s.Text[h.Start:h.End])
	}
	return out
}

func TestMakeSnippet(t *testing.T) {
	long := filler(1, 60) // 359 bytes of five-letter words
	tests := []struct {
		name        string
		text        string
		terms       []string
		width       int
		want        string   // the snippet text
		highlights  []string // the highlighted words
		elidedStart bool
		elidedEnd   bool
	}{
		{
			name: "short text is whole", text: "fix the JWT refresh", terms: []string{"jwt"}, width: 40,
			want: "fix the JWT refresh", highlights: []string{"JWT"},
		},
		{
			name: "whitespace and newlines collapse", text: "  fix\n\n  the\tJWT   refresh\n", terms: []string{"jwt", "refresh"}, width: 40,
			want: "fix the JWT refresh", highlights: []string{"JWT", "refresh"},
		},
		{
			name: "no hits shows the start", text: "alpha beta gamma delta epsilon", terms: nil, width: 12,
			want: "alpha beta", elidedEnd: true,
		},
		{
			name: "window centred on a hit in the middle", text: long + " the chrome devtools panel " + long, terms: []string{"chrome"}, width: 30,
			want: "noble the chrome devtools", highlights: []string{"chrome"}, elidedStart: true, elidedEnd: true,
		},
		{
			name: "hit at the very end", text: long + " chrome", terms: []string{"chrome"}, width: 20,
			want: "fable noble chrome", highlights: []string{"chrome"}, elidedStart: true,
		},
		{
			name: "huge width", text: "a\tb chrome", terms: []string{"chrome"}, width: math.MaxInt,
			want: "a b chrome", highlights: []string{"chrome"},
		},
		{
			name: "overlapping hits merge", text: "edit pricing.ts now", terms: []string{"pricing", "pricing.ts"}, width: 40,
			want: "edit pricing.ts now", highlights: []string{"pricing.ts"},
		},
		{
			name: "hit longer than the window is cut", text: "see " + strings.Repeat("x", 50) + " end", terms: []string{strings.Repeat("x", 50)}, width: 10,
			want: strings.Repeat("x", 10), highlights: []string{strings.Repeat("x", 10)}, elidedStart: true, elidedEnd: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := MakeSnippet(tt.text, findHits(tt.text, tt.terms), tt.width)
			if s.Text != tt.want {
				t.Errorf("text %q, want %q", s.Text, tt.want)
			}
			if got := highlighted(s); strings.Join(got, "|") != strings.Join(tt.highlights, "|") {
				t.Errorf("highlights %q, want %q", got, tt.highlights)
			}
			if s.ElidedStart != tt.elidedStart || s.ElidedEnd != tt.elidedEnd {
				t.Errorf("elided start %v end %v, want %v %v", s.ElidedStart, s.ElidedEnd, tt.elidedStart, tt.elidedEnd)
			}
			if n := utf8.RuneCountInString(s.Text); n > tt.width {
				t.Errorf("%d runes, width %d", n, tt.width)
			}
		})
	}
}

// TestMakeSnippet_StrongestCluster: the window goes where the most
// distinct terms are, not to the first hit.
func TestMakeSnippet_StrongestCluster(t *testing.T) {
	text := "chrome " + filler(2, 40) + " then chrome devtools together " + filler(3, 40) + " chrome chrome"
	s := MakeSnippet(text, findHits(text, []string{"chrome", "devtools"}), 40)
	if got := highlighted(s); strings.Join(got, " ") != "chrome devtools" {
		t.Errorf("snippet %q highlights %q, want the chrome devtools cluster", s.Text, got)
	}
}

// TestMakeSnippet_WidthRespected checks the width over many widths and hit
// positions.
func TestMakeSnippet_WidthRespected(t *testing.T) {
	text := strings.Repeat("naïve café — 日本語のテキスト chrome\n", 20)
	hits := findHits(text, []string{"chrome", "café"})
	for width := 1; width <= 120; width++ {
		for _, h := range [][]Hit{nil, hits, hits[len(hits)/2:], hits[len(hits)-1:]} {
			s := MakeSnippet(text, h, width)
			if n := utf8.RuneCountInString(s.Text); n > width || n == 0 {
				t.Fatalf("width %d: %d runes: %q", width, n, s.Text)
			}
			checkSnippet(t, s)
		}
	}
}

// TestMakeSnippet_UTF8 checks that multi-byte runes are never split and
// highlights point at the matched words.
func TestMakeSnippet_UTF8(t *testing.T) {
	text := "日本語の説明: Größe ändern mit `resize()` — très bien 🙂 ok"
	tests := []struct {
		term  string
		width int
	}{
		{"Größe", 10}, {"ändern", 7}, {"très", 5}, {"🙂", 3}, {"説明", 4}, {"resize", 12},
	}
	for _, tt := range tests {
		t.Run(tt.term, func(t *testing.T) {
			s := MakeSnippet(text, findHits(text, []string{tt.term}), tt.width)
			checkSnippet(t, s)
			if got := highlighted(s); len(got) != 1 || got[0] != tt.term {
				t.Errorf("snippet %q highlights %q, want %q", s.Text, got, tt.term)
			}
		})
	}
	t.Run("hit edges inside a rune widen to the rune", func(t *testing.T) {
		text := "x 日本 y"
		s := MakeSnippet(text, []Hit{{Term: 0, Start: 3, End: 6}}, 20) // middle of 日 to middle of 本
		if got := highlighted(s); len(got) != 1 || got[0] != "日本" {
			t.Errorf("highlights %q, want [日本]", got)
		}
	})
	t.Run("invalid UTF-8 becomes U+FFFD", func(t *testing.T) {
		s := MakeSnippet("ab\xffcd", []Hit{{Term: 0, Start: 3, End: 5}}, 20)
		if s.Text != "ab\uFFFDcd" || strings.Join(highlighted(s), "") != "cd" {
			t.Errorf("text %q highlights %q", s.Text, highlighted(s))
		}
	})
}

// checkSnippet asserts what must hold for every snippet.
func checkSnippet(t *testing.T, s Snippet) {
	t.Helper()
	if !utf8.ValidString(s.Text) {
		t.Fatalf("invalid UTF-8: %q", s.Text)
	}
	if strings.ContainsAny(s.Text, "\n\t\r") || strings.Contains(s.Text, "  ") ||
		strings.HasPrefix(s.Text, " ") || strings.HasSuffix(s.Text, " ") {
		t.Fatalf("whitespace not collapsed: %q", s.Text)
	}
	end := 0
	for _, h := range s.Highlights {
		if h.Start < end || h.End <= h.Start || h.End > len(s.Text) {
			t.Fatalf("highlight %v out of order or bounds in %q (%v)", h, s.Text, s.Highlights)
		}
		if !utf8.ValidString(s.Text[h.Start:h.End]) {
			t.Fatalf("highlight %v splits a rune in %q", h, s.Text)
		}
		end = h.End
	}
}

// fuzzHits turns fuzz bytes into hits, three bytes each: start, length
// and term. Starts spread over the text and a little past both ends, and
// some lengths are zero or negative, so that bad hits are exercised too.
func fuzzHits(text string, spec []byte) []Hit {
	var hits []Hit
	for i := 0; i+2 < len(spec); i += 3 {
		start := int(spec[i])*(len(text)+8)/255 - 4
		end := start + int(spec[i+1]%40) - 4
		hits = append(hits, Hit{Term: int(spec[i+2]) - 8, Start: start, End: end})
	}
	return hits
}

func FuzzMakeSnippet(f *testing.F) {
	f.Add("fix the JWT refresh token", []byte{80, 7, 9, 110, 11, 10}, 20)
	f.Add("日本語の説明\n\n  Größe", []byte{30, 8, 8, 200, 9, 9}, 5)
	f.Add("ab\xffcd \t\n", []byte{0, 30, 8}, 1)
	f.Add("", []byte{}, 0)
	f.Add("| a | b |\n|---|---|\n| | c |\n", []byte{10, 4, 8}, 7)
	f.Add("Bash: git add x && git commit", []byte{200, 6, 8}, 14)
	f.Fuzz(func(t *testing.T, text string, spec []byte, width int) {
		if ts := MakeToolSnippet(text, fuzzHits(text, spec), width); ts.Label != "" {
			checkSnippet(t, ts)
		}
		s := MakeSnippet(text, fuzzHits(text, spec), width)
		checkSnippet(t, s)
		if width <= 0 {
			width = DefaultSnippetWidth
		}
		if n := utf8.RuneCountInString(s.Text); n > width {
			t.Fatalf("%d runes, width %d", n, width)
		}
	})
}

// FuzzScoreMessage: any message and hits, valid or not, give a finite,
// non-negative score.
func FuzzScoreMessage(f *testing.F) {
	f.Add("the `chrome` devtools panel", []byte{20, 10, 8, 100, 12, 9}, "assistant")
	f.Add("ok thanks", []byte{140, 10, 8}, "user")
	f.Fuzz(func(t *testing.T, text string, spec []byte, typ string) {
		q := Query{Terms: []string{"a", "b", "c"}, DocFreq: []int{1, 10, 100}, TotalDocs: 1000, AvgLen: 50}
		m := Message{Type: typ, Text: text, Hits: fuzzHits(text, spec)}
		score, _ := ScoreMessage(&m, &q)
		if math.IsNaN(score) || math.IsInf(score, 0) || score < 0 {
			t.Fatalf("score %v", score)
		}
	})
}

// Markdown tables read as text: no delimiter rows, no outer pipes, no
// empty cells, rows apart.
func TestMakeSnippet_Tables(t *testing.T) {
	tests := []struct{ name, text, want string }{
		{"table", "Options:\n| flag | what |\n|------|:----:|\n| -n | sessions |\n| -m | messages |\n",
			"Options: flag | what · -n | sessions · -m | messages"},
		{"empty header cells", "| | |\n|------|------|\n| a | b |", "a | b"},
		{"empty cell inside", "| a | | c |\n| d | e | f |", "a | c · d | e | f"},
		{"delimiter without outer pipes", "a | b\n---|---\n1 | 2", "a | b 1 | 2"},
		{"a shell pipe is not a table", "run\n| grep x\nls | wc -l", "run | grep x ls | wc -l"},
		{"one pipe line is text", "x\n|", "x |"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := MakeSnippet(tt.text, nil, 200)
			if s.Text != tt.want {
				t.Errorf("snippet %q, want %q", s.Text, tt.want)
			}
			checkSnippet(t, s)
		})
	}
	text := "| name | value |\n|---|---|\n| jwt | secret |"
	s := MakeSnippet(text, findHits(text, []string{"secret"}), 200)
	if got := highlighted(s); len(got) != 1 || got[0] != "secret" {
		t.Errorf("highlights in a table %q: %q", s.Text, got)
	}
}

// A tool row keeps its tool's name when the window starts after it.
func TestMakeToolSnippet(t *testing.T) {
	long := "Bash: git add data/articles/ " + strings.Repeat("data/more/file.md ", 20) + "&& git commit -m 'articles'"
	tests := []struct {
		name, text string
		terms      []string
		width      int
		want       string // String()
	}{
		{"name kept", long, []string{"commit"}, 60, "Bash: …data/more/file.md && git commit -m 'articles'"},
		{"short row is whole", "Edit: /src/pricing.ts", []string{"pricing"}, 60, "Edit: /src/pricing.ts"},
		{"no label", "no tool name here " + strings.Repeat("x ", 60) + "commit", []string{"commit"}, 20, "…x x x x x x x commit"},
		{"too narrow for a label", long, []string{"commit"}, 16, "…git commit -m…"},
		{"mcp tool", "mcp__recall__search: " + strings.Repeat("w ", 50) + "jwt auth", []string{"jwt"}, 40, "mcp__recall__search: …w w w w w jwt auth"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := MakeToolSnippet(tt.text, findHits(tt.text, tt.terms), tt.width)
			if got := s.String(); got != tt.want {
				t.Errorf("snippet %q, want %q", got, tt.want)
			}
			if n := utf8.RuneCountInString(s.Label) + 1 + utf8.RuneCountInString(s.Text); s.Label != "" && n > tt.width {
				t.Errorf("label and text take %d runes, width %d", n, tt.width)
			}
			checkSnippet(t, s)
			for _, h := range highlighted(s) {
				if !slices.ContainsFunc(tt.terms, func(term string) bool { return strings.EqualFold(term, h) }) {
					t.Errorf("highlight %q is not a term", h)
				}
			}
		})
	}
}
