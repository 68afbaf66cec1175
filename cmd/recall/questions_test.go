package main

// End-to-end tests of the questions people actually type (issue 11), run
// through the CLI in process on the transcripts of
// testdata/transcripts/issue11: sessions written in the likeness of the
// real sessions where recall failed — a Czech blog whose articles agents
// translated, four rounds of review through another CLI whose long prompts
// hold the question's words, a Czech prompt typed without accents, and
// questions holding a stray double quote.

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The sessions of testdata/transcripts/issue11.
const (
	translateSession = "55555555-5555-4555-8555-555555555555" // agents translate the Czech articles; "češtiny"
	reviewSession    = "66666666-6666-4666-8666-666666666666" // four gemini review rounds, then the results table
	plainCzech       = "77777777-7777-4777-8777-777777777777" // Czech typed without accents: "cestiny"
	gliderSession    = "88888888-8888-4888-8888-888888888888" // a glider that flies away after loading a pattern
	cubeSession      = "99999999-9999-4999-8999-999999999999" // a 3" cube printed in the wrong unit
)

// questionsFixture indexes the issue 11 transcripts into a fresh index.
func questionsFixture(t *testing.T) *scenario {
	t.Helper()
	src, err := filepath.Abs(filepath.Join("..", "..", "testdata", "transcripts", "issue11", "projects"))
	if err != nil {
		t.Fatal(err)
	}
	sc := &scenario{t: t, projects: src, index: filepath.Join(t.TempDir(), "index")}
	if r := sc.run("", "index"); r.code != 0 {
		t.Fatalf("recall index: code %d, stderr %q", r.code, r.stderr)
	}
	return sc
}

// typed runs a query as a person types it, one argument, with the
// default --messages, and fails the test on an error exit.
func (sc *scenario) typed(args ...string) ([]scenarioResult, int) {
	sc.t.Helper()
	args = append([]string{"--json", "--no-update", "--now", scenarioNow}, args...)
	r := sc.run("", args...)
	if r.code != 0 && r.code != 1 {
		sc.t.Fatalf("recall %q: exit %d, stderr %q", args, r.code, r.stderr)
	}
	return parseResults(sc.t, r.stdout), r.code
}

func texts(r *scenarioResult) []string {
	var out []string
	for _, m := range r.Messages {
		out = append(out, m.Text)
	}
	return out
}

func TestQuestionsPeopleType(t *testing.T) {
	sc := questionsFixture(t)

	t.Run("stray quotes are plain characters", func(t *testing.T) {
		for _, tc := range []struct{ query, want string }{
			{`why did the "load pattern glider fly away`, gliderSession},
			{`the 3" cube size`, cubeSession},
		} {
			rs, code := sc.typed(tc.query)
			if code != 0 || len(rs) == 0 || rs[0].SessionID != tc.want {
				t.Errorf("%s: exit %d, sessions %v, want %s first", tc.query, code, ids(rs), tc.want)
			}
		}
		// Nothing to find is exit 1, still not an error.
		if rs, code := sc.typed(`zyxxyq "nothing`); code != 1 || len(rs) != 0 {
			t.Errorf("a stray quote with no match: exit %d, %d sessions, want exit 1", code, len(rs))
		}
	})

	t.Run("tool prompts do not outrank the answer", func(t *testing.T) {
		rs, _ := sc.typed("-m", "0", "review rounds how many issues found")
		if len(rs) == 0 || rs[0].SessionID != reviewSession {
			t.Fatalf("sessions %v, want %s first", ids(rs), reviewSession)
		}
		shown := texts(&rs[0])
		answer := slices.IndexFunc(shown, func(s string) bool { return strings.HasPrefix(s, "## Výsledek 4. kola review") })
		if answer != 0 {
			t.Errorf("the results table is message %d, want it first; messages best first:\n%s", answer, strings.Join(shown, "\n"))
		}
		// The gemini prompts still match: they hold every word.
		if !slices.ContainsFunc(shown, func(s string) bool { return strings.HasPrefix(s, "Bash: gemini -p") }) {
			t.Errorf("no gemini row matched; messages:\n%s", strings.Join(shown, "\n"))
		}
	})

	t.Run("word forms find the agents", func(t *testing.T) {
		rs, _ := sc.typed("which agents translated the czech articles")
		if len(rs) == 0 || rs[0].SessionID != translateSession {
			t.Fatalf("sessions %v, want %s first", ids(rs), translateSession)
		}
		shown := texts(&rs[0])
		if !slices.Contains(shown, "Agent: Translate CZ article 1 to EN") {
			t.Errorf("Agent: Translate CZ article 1 to EN not shown; messages:\n%s", strings.Join(shown, "\n"))
		}
	})

	t.Run("accents are folded both ways", func(t *testing.T) {
		for _, query := range []string{"cestiny", "češtiny", "CESTINY"} {
			rs, code := sc.typed(query)
			got := ids(rs)
			slices.Sort(got)
			if want := []string{translateSession, plainCzech}; code != 0 || !slices.Equal(got, want) {
				t.Errorf("%s: exit %d, sessions %v, want %v", query, code, got, want)
			}
		}
	})

	t.Run("-w and -s keep their exact meaning", func(t *testing.T) {
		for _, tc := range []struct {
			args []string
			want []string
		}{
			{[]string{"-w", "cestiny"}, []string{plainCzech}},
			{[]string{"-s", "češtiny"}, []string{translateSession}},
			{[]string{"-w", "articles"}, []string{translateSession}}, // the gemini prompt and the commit, not the Agent rows
		} {
			rs, _ := sc.typed(append([]string{"-m", "0"}, tc.args...)...)
			if got := ids(rs); !slices.Equal(got, tc.want) {
				t.Errorf("%v: sessions %v, want %v", tc.args, got, tc.want)
				continue
			}
			for _, s := range texts(&rs[0]) {
				if strings.HasPrefix(s, "Agent:") {
					t.Errorf("%v matched %q through a word form", tc.args, s)
				}
			}
		}
	})

	t.Run("full scan agrees", func(t *testing.T) {
		for _, query := range []string{"which agents translated the czech articles", "review rounds how many issues found", "cestiny", `the 3" cube size`} {
			fast := sc.run("", "--json", "--no-update", "--now", scenarioNow, "-m", "0", query)
			full := sc.run("", "--json", "--no-update", "--now", scenarioNow, "-m", "0", "--full-scan", query)
			if fast.code != full.code || fast.stdout != full.stdout {
				t.Errorf("%s: the term index and --full-scan differ:\n%s\n---\n%s", query, fast.stdout, full.stdout)
			}
		}
	})

	t.Run("explain names the new factors", func(t *testing.T) {
		for _, tc := range []struct {
			query string
			want  []string
		}{
			{"which agents translated the czech articles", []string{"word form", "context", "evidence"}},
			{"cestiny", []string{"accents folded"}},
			{"gemini review senior reviewer", []string{"tool prose"}},
			{"what did gemini review last week", []string{"a match from last week"}},
		} {
			r := sc.run("", "--no-update", "--now", scenarioNow, "--explain", "-m", "0", tc.query)
			for _, w := range tc.want {
				if !strings.Contains(r.stdout, w) {
					t.Errorf("%s --explain: no %q in\n%s", tc.query, w, r.stdout)
				}
			}
		}
	})
}
