package redact

import (
	"regexp/syntax"
	"strings"
	"testing"

	"github.com/recall-dev/recall/redact/redacttest"
)

func TestRequiredRun(t *testing.T) {
	tests := []struct {
		src   string
		min   int
		in    string // a run the class holds
		notIn byte   // a byte it does not
		past  bool   // bytes past ASCII count
	}{
		{`(?i)[\w.-]{0,50}?(?:linear)(?:[ \t\w.-]{0,20})[\s'"]{0,3}(?:=|:)([a-f0-9]{32})(?:['"\s;]|$)`, 32, "aF09", 'g', false},
		{`a|b{40}`, 0, "", 0, false},
		{`x([0-9]{20})?`, 0, "", 0, false},
		{`[a-z]{5}[0-9]{20}`, 20, "0123456789", 'a', false},
		{`(?i)k[a-z]{18,}`, 18, "azAZ", '0', true}, // (?i)k folds to the Kelvin sign, s to ſ
		{`(?:ab[0-9]{30})+`, 30, "09", 'a', false},
		{`[^a]{25}`, 25, "bz", 'a', true},
	}
	for _, tt := range tests {
		re, err := syntax.Parse(tt.src, syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		r := requiredRun(re)
		if r.min != tt.min {
			t.Errorf("%s: run of %d, want %d", tt.src, r.min, tt.min)
			continue
		}
		if r.min == 0 {
			continue
		}
		for i := 0; i < len(tt.in); i++ {
			if !r.byte[tt.in[i]] {
				t.Errorf("%s: %q not in the class", tt.src, tt.in[i])
			}
		}
		if r.byte[tt.notIn] || r.byte[0xE2] != tt.past {
			t.Errorf("%s: class bytes wrong (%q: %v, past ASCII: %v)", tt.src, tt.notIn, r.byte[tt.notIn], r.byte[0xE2])
		}
		if !r.in(strings.Repeat(tt.in[:1], r.min)) || r.in(strings.Repeat(tt.in[:1], r.min-1)+string(tt.notIn)+tt.in[:1]) {
			t.Errorf("%s: in() wrong at the run's length", tt.src)
		}
	}
}

// rulesWithRuns are the whole rules that look for a run before running.
func rulesWithRuns(t testing.TB) []*rule {
	var out []*rule
	for _, ru := range New().rules {
		if !ru.anchored && ru.compiled().run.min > 0 {
			out = append(out, ru)
		}
	}
	if len(out) == 0 {
		t.Fatal("no rule looks for a run")
	}
	return out
}

// FuzzRequiredRun: a text any rule's expression matches holds the run
// that rule looks for first, so skipping texts without it loses no
// secret.
func FuzzRequiredRun(f *testing.F) {
	for _, sh := range redacttest.Shapes(1) {
		f.Add(uint8(0), sh.Text)
	}
	f.Add(uint8(3), "linear_secret = 0123456789abcdef0123456789abcdef")
	rules := rulesWithRuns(f)
	f.Fuzz(func(t *testing.T, pick uint8, text string) {
		for i, ru := range rules {
			if pick != 0 && i%int(pick) != 0 {
				continue
			}
			c := ru.compiled()
			if c.re.MatchString(text) && !c.run.in(text) {
				t.Fatalf("%s matches %q, which lacks its run of %d", ru.kind, text, c.run.min)
			}
		}
	})
}

// TestShapesStillFound: every secret shape of every kind is still
// redacted with the runs looked for first.
func TestShapesStillFound(t *testing.T) {
	r := New()
	for _, sh := range redacttest.Shapes(7) {
		if got := r.String(sh.Text); strings.Contains(got, sh.Secret) {
			t.Errorf("%s: secret left in %q", sh.Kind, got)
		}
	}
}
