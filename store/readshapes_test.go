package store

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/recall-dev/recall/store/snapshot"

	"github.com/recall-dev/recall/store/manifest"

	"github.com/recall-dev/recall/record"
	"github.com/recall-dev/recall/store/terms"
)

// SessionShapes gives every live row of each session asked for, title
// rows left out, with the length of its text as the transcript had it
// (escapes undone), the same from the row tables as from the rows.
func TestSessionShapes(t *testing.T) {
	dir := t.TempDir()
	m := manifest.New()
	w, err := openRowsWriterAt(dir, m, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	const a, b, c = "aaaa1111-0000-4000-8000-000000000001", "bbbb2222-0000-4000-8000-000000000002", "cccc3333-0000-4000-8000-000000000003"
	base := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	want := map[string][]snapshot.RowShape{a: nil, b: nil, "dddd4444-0000-4000-8000-000000000004": nil}
	for i := range 500 {
		sid := []string{a, b, c}[i%3]
		typ := []string{record.TypeUser, record.TypeAssistant, "tool", "agent", record.TypeTitle}[i%5]
		text := fmt.Sprintf("row %d\twith a tab,\na newline and a \\ backslash %*s", i, 300+i%97, "")
		gen := uint32(i%3 + 1)
		if sid == b && i < 60 {
			gen = 7 // replaced: dead
		}
		r := record.Row{Session: sid, Timestamp: base.Add(time.Duration(i) * time.Minute).Format("2006-01-02T15:04:05.000Z"),
			Type: typ, Text: text, Project: "/p", Source: "/t/" + sid + ".jsonl", Line: i + 1, UUID: fmt.Sprintf("u-%d", i),
			Role: typ, Gen: gen, Ordinal: i + 1}
		if err := w.Add(&r, uint64(i+1)); err != nil {
			t.Fatal(err)
		}
		if _, asked := want[sid]; asked && typ != record.TypeTitle && gen != 7 {
			want[sid] = append(want[sid], snapshot.RowShape{Type: terms.TypeCode(typ), Len: uint32(len(text))})
		}
	}
	m.Dead[7] = 20
	if err := w.Sync(true); err != nil {
		t.Fatal(err)
	}
	if err := manifest.Commit(dir, m); err != nil {
		t.Fatal(err)
	}
	snap := openSnap(t, dir)
	if len(snap.Blocks) < 2 {
		t.Fatalf("%d block: the sessions should span several", len(snap.Blocks))
	}
	segs, why := snap.TermSegments()
	if segs == nil {
		t.Fatalf("no term index: %s", why)
	}
	ids := []string{a, b, "dddd4444-0000-4000-8000-000000000004", a}
	fromTerms, err := snap.SessionShapes(ids)
	if err != nil {
		t.Fatal(err)
	}
	fromRows, err := withoutTermIndex(t, dir).SessionShapes(ids)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(fromTerms, want) {
		t.Errorf("from the row tables:\n%v\nwant\n%v", fromTerms, want)
	}
	if !reflect.DeepEqual(fromRows, want) {
		t.Errorf("from the rows:\n%v\nwant\n%v", fromRows, want)
	}
	if got, err := snap.SessionShapes(nil); err != nil || len(got) != 0 {
		t.Errorf("SessionShapes of no session: %v, %v", got, err)
	}
}
