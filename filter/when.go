package filter

import (
	"strconv"
	"strings"
	"time"
)

// TimeWindow is a span of ages back from the search's clock: a session
// whose matches fall between Near and Far ago is from the time the
// question names.
type TimeWindow struct {
	Near, Far time.Duration
	Phrase    string // the words that named it, for --explain
}

// Contains reports whether a message at t, seen from now, falls in w.
func (w *TimeWindow) Contains(t, now time.Time) bool {
	if w == nil || t.IsZero() || now.IsZero() {
		return false
	}
	age := now.Sub(t)
	return age >= w.Near && age <= w.Far
}

const day = 24 * time.Hour

// relativeTimes are the phrases findTimeWindow knows, as the ages they
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

// findTimeWindow finds the first phrase of the positional words that names
// a time relative to now, or returns nil.
func findTimeWindow(tokens []token) *TimeWindow {
	var words []string
	for _, t := range tokens {
		if t.phrase {
			words = append(words, "") // a phrase breaks a run of words
			continue
		}
		words = append(words, strings.ToLower(trimWordPunct(t.text)))
	}
	for i := range words {
		for _, rt := range relativeTimes {
			if hasWordsAt(words, i, rt.words) {
				return &TimeWindow{Near: rt.near, Far: rt.far, Phrase: strings.Join(rt.words, " ")}
			}
		}
		if w := agoWindow(words, i); w != nil {
			return w
		}
	}
	return nil
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
// end.
func agoWindow(words []string, i int) *TimeWindow {
	n, ok := smallNumbers[words[i]]
	if v, err := strconv.Atoi(words[i]); err == nil && v > 0 && v < 1000 {
		n, ok = v, true
	}
	if !ok {
		return nil
	}
	j := i + 1
	if j < len(words) && words[j] == "of" {
		j++
	}
	if j+1 >= len(words) || words[j+1] != "ago" {
		return nil
	}
	unit, ok := ageUnits[words[j]]
	if !ok {
		return nil
	}
	age := time.Duration(n) * unit
	return &TimeWindow{Near: age / 2, Far: age + age/2 + day, Phrase: strings.Join(words[i:j+2], " ")}
}
