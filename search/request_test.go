package search

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/recall-dev/recall/filter"
)

func TestParseWindow(t *testing.T) {
	tests := []struct {
		in   string
		want filter.Window
		ok   bool
	}{
		{"10m,5", filter.Window{Duration: 10 * time.Minute, Messages: 5}, true},
		{"10m", filter.Window{Duration: 10 * time.Minute}, true},
		{"5", filter.Window{Messages: 5}, true},
		{" 90s , 2 ", filter.Window{Duration: 90 * time.Second, Messages: 2}, true},
		{"0", filter.Window{}, true},
		{"-1m", filter.Window{}, false},
		{"soon", filter.Window{}, false},
	}
	for _, tt := range tests {
		got, err := ParseWindow(tt.in)
		if (err == nil) != tt.ok || (tt.ok && got != tt.want) {
			t.Errorf("ParseWindow(%q) = %+v, %v; want %+v, ok %v", tt.in, got, err, tt.want, tt.ok)
		}
	}
	// The default is written as ParseWindow reads it, and is filter's.
	if DefaultRecallWindow != "10m,5" {
		t.Errorf("DefaultRecallWindow = %q", DefaultRecallWindow)
	}
	if w, err := ParseWindow(DefaultRecallWindow); err != nil || w != filter.DefaultWindow() {
		t.Errorf("ParseWindow(DefaultRecallWindow) = %+v, %v; want %+v", w, err, filter.DefaultWindow())
	}
}

func TestFormatDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		1440 * time.Hour: "1440h", 10 * time.Minute: "10m", 90 * time.Minute: "1h30m",
		90 * time.Second: "1m30s", 0: "0s", 1500 * time.Millisecond: "1.5s",
	} {
		if got := FormatDuration(d); got != want {
			t.Errorf("FormatDuration(%v) = %q, want %q", d, got, want)
		}
		if back, err := time.ParseDuration(FormatDuration(d)); err != nil || back != d {
			t.Errorf("FormatDuration(%v) does not read back: %v, %v", d, back, err)
		}
	}
}

func TestParamsDefaults(t *testing.T) {
	before := time.Now()
	req, err := Params{Terms: []string{"jwt"}}.Request()
	if err != nil {
		t.Fatal(err)
	}
	if req.Limit != DefaultSessions || req.HalfLife != DefaultHalfLife || req.Window != filter.DefaultWindow() ||
		!req.Cutoff || req.Scope != ScopeMessage || req.FullScan || req.CurrentProject != "" || req.Now.Before(before) {
		t.Errorf("defaults: %+v", req)
	}
	out, err := Params{}.Output()
	if err != nil || out.MaxSessions != DefaultSessions || out.MaxMessages != DefaultMessages || out.Context != DefaultContext {
		t.Errorf("output defaults: %+v, %v", out, err)
	}
}

func TestParamsExplicitValues(t *testing.T) {
	zero, three := 0, 3
	halfLife := 24 * time.Hour
	p := Params{
		Terms: []string{"jwt"}, Scope: "session", Types: []string{"user", "tool"},
		Since: "2026-01-01", Until: "2026-02-01", Now: "2026-03-10T00:00:00Z",
		Limit: &zero, Messages: &three, Context: &three, HalfLife: &halfLife,
		RecallWindow: "0", NoRecallCutoff: true, FullScan: true,
		Cwd: t.TempDir(), CurrentSession: "abc",
	}
	req, err := p.Request()
	if err != nil {
		t.Fatal(err)
	}
	// An explicit zero window stays zero: only the recall events go.
	if req.Window != (filter.Window{}) {
		t.Errorf("--recall-window 0 gave %+v, want the zero window", req.Window)
	}
	if req.Limit != 0 || req.HalfLife != halfLife || req.Cutoff || !req.FullScan || req.Scope != ScopeSession ||
		req.CurrentSession != "abc" || req.CurrentProject == "" || !req.Now.Equal(time.Date(2026, 3, 10, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("explicit values: %+v", req)
	}
	out, err := p.Output()
	if err != nil || out.MaxSessions != 0 || out.MaxMessages != 3 || out.Context != 3 {
		t.Errorf("output: %+v, %v", out, err)
	}
}

func TestParamsChecks(t *testing.T) {
	minus := -1
	negative := -time.Hour
	tests := []struct {
		name string
		p    Params
		want string
	}{
		{"negative limit", Params{Limit: &minus}, "-n/--sessions -1: must not be negative"},
		{"negative half-life", Params{HalfLife: &negative}, "--half-life -1h0m0s: must not be negative"},
		{"until before since", Params{Since: "2026-02-01", Until: "2026-01-01"}, "--until 2026-01-01 is before --since 2026-02-01"},
		{"until before since, ages", Params{Since: "1d", Until: "2d"}, "--until 2d is before --since 1d"},
		{"bad since", Params{Since: "yesterdayish"}, "--since: cannot read time"},
		{"bad now", Params{Now: "later"}, "--now: cannot read time"},
		{"bad window", Params{RecallWindow: "soon"}, `--recall-window "soon"`},
		{"bad scope", Params{Scope: "project"}, `--scope "project"`},
		{"bad type", Params{Types: []string{"system"}}, `--type "system"`},
		{"project . without cwd", Params{Projects: []string{"."}}, "--project .: no working directory"},
	}
	for _, tt := range tests {
		if _, err := tt.p.Request(); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want %q", tt.name, err, tt.want)
		}
	}
	if _, err := (Params{Messages: &minus}).Output(); err == nil || !strings.Contains(err.Error(), "-m/--messages -1: must not be negative") {
		t.Errorf("negative -m: error %v", err)
	}
	if _, err := (Params{Since: "2026-01-01", Until: "2026-01-01"}).Request(); err != nil {
		t.Errorf("until equal to since: %v", err)
	}
}

// TestCountCaps: a count over its cap is refused, naming the cap, before
// anything is sized by it; 0 (all) and the cap itself are taken.
func TestCountCaps(t *testing.T) {
	huge := int(^uint(0) >> 1) // 2^63-1 on 64-bit platforms
	over := func(n int) *int { return &n }
	for _, tt := range []struct {
		name string
		err  func() error
		want string
	}{
		{"limit", func() error { _, err := Params{Terms: []string{"jwt"}, Limit: over(huge)}.Request(); return err }, "-n/--sessions %d: at most 100000 (0 means all)"},
		{"sessions shown", func() error { _, err := Params{Limit: over(MaxSessions + 1)}.Output(); return err }, "-n/--sessions 100001: at most 100000 (0 means all)"},
		{"messages", func() error { _, err := Params{Messages: over(huge)}.Output(); return err }, "-m/--messages %d: at most 100000 (0 means all)"},
		{"snippet width", func() error { _, err := Params{Context: over(huge)}.Output(); return err }, "-W/--width %d: the snippet width is at most 1048576 characters"},
		{"recall window", func() error { _, err := ParseWindow(fmt.Sprint(huge)); return err }, "--recall-window \"%d\": at most 100000 messages"},
	} {
		want := strings.ReplaceAll(tt.want, "%d", fmt.Sprint(huge))
		if err := tt.err(); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: %v, want %q", tt.name, err, want)
		}
	}
	for _, n := range []int{0, MaxSessions} {
		if _, err := (Params{Terms: []string{"jwt"}, Limit: &n, Messages: &n}).Request(); err != nil {
			t.Errorf("-n %d: %v", n, err)
		}
	}
	if _, err := (Params{Context: over(MaxContext)}).Output(); err != nil {
		t.Errorf("-C %d: %v", MaxContext, err)
	}
}
