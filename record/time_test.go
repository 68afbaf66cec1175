package record

import (
	"fmt"
	"testing"
	"time"
)

// referenceParseTimestamp is ParseTimestamp before canonicalTimestamp.
func referenceParseTimestamp(s string) (int64, bool) {
	if s == "" {
		return 0, false
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return 0, false
	}
	return t.UnixMilli(), true
}

// FuzzParseTimestamp: reading the canonical form by hand gives what
// time.Parse gives, for any text and for canonical-looking dates with
// any field values.
func FuzzParseTimestamp(f *testing.F) {
	for _, s := range []string{"2026-01-02T03:04:05.678Z", "2024-02-29T23:59:59.999Z", "2023-02-29T00:00:00.000Z",
		"2026-13-01T00:00:00.000Z", "2026-04-31T00:00:00.000Z", "2026-01-01T24:00:00.000Z", "2026-01-01T00:60:00.000Z",
		"2026-01-01T00:00:60.000Z", "0000-01-01T00:00:00.000Z", "9999-12-31T23:59:59.999Z", "2026-01-02t03:04:05.678z",
		"2026-01-02T03:04:05.678+01:00", "2026-01-02T03:04:05Z", "2026-01-0xT03:04:05.678Z", "", "not a time"} {
		f.Add(s, uint16(2026), uint8(1), uint8(1), uint8(0), uint8(0), uint8(0), uint16(0))
	}
	f.Fuzz(func(t *testing.T, s string, y uint16, mo, d, h, mi, sec uint8, ms uint16) {
		gen := fmt.Sprintf("%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", y%10000, mo%100, d%100, h%100, mi%100, sec%100, ms%1000)
		for _, in := range []string{s, gen} {
			got, gotOK := ParseTimestamp(in)
			gotB, gotBOK := ParseTimestampBytes([]byte(in))
			want, wantOK := referenceParseTimestamp(in)
			if got != want || gotOK != wantOK || gotB != want || gotBOK != wantOK {
				t.Fatalf("%q: %d %v and %d %v, time.Parse %d %v", in, got, gotOK, gotB, gotBOK, want, wantOK)
			}
		}
	})
}
