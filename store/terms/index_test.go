package terms

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

func TestIndexFromMatchesBytesIndex(t *testing.T) {
	for _, tc := range []struct {
		text, needle string
		from         int
	}{
		{"DEADLINE\nLOCK\nDEADLOCK\n", "LOCK", 0},
		{"DEADLINE\nLOCK\nDEADLOCK\n", "LOCK", 10},
		{"DEADLINE\nLOCK\nDEADLOCK\n", "DEADLOCK", 0},
		{"DEADLINE\nLOCK\n", "DEADLOCK", 0},
		{"KKKK\n", "KK", 1},
		{"FIX\nPREFIX\nSUFFIXES\n", "FIX", 4},
		{"AB", "ABC", 0},
		{"ABC", "C", 2},
		{"XAXBXC", "X", 5},
		{"ÉCOLE\nECOLE\n", "ÉCO", 0},
		{"", "LOCK", 0},
	} {
		want := bytes.Index([]byte(tc.text[tc.from:]), []byte(tc.needle))
		if want >= 0 {
			want += tc.from
		}
		if got := indexFrom([]byte(tc.text), []byte(tc.needle), tc.from); got != want {
			t.Errorf("indexFrom(%q, %q, %d) = %d, want %d", tc.text, tc.needle, tc.from, got, want)
		}
	}
}

// TestIndexFromRandom compares indexFrom with bytes.Index on random texts
// over a small alphabet, where needles occur often and overlap.
func TestIndexFromRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const alphabet = "EKX\n_1"
	gen := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		return b
	}
	for range 20000 {
		text, needle := gen(r.IntN(40)), gen(1+r.IntN(4))
		from := r.IntN(len(text) + 1)
		want := bytes.Index(text[from:], needle)
		if want >= 0 {
			want += from
		}
		if got := indexFrom(text, needle, from); got != want {
			t.Fatalf("indexFrom(%q, %q, %d) = %d, want %d", text, needle, from, got, want)
		}
	}
}

// FuzzIndexFrom: indexFrom finds what bytes.Index finds.
func FuzzIndexFrom(f *testing.F) {
	f.Add([]byte("DEADLINE\nLOCK\nDEADLOCK\n"), []byte("LOCK"), 3)
	f.Add([]byte("KKKK"), []byte("KK"), 1)
	f.Fuzz(func(t *testing.T, text, needle []byte, from int) {
		if len(needle) == 0 || from < 0 || from > len(text) {
			return
		}
		want := bytes.Index(text[from:], needle)
		if want >= 0 {
			want += from
		}
		if got := indexFrom(text, needle, from); got != want {
			t.Fatalf("indexFrom(%q, %q, %d) = %d, want %d", text, needle, from, got, want)
		}
	})
}
