package terms

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/recall-dev/recall/textrules"
)

// referencePostings encodes the posting offsets and postings sections the
// way the builder first did, one growing list per token appended to
// whenever the token's row changes: what the builder's entries, sorted
// into lists at encode, must reproduce byte for byte.
func referencePostings(rows []Row) (offsets, postings []byte) {
	type open struct {
		data           []byte
		prev, row      int
		hits, codeHits uint64
	}
	lists := map[string]*open{}
	flush := func(l *open) {
		delta := uint64(l.row - l.prev)
		if l.hits == 1 && l.codeHits == 0 {
			l.data = binary.AppendUvarint(l.data, delta<<1)
		} else {
			l.data = binary.AppendUvarint(l.data, delta<<1|1)
			l.data = binary.AppendUvarint(l.data, l.hits)
			l.data = binary.AppendUvarint(l.data, l.codeHits)
		}
		l.prev = l.row
	}
	var z textrules.Tokenizer
	for row := range rows {
		z.Each(rows[row].Text, func(tok []byte, inCode bool) {
			l := lists[string(tok)]
			if l == nil {
				l = &open{prev: -1, row: -1}
				lists[string(tok)] = l
			}
			if l.row != row {
				if l.row >= 0 {
					flush(l)
				}
				l.row, l.hits, l.codeHits = row, 0, 0
			}
			l.hits++
			if inCode {
				l.codeHits++
			}
		})
	}
	tokens := make([]string, 0, len(lists))
	for tok, l := range lists {
		flush(l)
		tokens = append(tokens, tok)
	}
	slices.Sort(tokens)
	for _, tok := range tokens {
		offsets = binary.LittleEndian.AppendUint32(offsets, uint32(len(postings)))
		postings = append(postings, lists[tok].data...)
	}
	return binary.LittleEndian.AppendUint32(offsets, uint32(len(postings))), postings
}

func checkPostingsSections(t *testing.T, rows []Row) {
	t.Helper()
	data := build(rows).encode(0, 1)
	h, err := decodeHeader(data, uint64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	wantOff, want := referencePostings(rows)
	if got := data[h.PostOff : h.PostOff+(h.Tokens+1)*4]; !bytes.Equal(got, wantOff) {
		t.Fatalf("posting offsets differ from the reference (%d tokens)", h.Tokens)
	}
	if got := data[h.PostingsOff : h.PostingsOff+h.PostingsLen]; !bytes.Equal(got, want) {
		t.Fatalf("postings differ from the reference: %d bytes, want %d", len(got), len(want))
	}
}

// TestPostingsMatchReference covers random rows (repeats, code spans,
// empty rows) and a vocabulary that grows the token table several times
// within one row, which moves the slots the row has touched.
func TestPostingsMatchReference(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	for round := range 30 {
		rows := make([]Row, r.IntN(80))
		for i := range rows {
			rows[i] = Row{Session: "s", Project: "p", Text: []byte(randomText(r))}
		}
		t.Run(fmt.Sprint("random", round), func(t *testing.T) { checkPostingsSections(t, rows) })
	}
	var big strings.Builder
	for i := range 70000 {
		fmt.Fprintf(&big, "w%d `c%d` ", i%50000, i%7)
	}
	rows := []Row{
		{Text: []byte("w1 w2 w2 `w3`")},
		{Text: []byte(big.String())},
		{},
		{Text: []byte("w49999 w1 " + strings.Repeat("x ", 300))},
		{Text: []byte(big.String()[:5000])},
	}
	checkPostingsSections(t, rows)
}

// TestPostingsAcrossChunks fills several entry chunks, with a row of more
// distinct tokens than a chunk holds, through a pool shared by builders
// one after another (as a run's segments share one): every segment's
// postings are the reference's.
func TestPostingsAcrossChunks(t *testing.T) {
	var huge strings.Builder
	for i := range entryChunk/3 + 1000 { // 3 entries a token: past a chunk
		fmt.Fprintf(&huge, "h%d h%d ", i, i)
	}
	r := rand.New(rand.NewPCG(1, 9))
	var rows []Row
	for i := range 4000 {
		var text strings.Builder
		for range 40 {
			fmt.Fprintf(&text, "t%d `c%d` ", r.IntN(3000), r.IntN(50))
		}
		rows = append(rows, Row{Text: []byte(text.String())})
		if i == 1500 {
			rows = append(rows, Row{Text: []byte(huge.String())}, Row{})
		}
	}
	pool := NewChunkPool()
	for round := range 3 {
		part := rows[round*1000:]
		b := NewBuilder()
		b.UseChunks(pool)
		for i := range part {
			b.Add(&part[i])
		}
		if round == 0 && len(b.entries) < 3 {
			t.Fatalf("%d entry chunks, want the rows to span at least 3", len(b.entries))
		}
		data := b.encode(0, 1)
		b.Release()
		h, err := decodeHeader(data, uint64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		wantOff, want := referencePostings(part)
		if !bytes.Equal(data[h.PostOff:h.PostOff+(h.Tokens+1)*4], wantOff) ||
			!bytes.Equal(data[h.PostingsOff:h.PostingsOff+h.PostingsLen], want) {
			t.Fatalf("round %d: postings differ from the reference", round)
		}
	}
	if len(pool.free) == 0 {
		t.Error("released chunks were not kept for the next builder")
	}
}

// TestTokensSharingTheirFirst16Bytes: a slot tells tokens apart by their
// first 16 bytes, and those of 16 bytes or more by their whole text.
func TestTokensSharingTheirFirst16Bytes(t *testing.T) {
	a15 := strings.Repeat("a", 15)
	words := []string{"a", a15[:8], a15[:9], a15, a15 + "a", a15 + "aa", a15 + "ab", a15 + "aab", a15 + "é", a15[:7] + "é", "x" + a15}
	r := rand.New(rand.NewPCG(5, 5))
	var rows []Row
	for range 300 {
		var text strings.Builder
		for range 1 + r.IntN(6) {
			text.WriteString(words[r.IntN(len(words))] + " ")
		}
		rows = append(rows, Row{Text: []byte(text.String())})
	}
	checkPostingsSections(t, rows)
	s, err := newSegment(Ref{Name: "x", First: 0, End: 1}, build(rows).encode(0, 1))
	if err != nil {
		t.Fatal(err)
	}
	if s.tokens() != len(words) {
		t.Fatalf("%d tokens, want %d", s.tokens(), len(words))
	}
}

// TestFindMatchesOnlyItsToken puts each token in the slot where another
// one's probe starts (the same hash), so find compares them: a token is
// found only as itself.
func TestFindMatchesOnlyItsToken(t *testing.T) {
	a15 := strings.Repeat("a", 15)
	words := []string{"a", "aa", a15[:8], a15[:9], a15, a15 + "a", a15 + "aa", a15 + "ab", a15 + "é", "x" + a15}
	for _, stored := range words {
		tbl := newTokenTable(16)
		p, s := tokenWords([]byte(stored))
		at, found := tbl.find(3, p, s, []byte(stored), nil)
		if found {
			t.Fatal("found in an empty table")
		}
		tokens := []string{stored}
		tbl.insert(at, tokenSlot{id: 1, prefix: p, suffix: s, row: -1}, tokens)
		for _, w := range words {
			wp, ws := tokenWords([]byte(w))
			if _, found := tbl.find(3, wp, ws, []byte(w), tokens); found != (w == stored) {
				t.Errorf("table holding %q: find(%q) found=%v", stored, w, found)
			}
		}
	}
}

// TestSortedTokenIDsIsByteOrder: sorting by the first eight bytes first
// gives the tokens' byte order, for tokens sharing those bytes, shorter
// ones, ones ending in a zero byte and ones past ASCII.
func TestSortedTokenIDsIsByteOrder(t *testing.T) {
	tokens := []string{"b", "abcdefgh", "abcdefghi", "abcdefgha", "abcdefg", "a", "abc\x00", "abc",
		"\xc3\xa9t\xc3\xa9", "\xff", "zz", "abcdefgh\x00", "", "ABCDEFGHIJ", "abcdefgi"}
	order := sortedTokenIDs(tokens)
	want := make([]int32, len(tokens))
	for i := range want {
		want[i] = int32(i)
	}
	slices.SortFunc(want, func(x, y int32) int { return strings.Compare(tokens[x], tokens[y]) })
	if !slices.Equal(order, want) {
		t.Fatalf("order %v, want %v", order, want)
	}
}

// TestUvarintLen checks the loop-free length against the encoding's own
// at every bit length's edges.
func TestUvarintLen(t *testing.T) {
	for bit := range 64 {
		for _, v := range []uint64{1<<bit - 1, 1 << bit, 1<<bit + 1, ^uint64(0) >> bit} {
			if got, want := uvarintLen(v), len(binary.AppendUvarint(nil, v)); got != want {
				t.Fatalf("uvarintLen(%d) = %d, want %d", v, got, want)
			}
			post := make([]byte, 10)
			if n := putUvarint(post, 0, v); !bytes.Equal(post[:n], binary.AppendUvarint(nil, v)) {
				t.Fatalf("putUvarint(%d) wrote %x", v, post[:n])
			}
		}
	}
}

// TestQueuedWordsOfEveryLength covers the builder's queue of words whose
// slots it prefetches: words of 1 to 40 bytes (a word of up to 16 is kept
// as its two words, a longer one as a copy), in rows of more words than
// the queue holds, with the table growing while a full queue is counted.
// Vocabulary and postings must be the reference's.
func TestQueuedWordsOfEveryLength(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	word := func() string {
		n := 1 + r.IntN(40)
		b := make([]byte, n)
		for i := range b {
			b[i] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"[r.IntN(3)+r.IntN(2)*20]
		}
		return string(b)
	}
	var rows []Row
	for range 40 {
		var text strings.Builder
		for j := range r.IntN(3 * maxPending) {
			if j%17 == 0 {
				text.WriteString("`")
			}
			fmt.Fprintf(&text, "%s %s%d ", word(), word(), r.IntN(20000))
		}
		rows = append(rows, Row{Text: []byte(text.String())})
	}
	checkPostingsSections(t, rows)
	data := build(rows).encode(0, 1)
	h, err := decodeHeader(data, uint64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	var z textrules.Tokenizer
	for _, row := range rows {
		z.Each(row.Text, func(tok []byte, _ bool) { seen[string(tok)] = true })
	}
	var want []byte
	for _, tok := range slices.Sorted(maps.Keys(seen)) {
		want = append(append(want, tok...), '\n')
	}
	if got := data[h.VocabOff : h.VocabOff+h.VocabLen]; !bytes.Equal(got, want) {
		t.Fatalf("vocabulary differs from the reference: %d bytes, want %d", len(got), len(want))
	}
}

// TestTokenTablePool: a released builder's token table goes to the next
// builder of its pool (the same array, cleared), at most maxFreeTables
// are kept, none larger than maxPooledTable, and builders on one pool
// at once each take a table of their own.
func TestTokenTablePool(t *testing.T) {
	pool := NewChunkPool()
	a := NewBuilder()
	a.UseChunks(pool)
	a.Add(&Row{Text: []byte("alpha beta gamma")})
	table := a.ids.slots
	a.Release()
	b := NewBuilder()
	b.UseChunks(pool)
	if &b.ids.slots[0] != &table[0] {
		t.Fatal("the next builder did not take the released table")
	}
	for i, s := range b.ids.slots {
		if s != (tokenSlot{}) {
			t.Fatalf("slot %d of the pooled table holds %+v, want it cleared", i, s)
		}
	}
	c := NewBuilder()
	c.UseChunks(pool)
	if &c.ids.slots[0] == &b.ids.slots[0] {
		t.Fatal("two builders on one pool share a table")
	}
	b.Release()
	c.Release()
	pool.putTable(make([]tokenSlot, 1<<10))
	if len(pool.tables) != maxFreeTables {
		t.Errorf("the pool keeps %d tables, want at most %d", len(pool.tables), maxFreeTables)
	}
	pool.tables = nil
	pool.putTable(make([]tokenSlot, 2*maxPooledTable))
	if len(pool.tables) != 0 {
		t.Error("the pool kept a table larger than maxPooledTable")
	}
	d := NewBuilder()
	d.Add(&Row{Text: []byte("delta")})
	defer func() {
		if recover() == nil {
			t.Error("UseChunks after Add did not panic")
		}
	}()
	d.UseChunks(pool)
}
