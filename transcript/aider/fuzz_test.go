package aider

import (
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/recall-dev/recall/transcript"
)

// fuzzPreamble starts every fuzzed history: a session and a prompt of
// more than 4 KiB of text, so that the framework's look at a new file's
// first bytes (is it binary?) sees the same whether the file is read
// whole or as it grows. What the fuzzer writes comes after it.
var fuzzPreamble = session1 + "\n#### " + strings.Repeat("a prompt long enough ", 220) + "  \n\n"

// FuzzAiderFile feeds arbitrary bytes as a history, read whole and read
// as it grows in pieces cut where seed says: no panic, the same rows
// (keys and identities too) and the same end either way, texts in UTF-8
// and no longer than a row may be.
func FuzzAiderFile(f *testing.F) {
	for _, path := range histories(f) {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data[:min(len(data), 6<<10)], uint64(len(data)))
	}
	f.Add([]byte(tail+"\n```\n#### x  \n> y\n"), uint64(7))
	f.Add([]byte("\n# aider chat started at 2025-01-01 00:00:00\n\r\n> \xff\n####\n>\n\n\n#### /r\n!\n"), uint64(3))
	f.Fuzz(func(t *testing.T, data []byte, seed uint64) {
		if len(data) > 256<<10 {
			return
		}
		all := append([]byte(fuzzPreamble), data...)
		r := rand.New(rand.NewPCG(seed, 1))
		var cuts []int
		for range r.IntN(24) {
			cuts = append(cuts, len(fuzzPreamble)+r.IntN(len(data)+1))
		}
		slices.Sort(cuts)
		rows, last, whole := readGrowing(t, all, cuts)
		checkSame(t, "in pieces", rows, last, whole)
		for _, row := range whole.Rows {
			if !utf8.ValidString(row.Text) || len(row.Text) > transcript.MaxRowText+200 || row.UUID == "" || row.Session == "" {
				t.Fatalf("row of line %d: %d bytes, uuid %q, session %q, UTF-8 %v", row.Line, len(row.Text), row.UUID,
					row.Session, utf8.ValidString(row.Text))
			}
		}
	})
}

// TestHugeMessage: a message longer than a row keeps is held in memory
// only up to what its row keeps, and says how long it was.
func TestHugeMessage(t *testing.T) {
	huge := strings.Repeat("a line of a reply that goes on and on\n", 50000) // 1.9 MB
	res := readAll(t, writeTemp(t, session1+"\n"+huge+tail))
	if len(res.Rows) != 1 {
		t.Fatalf("%d rows", len(res.Rows))
	}
	text := res.Rows[0].Text
	// The length counted is that of its lines and blank lines, as read.
	if len(text) > transcript.MaxRowText || !strings.HasSuffix(text, "of this 1900000-byte message]") {
		t.Errorf("%d bytes, ending %q", len(text), text[max(0, len(text)-80):])
	}
	var p parser
	p.msg.text.add(huge)
	if n := len(p.msg.text.buf); n > maxText+1 {
		t.Errorf("holds %d bytes of a message, more than the %d a row keeps", n, maxText)
	}
}
