package textrules

import (
	"strings"
	"testing"
	"unicode"
)

// referenceIsAcknowledgement is IsAcknowledgement as it was written
// before it stopped allocating: strings.ToLower, a strings.Builder and a
// slice of the words.
func referenceIsAcknowledgement(text string) bool {
	if len(text) > MaxAckBytes {
		return false
	}
	var b strings.Builder
	space := false
	for _, r := range strings.ToLower(text) {
		switch {
		case r == '\'' || r == '’':
			b.WriteByte('\'')
			space = false
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			b.WriteRune(r)
			space = false
		default:
			space = true
		}
	}
	norm := b.String()
	if norm == "" {
		return false
	}
	if ackPhrases[norm] {
		return true
	}
	words := strings.Fields(norm)
	if len(words) > maxAckWords {
		return false
	}
	for _, w := range words {
		if !ackWords[strings.Trim(w, "'")] {
			return false
		}
	}
	return true
}

var ackSeeds = []string{
	"", "ok", "OK!", "ok thanks, continue", "Thank you", "yes yes yes yes yes yes yes",
	"yes yes yes yes yes yes", "it's fine", "’ok’", "Looks good to me.", "İ ok", "\xff ok",
	"ÖK", "go ahead please", "keep going", "thanks for the help", "no way", "ok\ttab\nnew",
	strings.Repeat("ok ", 21) + "o", "Ⱥ ok", "'", "1 2 3",
}

func TestAcknowledgementSeeds(t *testing.T) {
	for _, s := range ackSeeds {
		if got, want := IsAcknowledgement(s), referenceIsAcknowledgement(s); got != want {
			t.Errorf("IsAcknowledgement(%q) = %v, want %v", s, got, want)
		}
	}
	if !IsAcknowledgement("ok thanks, continue") || IsAcknowledgement("no way") {
		t.Error("the seeds' meaning changed")
	}
}

// FuzzIsAcknowledgement: the allocation-free check answers as the
// reference does for any text.
func FuzzIsAcknowledgement(f *testing.F) {
	for _, s := range ackSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := IsAcknowledgement(s), referenceIsAcknowledgement(s); got != want {
			t.Fatalf("IsAcknowledgement(%q) = %v, want %v", s, got, want)
		}
	})
}

func TestIsAcknowledgementAllocatesNothing(t *testing.T) {
	if n := testing.AllocsPerRun(100, func() { IsAcknowledgement("Ok, thanks! Continue please") }); n != 0 {
		t.Errorf("%v allocations per call", n)
	}
}
