package search

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/recall-dev/recall/record"
)

// TestRowTimeIsTimeParse: a row's time is the value time.Parse gives,
// field for field (location included), for the canonical form read by
// hand and for any other, malformed ones (the zero time) included.
func TestRowTimeIsTimeParse(t *testing.T) {
	texts := []string{"2026-05-02T22:37:26.759Z", "1970-01-01T00:00:00.000Z", "2024-02-29T23:59:59.999Z",
		"2023-02-29T00:00:00.000Z", "2026-05-02T22:37:26Z", "2026-05-02T22:37:26.759123Z",
		"2026-05-02T22:37:26.759+02:00", "2026-13-02T22:37:26.759Z", "", "yesterday", "0001-01-01T00:00:00.000Z"}
	r := rand.New(rand.NewPCG(5, 6))
	for range 2000 {
		at := time.UnixMilli(r.Int64N(4102444800000)).UTC() // up to 2100
		texts = append(texts, at.Format("2006-01-02T15:04:05.000Z"))
	}
	for _, s := range texts {
		want, _ := time.Parse(time.RFC3339Nano, s)
		if got := rowTime([]byte(s)); got != want || got.String() != want.String() {
			t.Errorf("rowTime(%q) = %#v, time.Parse %#v", s, got, want)
		}
	}
}

// TestInternColumnIsUnescape: a column's value is its unescaped bytes
// whatever came before it in that column or another.
func TestInternColumnIsUnescape(t *testing.T) {
	w := &blockWorker{strs: map[string]interned{}}
	values := []string{"a", "a", "b\\tc", "b\\tc", "", "a", "/p/x.jsonl", "", "", "b\\tc", "a"}
	for i, v := range values {
		for _, c := range []int{record.ColSession, record.ColSource} {
			if got, want := w.internColumn(c, []byte(v)), record.Unescape([]byte(v)); got != want {
				t.Fatalf("value %d, column %d: %q, want %q", i, c, got, want)
			}
		}
		if got, want := w.internColumn(record.ColProject, []byte(values[len(values)-1-i])), record.Unescape([]byte(values[len(values)-1-i])); got != want {
			t.Fatalf("value %d, project: %q, want %q", i, got, want)
		}
	}
}
