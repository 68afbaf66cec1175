package evalcorpus

import (
	"slices"
	"strings"
	"testing"

	"github.com/recall-dev/recall/rank"
)

// TestHardQueriesAllTargets: sessions joined with "+" must all be listed;
// the rank counts the other sessions above the last of them.
func TestHardQueriesAllTargets(t *testing.T) {
	qs, err := ParseHardQueries(strings.NewReader("paste\tbrief\t-\ta+b\npaste\tbrief\t-\ta,b\n"), "h.tsv")
	if err != nil || len(qs) != 2 {
		t.Fatalf("got %v, %v", qs, err)
	}
	if !qs[0].All || !slices.Equal(qs[0].Targets, []string{"a", "b"}) || qs[1].All {
		t.Errorf("parsed %+v and %+v", qs[0], qs[1])
	}
	if _, err := ParseHardQueries(strings.NewReader("paste\tbrief\t-\ta+b,c\n"), "h.tsv"); err == nil || !strings.Contains(err.Error(), "h.tsv:1") {
		t.Errorf("mixed separators: error %v", err)
	}
	ranked := func(ids ...string) []rank.Session {
		out := make([]rank.Session, len(ids))
		for i, id := range ids {
			out[i].ID = id
		}
		return out
	}
	names := map[string]string{"a": "a", "b": "b", "x": "x", "y": "y"}
	tests := []struct {
		ranked []rank.Session
		rank   int
		above  []string
	}{
		{ranked("a", "b", "x"), 1, nil},
		{ranked("b", "x", "a"), 2, []string{"x"}},
		{ranked("x", "a", "y", "b"), 3, []string{"x", "y"}},
		{ranked("x", "a", "y"), 0, []string{"x", "y"}},
	}
	for _, tt := range tests {
		targets := []string{"a", "b"}
		if got := allTargets(tt.ranked, targets); got != tt.rank {
			t.Errorf("%v: rank %d, want %d", tt.ranked, got, tt.rank)
		}
		if got := aboveAnswer(tt.ranked, targets, true, names); !slices.Equal(got, tt.above) {
			t.Errorf("%v: above %v, want %v", tt.ranked, got, tt.above)
		}
	}
	if got := aboveAnswer(ranked("x", "b", "a"), []string{"a", "b"}, false, names); !slices.Equal(got, []string{"x"}) {
		t.Errorf("any target: above %v, want [x]", got)
	}
}
