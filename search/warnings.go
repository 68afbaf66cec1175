package search

import "fmt"

// Warnings are what a search must tell its user on stderr (or an MCP
// client in its result), once each: parts of the index it could not read
// and skipped, with the command that repairs them. The results are those
// of what was readable.
func (s *Stats) Warnings() []string {
	var out []string
	if s.Damaged > 0 {
		out = append(out, fmt.Sprintf("%d damaged rows blocks were skipped, their rows not searched (%s); `recall index --repair` re-reads them from transcripts that still exist",
			s.Damaged, s.DamageExample))
	}
	out = append(out, s.Problems...)
	if s.BadRows > 0 {
		out = append(out, fmt.Sprintf("%d index rows could not be read and were skipped; `recall index --repair` re-reads them from transcripts that still exist", s.BadRows))
	}
	return out
}
