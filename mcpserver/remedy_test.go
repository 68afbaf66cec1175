package mcpserver

import (
	"errors"
	"testing"

	"github.com/recall-dev/recall/internal/problem"
)

// TestAgentWording: each remedy reads, for an agent, as what recall does
// by itself or what to ask the user for; the sentinel survives.
func TestAgentWording(t *testing.T) {
	damaged := errors.New("block records damaged")
	for _, tt := range []struct {
		remedy problem.Remedy
		mends  string
		want   string
	}{
		{problem.None, "", "block records damaged"},
		{problem.Index, "rebuilds them from the rows", "block records damaged; recall's next index update rebuilds them from the rows (the user can run `recall index` for it now)"},
		{problem.Repair, "re-reads them from transcripts that still exist", "block records damaged; the index needs a repair, which re-reads them from transcripts that still exist: the user should run `recall index --repair` in a shell"},
		{problem.RestoreTombstone, "", "block records damaged; recall indexes nothing until the user restores it from a backup, or removes it and runs `recall forget` again"},
	} {
		err := agentError(problem.Problem{Err: damaged, Remedy: tt.remedy, Mends: tt.mends})
		if err.Error() != tt.want {
			t.Errorf("remedy %d: %q, want %q", tt.remedy, err.Error(), tt.want)
		}
		if !errors.Is(err, damaged) {
			t.Errorf("remedy %d: the sentinel is lost", tt.remedy)
		}
	}
	if agentError(nil) != nil {
		t.Error("agentError(nil) is not nil")
	}
}
