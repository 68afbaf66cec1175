package indexer

import (
	"fmt"
	"testing"
)

func TestBlockRecordRoundTrip(t *testing.T) {
	b := newBlockBuilder()
	rows := []Row{
		{Session: "s1", Project: "/p1", Type: TypeUser, Timestamp: "2026-03-01T10:00:00.000Z", Text: "How do we rotate the JWT signing key?"},
		{Session: "s2", Project: "/p2", Type: TypeTool, Timestamp: "2026-02-01T10:00:00.000Z", Text: "Edit: /src/pricing.ts"},
	}
	for i := range rows {
		b.add(&rows[i])
	}
	meta := finishBlock(&b, 100, 42)
	got, n, err := parseBlockRecord(meta.appendRecord(nil))
	if err != nil {
		t.Fatal(err)
	}
	if n != len(meta.appendRecord(nil)) || got.Offset != 100 || got.Size != 42 || got.Rows != 2 {
		t.Fatalf("fixed fields: %+v", got)
	}
	if got.MinTime >= got.MaxTime {
		t.Fatalf("time range not kept: %d..%d", got.MinTime, got.MaxTime)
	}
	tests := []struct {
		lit  string
		want bool
	}{
		{"jwt", true},
		{"SIGNING KEY", true},
		{"pricing.ts", true},
		{"rotate", true},
		{"zzqxj", false},
		{"kubernetes", false},
		{"ab", true},     // too short to rule anything out
		{"écoles", true}, // non-ASCII is never ruled out
	}
	for _, tt := range tests {
		if g := got.MayContainLiteral([]byte(tt.lit)); g != tt.want {
			t.Errorf("MayContainLiteral(%q) = %v, want %v", tt.lit, g, tt.want)
		}
	}
	if !got.MaySession("s1") || !got.MaySession("s2") {
		t.Error("session or project filter lost a member")
	}
	if !got.HasType(TypeUser) || !got.HasType(TypeTool) || got.HasType(TypeAgent) {
		t.Errorf("types = %b", got.Types)
	}
}

func TestBlockRecordDetectsCorruption(t *testing.T) {
	b := newBlockBuilder()
	b.add(&Row{Session: "s", Text: "some text here"})
	meta := finishBlock(&b, 0, 1)
	rec := meta.appendRecord(nil)
	for _, cut := range []int{0, 3, len(rec) - 1} {
		if _, _, err := parseBlockRecord(rec[:cut]); err == nil {
			t.Errorf("truncated record (%d of %d bytes) accepted", cut, len(rec))
		}
	}
	rec[10] ^= 0xFF
	if _, _, err := parseBlockRecord(rec); err == nil {
		t.Error("flipped byte accepted")
	}
}

// The trigram filter must never rule out a block that holds the literal,
// whatever its case: that would lose results.
func TestTrigramFilterHasNoFalseNegatives(t *testing.T) {
	b := newBlockBuilder()
	var words []string
	for i := range 2000 {
		w := fmt.Sprintf("Word%dX%d", i*7919%1000, i)
		words = append(words, w)
		b.add(&Row{Text: "prefix " + w + " suffix"})
	}
	b.add(&Row{Text: "\u212Aelvin and \u017Fome"})
	meta := finishBlock(&b, 0, 1)
	for _, w := range words {
		if !meta.MayContainLiteral([]byte(w)) {
			t.Fatalf("filter ruled out %q, which the block holds", w)
		}
	}
	for _, lit := range []string{"kelvin", "KELVIN", "some"} {
		if !meta.MayContainLiteral([]byte(lit)) {
			t.Errorf("filter ruled out %q, which folds from the block's text", lit)
		}
	}
}

// finishBlock closes a block as the encoder does, without compressing it.
func finishBlock(b *blockBuilder, offset, size int64) Block {
	p := b.take()
	tri := newTrigramSet()
	tri.addText(p.texts)
	p.meta.Trigrams = tri.bloomAndReset()
	p.meta.Offset, p.meta.Size = offset, size
	return p.meta
}
