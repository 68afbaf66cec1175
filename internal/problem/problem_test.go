package problem

import (
	"errors"
	"fmt"
	"testing"
)

var errSentinel = errors.New("block records damaged")

func tagged(p Problem) string { return fmt.Sprintf(" [%d %s]", p.Remedy, p.Mends) }

func TestSayAppendsTheOutermostRemedy(t *testing.T) {
	inner := Problem{Part: "blocks", Err: errSentinel, Remedy: Index, Mends: "rebuilds them"}
	outer := Problem{Err: fmt.Errorf("rederive: %w", inner), Remedy: Repair, Mends: "re-reads them"}
	for _, tt := range []struct {
		name string
		err  error
		want string
	}{
		{"plain", errors.New("x"), "x"},
		{"problem", inner, "blocks: block records damaged [1 rebuilds them]"},
		{"wrapped", fmt.Errorf("open: %w", inner), "open: blocks: block records damaged [1 rebuilds them]"},
		{"outermost wins", outer, "rederive: blocks: block records damaged [2 re-reads them]"},
		{"none says nothing", Problem{Err: inner, Remedy: None}, "blocks: block records damaged"},
	} {
		if got := Say(tt.err, tagged); got != tt.want {
			t.Errorf("%s: Say = %q, want %q", tt.name, got, tt.want)
		}
		if tt.err != error(nil) && tt.name != "plain" && !errors.Is(tt.err, errSentinel) {
			t.Errorf("%s: the sentinel is lost", tt.name)
		}
	}
}
