package store

import (
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/recall-dev/recall/store/snapshot"
	"github.com/recall-dev/recall/store/terms"

	"github.com/recall-dev/recall/store/manifest"

	"github.com/recall-dev/recall/record"
)

// sessionsIndex writes an index of several sessions spread over several
// blocks (each session's rows interleaved with the others'), one of them
// with a dead generation, and returns its directory and the rows written
// in order.
func sessionsIndex(t *testing.T) (string, []record.Row) { return sessionsIndexB(t) }

func sessionsIndexB(t testing.TB) (string, []record.Row) {
	t.Helper()
	dir := t.TempDir()
	m := manifest.New()
	w, err := openRowsWriterAt(dir, m, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	sessions := []string{"aaaa1111-0000-4000-8000-000000000001", "aaaa2222-0000-4000-8000-000000000002", "bbbb3333-0000-4000-8000-000000000003"}
	base := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	filler := strings.Repeat("lorem ipsum dolor sit amet ", 40) // about 1 KB a row: a block holds ~120 rows
	var rows []record.Row
	for i := range 600 {
		s := i % 3
		if i >= 300 && s == 2 {
			s = 1 // the third session ends early: it lives in the first blocks only
		}
		typ := record.TypeAssistant
		if i/3%5 == 0 {
			typ = record.TypeUser
		}
		gen := uint32(s + 1)
		if s == 1 && i < 30 {
			gen = 9 // a replaced generation: hidden
		}
		r := record.Row{
			Session: sessions[s], Timestamp: base.Add(time.Duration(i) * time.Minute).Format("2006-01-02T15:04:05.000Z"),
			Type: typ, Text: fmt.Sprintf("row %d of session %d: %s", i, s, filler), Project: "/home/dev/p" + fmt.Sprint(s),
			Source: "/t/" + sessions[s] + ".jsonl", Line: i + 1, UUID: fmt.Sprintf("u-%d", i), Role: typ, Gen: gen, Ordinal: i + 1,
		}
		if err := w.Add(&r, uint64(i+1)); err != nil {
			t.Fatal(err)
		}
		rows = append(rows, r)
	}
	m.Dead[9] = 10
	if err := w.Sync(true); err != nil {
		t.Fatal(err)
	}
	if err := manifest.Commit(dir, m); err != nil {
		t.Fatal(err)
	}
	return dir, rows
}

// withoutTermIndex removes dir's term index and opens a snapshot, which
// reads the rows for what the term index would have told.
func withoutTermIndex(tb testing.TB, dir string) *snapshot.Snapshot {
	tb.Helper()
	refs, err := terms.Refs(dir)
	if err != nil {
		tb.Fatal(err)
	}
	for _, r := range refs {
		if err := os.Remove(r.Path(dir)); err != nil {
			tb.Fatal(err)
		}
	}
	snap, err := snapshot.Open(dir)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { snap.Close() })
	if segs, _ := snap.TermSegments(); segs != nil {
		tb.Fatal("the term index is still read")
	}
	return snap
}

func openSnap(t *testing.T, dir string) *snapshot.Snapshot {
	t.Helper()
	snap, err := snapshot.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { snap.Close() })
	return snap
}

// ReadSession returns exactly the live rows of the session, in order,
// as reading every row would.
func TestReadSession(t *testing.T) {
	dir, rows := sessionsIndex(t)
	snap := openSnap(t, dir)
	if len(snap.Blocks) < 4 {
		t.Fatalf("%d blocks: the test needs sessions spread over several", len(snap.Blocks))
	}
	for _, id := range []string{rows[0].Session, rows[1].Session, rows[2].Session, "cccc0000-0000-4000-8000-000000000000"} {
		var want []record.Row
		for _, r := range rows {
			if r.Session == id && !snap.Dead(r.Gen) {
				want = append(want, r)
			}
		}
		got, err := snap.ReadSession(id)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got.Rows, want) || got.BadRows != 0 || got.Damaged != 0 {
			t.Errorf("%s: %d rows (bad %d, damaged %d), want %d", id, len(got.Rows), got.BadRows, got.Damaged, len(want))
		}
		// The third session lives in the first blocks only, and no
		// session in the last ones: their filters spare reading them all.
		if (id == rows[2].Session || len(want) == 0) && got.BlocksRead >= len(snap.Blocks) {
			t.Errorf("%s: read %d of %d blocks", id, got.BlocksRead, len(snap.Blocks))
		}
	}
}

// BenchmarkReadSession reads one session of a many-block index through
// the session filters; BenchmarkEachRowScan reads every row, which is what
// finding a session cost without them.
func BenchmarkReadSession(b *testing.B) {
	dir, rows := sessionsIndexB(b)
	snap, err := snapshot.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer snap.Close()
	b.ResetTimer()
	for range b.N {
		if _, err := snap.ReadSession(rows[2].Session); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEachRowScan(b *testing.B) {
	dir, rows := sessionsIndexB(b)
	snap, err := snapshot.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer snap.Close()
	b.ResetTimer()
	for range b.N {
		n := 0
		if err := snap.EachRow(func(r *record.Row) error {
			if r.Session == rows[2].Session {
				n++
			}
			return nil
		}); err != nil {
			b.Fatal(err)
		}
	}
}

// The term index's row tables and a read of every row summarise sessions
// alike; first prompts come from the first user row.
func TestSessionSummaries(t *testing.T) {
	dir, rows := sessionsIndex(t)
	snap := openSnap(t, dir)
	segs, why := snap.TermSegments()
	if segs == nil {
		t.Fatalf("no term index: %s", why)
	}
	fromTerms, err := snap.SessionSummaries()
	if err != nil {
		t.Fatal(err)
	}
	fromRows, err := withoutTermIndex(t, dir).SessionSummaries()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(fromTerms, fromRows) {
		t.Errorf("term index and rows disagree:\n%+v\n%+v", fromTerms, fromRows)
	}
	if err := snap.FillFirstPrompts(fromTerms); err != nil {
		t.Fatal(err)
	}
	for _, s := range fromTerms {
		var first, last time.Time
		n := 0
		prompt := ""
		for _, r := range rows {
			if r.Session != s.ID || snap.Dead(r.Gen) {
				continue
			}
			ts, _ := time.Parse(time.RFC3339Nano, r.Timestamp)
			if n == 0 {
				first = ts
			}
			last = ts
			n++
			if prompt == "" && r.Type == record.TypeUser {
				prompt = r.Text
			}
		}
		if s.Messages != n || s.FirstMs != first.UnixMilli() || s.LastMs != last.UnixMilli() || s.FirstPrompt != prompt {
			t.Errorf("%s: %d messages %d–%d prompt %.20q; want %d %d–%d %.20q", s.ID, s.Messages, s.FirstMs, s.LastMs, s.FirstPrompt,
				n, first.UnixMilli(), last.UnixMilli(), prompt)
		}
	}
}

func TestResolveSession(t *testing.T) {
	m := manifest.New()
	add := func(path, session string, rows int64) {
		m.SetFile(path, &record.FileState{Path: path, Session: session, Rows: rows, Kind: record.KindMain, Verdict: record.VerdictIndexed})
	}
	add("/a.jsonl", "abc11111", 3)
	add("/b.jsonl", "abc22222", 2)
	add("/c.jsonl", "abd33333", 1)
	add("/d.jsonl", "zzz00000", 0) // no rows: not an indexed session
	tests := []struct {
		prefix, want string
		err          error
	}{
		{"abc1", "abc11111", nil},
		{"abc22222", "abc22222", nil},
		{"abd", "abd33333", nil},
		{"zzz", "", manifest.ErrNoSession},
		{"", "", manifest.ErrNoSession},
	}
	for _, tt := range tests {
		got, err := m.ResolveSession(tt.prefix)
		if got != tt.want || !errors.Is(err, tt.err) {
			t.Errorf("ResolveSession(%q) = %q, %v; want %q, %v", tt.prefix, got, err, tt.want, tt.err)
		}
	}
	_, err := m.ResolveSession("ab")
	var amb *manifest.AmbiguousError
	if !errors.As(err, &amb) || amb.Count != 3 || !strings.Contains(err.Error(), "abc11111, abc22222, abd33333") {
		t.Errorf("ambiguous prefix: %v", err)
	}
}

// BenchmarkSessionSummaries: `recall sessions` from the term index's row
// tables against reading every row.
func BenchmarkSessionSummaries(b *testing.B) {
	dir, _ := sessionsIndexB(b)
	snap, err := snapshot.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer snap.Close()
	segs, why := snap.TermSegments()
	if segs == nil {
		b.Fatal(why)
	}
	rowsOnly := withoutTermIndex(b, dir) // snap keeps the segments it opened
	for _, c := range []struct {
		name string
		snap *snapshot.Snapshot
	}{{"terms", snap}, {"rows", rowsOnly}} {
		b.Run(c.name, func(b *testing.B) {
			for range b.N {
				if _, err := c.snap.SessionSummaries(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func TestSessionIDOf(t *testing.T) {
	for _, c := range []struct{ name, id string }{
		{"11111111-1111-4111-8111-111111111111", "11111111-1111-4111-8111-111111111111"},
		{`a\b`, `a\b`}, // valid UTF-8: the name, as ever
		{"caf\xc3\xa9", "café"},
		{"ab\xffcd", `ab\xffcd`},
		{"a\\b\xfe", `a\\b\xfe`},
		{"\xc3", `\xc3`}, // a sequence cut short
	} {
		if got := record.SessionIDOf(c.name); got != c.id {
			t.Errorf("record.SessionIDOf(%q) = %q, want %q", c.name, got, c.id)
		}
	}
	// An older index holds the raw bytes: the printed form names it.
	if !record.SessionHasPrefix("ab\xffcd", `ab\xff`) || !record.SessionHasPrefix("ab\xffcd", "ab") || record.SessionHasPrefix("abcd", `ab\x`) {
		t.Error("record.SessionHasPrefix does not take an older index's raw id by its printed form")
	}
}
