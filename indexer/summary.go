package indexer

import (
	"fmt"
	"strings"
	"time"

	"github.com/recall-dev/recall/filter"
)

// FormatSummary renders the one-line summary printed after a run.
func FormatSummary(s *Summary) string {
	var b strings.Builder
	secs := s.Elapsed.Seconds()
	fmt.Fprintf(&b, "indexed %d of %d transcripts: %s read", s.FilesRead, s.Files, HumanBytes(s.BytesRead))
	if secs > 0 && s.BytesRead > 0 {
		fmt.Fprintf(&b, " at %.0f MB/s", float64(s.BytesRead)/1e6/secs)
	}
	fmt.Fprintf(&b, ", %d rows added in %s", s.RowsAdded, s.Elapsed.Round(msRound(s)))
	if ex := formatExcluded(s.Excluded); ex != "" {
		b.WriteString("; excluded: " + ex)
	}
	var notes []string
	if s.CurrentFiles > 0 {
		notes = append(notes, fmt.Sprintf("%d transcripts of the running session left for later", s.CurrentFiles))
	}
	if s.Replaced > 0 {
		notes = append(notes, fmt.Sprintf("%d replaced transcripts re-read", s.Replaced))
	}
	if s.Gone > 0 {
		notes = append(notes, fmt.Sprintf("%d transcripts deleted from disk (rows kept)", s.Gone))
	}
	if len(notes) > 0 {
		b.WriteString("; " + strings.Join(notes, ", "))
	}
	if s.Repair != nil {
		b.WriteString("\n" + s.Repair.String())
	}
	return b.String()
}

func msRound(s *Summary) time.Duration {
	if s.Elapsed.Seconds() < 1 {
		return 100 * time.Microsecond
	}
	return 10 * time.Millisecond
}

// formatExcluded lists non-zero exclusion counts in report order. Fork
// counts transcripts; the others count messages.
func formatExcluded(ex map[string]int64) string {
	var parts []string
	for _, r := range filter.Reasons() {
		n := ex[r.String()]
		if n == 0 {
			continue
		}
		unit := ""
		if r == filter.Fork {
			unit = " transcripts"
		}
		parts = append(parts, fmt.Sprintf("%d %s%s", n, r, unit))
	}
	return strings.Join(parts, ", ")
}

// HumanBytes renders a byte count for people.
func HumanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.2f GB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
