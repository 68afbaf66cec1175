package indexer

import (
	"strings"
	"testing"
)

func TestExclusionWarnings(t *testing.T) {
	for _, tt := range []struct {
		name     string
		excluded map[string]int64
		rows     int64
		scope    string
		want     []string // a substring of each warning, in order
	}{
		{"too few messages to judge", map[string]int64{"noise": 50}, 10, "", nil},
		{"a tenth or less", map[string]int64{"noise": 100}, 900, "", nil},
		{"noise over a tenth", map[string]int64{"noise": 300}, 700, "", []string{"noise dropped 300 of 1000 messages (30%)"}},
		{"headless kept, counted among the rows", map[string]int64{"headless": 300}, 1000, "read this run",
			[]string{"300 of the 1000 messages read this run (30%) are from headless runs"}},
	} {
		got := ExclusionWarnings(tt.excluded, tt.rows, tt.scope)
		if len(got) != len(tt.want) {
			t.Errorf("%s: %d warnings %q, want %d", tt.name, len(got), got, len(tt.want))
			continue
		}
		for i, w := range tt.want {
			if !strings.Contains(got[i], w) {
				t.Errorf("%s: warning %q, want it to hold %q", tt.name, got[i], w)
			}
		}
	}
}

// TestOtherAgentsNoiseWarnsOfNothing: the summary's warnings judge Claude
// Code's messages; another agent's harness records (system prompts, tool
// output), dropped as noise by the thousand, say nothing of its rules.
func TestOtherAgentsNoiseWarnsOfNothing(t *testing.T) {
	s := Summary{RowsAdded: 1000, Excluded: map[string]int64{"noise": 3050}, otherRows: 400, otherExcluded: map[string]int64{"noise": 3000}}
	if got := FormatSummary(&s); strings.Contains(got, "warning:") {
		t.Errorf("other agents' noise warned: %q", got)
	}
	s.Excluded["noise"] += 500
	if got := FormatSummary(&s); !strings.Contains(got, "noise dropped 550 of the 1150 messages of Claude Code read this run") {
		t.Errorf("Claude Code's noise did not warn: %q", got)
	}
}
