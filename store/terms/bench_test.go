package terms

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// benchTexts returns message-like texts: prose with identifiers, numbers
// and an inline code span, from a vocabulary of a few thousand words.
func benchTexts(n int) [][]byte {
	r := rand.New(rand.NewPCG(1, 2))
	words := make([]string, 3000)
	for i := range words {
		words[i] = fmt.Sprintf("%s%d", []string{"error", "handler", "cache", "Mutex", "sched", "token"}[i%6], i)
	}
	texts := make([][]byte, n)
	for i := range texts {
		var b strings.Builder
		for j := range 60 {
			if j == 30 {
				b.WriteString("`go test ./...` ")
			}
			b.WriteString(words[r.IntN(len(words))])
			b.WriteByte(' ')
		}
		texts[i] = []byte(b.String())
	}
	return texts
}

// BenchmarkBuilderAdd measures tokenizing and posting one message, the
// term index's share of indexing.
func BenchmarkBuilderAdd(b *testing.B) {
	texts := benchTexts(4096)
	var bytes int64
	for _, t := range texts {
		bytes += int64(len(t))
	}
	b.SetBytes(bytes / int64(len(texts)))
	builder := NewBuilder()
	b.ResetTimer()
	for i := range b.N {
		if i%len(texts) == 0 && i > 0 {
			builder = NewBuilder()
		}
		builder.Add(&Row{Type: TypeAssistant, Session: "s", Project: "/p", Text: texts[i%len(texts)]})
	}
}

// BenchmarkFindTokens measures the substring search of one word over a
// segment's vocabulary, which every search does once per segment.
func BenchmarkFindTokens(b *testing.B) {
	builder := NewBuilder()
	for _, t := range benchTexts(4096) {
		builder.Add(&Row{Type: TypeAssistant, Session: "s", Project: "/p", Text: t})
	}
	data := builder.encode(0, 1)
	seg, err := newSegment(Ref{Name: "bench", First: 0, End: 1}, data)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(seg.vocab)))
	b.ResetTimer()
	for range b.N {
		found := 0
		seg.FindTokens("ERROR1", false, func(id, times int) { found++ })
		if found == 0 {
			b.Fatal("no token found")
		}
	}
}

// BenchmarkEncode measures encoding one segment's worth of rows: sorting
// the vocabulary, the postings and the channels.
func BenchmarkEncode(b *testing.B) {
	builder := NewBuilder()
	for _, t := range benchTexts(16384) {
		builder.Add(&Row{Type: TypeAssistant, Session: "s", Project: "/p", Text: t})
	}
	b.ResetTimer()
	for range b.N {
		builder.encode(0, 1)
	}
}
