// Package when reads the time a question names: a span of ages back
// from the search's clock ("last week", "3 days ago") or a calendar date
// ("on March 3", "2026-02-16", "in July 2025").
package when
