package when

import (
	"strconv"
	"strings"
	"time"
)

// Window is the time a question names: a span of ages back from the
// search's clock ("last week": Near and Far ago), or a calendar date
// ("on March 3", "2026-02-16", "in July 2025": Date). A session whose
// matches fall in it is from then.
type Window struct {
	Near, Far time.Duration
	// Date, when its Month is set, is the calendar date named instead of
	// Near and Far.
	Date   Date
	Phrase string // the words that named it, for --explain
}

// Date is a day (Day 1 to 31) or a whole month (Day 0) of Year,
// or, when Year is 0, of the latest year in which it has begun by the
// time of the search ("March 3" said on March 10 is this year's, said
// on March 1 last year's).
type Date struct{ Year, Month, Day int }

// dateSlack widens a calendar date by a quarter of a day on each side,
// for work late in the evening that ran past midnight and a session
// begun just before it. Time zones need none: the date is read in the
// search clock's location, and messages keep absolute times.
const dateSlack = day / 4

// Span returns the first and last time a message from w can have, seen
// from now (whose location is the calendar's).
func (w *Window) Span(now time.Time) (from, to time.Time) {
	if w.Date.Month == 0 {
		return now.Add(-w.Far), now.Add(-w.Near)
	}
	start, end := w.Date.span(now)
	return start.Add(-dateSlack), end.Add(dateSlack)
}

// span is the date's own first instant and the instant after it, in
// now's location.
func (d Date) span(now time.Time) (start, end time.Time) {
	year := d.Year
	if year == 0 {
		// The latest year in which the date exists and has begun: at most
		// eight back, for February 29.
		year = now.Year()
		for i := 0; i < 8 && (d.begin(year, now.Location()).After(now) || !d.in(year)); i++ {
			year--
		}
	}
	start = d.begin(year, now.Location())
	if d.Day == 0 {
		return start, start.AddDate(0, 1, 0)
	}
	return start, start.AddDate(0, 0, 1)
}

// begin is the date's first instant in year.
func (d Date) begin(year int, loc *time.Location) time.Time {
	return time.Date(year, time.Month(d.Month), max(d.Day, 1), 0, 0, 0, 0, loc)
}

const day = 24 * time.Hour

// relativeTimes are the phrases Find knows, as the ages they
// cover. They are generous: "last week" said on a Monday means one to
// eight days ago, said on a Sunday seven to thirteen, so it covers two
// weeks. "Recently" and "lately" are not among them: they say little
// about when, and conversations use them about their own time.
var relativeTimes = []struct {
	words     []string
	near, far time.Duration
}{
	{[]string{"today"}, 0, day},
	{[]string{"tonight"}, 0, day},
	{[]string{"this", "morning"}, 0, day},
	{[]string{"yesterday"}, 0, 2 * day},
	{[]string{"this", "week"}, 0, 7 * day},
	{[]string{"last", "week"}, 0, 14 * day},
	{[]string{"past", "week"}, 0, 8 * day},
	{[]string{"previous", "week"}, 0, 14 * day},
	{[]string{"last", "weekend"}, 0, 9 * day},
	{[]string{"this", "month"}, 0, 31 * day},
	{[]string{"last", "month"}, 0, 62 * day},
	{[]string{"past", "month"}, 0, 31 * day},
	{[]string{"this", "year"}, 0, 366 * day},
	{[]string{"last", "year"}, 0, 731 * day},
}

// ageUnits are the units of "N units ago".
var ageUnits = map[string]time.Duration{
	"day": day, "days": day, "week": 7 * day, "weeks": 7 * day,
	"month": 30 * day, "months": 30 * day, "year": 365 * day, "years": 365 * day,
}

// smallNumbers read the counts people spell out.
var smallNumbers = map[string]int{
	"a": 1, "an": 1, "one": 1, "two": 2, "couple": 2, "three": 3, "few": 3, "four": 4, "five": 5,
	"six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
}

// Find finds the first phrase of words (lower case, trimmed of
// punctuation; "" for a quoted phrase, which breaks a run of words) that
// names a time, relative to now or a calendar date, or returns nil; at
// and n are the phrase's first word and its number of words.
func Find(words []string) (w *Window, at, n int) {
	for i := range words {
		for _, rt := range relativeTimes {
			if hasWordsAt(words, i, rt.words) {
				return &Window{Near: rt.near, Far: rt.far, Phrase: strings.Join(rt.words, " ")}, i, len(rt.words)
			}
		}
		if w, n := agoWindow(words, i); w != nil {
			return w, i, n
		}
		if w, n := dateWindow(words, i); w != nil {
			return w, i, n
		}
	}
	return nil, 0, 0
}

func hasWordsAt(words []string, i int, want []string) bool {
	if i+len(want) > len(words) {
		return false
	}
	for j, w := range want {
		if words[i+j] != w {
			return false
		}
	}
	return true
}

// agoWindow reads "N units ago" (also "a couple of weeks ago") at i: the
// ages from half to one and a half times N units, a day more at the far
// end. n is how many words it took.
func agoWindow(words []string, i int) (w *Window, n int) {
	count, ok := smallNumbers[words[i]]
	if v, err := strconv.Atoi(words[i]); err == nil && v > 0 && v < 1000 {
		count, ok = v, true
	}
	if !ok {
		return nil, 0
	}
	j := i + 1
	if j < len(words) && words[j] == "of" {
		j++
	}
	if j+1 >= len(words) || words[j+1] != "ago" {
		return nil, 0
	}
	unit, ok := ageUnits[words[j]]
	if !ok {
		return nil, 0
	}
	age := time.Duration(count) * unit
	return &Window{Near: age / 2, Far: age + age/2 + day, Phrase: strings.Join(words[i:j+2], " ")}, j + 2 - i
}

// months read month names, in full and abbreviated.
var months = map[string]int{
	"january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7,
	"august": 8, "september": 9, "october": 10, "november": 11, "december": 12,
	"jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sep": 9,
	"sept": 9, "oct": 10, "nov": 11, "dec": 12,
}

// monthOnlyAfter are the words after which a month name alone names a
// month ("in May", "during July"), where without them it may be a word
// of its own ("may", "mar").
var monthOnlyAfter = map[string]bool{"in": true, "during": true}

// dateWindow reads a calendar date at i: 2026-03-03 or 2026-03, "3 March
// 2026", "3rd of March", "March 3, 2026", "March 3rd", "March 2026", and
// a month alone after "in" or "during". n is how many words it took.
func dateWindow(words []string, i int) (w *Window, n int) {
	at := func(j int) string {
		if j < len(words) {
			return words[j]
		}
		return ""
	}
	found := func(d Date, n int) (*Window, int) {
		return &Window{Date: d, Phrase: strings.Join(words[i:i+n], " ")}, n
	}
	if d, ok := isoDate(at(i)); ok {
		return found(d, 1)
	}
	if day, ok := dayOfMonth(at(i)); ok {
		j := i + 1
		if at(j) == "of" {
			j++
		}
		if month, ok := months[at(j)]; ok {
			d, n := withYear(Date{Month: month, Day: day}, at(j+1))
			if d.valid() {
				return found(d, j-i+1+n)
			}
		}
	}
	month, ok := months[at(i)]
	if !ok {
		return nil, 0
	}
	if day, ok := dayOfMonth(at(i + 1)); ok {
		d, n := withYear(Date{Month: month, Day: day}, at(i+2))
		if d.valid() {
			return found(d, 2+n)
		}
	}
	if year, ok := yearOf(at(i + 1)); ok {
		return found(Date{Year: year, Month: month}, 2)
	}
	if i > 0 && monthOnlyAfter[words[i-1]] {
		return found(Date{Month: month}, 1)
	}
	return nil, 0
}

// withYear sets d's year from next when it is one, and says how many
// words that took.
func withYear(d Date, next string) (Date, int) {
	if year, ok := yearOf(next); ok {
		d.Year = year
		return d, 1
	}
	return d, 0
}

// isoDate reads 2026-03-03 (a day) or 2026-03 (a month).
func isoDate(w string) (Date, bool) {
	parts := strings.Split(w, "-")
	if len(parts) < 2 || len(parts) > 3 || len(parts[0]) != 4 || len(parts[1]) != 2 {
		return Date{}, false
	}
	year, ok := yearOf(parts[0])
	month, err := strconv.Atoi(parts[1])
	if !ok || err != nil || month < 1 || month > 12 {
		return Date{}, false
	}
	d := Date{Year: year, Month: month}
	if len(parts) == 3 {
		if len(parts[2]) != 2 {
			return Date{}, false
		}
		if d.Day, err = strconv.Atoi(parts[2]); err != nil || !d.valid() {
			return Date{}, false
		}
	}
	return d, true
}

// dayOfMonth reads 3, 03, 3rd or 23rd.
func dayOfMonth(w string) (int, bool) {
	for _, suffix := range []string{"st", "nd", "rd", "th"} {
		if n, ok := strings.CutSuffix(w, suffix); ok {
			w = n
			break
		}
	}
	if len(w) == 0 || len(w) > 2 {
		return 0, false
	}
	n, err := strconv.Atoi(w)
	return n, err == nil && n >= 1 && n <= 31
}

// yearOf reads a four-digit year of the era recall's transcripts can
// be from.
func yearOf(w string) (int, bool) {
	if len(w) != 4 {
		return 0, false
	}
	n, err := strconv.Atoi(w)
	return n, err == nil && n >= 1970 && n <= 2199
}

// valid reports whether d's day exists in its month (in some year, when
// the year is not known: 2000 was a leap year).
func (d Date) valid() bool {
	if d.Year == 0 {
		return d.in(2000)
	}
	return d.in(d.Year)
}

// in reports whether d's month and day exist in year.
func (d Date) in(year int) bool {
	if d.Month < 1 || d.Month > 12 || d.Day < 0 {
		return false
	}
	return d.Day <= time.Date(year, time.Month(d.Month)+1, 0, 0, 0, 0, 0, time.UTC).Day()
}
