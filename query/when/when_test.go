package when_test

import (
	"testing"
	"time"

	"github.com/recall-dev/recall/query"
)

func TestTimeWindowSpans(t *testing.T) {
	// A Tuesday evening in Prague: the calendar is the clock's.
	prague := time.FixedZone("CET", 3600)
	now := time.Date(2026, 3, 10, 20, 0, 0, 0, prague)
	at := func(y int, m time.Month, d, h int) time.Time { return time.Date(y, m, d, h, 0, 0, 0, prague) }
	const slack = 6 * time.Hour
	tests := []struct {
		query    string
		phrase   string // "" for no window
		from, to time.Time
	}{
		{"what did we deploy on March 3?", "march 3", at(2026, 3, 3, 0).Add(-slack), at(2026, 3, 4, 0).Add(slack)},
		{"the 3rd of March", "3rd of march", at(2026, 3, 3, 0).Add(-slack), at(2026, 3, 4, 0).Add(slack)},
		{"on 8 May, 2023", "8 may 2023", at(2023, 5, 8, 0).Add(-slack), at(2023, 5, 9, 0).Add(slack)},
		{"on October 13, 2023", "october 13 2023", at(2023, 10, 13, 0).Add(-slack), at(2023, 10, 14, 0).Add(slack)},
		{"on 8th December, 2023", "8th december 2023", at(2023, 12, 8, 0).Add(-slack), at(2023, 12, 9, 0).Add(slack)},
		{"backup on 2026-02-16", "2026-02-16", at(2026, 2, 16, 0).Add(-slack), at(2026, 2, 17, 0).Add(slack)},
		{"releases of 2026-02", "2026-02", at(2026, 2, 1, 0).Add(-slack), at(2026, 3, 1, 0).Add(slack)},
		{"in July 2023", "july 2023", at(2023, 7, 1, 0).Add(-slack), at(2023, 8, 1, 0).Add(slack)},
		{"Feb. 25", "feb 25", at(2026, 2, 25, 0).Add(-slack), at(2026, 2, 26, 0).Add(slack)},
		// A date still to come this year is last year's.
		{"on March 11", "march 11", at(2025, 3, 11, 0).Add(-slack), at(2025, 3, 12, 0).Add(slack)},
		{"what did we do in December", "december", at(2025, 12, 1, 0).Add(-slack), at(2026, 1, 1, 0).Add(slack)},
		{"during march", "march", at(2026, 3, 1, 0).Add(-slack), at(2026, 4, 1, 0).Add(slack)},
		// February 29 is the last leap year's.
		{"on February 29", "february 29", at(2024, 2, 29, 0).Add(-slack), at(2024, 3, 1, 0).Add(slack)},
		{"last week on the cache", "last week", now.Add(-14 * 24 * time.Hour), now},
		// Not dates: a month name alone, days that do not exist, numbers.
		{"you may want the cache", "", time.Time{}, time.Time{}},
		{"the march of progress", "", time.Time{}, time.Time{}},
		{"on February 30", "", time.Time{}, time.Time{}},
		{"30 tests in 2023", "", time.Time{}, time.Time{}},
		{"2026-13-01 and 2026-1-5", "", time.Time{}, time.Time{}},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			q, err := query.ParseQuery([]string{tt.query}, nil, nil, query.MatchOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if tt.phrase == "" {
				if q.When != nil {
					t.Fatalf("window %q, want none", q.When.Phrase)
				}
				return
			}
			if q.When == nil {
				t.Fatalf("no window, want %q", tt.phrase)
			}
			from, to := q.When.Span(now)
			if q.When.Phrase != tt.phrase || !from.Equal(tt.from) || !to.Equal(tt.to) {
				t.Errorf("%q %v .. %v, want %q %v .. %v", q.When.Phrase, from, to, tt.phrase, tt.from, tt.to)
			}
		})
	}
}
