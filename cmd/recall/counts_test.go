package main

import (
	"strings"
	"testing"
)

// A result header numbers sessions out of a total only when the result
// holds every session that matched, the total --count gives; a result the
// limit cut says more may match, on stderr.
func TestHeadersCountOnlyWhatIsKnown(t *testing.T) {
	src, index := copyFixtures(t), t.TempDir()
	dirs := []string{"--source", src, "--index-dir", index}
	if r := runCLI(t, append([]string{"index"}, dirs...)...); r.code != 0 {
		t.Fatalf("index: exit %d, %q", r.code, r.stderr)
	}
	count := runCLI(t, append([]string{"--no-update", "-c", "jwt"}, dirs...)...)
	if strings.TrimSpace(count.stdout) != "2" {
		t.Fatalf("-c jwt: %q (the fixtures hold two sessions about jwt)", count.stdout)
	}
	all := runCLI(t, append([]string{"--no-update", "jwt"}, dirs...)...)
	if !strings.Contains(all.stdout, "[1/2] ") || !strings.Contains(all.stdout, "[2/2] ") || all.stderr != "" {
		t.Errorf("every session shown: stdout %q, stderr %q", all.stdout, all.stderr)
	}
	cut := runCLI(t, append([]string{"--no-update", "-n", "1", "jwt"}, dirs...)...)
	if !strings.HasPrefix(cut.stdout, "[1] ") || strings.Contains(cut.stdout, "[1/1]") ||
		cut.stderr != "recall: the best session is shown; more may match (-n 0 shows all, -c counts them)\n" {
		t.Errorf("-n 1: stdout %q, stderr %q", cut.stdout, cut.stderr)
	}
	piped := runCLI(t, append([]string{"--no-update", "-n", "1", "--json", "jwt"}, dirs...)...)
	if piped.stderr != "" || strings.Contains(piped.stdout, `"sessions_matched"`) {
		t.Errorf("--json -n 1: stdout %q, stderr %q", piped.stdout, piped.stderr)
	}
	whole := runCLI(t, append([]string{"--no-update", "--json", "jwt"}, dirs...)...)
	if n := strings.Count(whole.stdout, `"sessions_matched":2`); n != 2 {
		t.Errorf("--json: %d of 2 lines say sessions_matched 2: %q", n, whole.stdout)
	}
}
