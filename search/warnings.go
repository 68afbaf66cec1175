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
		out = append(out, reReadProblem(fmt.Errorf("%d damaged rows blocks were skipped, their rows not searched (%s)", s.Damaged, s.DamageExample)))
	}
	out = append(out, s.Problems...)
	if s.BadRows > 0 {
		out = append(out, badRowsProblem(s.BadRows))
	}
	return problem.SayAll(out, w)
}

// reReadProblem is rows a search skipped: a repair reads them again.
func reReadProblem(err error) error {
	return problem.Problem{Err: err, Remedy: problem.Repair, Mends: "re-reads them from transcripts that still exist"}
}

// badRowsProblem is n rows that did not read as rows.
func badRowsProblem(n int) error {
	return reReadProblem(fmt.Errorf("%d index rows could not be read and were skipped", n))
}

// repairProblem is a derived part a search worked around that a repair
// rebuilds; mends says how.
func repairProblem(err error, mends string) error {
	return problem.Problem{Err: err, Remedy: problem.Repair, Mends: mends}
}
