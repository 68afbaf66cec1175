package search

import (
	"strings"

	"github.com/recall-dev/recall/query"
)

// Output controls how results are printed.
type Output struct {
	Format      string // "human", "json", "markdown", "list", "count"
	MaxSessions int    // sessions shown (0: all)
	// Offset is how many of the best sessions a page leaves out before
	// its first (the MCP search tool's paging); ranks count on from it.
	Offset int
	// Ranked is the most sessions the search ranked (0: every match), as
	// the request's limit: a result with fewer holds every match.
	Ranked      int
	MaxMessages int // messages shown per session
	Context     int // snippet width in characters
	Color       bool
	Explain     bool
}

// QueryTitle is a query as a person reads it: "jwt or auth, with
// implement, without test" rather than its internal form.
func QueryTitle(q *query.Query) string {
	if q == nil {
		return ""
	}
	var parts []string
	if len(q.Any) > 0 {
		parts = append(parts, joinTerms(q.Any, " or "))
	}
	if len(q.Require) > 0 {
		parts = append(parts, "with "+joinTerms(q.Require, " and "))
	}
	if len(q.Exclude) > 0 {
		parts = append(parts, "without "+joinTerms(q.Exclude, " or "))
	}
	return strings.Join(parts, ", ")
}

func joinTerms(ts []*query.Term, sep string) string {
	words := make([]string, len(ts))
	for i, t := range ts {
		words[i] = t.String()
	}
	return strings.Join(words, sep)
}
