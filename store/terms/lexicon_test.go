package terms

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/recall-dev/recall/textrules"
)

// lexiconSegments are segments that share words, word forms and
// identifiers and hold words of their own.
func lexiconSegments(t testing.TB) []*Segment {
	t.Helper()
	r := rand.New(rand.NewPCG(7, 8))
	var segs []*Segment
	for i, extra := range [][]Row{roundTripRows(), channelRows(), nil} {
		rows := slices.Clone(extra)
		for j := range 120 {
			text := fmt.Sprintf("JWT_SECRET rotated, jwt_issuer painting paints w%d %s", j%7, randomText(r))
			if j%3 == i {
				text += " websocket reconnects reconnecting SEG" + string(rune('A'+i))
			}
			// A group of identifiers and a word longer than a lookup's
			// first read of a record.
			text += fmt.Sprintf(" CFG_KEY%d_X%d", j, i)
			if j == i {
				text += " " + strings.Repeat("long", 200)
			}
			rows = append(rows, Row{TimeMs: int64(j), Type: TypeUser, Session: fmt.Sprint("s", j%5), Project: "/p", Text: []byte(text)})
		}
		s, err := newSegment(Ref{Name: fmt.Sprintf("seg%d", i), First: 0, End: 1}, build(rows).encode(0, 1))
		if err != nil {
			t.Fatal(err)
		}
		segs = append(segs, s)
	}
	return segs
}

// lexiconBytes is the lexicon file of segs.
func lexiconBytes(t testing.TB, segs []*Segment) []byte {
	t.Helper()
	var records bytes.Buffer
	head, hash, err := encodeLexicon(segs, &records)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Join([][]byte{head, records.Bytes(), hash}, nil)
}

// lexFound is what a lookup gave, per segment: token ids with their
// postings' sizes, in the order given.
type lexFound map[int][]string

func (f lexFound) add(seg, id, bytes int, postings []byte) {
	f[seg] = append(f[seg], fmt.Sprintf("%d:%d:%x", id, bytes, postings))
}

// The lexicon finds, for every word, form and identifier prefix, what
// each segment's own lookups find, in the same order.
func TestLexiconMatchesSegments(t *testing.T) {
	segs := lexiconSegments(t)
	data := lexiconBytes(t, segs)
	inMemory, err := ParseLexicon(data)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, LexiconFileName), data, 0o600); err != nil {
		t.Fatal(err)
	}
	inFile, err := OpenLexicon(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer inFile.Close()
	for name, lex := range map[string]*Lexicon{"in memory": inMemory, "in its file": inFile} {
		t.Run(name, func(t *testing.T) { lexiconMatchesSegments(t, lex, segs) })
	}
	if err := inFile.Err(); err != nil {
		t.Fatal(err)
	}
}

func lexiconMatchesSegments(t *testing.T, lex *Lexicon, segs []*Segment) {
	words := map[string]bool{"ZZZ": true, "\n": true, "JWT": true, "JWT_": true, "A": true, "CFG": true, "CFG_KEY1": true}
	for _, s := range segs {
		for id := range s.tokens() {
			tok := string(s.token(id))
			words[tok] = true
			if key, ok := textrules.StemKey([]byte(tok)); ok || key != "" {
				words[key] = true
			}
			for i := range len(tok) {
				if tok[i] == '_' {
					words[tok[:i]] = true
				}
			}
		}
	}
	checked, inline, apart := 0, 0, 0
	for word := range words {
		for _, look := range []struct {
			name string
			lex  func(string, func(LexEntry))
			seg  func(*Segment, string, func(id int, tok []byte))
			arg  string
		}{
			{"FindStem", lex.FindStem, (*Segment).FindStem, word},
			{"FindWhole", lex.FindWhole, func(s *Segment, w string, fn func(int, []byte)) {
				s.FindTokens(w, true, func(id, _ int) { fn(id, nil) })
			}, word},
			{"FindPrefixed", lex.FindPrefixed, (*Segment).FindPrefixed, word + "_"},
		} {
			got, want := lexFound{}, lexFound{}
			look.lex(look.arg, func(e LexEntry) {
				if e.Inline != (e.Bytes <= lexInline) {
					t.Fatalf("%s(%q): %+v inline %v", look.name, look.arg, e, e.Inline)
				}
				got.add(e.Seg, e.ID, e.Bytes, e.Postings)
				if e.Inline {
					inline++
					return
				}
				apart++
				// Where the lexicon says they lie in the segment's file.
				list, err := segs[e.Seg].postingList(e.ID)
				if data := segs[e.Seg].data; err != nil || e.Offset+int64(e.Bytes) > int64(len(data)) || !bytes.Equal(data[e.Offset:e.Offset+int64(e.Bytes)], list) {
					t.Fatalf("%s(%q): %+v: postings not at their offset (%v)", look.name, look.arg, e, err)
				}
			})
			for si, s := range segs {
				look.seg(s, look.arg, func(id int, _ []byte) {
					list, err := s.postingList(id)
					if err != nil {
						t.Fatal(err)
					}
					if len(list) > lexInline {
						list = nil
					}
					want.add(si, id, s.PostingBytes(id), list)
				})
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("%s(%q): lexicon %v, segments %v", look.name, look.arg, got, want)
			}
			if len(want) > 0 {
				checked++
			}
		}
	}
	if checked < 100 || inline == 0 || apart == 0 {
		t.Fatalf("only %d lookups found anything; %d entries inline, %d not", checked, inline, apart)
	}
}

// Covers matches a segment by name, size and header checksum: one built
// again under the same name is not covered. Writing a lexicon removes
// the one of the format before.
func TestLexiconCovers(t *testing.T) {
	segs := lexiconSegments(t)
	dir := t.TempDir()
	stale := filepath.Join(dir, staleLexiconFile)
	if err := os.WriteFile(stale, []byte("RCLLEXIC"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteLexicon(dir, segs[:2]); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Fatalf("the lexicon of the format before was left: %v", err)
	}
	lex, err := OpenLexicon(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := LexiconSegments(dir); !slices.Equal(got, []string{"seg0", "seg1"}) {
		t.Fatalf("LexiconSegments = %q", got)
	}
	rebuilt, err := newSegment(Ref{Name: "seg1", First: 0, End: 1}, build(channelRows()).encode(0, 1))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		s    *Segment
		want int
	}{{segs[0], 0}, {segs[1], 1}, {segs[2], -1}, {rebuilt, -1}} {
		if got := lex.Covers(tc.s); got != tc.want {
			t.Errorf("Covers(%s) = %d, want %d", tc.s.Name, got, tc.want)
		}
	}
}

// A lexicon of other text rules, another format, or cut short is none.
func TestLexiconRefused(t *testing.T) {
	data := lexiconBytes(t, lexiconSegments(t))
	for name, bad := range map[string][]byte{
		"empty":       nil,
		"magic":       append([]byte("RCLTERMS"), data[8:]...),
		"version":     append(append(slices.Clone(data[:8]), 9, 0, 0, 0), data[12:]...),
		"rules":       append(append(slices.Clone(data[:12]), 0xff, 0xff, 0, 0), data[16:]...),
		"cut short":   data[:len(data)-1],
		"run on":      append(slices.Clone(data), 0),
		"header only": data[:40],
	} {
		if _, err := ParseLexicon(bad); err == nil {
			t.Errorf("%s: parsed", name)
		}
	}
	dir := t.TempDir()
	if _, err := OpenLexicon(dir); err == nil || LexiconSegments(dir) != nil {
		t.Fatal("a missing lexicon opened")
	}
	if err := os.WriteFile(filepath.Join(dir, LexiconFileName), []byte("RCLLEXIC"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenLexicon(dir); err == nil || LexiconSegments(dir) != nil {
		t.Fatal("a damaged lexicon opened")
	}
}

// FuzzParseLexicon: a lexicon that parses is read without a panic, and
// every entry names one of its segments.
func FuzzParseLexicon(f *testing.F) {
	// Small seeds: the fuzzer mutates and minimizes them quickly.
	var segs []*Segment
	for i, text := range []string{"JWT_SECRET rotated jwt", "painting paints PAINT", "websocket reconnects"} {
		rows := []Row{{Type: TypeUser, Session: "s", Project: "/p", Text: []byte(text)}, {Type: TypeAssistant, Session: "t", Project: "/p", Text: []byte("A a b")}}
		s, err := newSegment(Ref{Name: fmt.Sprint("seg", i), First: 0, End: 1}, build(rows).encode(0, 1))
		if err != nil {
			f.Fatal(err)
		}
		segs = append(segs, s)
	}
	for n := 1; n <= len(segs); n++ {
		f.Add(lexiconBytes(f, segs[:n]))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		lex, err := ParseLexicon(data)
		if err != nil {
			return
		}
		check := func(e LexEntry) {
			if e.Seg < 0 || e.Seg >= len(lex.Segments) || e.ID < 0 || e.Bytes < 0 {
				t.Fatalf("entry %+v of %d segments", e, len(lex.Segments))
			}
		}
		for _, w := range []string{"JWT", "PAINT", "WEBSOCKET", "A", "", strings.Repeat("Z", 300)} {
			lex.FindStem(w, check)
			lex.FindWhole(w, check)
			lex.FindPrefixed(w, check)
		}
	})
}

// A head longer than the first read (an index of many segments) is read
// whole.
func TestLexiconSegmentsLongHead(t *testing.T) {
	data := build(channelRows()).encode(0, 1)
	var segs []*Segment
	var want []string
	for i := range 120 {
		name := fmt.Sprintf("%03d-%s", i, strings.Repeat("x", 200))
		s, err := newSegment(Ref{Name: name, First: 0, End: 1}, data)
		if err != nil {
			t.Fatal(err)
		}
		segs = append(segs, s)
		want = append(want, name)
	}
	dir := t.TempDir()
	if err := WriteLexicon(dir, segs); err != nil {
		t.Fatal(err)
	}
	if got := LexiconSegments(dir); !slices.Equal(got, want) {
		t.Fatalf("LexiconSegments gave %d names, want %d", len(got), len(want))
	}
}

// The lexicon is the same file wherever its words are split between the
// two merges: before every word, after every word, at each word of a
// segment and between words. A merge that stopped short of its bound,
// ran past it or started a word late would drop or repeat records.
func TestLexiconSameWhereverSplit(t *testing.T) {
	segs := lexiconSegments(t)
	whole := splitLexiconBytes(t, segs, nil)
	pivots := [][]byte{{}, {0}, []byte("\xff\xff"), []byte("jwt_"), []byte("w3")}
	for _, s := range segs {
		for id := range s.tokens() {
			tok := s.token(id)
			pivots = append(pivots, slices.Clone(tok), append(slices.Clone(tok), 0))
		}
	}
	for _, pivot := range pivots {
		if got := splitLexiconBytes(t, segs, pivot); !bytes.Equal(got, whole) {
			t.Fatalf("split at %q: a lexicon of %d bytes, want the %d bytes of one merge", pivot, len(got), len(whole))
		}
	}
}

// A lexicon of segments large enough to be split is split, and is the
// file one merge makes.
func TestLexiconSplitsLargeVocabularies(t *testing.T) {
	// Mapped from files, as WriteLexicon's segments are: the merges let
	// go of the pages they passed, which a segment in memory would lose.
	dir := t.TempDir()
	var segs []*Segment
	for seg := range 3 {
		var rows []Row
		for i := range 2 * minSplitTokens {
			n := seg*minSplitTokens + i // each segment shares half its words with the next
			rows = append(rows, Row{TimeMs: int64(i), Type: TypeUser, Session: fmt.Sprint("s", seg), Project: "/p",
				Text: []byte(fmt.Sprintf("word%d paintings PARAM_%d_%d", n, n%97, seg))})
		}
		ref, err := build(rows).WriteFile(dir, 1, seg, seg+1)
		if err != nil {
			t.Fatal(err)
		}
		s, err := Open(dir, ref)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		segs = append(segs, s)
	}
	if lexPivot(segs) == nil {
		t.Fatalf("no split of %d tokens", segs[0].tokens())
	}
	if got, want := lexiconBytes(t, segs), splitLexiconBytes(t, segs, nil); !bytes.Equal(got, want) {
		t.Errorf("split: a lexicon of %d bytes, want the %d bytes of one merge", len(got), len(want))
	}
}

// splitLexiconBytes is the lexicon file of segs, its words split at pivot.
func splitLexiconBytes(t testing.TB, segs []*Segment, pivot []byte) []byte {
	t.Helper()
	var records bytes.Buffer
	head, hash, err := encodeLexiconSplit(segs, &records, pivot)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Join([][]byte{head, records.Bytes(), hash}, nil)
}
