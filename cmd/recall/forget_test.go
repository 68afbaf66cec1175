package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// forgetSessions parses the session ids a `forget --dry-run` lists.
func forgetSessions(out string) []string {
	var ids []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "  ") {
			ids = append(ids, strings.TrimSpace(l))
		}
	}
	slices.Sort(ids)
	return ids
}

// listedSessions parses `recall sessions --json`.
func listedSessions(t *testing.T, out string) []string {
	t.Helper()
	var ids []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if l == "" {
			continue
		}
		var s struct {
			ID string `json:"session_id"`
		}
		if err := json.Unmarshal([]byte(l), &s); err != nil {
			t.Fatalf("sessions --json line %q: %v", l, err)
		}
		ids = append(ids, s.ID)
	}
	slices.Sort(ids)
	return ids
}

// TestForgetAndSearchAgreeOnSelectors: `recall forget --project X` removes
// the sessions `recall sessions --project X` (and a search) show, for
// every kind of value: "/" (every project), a folder above projects, a
// project, with a trailing slash, a fragment in any case, ".", and values
// that match nothing, which are no match for both (issue 23: forget took
// "/" for nothing and refused fragments).
func TestForgetAndSearchAgreeOnSelectors(t *testing.T) {
	tmp := t.TempDir()
	src, idx := filepath.Join(tmp, "projects"), filepath.Join(tmp, "idx")
	here := filepath.Join(tmp, "work", "Here") // a real folder: the "." of the test
	if err := os.MkdirAll(here, 0o755); err != nil {
		t.Fatal(err)
	}
	projects := []string{"/srv/alpha", "/srv/alpha/sub", "/srv/alphabet", "/srv/beta", "/opt/Gamma", here}
	for i, p := range projects {
		c := startAt("2026-03-01T10:00:00Z").user("A question about the ledger export in project " + p + ".").assistant("The export job is idempotent, as ever.")
		s := c.session(sessionID(byte('1'+i)), p)
		if err := s.Write(src); err != nil {
			t.Fatal(err)
		}
	}
	dirs := []string{"--source", src, "--index-dir", idx}
	expectExit(t, "index", runCLI(t, append([]string{"index", "-q"}, dirs...)...), 0)
	counts := map[string]int{"/": 6, "/srv": 4, "/srv/alpha": 2, "/srv/alpha/": 2, "alpha": 3, "ALPHA": 3, "gamma": 1,
		"/opt/Gamma": 1, ".": 1, "Here": 1, "nosuch": 0, "/nosuch": 0}
	for v, n := range counts {
		t.Run(v, func(t *testing.T) {
			sessions := runCLIIn(t, here, append([]string{"sessions", "--project", v, "-n", "0", "--json", "--no-update"}, dirs...)...)
			want := listedSessions(t, sessions.stdout)
			search := runCLIIn(t, here, append([]string{"ledger", "--project", v, "-l", "-n", "0", "--no-update"}, dirs...)...)
			found := strings.Fields(search.stdout)
			slices.Sort(found)
			forget := runCLIIn(t, here, append([]string{"forget", "--dry-run", "--project", v}, dirs...)...)
			got := forgetSessions(forget.stdout)
			if len(want) != n {
				t.Errorf("--project %q: sessions lists %d sessions, want %d", v, len(want), n)
			}
			if !slices.Equal(got, want) {
				t.Errorf("--project %q: forget would remove %v, sessions lists %v (forget: %q %q)", v, got, want, forget.stdout, forget.stderr)
			}
			if len(found) != len(want) {
				t.Errorf("--project %q: search finds %d sessions, sessions lists %d", v, len(found), len(want))
			}
			switch {
			case len(want) == 0 && (forget.code != 1 || search.code != 1):
				t.Errorf("--project %q matches nothing: forget exits %d, search %d; want 1 for both", v, forget.code, search.code)
			case len(want) > 0 && forget.code != 0:
				t.Errorf("--project %q: forget --dry-run exits %d: %s", v, forget.code, forget.stderr)
			}
		})
	}
	// "/" is every project in both.
	if got := forgetSessions(runCLI(t, append([]string{"forget", "--dry-run", "--project", "/"}, dirs...)...).stdout); len(got) != len(projects) {
		t.Errorf("forget --project / would remove %d of %d sessions", len(got), len(projects))
	}
}

// TestForgetStatsAndUndo: forget, stats says what is forgotten without
// naming it, rebuild keeps it forgotten, --undo brings it back.
func TestForgetStatsAndUndo(t *testing.T) {
	tmp := t.TempDir()
	src, idx := filepath.Join(tmp, "projects"), filepath.Join(tmp, "idx")
	secret, other := sessionID('7'), sessionID('8')
	for _, s := range []struct{ id, text string }{{secret, "the quokkaflux deployment secrets question"}, {other, "the zebrafrost cache question"}} {
		c := startAt("2026-03-01T10:00:00Z").user(s.text).assistant("An answer about " + s.text + ".")
		ses := c.session(s.id, "/srv/"+s.id[:4])
		if err := ses.Write(src); err != nil {
			t.Fatal(err)
		}
	}
	dirs := []string{"--source", src, "--index-dir", idx}
	expectExit(t, "index", runCLI(t, append([]string{"index", "-q"}, dirs...)...), 0)
	expectExit(t, "forget", runCLI(t, append([]string{"forget", "--session", secret[:6]}, dirs...)...), 0, "removed 2 rows of 1 session", secret)
	stats := runCLI(t, append([]string{"stats"}, dirs...)...)
	expectExit(t, "stats", stats, 0, "forgotten", "1 forget (1 session): 1 transcript kept out whole")
	if strings.Contains(stats.stdout, secret) {
		t.Errorf("stats names the forgotten session:\n%s", stats.stdout)
	}
	var js struct {
		Forgotten struct {
			Rules, Sessions, Transcripts int
		} `json:"forgotten"`
	}
	if err := json.Unmarshal([]byte(runCLI(t, append([]string{"stats", "--json", "--no-verify"}, dirs...)...).stdout), &js); err != nil {
		t.Fatal(err)
	}
	if js.Forgotten.Rules != 1 || js.Forgotten.Sessions != 1 || js.Forgotten.Transcripts != 1 {
		t.Errorf("stats --json forgotten = %+v", js.Forgotten)
	}
	expectExit(t, "rebuild", runCLI(t, append([]string{"index", "-q", "--rebuild", "--yes"}, dirs...)...), 0)
	expectExit(t, "search after rebuild", runCLI(t, append([]string{"quokkaflux"}, dirs...)...), 1)
	expectExit(t, "undo of a forget never made", runCLI(t, append([]string{"forget", "--undo", "--session", other}, dirs...)...), 1)
	expectExit(t, "undo", runCLI(t, append([]string{"forget", "--undo", "--session", secret[:6]}, dirs...)...), 0, "took back 1 forget")
	expectExit(t, "search after undo", runCLI(t, append([]string{"quokkaflux", "-l"}, dirs...)...), 0, secret)
	expectExit(t, "stats after undo", runCLI(t, append([]string{"stats", "--no-verify"}, dirs...)...), 0, "forgotten    nothing")
}
