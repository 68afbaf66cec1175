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
	fmt.Fprintf(&b, "indexed %d of %d %s: %s read", s.FilesRead, s.Files, pluralS(s.Files, "transcript"), HumanBytes(s.BytesRead))
	if secs > 0 && s.BytesRead > 0 {
		fmt.Fprintf(&b, " at %.0f MB/s", float64(s.BytesRead)/1e6/secs)
	}
	fmt.Fprintf(&b, ", %d %s added in %s", s.RowsAdded, pluralS(int(s.RowsAdded), "row"), s.Elapsed.Round(msRound(s)))
	if ex := formatExcluded(s.Excluded); ex != "" {
		b.WriteString("; excluded: " + ex)
	}
	var notes []string
	if s.CurrentFiles > 0 {
		notes = append(notes, fmt.Sprintf("%d %s of the running session left for later", s.CurrentFiles, pluralS(int(s.CurrentFiles), "transcript")))
	}
	if s.Replaced > 0 {
		notes = append(notes, fmt.Sprintf("%d replaced %s re-read", s.Replaced, pluralS(int(s.Replaced), "transcript")))
	}
	if s.Gone > 0 {
		notes = append(notes, fmt.Sprintf("%d %s deleted from disk (rows kept)", s.Gone, pluralS(int(s.Gone), "transcript")))
	}
	if s.Forgotten > 0 {
		notes = append(notes, fmt.Sprintf("%d %s that `recall forget` removed left out", s.Forgotten, pluralS(int(s.Forgotten), "row")))
	}
	if s.Recovered > 0 {
		notes = append(notes, fmt.Sprintf("%d %s an earlier recall left out judged again", s.Recovered, pluralS(int(s.Recovered), "transcript")))
	}
	if n := s.Excluded[filter.Headless.String()]; n > 0 {
		notes = append(notes, fmt.Sprintf("%d %s of headless runs kept (searched with --include-headless)", n, pluralS(int(n), "row")))
	}
	if len(notes) > 0 {
		b.WriteString("; " + strings.Join(notes, ", "))
	}
	if s.Repair != nil {
		b.WriteString("\n" + s.Repair.String())
	}
	for _, w := range ExclusionWarnings(without(s.Excluded, s.otherExcluded), s.RowsAdded-s.otherRows, "of Claude Code read this run") {
		b.WriteString("\nwarning: " + w)
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
// (transcripts an earlier recall left out) counts transcripts; the others
// count messages.
func formatExcluded(ex map[string]int64) string {
	var parts []string
	for _, r := range filter.Reasons() {
		n := ex[r.String()]
		if n == 0 || r == filter.Headless { // kept, not excluded: a note of its own
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

// TooMuch is the share of messages (or transcripts) one exclusion reason
// may take before recall says so: a rule that removes more than a tenth
// of what was written is more likely wrong for these transcripts than
// right (an earlier rule dropped every VS Code session as a fork).
const TooMuch = 0.10

// minWarnMessages is how many messages a count must cover before a share
// of it is worth a warning: in a run that read five messages, one dropped
// is a fifth of them and says nothing.
const minWarnMessages = 200

// messageReasons are the reasons that count messages (the others count
// transcripts or lines).
var messageReasons = [...]filter.Reason{filter.Noise, filter.TooShort, filter.Acknowledgement, filter.Copy,
	filter.RecallOutput, filter.Headless}

// without is each count of all less the same reason's in part.
func without(all, part map[string]int64) map[string]int64 {
	out := make(map[string]int64, len(all))
	for k, n := range all {
		out[k] = n - part[k]
	}
	return out
}

// ExclusionWarnings says, for each reason that took more than a tenth of
// the messages, how much it took and what keeps them (a flag, or that no
// flag does). rows is the messages indexed, headless ones included; the
// others are counted in excluded by reason name. scope, when set, says
// which messages were counted ("read this run").
func ExclusionWarnings(excluded map[string]int64, rows int64, scope string) []string {
	total := rows
	for _, r := range messageReasons {
		if r != filter.Headless {
			total += excluded[r.String()]
		}
	}
	if total < minWarnMessages {
		return nil
	}
	var out []string
	for _, r := range messageReasons {
		n := excluded[r.String()]
		if float64(n) <= TooMuch*float64(total) {
			continue
		}
		share := fmt.Sprintf("%d of %d messages (%.0f%%)", n, total, 100*float64(n)/float64(total))
		if scope != "" {
			share = fmt.Sprintf("%d of the %d messages %s (%.0f%%)", n, total, scope, 100*float64(n)/float64(total))
		}
		if r == filter.Headless {
			out = append(out, share+" are from headless runs (claude -p, the SDKs): kept, but searches leave them out; "+keeps(r))
			continue
		}
		out = append(out, fmt.Sprintf("%s dropped %s: %s; %s", r, share, r.Explanation(), keeps(r)))
	}
	return out
}

// keeps says what brings back the messages a reason takes.
func keeps(r filter.Reason) string {
	switch r {
	case filter.Headless:
		return "searches find them with --include-headless (and --session ID)"
	case filter.Copy:
		return "they are found in the session they were copied from; `recall stats` lists the counts"
	}
	return "no flag keeps them: if these are messages you wrote, please report it with `recall stats --json`"
}
