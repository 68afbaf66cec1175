package textrules

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"testing"
	"unicode/utf8"
)

// referenceEachSpan is the tokenizer as first written, one byte or rune
// at a time with an append per byte: the definition EachSpan's faster
// loop must match.
func referenceEachSpan(text []byte, fn func(tok []byte, start, end int, inCode bool)) {
	var spans []Span
	if bytes.IndexByte(text, '`') >= 0 || bytes.Contains(text, []byte("~~~")) {
		spans = CodeSpans(string(text))
	}
	span, start := 0, -1
	var tok []byte
	emit := func(end int) {
		for span < len(spans) && spans[span].End <= start {
			span++
		}
		fn(tok, start, end, span < len(spans) && spans[span].Start <= start)
		tok, start = tok[:0], -1
	}
	for i := 0; i < len(text); {
		r, size := rune(text[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRune(text[i:])
		}
		if IsWordRune(r) {
			if start < 0 {
				start = i
			}
			tok = utf8.AppendRune(tok, CanonicalFold(r))
		} else if start >= 0 {
			emit(i)
		}
		i += size
	}
	if start >= 0 {
		emit(len(text))
	}
}

// spansOf lists what a tokenizer gives for text, one line per token.
func spansOf(each func([]byte, func([]byte, int, int, bool)), text []byte) []string {
	var out []string
	each(text, func(tok []byte, start, end int, inCode bool) {
		out = append(out, fmt.Sprintf("%q %d %d %v", tok, start, end, inCode))
	})
	return out
}

func checkSameTokens(t *testing.T, z *Tokenizer, text []byte) {
	t.Helper()
	got := spansOf(z.EachSpan, text)
	want := spansOf(referenceEachSpan, text)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("EachSpan(%q):\n got %v\nwant %v", text, got, want)
	}
}

func TestEachSpanMatchesReference(t *testing.T) {
	var z Tokenizer // reused across texts, as the builder does
	for _, text := range []string{
		"",
		"a",
		"  Hello, World!  ",
		"fix `go test ./...` now",
		"```go\nfunc main() {}\n```\nafter",
		"~~~\ncode\n~~~ text",
		"češtiny ΣΊΣΥΦΟΣ ſtraße Kelvin \u212a and İstanbul",
		"snake_case_word 12345 x1y2",
		"invalid \xff\xfe utf8 \xe2\x82 cut",
		"日本語のテキスト、句読点。",
		"emoji 🙂 between words",
		"trailing word",
		// Words of eight bytes and more, ending on and across the
		// word-at-a-time fold's eight-byte steps, before a non-ASCII
		// byte, a NUL and the text's end.
		"abcdefgh abcdefghi ABCDEFGHIJKLMNOP_0123456789abcdefghijklmnopqrstuvwxyz",
		"abcdefghé abcdefgħijk lowercase\x00NUL x1234567-y12345678.z0123456789012345",
		"stop at the end ofalongwordhere",
	} {
		checkSameTokens(t, &z, []byte(text))
	}
}

// TestFoldNeverLonger is what lets EachSpan write folded tokens into a
// buffer the size of the text: no word character folds to a longer
// encoding.
func TestFoldNeverLonger(t *testing.T) {
	for r := rune(0); r <= utf8.MaxRune; r++ {
		if !utf8.ValidRune(r) || !IsWordRune(r) {
			continue
		}
		if f := CanonicalFold(r); utf8.RuneLen(f) > utf8.RuneLen(r) {
			t.Fatalf("CanonicalFold(%U) = %U is longer in UTF-8", r, f)
		}
	}
}

func FuzzEachSpan(f *testing.F) {
	for _, s := range []string{"Hello, World", "a `b` c", "ſ\u212a ÅÆ", "\xff\xfe", "x~~~y\n~~~",
		// Eight-byte steps: a non-ASCII byte inside, after and at the
		// start of a word, and words ending in the text's last bytes.
		"abcdefghijkl_mnoé wordsñ ÅBCDEFGHIJ 0123456789", "tail", "a b c d e f g h i", "x\xc3"} {
		f.Add([]byte(s))
	}
	var z Tokenizer
	f.Fuzz(func(t *testing.T, text []byte) {
		checkSameTokens(t, &z, text)
	})
}

// TestFoldASCII8MatchesTable checks the word-at-a-time fold against
// asciiFold for every ASCII byte in every position of the word, among
// neighbours that are word bytes and neighbours that are not.
func TestFoldASCII8MatchesTable(t *testing.T) {
	for _, fill := range []byte{'a', 'Z', '_', '5', ' ', '`', '@', 0, 0x7f} {
		for pos := range 8 {
			for c := range byte(utf8.RuneSelf) {
				var in [8]byte
				for j := range in {
					in[j] = fill
				}
				in[pos] = c
				f, word := foldASCII8(binary.LittleEndian.Uint64(in[:]))
				for j := range in {
					fb, isWord := byte(f>>(8*j)), word>>(8*j)&0x80 != 0
					if isWord != (asciiFold[in[j]] != 0) || isWord && fb != asciiFold[in[j]] {
						t.Fatalf("foldASCII8(%q) byte %d: %q word %v, want %q", in[:], j, fb, isWord, asciiFold[in[j]])
					}
				}
			}
		}
	}
}

// FuzzFoldASCII8 checks the word-at-a-time fold of any eight ASCII
// bytes against asciiFold.
func FuzzFoldASCII8(f *testing.F) {
	f.Add(uint64(0x4142615f7a5b3039))
	f.Add(uint64(0x2020202020202020))
	f.Fuzz(func(t *testing.T, w uint64) {
		w &^= highBits
		folded, word := foldASCII8(w)
		for j := range 8 {
			c, fb, isWord := byte(w>>(8*j)), byte(folded>>(8*j)), word>>(8*j)&0x80 != 0
			if isWord != (asciiFold[c] != 0) || isWord && fb != asciiFold[c] {
				t.Fatalf("foldASCII8(%#x) byte %d (%q): %q word %v", w, j, c, fb, isWord)
			}
		}
		if word&^highBits != 0 {
			t.Fatalf("foldASCII8(%#x): word mask %#x has bits other than the high ones", w, word)
		}
	})
}

// BenchmarkEachSpanRealRows measures the tokenizer over the texts of
// real rows (RECALL_BENCH_ROWS or make bench's bench-data/rows-1GB.tsv;
// its first 16 MiB, texts not unescaped).
func BenchmarkEachSpanRealRows(b *testing.B) {
	path := os.Getenv("RECALL_BENCH_ROWS")
	if path == "" {
		path = "../bench-data/rows-1GB.tsv" // make bench writes it
	}
	f, err := os.Open(path)
	if err != nil {
		b.Skipf("no rows to benchmark on: %v", err)
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, 16<<20))
	if err != nil {
		b.Fatal(err)
	}
	var texts [][]byte
	var size int64
	for line := range bytes.Lines(raw) {
		if cols := bytes.SplitN(line, []byte{'\t'}, 5); len(cols) == 5 {
			texts = append(texts, cols[3])
			size += int64(len(cols[3]))
		}
	}
	b.SetBytes(size)
	var z Tokenizer
	n := 0
	b.ResetTimer()
	for range b.N {
		for _, text := range texts {
			z.EachSpan(text, func(tok []byte, _, _ int, _ bool) { n += len(tok) })
		}
	}
	if n == 0 {
		b.Fatal("no tokens")
	}
}
