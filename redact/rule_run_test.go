package redact

import (
	"strings"
	"testing"

	"github.com/recall-dev/recall/redact/redacttest"
)

// rulesWithRuns are the whole rules that look for a run before running.
func rulesWithRuns(t testing.TB) []*rule {
	var out []*rule
	for _, ru := range New().rules {
		if !ru.anchored && ru.compiled().run.Min > 0 {
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
			if c.re.MatchString(text) && !c.run.In(text) {
				t.Fatalf("%s matches %q, which lacks its run of %d", ru.kind, text, c.run.Min)
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
