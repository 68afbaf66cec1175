package redact

import (
	"cmp"
	"slices"
	"strings"
	"testing"

	"github.com/recall-dev/recall/redact/keywords"
	"github.com/recall-dev/recall/redact/redacttest"
)

// naiveHits is every occurrence of every keyword in text, ASCII case
// folded, found by comparing each keyword at each position.
func naiveHits(kws []string, text string) []keywords.Hit {
	var out []keywords.Hit
	for i := range len(text) {
		for id, k := range kws {
			if i+len(k) <= len(text) && asciiEqualFold(text[i:i+len(k)], k) {
				out = append(out, keywords.Hit{Keyword: int32(id), End: i + len(k)})
			}
		}
	}
	return out
}

// asciiEqualFold compares s with lower-case k, folding only ASCII letters
// (strings.EqualFold would also fold the Kelvin sign to k).
func asciiEqualFold(s, k string) bool {
	for i := 0; i < len(k); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != k[i] {
			return false
		}
	}
	return true
}

func sortHits(h []keywords.Hit) []keywords.Hit {
	slices.SortFunc(h, func(a, b keywords.Hit) int {
		return cmp.Or(cmp.Compare(a.End, b.End), cmp.Compare(a.Keyword, b.Keyword))
	})
	return h
}

// redactorKeywords lists r's keywords by id: New gives ids in the order
// it first meets them.
func redactorKeywords(r *Redactor) []string {
	var kws []string
	seen := map[string]bool{}
	for _, ru := range r.rules {
		for _, k := range ru.keywords {
			k = strings.ToLower(k)
			if !seen[k] {
				seen[k] = true
				kws = append(kws, k)
			}
		}
	}
	return kws
}

// prefilterTexts are texts of every length around the lanes' limits,
// with keywords across the lanes' borders.
func prefilterTexts() []string {
	var texts []string
	for _, sh := range redacttest.Shapes(3) {
		texts = append(texts, sh.Text)
	}
	base := "xx administrator_login_password PASSWORD s.abc -----BEGIN ey:// sk_test hvs. token TOKEN api-key "
	for n := 0; n <= 3*len(base); n += 7 {
		for k := 1; k <= 4; k++ {
			texts = append(texts, strings.Repeat(base, k)[:min(n, k*len(base))])
		}
	}
	for n := 200; n < 300; n++ {
		texts = append(texts, strings.Repeat("password", n/8+1)[:n], strings.Repeat("s.a", n/3+1)[:n])
	}
	return texts
}

func TestPrefilterFindsEveryKeyword(t *testing.T) {
	r := New()
	kws := redactorKeywords(r)
	var lanes [keywords.Lanes][]keywords.Hit
	for _, text := range prefilterTexts() {
		got := sortHits(r.pre.Scan(text, nil, &lanes))
		want := sortHits(naiveHits(kws, text))
		if !slices.Equal(got, want) {
			t.Fatalf("%q:\n got %v\nwant %v", text, got, want)
		}
	}
}

// FuzzPrefilter: the automaton, in lanes or not, finds exactly the
// keyword occurrences a comparison at every position finds.
func FuzzPrefilter(f *testing.F) {
	for _, text := range prefilterTexts() {
		f.Add(text)
	}
	r := New()
	kws := redactorKeywords(r)
	var lanes [keywords.Lanes][]keywords.Hit
	f.Fuzz(func(t *testing.T, text string) {
		got := sortHits(r.pre.Scan(text, nil, &lanes))
		want := sortHits(naiveHits(kws, text))
		if !slices.Equal(got, want) {
			t.Fatalf("%q:\n got %v\nwant %v", text, got, want)
		}
	})
}
