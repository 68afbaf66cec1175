package terms

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"github.com/recall-dev/recall/textrules"
)

// refToken is one token occurrence as the reference tokenizer sees it.
type refToken struct {
	tok    string
	inCode bool
}

// refTokens is a plain re-statement of the tokenizer's contract: maximal
// runs of textrules.IsWordRune characters (invalid UTF-8 is not a word
// character), each rune folded with textrules.CanonicalFold, in code when
// the run starts inside a span of textrules.CodeSpans.
func refTokens(text string) []refToken {
	spans := textrules.CodeSpans(text)
	inCode := func(at int) bool {
		for _, s := range spans {
			if s.Start <= at && at < s.End {
				return true
			}
		}
		return false
	}
	var out []refToken
	var cur strings.Builder
	start := -1
	flush := func() {
		if start >= 0 {
			out = append(out, refToken{cur.String(), inCode(start)})
		}
		cur.Reset()
		start = -1
	}
	for i, r := range text { // invalid bytes decode as U+FFFD, not a word rune
		if !textrules.IsWordRune(r) {
			flush()
			continue
		}
		if start < 0 {
			start = i
		}
		cur.WriteRune(textrules.CanonicalFold(r))
	}
	flush()
	return out
}

func collectTokens(text string) []refToken {
	var z textrules.Tokenizer
	var out []refToken
	z.Each([]byte(text), func(tok []byte, inCode bool) {
		out = append(out, refToken{string(tok), inCode})
	})
	return out
}

func TestTokenizer(t *testing.T) {
	type tk = refToken
	tests := []struct {
		name string
		text string
		want []refToken
	}{
		{"empty", "", nil},
		{"only punctuation", "... --- !!! ?", nil},
		{"ascii upper-cased", "Hello, world", []tk{{"HELLO", false}, {"WORLD", false}}},
		{"digits", "v2 3.14 2026-04-01", []tk{{"V2", false}, {"3", false}, {"14", false}, {"2026", false}, {"04", false}, {"01", false}}},
		{"underscore is a word character", "snake_case _x __init__", []tk{{"SNAKE_CASE", false}, {"_X", false}, {"__INIT__", false}}},
		{"punctuation splits", "pricing.ts don't foo-bar a/b(c)", []tk{{"PRICING", false}, {"TS", false}, {"DON", false}, {"T", false}, {"FOO", false}, {"BAR", false}, {"A", false}, {"B", false}, {"C", false}}},
		{"whitespace splits", "a\tb\nc\r\nd", []tk{{"A", false}, {"B", false}, {"C", false}, {"D", false}}},
		{"unicode letters fold together", "École école ÉCOLE", []tk{{"ÉCOLE", false}, {"ÉCOLE", false}, {"ÉCOLE", false}}},
		{"kelvin sign folds with k", "\u212Aelvin kelvin KELVIN", []tk{{"KELVIN", false}, {"KELVIN", false}, {"KELVIN", false}}},
		{"long s folds with s", "ſtop", []tk{{"STOP", false}}},
		{"sharp s is not expanded", "Straße", []tk{{"STRAßE", false}}},
		{"final sigma", "σας ΣΑΣ", []tk{{"ΣΑΣ", false}, {"ΣΑΣ", false}}},
		{"cjk run", "日本語テキスト です", []tk{{"日本語テキスト", false}, {"です", false}}},
		{"unicode numbers", "٣٤ x²", []tk{{"٣٤", false}, {"X²", false}}},
		{"symbols and emoji split", "go🚀fast €5", []tk{{"GO", false}, {"FAST", false}, {"5", false}}},
		{"combining mark splits", "e\u0301te\u0301", []tk{{"E", false}, {"TE", false}}},
		{"invalid utf-8 splits", "ab\xffcd\xc3", []tk{{"AB", false}, {"CD", false}}},
		{"inline code", "use `mutex.Lock()` then unlock", []tk{{"USE", false}, {"MUTEX", true}, {"LOCK", true}, {"THEN", false}, {"UNLOCK", false}}},
		{"double backticks", "x ``a ` b`` y", []tk{{"X", false}, {"A", true}, {"B", true}, {"Y", false}}},
		{"unclosed backtick is text", "a `b c", []tk{{"A", false}, {"B", false}, {"C", false}}},
		{"inline code does not cross lines", "a `b\nc` d", []tk{{"A", false}, {"B", false}, {"C", false}, {"D", false}}},
		{"fenced block", "before\n```go\nfunc main() {}\n```\nafter", []tk{{"BEFORE", false}, {"GO", true}, {"FUNC", true}, {"MAIN", true}, {"AFTER", false}}},
		{"unclosed tilde fence runs to the end", "x\n~~~\ncode here", []tk{{"X", false}, {"CODE", true}, {"HERE", true}}},
		{"code then prose in one line", "`a`b", []tk{{"A", true}, {"B", false}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := collectTokens(tt.text)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("tokens of %q = %v, want %v", tt.text, got, tt.want)
			}
			// The table and the reference must agree too, so that the
			// randomized tests below check the right thing.
			if ref := refTokens(tt.text); !reflect.DeepEqual(ref, tt.want) {
				t.Errorf("reference tokens of %q = %v, want %v", tt.text, ref, tt.want)
			}
		})
	}
}

// randomText mixes words (some sharing substrings), unicode, code spans,
// fences and punctuation.
func randomText(r *rand.Rand) string {
	pieces := []string{"deadlock", "lock", "Lock", "LOCKED", "unlock", "aaaa", "aa", "race", "condition",
		"École", "ecole", "\u212Aelvin", "kelvin", "pricing.ts", "snake_case", "x2", "42", "ok", "thanks",
		"`mutex.Lock()`", "`", "``", "```", "~~~", "```go", "\n", "\n", " ", " ", " ", ", ", ".", "-", "/", "\t",
		"日本", "ſ", "\xff", "e\u0301"}
	var b strings.Builder
	for range r.IntN(40) {
		b.WriteString(pieces[r.IntN(len(pieces))])
		if r.IntN(3) == 0 {
			b.WriteByte(' ')
		}
	}
	return b.String()
}

func TestTokenizerMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	for i := range 3000 {
		text := randomText(r)
		if got, want := collectTokens(text), refTokens(text); !reflect.DeepEqual(got, want) {
			t.Fatalf("case %d: tokens of %q\n got %v\nwant %v", i, text, got, want)
		}
	}
}

// refRow is what the reference expects of one row.
type refRow struct {
	counts map[string][2]int // token → hits, hits in code
}

// model is the reference view of a segment built from rows.
type model struct {
	rows   []Row
	keys   []Key
	keyOf  []uint32
	tokens []string // sorted, distinct
	perRow []refRow
}

func newModel(rows []Row) *model {
	m := &model{rows: rows}
	seen := map[Key]uint32{}
	all := map[string]bool{}
	for _, r := range rows {
		k := Key{r.Session, r.Project}
		id, ok := seen[k]
		if !ok {
			id = uint32(len(m.keys))
			seen[k] = id
			m.keys = append(m.keys, k)
		}
		m.keyOf = append(m.keyOf, id)
		rr := refRow{counts: map[string][2]int{}}
		for _, tok := range refTokens(string(r.Text)) {
			c := rr.counts[tok.tok]
			c[0]++
			if tok.inCode {
				c[1]++
			}
			rr.counts[tok.tok] = c
			all[tok.tok] = true
		}
		m.perRow = append(m.perRow, rr)
	}
	for tok := range all {
		m.tokens = append(m.tokens, tok)
	}
	sort.Strings(m.tokens)
	return m
}

func build(rows []Row) *Builder {
	b := NewBuilder()
	for i := range rows {
		b.Add(&rows[i])
	}
	return b
}

type posting struct{ row, hits, code int }

func postingsOf(t *testing.T, s *Segment, id int) []posting {
	t.Helper()
	var out []posting
	if err := s.Postings(id, func(row, hits, code int) { out = append(out, posting{row, hits, code}) }); err != nil {
		t.Fatalf("Postings(%d): %v", id, err)
	}
	return out
}

func (m *model) postings(tok string) []posting {
	var out []posting
	for row, rr := range m.perRow {
		if c, ok := rr.counts[tok]; ok {
			out = append(out, posting{row, c[0], c[1]})
		}
	}
	return out
}

type found struct{ id, times int }

func findTokens(s *Segment, run string, whole bool) []found {
	var out []found
	s.FindTokens(run, whole, func(id, times int) { out = append(out, found{id, times}) })
	return out
}

// check compares every part of s with the model.
func (m *model) check(t *testing.T, s *Segment, runs []string) {
	t.Helper()
	if s.Rows() != len(m.rows) {
		t.Fatalf("Rows() = %d, want %d", s.Rows(), len(m.rows))
	}
	if !slices.Equal(s.Keys(), m.keys) {
		t.Errorf("Keys() = %q, want %q", s.Keys(), m.keys)
	}
	for i, r := range m.rows {
		var flags uint8
		if len(r.Text) <= maxAckBytes && textrules.IsAcknowledgement(string(r.Text)) {
			flags = FlagAck
		}
		want := RowInfo{TimeMs: r.TimeMs, Len: len(r.Text), Key: m.keyOf[i], Gen: r.Gen, Type: r.Type, Flags: flags}
		if got := s.Row(i); got != want {
			t.Errorf("Row(%d) = %+v, want %+v", i, got, want)
		}
	}
	if s.tokens() != len(m.tokens) {
		t.Fatalf("%d tokens, want %d (%q)", s.tokens(), len(m.tokens), m.tokens)
	}
	for id, tok := range m.tokens {
		if got := string(s.token(id)); got != tok {
			t.Fatalf("token %d = %q, want %q", id, got, tok)
		}
		if got, want := postingsOf(t, s, id), m.postings(tok); !reflect.DeepEqual(got, want) {
			t.Errorf("postings of %q = %v, want %v", tok, got, want)
		}
	}
	for _, run := range runs {
		var sub, whole []found
		if run != "" && !strings.Contains(run, "\n") {
			for id, tok := range m.tokens {
				if n := strings.Count(tok, run); n > 0 {
					sub = append(sub, found{id, n})
				}
				if tok == run {
					whole = append(whole, found{id, 1})
				}
			}
		}
		if got := findTokens(s, run, false); !reflect.DeepEqual(got, sub) {
			t.Errorf("FindTokens(%q, substring) = %v, want %v", run, got, sub)
		}
		if got := findTokens(s, run, true); !reflect.DeepEqual(got, whole) {
			t.Errorf("FindTokens(%q, whole) = %v, want %v", run, got, whole)
		}
	}
}

func roundTripRows() []Row {
	return []Row{
		{TimeMs: 1_772_000_000_123, Type: TypeUser, Gen: 3, Session: "s1", Project: "/p/a",
			Text: []byte("Fix the deadlock in `mutex.Lock()` please; DEADLOCK again")},
		{TimeMs: 0, Type: TypeAssistant, Gen: 3, Session: "s1", Project: "/p/a", Text: []byte("ok thanks")},
		{TimeMs: -5000, Type: TypeTool, Gen: 1<<32 - 1, Session: "s2", Project: "/p/b\twith tab",
			Text: []byte("```go\nfunc deadlock() { lock() }\n```\nafter the fence: lock, Lock, lock")},
		{TimeMs: 1, Type: TypeAgent, Gen: 0, Session: "s1", Project: "/p/a", Text: nil},
		{TimeMs: 2, Type: TypeOther, Gen: 9, Session: `s\3`, Project: "p\nnl\r", Text: []byte("École ÉCOLE école \u212Aelvin kelvin aaaa")},
		{TimeMs: 3, Type: TypeUser, Gen: 9, Session: "s2", Project: "/p/b\twith tab", Text: []byte(strings.Repeat("thanks ", 100))},
	}
}

func TestRoundTrip(t *testing.T) {
	rows := roundTripRows()
	m := newModel(rows)
	dir := t.TempDir()
	b := build(rows)
	if b.Rows() != len(rows) {
		t.Fatalf("Builder.Rows() = %d, want %d", b.Rows(), len(rows))
	}
	b.AddRawBytes(1000)
	b.AddRawBytes(234)
	ref, err := b.WriteFile(dir, 7, 3, 9)
	if err != nil {
		t.Fatal(err)
	}
	if want := (Ref{Name: FileName(7, 3, 9), Seq: 7, First: 3, End: 9}); ref != want {
		t.Fatalf("WriteFile ref = %+v, want %+v", ref, want)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 || entries[0].Name() != ref.Name {
		t.Fatalf("dir holds %v, want only %s (no temp files)", entries, ref.Name)
	}
	s, err := Open(dir, ref)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.Ref != ref {
		t.Errorf("segment ref = %+v, want %+v", s.Ref, ref)
	}
	runs := []string{"DEADLOCK", "LOCK", "DEAD", "K", "ÉCOLE", "COLE", "KELVIN", "AA", "AAA", "AAAA", "AAAAA",
		"THANKS", "OK", "GO", "FUNC", "lock", "MISSING", "", "LO\nCK", "E", "S"}
	m.check(t, s, runs)

	// Hand-written expectations, in case the model and the code share a
	// mistake.
	id := func(tok string) int {
		got := findTokens(s, tok, true)
		if len(got) != 1 {
			t.Fatalf("whole token %q found %v", tok, got)
		}
		return got[0].id
	}
	for _, tc := range []struct {
		tok  string
		want []posting
	}{
		{"DEADLOCK", []posting{{0, 2, 0}, {2, 1, 1}}},
		{"LOCK", []posting{{0, 1, 1}, {2, 4, 1}}},
		{"MUTEX", []posting{{0, 1, 1}}},
		{"GO", []posting{{2, 1, 1}}},
		{"FENCE", []posting{{2, 1, 0}}},
		{"ÉCOLE", []posting{{4, 3, 0}}},
		{"KELVIN", []posting{{4, 2, 0}}},
		{"THANKS", []posting{{1, 1, 0}, {5, 100, 0}}},
	} {
		if got := postingsOf(t, s, id(tc.tok)); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("postings of %s = %v, want %v", tc.tok, got, tc.want)
		}
	}
	if got := findTokens(s, "AA", false); len(got) != 1 || got[0].times != 2 {
		t.Errorf("FindTokens(AA) = %v, want one token holding it twice", got)
	}
	if s.Row(1).Flags != FlagAck || s.Row(5).Flags != 0 || s.Row(0).Flags != 0 {
		t.Errorf("ack flags: %d %d %d, want only row 1", s.Row(0).Flags, s.Row(1).Flags, s.Row(5).Flags)
	}
	if raw, err := ReadRawBytes(dir, ref); err != nil || raw != 1234 {
		t.Errorf("ReadRawBytes = %d, %v; want 1234", raw, err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestRoundTripRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	for round := range 20 {
		n := r.IntN(60)
		rows := make([]Row, n)
		for i := range rows {
			rows[i] = Row{TimeMs: r.Int64N(1 << 42), Type: uint8(1 + r.IntN(5)), Gen: r.Uint32(),
				Session: fmt.Sprintf("s%d", r.IntN(4)), Project: fmt.Sprintf("/p/%d", r.IntN(2)), Text: []byte(randomText(r))}
		}
		m := newModel(rows)
		data := build(rows).encode(uint64(round), uint64(round+1))
		s, err := newSegment(Ref{Name: "x", First: round, End: round + 1}, data)
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		runs := []string{"LOCK", "A", "AA", "ÉCOLE", "KELVIN", "S", "X2", "4", "_", "GO", "NOPE"}
		for _, tok := range m.tokens {
			runs = append(runs, tok)
			if len(tok) > 2 {
				runs = append(runs, tok[1:len(tok)-1])
			}
		}
		m.check(t, s, runs)
		if t.Failed() {
			t.Fatalf("round %d failed", round)
		}
	}
}

// TestManyTokensAndSparseRows grows the builder's token table well past
// its first size and spreads postings so deltas take several varint
// bytes.
func TestManyTokensAndSparseRows(t *testing.T) {
	const words = 20000
	rows := make([]Row, 3001)
	for i := range rows {
		rows[i] = Row{Session: "s", Project: "p"}
	}
	var text strings.Builder
	for i := range words {
		fmt.Fprintf(&text, "w%05d ", i)
	}
	rows[0].Text = []byte(text.String())
	rows[3000].Text = []byte(text.String() + " w00042")
	rows[1500].Text = []byte("w00042 w19999")
	s, err := newSegment(Ref{Name: "x", First: 0, End: 1}, build(rows).encode(0, 1))
	if err != nil {
		t.Fatal(err)
	}
	if s.tokens() != words {
		t.Fatalf("%d tokens, want %d", s.tokens(), words)
	}
	for _, tc := range []struct {
		tok  string
		want []posting
	}{
		{"W00042", []posting{{0, 1, 0}, {1500, 1, 0}, {3000, 2, 0}}},
		{"W19999", []posting{{0, 1, 0}, {1500, 1, 0}, {3000, 1, 0}}},
		{"W00000", []posting{{0, 1, 0}, {3000, 1, 0}}},
	} {
		got := findTokens(s, tc.tok, true)
		if len(got) != 1 {
			t.Fatalf("FindTokens(%s) = %v", tc.tok, got)
		}
		if p := postingsOf(t, s, got[0].id); !reflect.DeepEqual(p, tc.want) {
			t.Errorf("postings of %s = %v, want %v", tc.tok, p, tc.want)
		}
	}
	if got := findTokens(s, "W1999", false); len(got) != 10 {
		t.Errorf("FindTokens(W1999) found %d tokens, want 10", len(got))
	}
}

// writeAndOpen writes b as the segment of block 0 and opens it; the test
// closes it.
func writeAndOpen(t *testing.T, b *Builder) *Segment {
	t.Helper()
	dir := t.TempDir()
	ref, err := b.WriteFile(dir, 1, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Open(dir, ref)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestEmptyBuilder(t *testing.T) {
	s := writeAndOpen(t, NewBuilder())
	if s.Rows() != 0 || len(s.Keys()) != 0 || s.tokens() != 0 {
		t.Errorf("empty segment: %d rows, %d keys, %d tokens", s.Rows(), len(s.Keys()), s.tokens())
	}
	if got := findTokens(s, "A", false); got != nil {
		t.Errorf("FindTokens on empty segment = %v", got)
	}
	if err := s.Postings(0, func(int, int, int) {}); err == nil {
		t.Error("Postings(0) on a segment without tokens did not fail")
	}
}

func TestOpenRejectsDamage(t *testing.T) {
	rows := roundTripRows()
	good := build(rows).encode(2, 5)
	ref := Ref{Name: FileName(1, 2, 5), Seq: 1, First: 2, End: 5}
	h, err := decodeHeader(good, uint64(len(good)))
	if err != nil {
		t.Fatal(err)
	}
	withHeader := func(edit func(h *header)) []byte {
		h2 := h
		edit(&h2)
		out := slices.Clone(good)
		copy(out, h2.encode())
		return out
	}
	tests := []struct {
		name string
		data []byte
		ref  Ref
	}{
		{"empty", nil, ref},
		{"short", good[:preambleSize+headerSize-1], ref},
		{"bad magic", append([]byte("XCLTERMS"), good[8:]...), ref},
		{"other version", func() []byte {
			b := slices.Clone(good)
			binary.LittleEndian.PutUint32(b[8:], FormatVersion+1)
			return b
		}(), ref},
		{"header checksum", func() []byte { b := slices.Clone(good); b[preambleSize+3] ^= 1; return b }(), ref},
		{"name says other blocks", good, Ref{Name: FileName(1, 2, 6), Seq: 1, First: 2, End: 6}},
		{"truncated body", good[:len(good)-1], ref},
		{"section past the end", withHeader(func(h *header) { h.PostingsLen = uint64(len(good)) }), ref},
		{"section past the checksums", withHeader(func(h *header) { h.StemListsLen++ }), ref},
		{"checksums cover less", withHeader(func(h *header) { h.CRCPages-- }), ref},
		{"checksum table", func() []byte { b := slices.Clone(good); b[h.CRCOff] ^= 1; return b }(), ref},
		{"keys checksum", func() []byte { b := slices.Clone(good); b[h.KeysOff] ^= 0x20; return b }(), ref},
		{"huge offset", withHeader(func(h *header) { h.VocabOff = 1 << 63 }), ref},
		{"end before first", withHeader(func(h *header) { h.FirstBlock, h.EndBlock = 5, 2 }), Ref{Name: "x", First: 5, End: 2}},
		{"too many rows", withHeader(func(h *header) { h.Rows = 1<<31 + 1 }), ref},
		{"key count differs", withHeader(func(h *header) { h.Keys++ }), ref},
		{"keys without newline", withHeader(func(h *header) { h.KeysLen-- }), ref},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := newSegment(tt.ref, tt.data); err == nil {
				t.Error("newSegment accepted a damaged segment")
			}
		})
	}
	if _, err := newSegment(ref, good); err != nil {
		t.Fatalf("the undamaged segment fails: %v", err)
	}

	// The same through files: Open and ReadRawBytes.
	dir := t.TempDir()
	if _, err := Open(dir, ref); err == nil {
		t.Error("Open of a missing file did not fail")
	}
	if _, err := ReadRawBytes(dir, ref); err == nil {
		t.Error("ReadRawBytes of a missing file did not fail")
	}
	for _, data := range [][]byte{good[:40], withHeader(func(h *header) { h.RawBytes = 1; h.RowsOff = 1 << 40 })} {
		if err := os.WriteFile(ref.Path(dir), data, 0o600); err != nil {
			t.Fatal(err)
		}
		if s, err := Open(dir, ref); err == nil {
			s.Close()
			t.Errorf("Open accepted %d damaged bytes", len(data))
		}
		if _, err := ReadRawBytes(dir, ref); err == nil {
			t.Errorf("ReadRawBytes accepted %d damaged bytes", len(data))
		}
	}
}

func TestPostingsRejectsMalformedEntries(t *testing.T) {
	rows := []Row{{Session: "s", Project: "p", Text: []byte("alpha beta")}, {Session: "s", Project: "p", Text: []byte("alpha")}}
	good := build(rows).encode(0, 1)
	h, _ := decodeHeader(good, uint64(len(good)))
	// ALPHA is token 0; its postings are the first bytes of the section.
	tests := []struct {
		name     string
		postings []byte
	}{
		{"zero delta", []byte{0 << 1, 1 << 1}},
		{"row past the table", []byte{1 << 1, 5 << 1}},
		{"truncated varint", []byte{0x80, 0x80}},
		{"truncated hits", []byte{1<<1 | 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := slices.Clone(good)
			// Replace ALPHA's postings with tt.postings, keeping the
			// section length by padding with BETA's.
			a := binary.LittleEndian.Uint32(data[h.PostOff:])
			b := binary.LittleEndian.Uint32(data[h.PostOff+4:])
			n := min(int(b-a), len(tt.postings))
			copy(data[h.PostingsOff+uint64(a):], tt.postings[:n])
			fixChecksums(data) // the parser must catch it, not only the checksum
			s, err := newSegment(Ref{Name: "x", First: 0, End: 1}, data)
			if err != nil {
				t.Fatal(err)
			}
			if string(s.token(0)) != "ALPHA" {
				t.Fatalf("token 0 is %q", s.token(0))
			}
			if err := s.Postings(0, func(int, int, int) {}); err == nil {
				t.Errorf("Postings accepted %x", tt.postings[:n])
			}
		})
	}
	s, _ := newSegment(Ref{Name: "x", First: 0, End: 1}, good)
	for _, id := range []int{-1, 2, 1 << 30} {
		if err := s.Postings(id, func(int, int, int) {}); err == nil {
			t.Errorf("Postings(%d) did not fail", id)
		}
	}
}

// TestRowKeyAlwaysIndexesKeys: Row promises that a key out of range
// reads as 0, so that callers may index Keys() with it (search/accel.go
// does). That needs at least one key whenever there are rows.
func TestRowKeyAlwaysIndexesKeys(t *testing.T) {
	good := build([]Row{{Session: "s", Project: "p", Text: []byte("alpha")}}).encode(0, 1)
	h, _ := decodeHeader(good, uint64(len(good)))
	h.Keys, h.KeysLen = 0, 0 // a header that CRC-checks, with rows but no keys
	data := slices.Clone(good)
	copy(data, h.encode())
	s, err := newSegment(Ref{Name: "x", First: 0, End: 1}, data)
	if err != nil {
		return // rejecting it is fine
	}
	for i := range s.Rows() {
		if k := s.Row(i).Key; int(k) >= len(s.Keys()) {
			t.Errorf("newSegment accepted %d rows with %d keys: Row(%d).Key = %d does not index Keys()", s.Rows(), len(s.Keys()), i, k)
		}
	}
}

// TestHugeKeyCountIsRejected: the header's key count is bounded only by
// 1<<31, not by the size of the keys section, and parseKeys allocates
// that many keys up front. A header that passes its checksum but claims
// 1<<31-1 keys in a small file asks for 64 GiB. It runs in a child
// process, since the runtime's out-of-memory error cannot be recovered.
func TestHugeKeyCountIsRejected(t *testing.T) {
	const child = "RECALL_TERMS_HUGE_KEYS_CHILD"
	good := build([]Row{{Session: "s", Project: "p", Text: []byte("alpha")}}).encode(0, 1)
	h, _ := decodeHeader(good, uint64(len(good)))
	h.Keys = 1<<31 - 1
	data := slices.Clone(good)
	copy(data, h.encode())
	if os.Getenv(child) == "1" {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := newSegment(Ref{Name: "x", First: 0, End: 1}, data)
		runtime.ReadMemStats(&after)
		if err == nil {
			t.Error("newSegment accepted a header claiming 1<<31-1 keys")
		}
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<30 {
			t.Errorf("newSegment allocated %d bytes for a %d-byte segment", grew, len(data))
		}
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestHugeKeyCountIsRejected$", "-test.count=1")
	cmd.Env = append(os.Environ(), child+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		first, _, _ := strings.Cut(string(out), "\n\n")
		t.Errorf("newSegment on a %d-byte segment whose header claims 1<<31-1 keys: %v\n%s", len(data), err, first)
	}
}

func TestFileNameAndParseName(t *testing.T) {
	if got := FileName(1, 0, 4); got != "terms-v3-000001-00000000-00000004.bin" {
		t.Errorf("FileName(1, 0, 4) = %q", got)
	}
	// Names of other format versions parse (so that they can be removed);
	// Cover never picks them.
	if r, ok := ParseName("terms-v1-000001-00000000-00000004.bin"); !ok || r.Version != 1 {
		t.Errorf("ParseName of a v1 name = %+v, %v; want version 1", r, ok)
	}
	for _, r := range []Ref{{Version: FormatVersion, Seq: 1, First: 0, End: 1}, {Version: FormatVersion, Seq: 42, First: 17, End: 1000}, {Version: FormatVersion, Seq: 1234567, First: 99999999, End: 123456789}} {
		r.Name = FileName(r.Seq, r.First, r.End)
		got, ok := ParseName(r.Name)
		if !ok || got != r {
			t.Errorf("ParseName(FileName(%d, %d, %d)) = %+v, %v", r.Seq, r.First, r.End, got, ok)
		}
		if r.Path("/idx") != filepath.Join("/idx", r.Name) {
			t.Errorf("Path = %q", r.Path("/idx"))
		}
	}
	for _, name := range []string{
		"",
		"rows-v1-000001.zst",
		"terms-v1-000001-00000004-00000004.bin", // empty range
		"terms-v1-000001-00000005-00000004.bin", // backwards
		"terms-v1-000001-00000000-00000004.bin.tmp",
		".terms-v1-000001-00000000-00000004.bin",
		".terms-123.tmp",
		"terms-v1-000001-00000000.bin",
		"terms-v1-00000a-00000000-00000004.bin",
		"terms-v1--1-00000000-00000004.bin",
		"terms-v1-000001-00000000-99999999999999999999999.bin", // overflows int
		"xterms-v1-000001-00000000-00000004.bin",
	} {
		if r, ok := ParseName(name); ok {
			t.Errorf("ParseName(%q) = %+v, want not a segment", name, r)
		}
	}
}

func TestCover(t *testing.T) {
	seg := func(seq, first, end int) Ref {
		return Ref{Name: FileName(seq, first, end), Version: FormatVersion, Seq: seq, First: first, End: end}
	}
	old := func(seq, first, end int) Ref {
		return Ref{Name: fmt.Sprintf("terms-v1-%06d-%08d-%08d.bin", seq, first, end), Version: 1, Seq: seq, First: first, End: end}
	}
	tests := []struct {
		name    string
		refs    []Ref
		seq     int
		blocks  int
		want    []Ref
		covered int
	}{
		{"none", nil, 1, 5, nil, 0},
		{"no blocks", []Ref{seg(1, 0, 2)}, 1, 0, nil, 0},
		{"complete", []Ref{seg(1, 0, 4), seg(1, 4, 8)}, 1, 8, []Ref{seg(1, 0, 4), seg(1, 4, 8)}, 8},
		{"unsorted", []Ref{seg(1, 4, 8), seg(1, 8, 9), seg(1, 0, 4)}, 1, 9, []Ref{seg(1, 0, 4), seg(1, 4, 8), seg(1, 8, 9)}, 9},
		{"gap", []Ref{seg(1, 0, 4), seg(1, 5, 8)}, 1, 8, []Ref{seg(1, 0, 4)}, 4},
		{"missing start", []Ref{seg(1, 1, 4), seg(1, 4, 8)}, 1, 8, nil, 0},
		{"tail missing", []Ref{seg(1, 0, 4)}, 1, 6, []Ref{seg(1, 0, 4)}, 4},
		{"merge written, parts not yet removed", []Ref{seg(1, 0, 2), seg(1, 2, 3), seg(1, 3, 4), seg(1, 0, 4), seg(1, 4, 5)}, 1, 5,
			[]Ref{seg(1, 0, 4), seg(1, 4, 5)}, 5},
		{"merge of a tail", []Ref{seg(1, 0, 8), seg(1, 8, 9), seg(1, 9, 10), seg(1, 8, 10)}, 1, 10, []Ref{seg(1, 0, 8), seg(1, 8, 10)}, 10},
		{"overlap off the boundaries", []Ref{seg(1, 0, 4), seg(1, 2, 6), seg(1, 4, 8)}, 1, 8, []Ref{seg(1, 0, 4), seg(1, 4, 8)}, 8},
		{"other sequence ignored", []Ref{seg(2, 0, 8), seg(1, 0, 3)}, 1, 8, []Ref{seg(1, 0, 3)}, 3},
		{"only other sequence", []Ref{seg(2, 0, 8)}, 1, 8, nil, 0},
		{"older format ignored", []Ref{old(1, 0, 8), seg(1, 0, 3)}, 1, 8, []Ref{seg(1, 0, 3)}, 3},
		{"past the block count", []Ref{seg(1, 0, 4), seg(1, 4, 10)}, 1, 8, []Ref{seg(1, 0, 4)}, 4},
		{"stale longer segment from a crash", []Ref{seg(1, 0, 9), seg(1, 0, 4), seg(1, 4, 8)}, 1, 8, []Ref{seg(1, 0, 4), seg(1, 4, 8)}, 8},
		{"stale segment after the end", []Ref{seg(1, 0, 4), seg(1, 4, 8), seg(1, 8, 10)}, 1, 8, []Ref{seg(1, 0, 4), seg(1, 4, 8)}, 8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, covered := Cover(tt.refs, tt.seq, tt.blocks)
			if !slices.Equal(got, tt.want) || covered != tt.covered {
				t.Errorf("Cover = %v, %d; want %v, %d", got, covered, tt.want, tt.covered)
			}
		})
	}
}

func TestReadRawBytes(t *testing.T) {
	dir := t.TempDir()
	for i, n := range []int64{0, 1, 16 << 20, 1 << 40} {
		b := build(roundTripRows())
		for left := n; left > 0; {
			step := min(left, 1<<30)
			b.AddRawBytes(int(step))
			left -= step
		}
		ref, err := b.WriteFile(dir, 1, i, i+1)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := ReadRawBytes(dir, ref); err != nil || got != n {
			t.Errorf("ReadRawBytes = %d, %v; want %d", got, err, n)
		}
	}
}

func TestWriteFileFailsWithoutDir(t *testing.T) {
	if _, err := NewBuilder().WriteFile(filepath.Join(t.TempDir(), "missing"), 1, 0, 1); err == nil {
		t.Error("WriteFile into a missing directory did not fail")
	}
}

// TestFindTokensCountsLikeBytesCount pins the counting rule the search
// relies on: a token holds a run as many times as bytes.Count says.
func TestFindTokensCountsLikeBytesCount(t *testing.T) {
	tokens := []string{"aaaaaa", "abab", "ababab", "baba", "xyz", "deadlock_deadlock"}
	s, err := newSegment(Ref{Name: "x", First: 0, End: 1},
		build([]Row{{Session: "s", Project: "p", Text: []byte(strings.Join(tokens, " "))}}).encode(0, 1))
	if err != nil {
		t.Fatal(err)
	}
	for _, run := range []string{"A", "AA", "AAA", "AB", "ABA", "BAB", "DEADLOCK", "K_D", "Z"} {
		var want []found
		sorted := make([]string, len(tokens))
		for i, tok := range tokens {
			sorted[i] = strings.ToUpper(tok)
		}
		sort.Strings(sorted)
		for id, tok := range sorted {
			if n := bytes.Count([]byte(tok), []byte(run)); n > 0 {
				want = append(want, found{id, n})
			}
		}
		if got := findTokens(s, run, false); !reflect.DeepEqual(got, want) {
			t.Errorf("FindTokens(%q) = %v, want %v", run, got, want)
		}
	}
}

// TestFindPrefixed checks the binary search of tokens by prefix against
// every token of the vocabulary.
func TestFindPrefixed(t *testing.T) {
	tokens := []string{"lock", "lockfile", "locks", "deadlock", "lo", "unlock", "loc", "zz", "école", "écoles", "a"}
	s, err := newSegment(Ref{Name: "x", First: 0, End: 1},
		build([]Row{{Session: "s", Project: "p", Text: []byte(strings.Join(tokens, " "))}}).encode(0, 1))
	if err != nil {
		t.Fatal(err)
	}
	for _, prefix := range []string{"LOCK", "LO", "L", "LOCKS", "LOCKSS", "A", "Z", "ZZZ", "ÉCOLE", "É", "DEADLOCK", "0", "\xff", ""} {
		var want, got []string
		for id := range s.tokens() {
			if tok := s.Token(id); prefix != "" && bytes.HasPrefix(tok, []byte(prefix)) {
				want = append(want, string(tok))
			}
		}
		s.FindPrefixed(prefix, func(id int, tok []byte) {
			if !bytes.Equal(tok, s.Token(id)) {
				t.Errorf("FindPrefixed(%q): token %d is %q, not %q", prefix, id, tok, s.Token(id))
			}
			got = append(got, string(tok))
		})
		if !reflect.DeepEqual(got, want) {
			t.Errorf("FindPrefixed(%q) = %q, want %q", prefix, got, want)
		}
	}
}

// TestHasGenBetween checks HasGenBetween against the generations Row
// reads, over every range of the round-trip rows and every generation
// they hold (and one they do not).
func TestHasGenBetween(t *testing.T) {
	rows := roundTripRows()
	s := writeAndOpen(t, build(rows))
	gens := []uint32{12345}
	for _, r := range rows {
		gens = append(gens, r.Gen)
	}
	for from := 0; from <= len(rows); from++ {
		for to := 0; to <= len(rows); to++ {
			for _, gen := range gens {
				want := false
				for r := from; r < to; r++ {
					want = want || s.Row(r).Gen == gen
				}
				if got := s.HasGenBetween(from, to, gen); got != want {
					t.Errorf("HasGenBetween(%d, %d, %d) = %v, want %v", from, to, gen, got, want)
				}
			}
		}
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
}

// TestRowNextSame checks RowReader.RowNextSame against Row and
// HasGenBetween over a row table of several pages, read in ascending
// order at strides that land on every place of a page, entries across
// page boundaries included.
func TestRowNextSame(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	rows := make([]Row, 2000)
	gen := uint32(0)
	for i := range rows {
		if r.IntN(4) == 0 {
			gen = r.Uint32()
		}
		rows[i] = Row{TimeMs: r.Int64N(1 << 42), Type: uint8(r.IntN(5)), Gen: gen, Session: fmt.Sprint("s", r.IntN(30)), Project: "/p",
			Text: []byte("word")}
	}
	s := writeAndOpen(t, build(rows))
	if s.Rows()*rowSize < 4*pageSize {
		t.Fatalf("%d rows fill under four pages", s.Rows())
	}
	for _, stride := range []int{1, 2, 3, 169, 170, 171, 500, 1999} {
		for first := range min(stride, 3) {
			reader := s.RowReader()
			for i := first; i < s.Rows(); i += stride {
				info, same := reader.RowNextSame(i)
				if want := s.Row(i); info != want {
					t.Fatalf("stride %d: row %d: %+v, want %+v", stride, i, info, want)
				}
				if want := s.HasGenBetween(i+1, min(i+2, s.Rows()), info.Gen); same != want {
					t.Fatalf("stride %d: row %d: next of the same generation %v, want %v", stride, i, same, want)
				}
			}
		}
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
}

// TestStemCacheSameSegment checks that segments built with a shared
// word-form cache, filled by an earlier segment and full, are byte for
// byte those built without one.
func TestStemCacheSameSegment(t *testing.T) {
	texts := [][]byte{
		[]byte("running runners ran quickly; the connection connected"),
		[]byte("Connections CONNECTING café naïve résumé généralement"),
		[]byte("`go test ./...` tested testing tests x1 abc123 running"),
	}
	build := func(c *StemCache, texts [][]byte) []byte {
		b := NewBuilder()
		if c != nil {
			b.UseStems(c)
		}
		for _, text := range texts {
			b.Add(&Row{Type: TypeAssistant, Session: "s", Project: "/p", Text: text})
		}
		return b.encode(0, 1)
	}
	full := NewStemCache()
	for i := range maxStemCache {
		full.m[fmt.Sprint("filler", i)] = stemResult{}
	}
	for name, c := range map[string]*StemCache{"empty": NewStemCache(), "full": full} {
		want := build(nil, texts)
		if got := build(c, texts); !bytes.Equal(got, want) {
			t.Errorf("%s cache: first segment differs", name)
		}
		if got := build(c, texts[1:]); !bytes.Equal(got, build(nil, texts[1:])) {
			t.Errorf("%s cache: second segment differs", name)
		}
	}
}

// TestReleasedPagesReadAgain checks that a segment reads the same rows,
// postings and keys after its row table and lookup pages are dropped
// from the mapping (ReleaseRows, ReleaseLookups): a search drops them
// once a segment's candidates are found and may read rows again while
// ranking. The table spans many pages, so whole pages are dropped.
func TestReleasedPagesReadAgain(t *testing.T) {
	rows := make([]Row, 5000)
	for i := range rows {
		rows[i] = Row{Session: fmt.Sprintf("s%d", i%7), Project: "p", Gen: uint32(i / 100), TimeMs: int64(i) * 1000,
			Type: 1, Text: []byte(fmt.Sprintf("row w%03d lock", i%300))}
	}
	s := writeAndOpen(t, build(rows))
	read := func() (infos []RowInfo, keys []Key, postings [][]posting) {
		for i := range s.Rows() {
			infos = append(infos, s.Row(i))
		}
		for i := range s.KeyCount() {
			keys = append(keys, s.Key(uint32(i)))
		}
		for _, tok := range findTokens(s, "W1", false) {
			postings = append(postings, postingsOf(t, s, tok.id))
		}
		return infos, keys, postings
	}
	infos, keys, postings := read()
	if len(postings) == 0 || infos[4999].TimeMs != 4999000 {
		t.Fatalf("unexpected segment: %d tokens, last row %+v", len(postings), infos[4999])
	}
	s.ReleaseRows()
	s.ReleaseLookups()
	infos2, keys2, postings2 := read()
	if !reflect.DeepEqual(infos, infos2) || !reflect.DeepEqual(keys, keys2) || !reflect.DeepEqual(postings, postings2) {
		t.Error("the segment reads differently after its pages were released")
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
}

// TestTokenPrefixReadsOneWord checks the masked one-word read of a short
// token against the byte-by-byte prefix, with garbage past the token in
// its buffer (as the tokenizer's reused buffer holds).
func TestTokenPrefixReadsOneWord(t *testing.T) {
	buf := []byte("ABCDEFGHIJKLMNOP")
	for n := 0; n <= len(buf); n++ {
		var want uint64
		for i, c := range buf[:min(n, 8)] {
			want |= uint64(c) << (8 * i)
		}
		if got := tokenPrefix(buf[:n]); got != want {
			t.Errorf("tokenPrefix(%q) = %#x, want %#x", buf[:n], got, want)
		}
		short := append([]byte(nil), buf[:n]...) // cap may be under 8
		if got := tokenPrefix(short[:n:n]); got != want {
			t.Errorf("tokenPrefix(%q) without spare capacity = %#x, want %#x", buf[:n], got, want)
		}
	}
}

// parseNameByPattern is ParseName as it was written before it was read by
// hand: the reference FuzzParseName holds it to.
func parseNameByPattern(name string) (Ref, bool) {
	m := regexp.MustCompile(`^terms-v([0-9]+)-([0-9]+)-([0-9]+)-([0-9]+)\.bin$`).FindStringSubmatch(name)
	if m == nil {
		return Ref{}, false
	}
	n := make([]int, 4)
	for i := range n {
		v, err := strconv.Atoi(m[i+1])
		if err != nil {
			return Ref{}, false
		}
		n[i] = v
	}
	if n[3] <= n[2] {
		return Ref{}, false
	}
	return Ref{Name: name, Version: n[0], Seq: n[1], First: n[2], End: n[3]}, true
}

// FuzzParseName checks ParseName against the regular expression it
// replaced, on any name.
func FuzzParseName(f *testing.F) {
	for _, name := range []string{
		"", "terms-v3-000001-00000000-00000004.bin", "terms-v1-1-2-3.bin", "terms-v1-1-3-2.bin",
		"terms-v1-000001-00000000-00000004.bin.tmp", "terms-v1-000001-00000000.bin", "terms-v-1-2-3.bin",
		"terms-v1--1-00000000-00000004.bin", "terms-v1-1-2-99999999999999999999999.bin", "terms-v1-1-2-3-4.bin",
		"terms-v+1-1-2-3.bin", "terms-v1-1-2-3.bin\n", "terms-v1-1-2-3.bin.bin", "terms-v١-1-2-3.bin",
	} {
		f.Add(name)
	}
	f.Fuzz(func(t *testing.T, name string) {
		got, ok := ParseName(name)
		want, wantOK := parseNameByPattern(name)
		if ok != wantOK || got != want {
			t.Errorf("ParseName(%q) = %+v, %v; the pattern reads %+v, %v", name, got, ok, want, wantOK)
		}
	})
}

// TestKeysShareTheirProject: the keys of a segment with one project hold
// one string of it, not a copy each (a question at 4 GB held 2 MB of
// copies while it bounded), and a project that needs unescaping is
// unescaped once and the same for every key.
func TestKeysShareTheirProject(t *testing.T) {
	rows := []Row{
		{Session: "s1", Project: "/src/app", Text: []byte("alpha")},
		{Session: "s2", Project: "/src/tab\there", Text: []byte("beta")},
		{Session: "s3", Project: "/src/app", Text: []byte("gamma")},
		{Session: "s4", Project: "/src/tab\there", Text: []byte("delta")},
		{Session: "s5", Project: "/src/other", Text: []byte("epsilon")},
	}
	data := build(rows).encode(0, 1)
	s, err := newSegment(Ref{Name: "x", First: 0, End: 1}, data)
	if err != nil {
		t.Fatal(err)
	}
	byProject := map[string]*byte{}
	for i := range s.KeyCount() {
		k := s.Key(uint32(i))
		if k.Session != rows[i].Session || k.Project != rows[i].Project {
			t.Fatalf("Key(%d) = %+v, want %s %q", i, k, rows[i].Session, rows[i].Project)
		}
		p := unsafe.StringData(k.Project)
		if first, ok := byProject[k.Project]; ok && first != p {
			t.Errorf("Key(%d)'s project %q is a copy of an earlier key's", i, k.Project)
		}
		byProject[k.Project] = p
	}
	if len(byProject) != 3 {
		t.Errorf("%d projects, want 3", len(byProject))
	}
}
