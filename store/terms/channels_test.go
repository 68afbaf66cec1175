package terms

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/recall-dev/recall/textrules"
)

// fixChecksums recomputes the page checksums, their table's checksum and
// the header's, so that a test's edit of the body reaches the parsers.
func fixChecksums(data []byte) {
	h, err := decodeHeaderFields(data)
	if err != nil || h.CRCOff > uint64(len(data)) || h.CRCOff < bodyStart {
		return
	}
	body := data[bodyStart:h.CRCOff]
	for p := 0; p*pageSize < len(body) && h.CRCOff+uint64(p*4+4) <= uint64(len(data)); p++ {
		page := body[p*pageSize : min((p+1)*pageSize, len(body))]
		binary.LittleEndian.PutUint32(data[h.CRCOff+uint64(p*4):], crc32.Checksum(page, castagnoli()))
	}
	if end := h.CRCOff + h.CRCPages*4; end <= uint64(len(data)) && h.CRCPages < 1<<40 {
		h.CRCTableCRC = uint64(crc32.Checksum(data[h.CRCOff:end], castagnoli()))
	}
	copy(data, h.encode())
}

// decodeHeaderFields reads the header fields without checking anything.
func decodeHeaderFields(data []byte) (header, error) {
	var h header
	if len(data) < bodyStart {
		return h, errors.New("short")
	}
	for i, f := range h.fields() {
		*f = binary.LittleEndian.Uint64(data[preambleSize+i*8:])
	}
	return h, nil
}

// foldOf is the reference accent fold of a token.
func foldOf(tok string) string { return string(textrules.AppendAccentFolded(nil, []byte(tok))) }

func channelRows() []Row {
	texts := []string{
		"Překlad do češtiny: články přeložené, ČEŠTINA a cestiny",
		"Agent: Translate CZ article 1 to EN; the translation of the articles",
		"I painted it, painting is fun, the painter paints",
		"a café, cafés and the cafeteria; naïve naive",
		"nothing to see here 42 x_y",
	}
	var rows []Row
	for i, t := range texts {
		rows = append(rows, Row{TimeMs: int64(i), Type: TypeAssistant, Session: "s", Project: "/p", Text: []byte(t)})
	}
	return rows
}

// TestFindFoldedAndStem checks both lookups against a reference that
// folds and stems every token of the vocabulary.
func TestFindFoldedAndStem(t *testing.T) {
	rows := channelRows()
	r := rand.New(rand.NewPCG(5, 6))
	for range 50 {
		rows = append(rows, Row{Session: "t", Project: "/p", Text: []byte(randomText(r))})
	}
	s, err := newSegment(Ref{Name: "x", First: 0, End: 1}, build(rows).encode(0, 1))
	if err != nil {
		t.Fatal(err)
	}
	var vocab []string
	for id := range s.tokens() {
		vocab = append(vocab, string(s.token(id)))
	}
	for _, fold := range []string{"CESTINY", "CESTIN", "CAFE", "NAIVE", "CLANKY", "E", "PREKLAD"} {
		var got, want []int
		s.FindFolded(fold, func(id int, tok []byte) {
			if string(tok) != vocab[id] {
				t.Errorf("FindFolded(%s): token %d is %q, fn got %q", fold, id, vocab[id], tok)
			}
			got = append(got, id)
		})
		for id, tok := range vocab {
			if strings.Contains(foldOf(tok), fold) {
				want = append(want, id)
			}
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("FindFolded(%s) = %v, want %v", fold, names(vocab, got), names(vocab, want))
		}
	}
	for _, word := range []string{"translated", "articles", "painted", "cafes", "naive", "see", "cestiny"} {
		key, ok := textrules.StemKey([]byte(word))
		if !ok {
			t.Fatalf("no key for %s", word)
		}
		var got, want []int
		s.FindStem(key, func(id int, _ []byte) { got = append(got, id) })
		for id, tok := range vocab {
			if k, ok := textrules.StemKey([]byte(tok)); ok && k == key {
				want = append(want, id)
			}
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("FindStem(%s) = %v, want %v", key, names(vocab, got), names(vocab, want))
		}
	}
}

func names(vocab []string, ids []int) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = vocab[id]
	}
	return out
}

// TestFlippedBodyByteIsDetected: a byte flipped anywhere in a section a
// search reads is reported by Err (or the reader) once the search reads
// it, and Verify finds it without any search.
func TestFlippedBodyByteIsDetected(t *testing.T) {
	rows := channelRows()
	r := rand.New(rand.NewPCG(7, 8))
	for range 400 {
		rows = append(rows, Row{Session: "t", Project: "/p", Text: []byte(randomText(r))})
	}
	good := build(rows).encode(0, 1)
	h, _ := decodeHeader(good, uint64(len(good)))
	if h.CRCPages < 3 {
		t.Fatalf("only %d pages: the test needs a bigger segment", h.CRCPages)
	}
	sections := []struct {
		name      string
		off, n    uint64
		readWhole func(s *Segment)
	}{
		{"rows", h.RowsOff, h.Rows * rowSize, func(s *Segment) {
			for i := range s.Rows() {
				s.Row(i)
			}
		}},
		{"rows by a reader", h.RowsOff, h.Rows * rowSize, func(s *Segment) {
			r := s.RowReader()
			for i := range s.Rows() {
				r.RowNextSame(i)
			}
		}},
		{"rows by a reader, every 7th", h.RowsOff, h.Rows * rowSize, func(s *Segment) {
			r := s.RowReader()
			for i := 0; i < s.Rows(); i += 7 {
				r.RowNextSame(i)
			}
			r.RowNextSame(s.Rows() - 1)
		}},
		{"vocabulary", h.VocabOff, h.VocabLen, func(s *Segment) { s.FindTokens("A", false, func(int, int) {}) }},
		{"token offsets", h.TokOff, (h.Tokens + 1) * 4, func(s *Segment) {
			for id := range s.tokens() {
				s.Token(id)
			}
		}},
		{"postings", h.PostingsOff, h.PostingsLen, func(s *Segment) {
			for id := range s.tokens() {
				_ = s.Postings(id, func(int, int, int) {})
			}
		}},
		{"folds", h.FoldsOff, h.FoldsLen + h.Folds*4, func(s *Segment) { s.FindFolded("C", func(int, []byte) {}) }},
		{"stems", h.StemsOff, h.StemsLen, func(s *Segment) { s.FindStem("TRANSLAT", func(int, []byte) {}) }},
	}
	for _, sec := range sections {
		if sec.n == 0 {
			t.Fatalf("%s is empty", sec.name)
		}
		for _, at := range []uint64{sec.off, sec.off + sec.n/2, sec.off + sec.n - 1} {
			data := slices.Clone(good)
			data[at] ^= 0x10
			s, err := newSegment(Ref{Name: "x", First: 0, End: 1}, data)
			if errors.Is(err, ErrDamaged) {
				continue // a page the open reads (the keys share it): detected
			}
			if err != nil {
				t.Fatalf("%s: flipping byte %d: %v", sec.name, at, err)
			}
			sec.readWhole(s)
			if !errors.Is(s.Err(), ErrDamaged) {
				t.Errorf("%s: a flipped byte at %d was not detected by reading the section", sec.name, at)
			}
			s2, _ := newSegment(Ref{Name: "x", First: 0, End: 1}, data)
			if err := s2.Verify(); !errors.Is(err, ErrDamaged) {
				t.Errorf("%s: Verify missed the flipped byte at %d", sec.name, at)
			}
		}
	}
	s, _ := newSegment(Ref{Name: "x", First: 0, End: 1}, good)
	for _, sec := range sections {
		sec.readWhole(s)
	}
	if err := s.Verify(); err != nil || s.Err() != nil {
		t.Errorf("the undamaged segment: Verify %v, Err %v", err, s.Err())
	}
}

func TestChannelSectionsAreSmall(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	var rows []Row
	for range 2000 {
		rows = append(rows, Row{Session: "t", Project: "/p", Text: []byte(randomText(r) + " painted translated reviewing ")})
	}
	data := build(rows).encode(0, 1)
	h, _ := decodeHeader(data, uint64(len(data)))
	extra := h.FoldsLen + h.Folds*4 + h.StemsLen + (h.Stems+1)*8 + h.StemListsLen + h.CRCPages*4
	t.Logf("%d bytes, channels and checksums %d (%.1f%%)", len(data), extra, 100*float64(extra)/float64(len(data)))
	if !bytes.Contains(data[h.StemsOff:h.StemsOff+h.StemsLen], []byte("TRANSLAT\n")) {
		t.Error("the stems section lacks TRANSLAT")
	}
}
