package search

import (
	"fmt"

	"github.com/recall-dev/recall/internal/problem"
)

// Warnings are what a search must tell its user on stderr (or an MCP
// client in its result), once each: parts of the index it could not read
// and skipped, with what mends them as w words it for its reader. The
// results are those of what was readable.
func (s *Stats) Warnings(w problem.Wording) []string {
	var out []error
	if s.Damaged > 0 {
		out = append(out, problem.RowsSkipped(fmt.Errorf("%d damaged rows blocks were skipped, their rows not searched (%s)", s.Damaged, s.DamageExample)))
	}
	out = append(out, s.Problems...)
	if s.BadRows > 0 {
		out = append(out, problem.BadRows(s.BadRows))
	}
	return problem.SayAll(out, w)
}
