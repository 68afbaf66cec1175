package record

import "time"

// ParseTimestampBytes is ParseTimestamp of string(b), without a copy of
// b in the common case: canonicalTimestamp keeps nothing of its value, so
// the conversion stays on the stack.
func ParseTimestampBytes(b []byte) (int64, bool) {
	if ms, ok := canonicalTimestamp(string(b)); ok {
		return ms, true
	}
	return parseTimestampAny(string(b))
}

// CanonicalTimestamp reads b as Unix milliseconds if it is in the form
// Claude Code writes ("2006-01-02T15:04:05.000Z", the rows' form), and
// says false for any other form, which the caller parses as it would.
func CanonicalTimestamp(b []byte) (int64, bool) { return canonicalTimestamp(string(b)) }

// ParseTimestamp reads a transcript timestamp as Unix milliseconds.
func ParseTimestamp(s string) (int64, bool) {
	if ms, ok := canonicalTimestamp(s); ok {
		return ms, true
	}
	return parseTimestampAny(s)
}

// parseTimestampAny reads any RFC 3339 timestamp, "" none.
func parseTimestampAny(s string) (int64, bool) {
	if s == "" {
		return 0, false
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return 0, false
	}
	return t.UnixMilli(), true
}

// canonicalTimestamp reads the form Claude Code writes,
// "2006-01-02T15:04:05.000Z", without time.Parse: every transcript line
// and every row's timestamp is read (about 1% of a full index in
// time.Parse). ok is false for any other form, or a field out of range,
// which time.Parse then decides; a date it takes is one time.Parse takes,
// with the same value (FuzzParseTimestamp).
func canonicalTimestamp(s string) (int64, bool) {
	if len(s) != len("2006-01-02T15:04:05.000Z") || s[4] != '-' || s[7] != '-' || s[10] != 'T' ||
		s[13] != ':' || s[16] != ':' || s[19] != '.' || s[23] != 'Z' {
		return 0, false
	}
	num := func(from, to int) (int, bool) {
		n := 0
		for i := from; i < to; i++ {
			c := s[i]
			if c < '0' || c > '9' {
				return 0, false
			}
			n = n*10 + int(c-'0')
		}
		return n, true
	}
	year, ok1 := num(0, 4)
	month, ok2 := num(5, 7)
	day, ok3 := num(8, 10)
	hour, ok4 := num(11, 13)
	minute, ok5 := num(14, 16)
	sec, ok6 := num(17, 19)
	milli, ok7 := num(20, 23)
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6 && ok7) || month < 1 || month > 12 || day < 1 ||
		day > daysIn(time.Month(month), year) || hour > 23 || minute > 59 || sec > 59 {
		return 0, false
	}
	secs := int64(daysFromCivil(year, month, day))*86400 + int64(hour*3600+minute*60+sec)
	return secs*1000 + int64(milli), true
}

// daysIn is the number of days of month in year (proleptic Gregorian).
func daysIn(month time.Month, year int) int {
	if month == time.February {
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	}
	return [...]int{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}[month-1]
}

// daysFromCivil is the number of days from 1970-01-01 to the date
// (proleptic Gregorian, year 0 on), Howard Hinnant's days_from_civil.
func daysFromCivil(y, m, d int) int {
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 && y%400 != 0 {
		era-- // floor division for the years before 0 (year 0 in January)
	}
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}
