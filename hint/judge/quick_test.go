package judge

import (
	"errors"
	"fmt"
	"github.com/recall-dev/recall/internal/rawfile"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recall-dev/recall/store/terms"
)

// quickRows are the sessions of the quick judge's tests: one that solved
// a problem (solved), a copy of it under another id (copied, as a resume
// under new ids is), one that names a word of it in passing, an
// unrelated one, one with an identifier, a headless run, and many rows
// that all say "widget" (a common word).
func quickRows() []terms.Row {
	row := func(session string, typ uint8, gen uint32, text string) terms.Row {
		return terms.Row{TimeMs: int64(gen), Type: typ, Gen: gen, Session: session, Project: "/p", Text: []byte(text)}
	}
	solved := []string{
		"The stripe webhook signature verification keeps failing behind the nginx proxy",
		"The proxy rewrites the body, so verify the stripe signature against the raw bytes and turn off nginx buffering.",
	}
	var rows []terms.Row
	for _, s := range []struct {
		id  string
		gen uint32
	}{{"solved", 2}, {"copied", 1}} {
		rows = append(rows, row(s.id, terms.TypeUser, s.gen, solved[0]), row(s.id, terms.TypeAssistant, s.gen, solved[1]))
	}
	rows = append(rows,
		row("passing", terms.TypeUser, 3, "list the open pull requests"),
		row("passing", terms.TypeAssistant, 3, "There are four, one of them touches the webhook handler."),
		row("unrelated", terms.TypeUser, 4, "Set up the grafana dashboard for queue latency"),
		row("identifier", terms.TypeUser, 5, "rotate the signing key"),
		row("identifier", terms.TypeAssistant, 5, "Rotated JWT_SECRET in the vault and restarted the auth service."),
	)
	headless := row("headless", terms.TypeUser, 6, "roll back the kubernetes canary deployment")
	headless.Headless = true
	rows = append(rows, headless)
	for i := range 1100 {
		rows = append(rows, row(fmt.Sprintf("widgets-%d", i%50), terms.TypeAssistant, uint32(100+i%50), "the widget renders fine"))
	}
	return rows
}

func quickSegments(t *testing.T) []*Segment { return OpenedAll(quickSegmentsOf(t, quickRows())) }

// quickSegmentsOf writes a segment of each group of rows, one block each.
func quickSegmentsOf(t *testing.T, groups ...[]terms.Row) []*terms.Segment {
	t.Helper()
	return quickSegmentsIn(t, t.TempDir(), groups...)
}

// quickSegmentsIn is quickSegmentsOf, the segments' files in dir.
func quickSegmentsIn(t *testing.T, dir string, groups ...[]terms.Row) []*terms.Segment {
	t.Helper()
	var segs []*terms.Segment
	for i, rows := range groups {
		b := terms.NewBuilder()
		for _, r := range rows {
			b.Add(&r)
			b.AddRawBytes(len(r.Text) + rowOverhead)
		}
		ref, err := b.WriteFile(dir, 1, i, i+1)
		if err != nil {
			t.Fatal(err)
		}
		seg, err := terms.Open(dir, ref)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { seg.Close() })
		segs = append(segs, seg)
	}
	return segs
}

func TestQuickJudge(t *testing.T) {
	segs := quickSegments(t)
	const stripe = "why does the stripe webhook signature fail behind nginx"
	for _, tc := range []struct {
		name     string
		o        QuickOptions
		shown    string // the session hinted; "" for silence
		terms    int    // the words weighed (-1: not checked)
		whyHolds string
	}{
		{"one session answers, its copy is no rival", QuickOptions{Prompt: stripe}, "solved", 6, "shown"},
		{"word forms match", QuickOptions{Prompt: "stripe webhooks signatures"}, "solved", 3, "shown"},
		{"the running lineage is left out", QuickOptions{Prompt: stripe, Exclude: []string{"solved", "copied"}}, "", -1, "silent"},
		{"dead rows are left out", QuickOptions{Prompt: stripe, Dead: func(gen uint32) bool { return gen <= 2 }}, "", -1, "silent"},
		{"no session holds the words", QuickOptions{Prompt: "add a dark mode toggle"}, "", -1, "no past session"},
		{"one word of five", QuickOptions{Prompt: "add a dark mode toggle to the settings"}, "", -1, "holds"},
		{"one word says too little", QuickOptions{Prompt: "stripe"}, "", 1, "search word"},
		{"a common word weighs little and is not read", QuickOptions{Prompt: "widget stripe webhook"}, "solved", 3, "shown"},
		{"only common words", QuickOptions{Prompt: "widget renders"}, "", 2, "no past session"},
		{"the first part of an identifier", QuickOptions{Prompt: "where is the jwt, which vault"}, "identifier", 2, "shown"},
		{"headless runs are left out", QuickOptions{Prompt: "kubernetes canary rollback"}, "", -1, "silent"},
		{"unless asked for", QuickOptions{Prompt: "kubernetes canary deployment", IncludeHeadless: true}, "headless", -1, "shown"},
		{"a slash command is not searched", QuickOptions{Prompt: "/compact " + stripe}, "", 0, "slash command"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := QuickJudge(segs, tc.o, DefaultBar)
			if tc.shown == "" && h.Shown || tc.shown != "" && (!h.Shown || h.Best != tc.shown) {
				t.Fatalf("shown %v best %q, want %q: %s", h.Shown, h.Best, tc.shown, h.Why)
			}
			if tc.terms >= 0 && h.Terms != tc.terms {
				t.Errorf("%d words weighed, want %d (%s)", h.Terms, tc.terms, h.Why)
			}
			if !strings.Contains(h.Why, tc.whyHolds) {
				t.Errorf("why %q, want it to say %q", h.Why, tc.whyHolds)
			}
		})
	}
}

// Early (the prompt hook's small binary) reaches the same verdicts, and
// stops before ranking only when the postings show no passage can hold
// the bar's cover: its bound is then at least the cover the full judge
// measures.
func TestQuickJudgeEarly(t *testing.T) {
	segs := quickSegments(t)
	stoppedEarly := 0
	for _, prompt := range quickPrompts {
		full := QuickJudge(segs, QuickOptions{Prompt: prompt}, DefaultBar)
		early := QuickJudge(segs, QuickOptions{Prompt: prompt, Early: true}, DefaultBar)
		if early.Shown != full.Shown || early.Shown && early.Best != full.Best {
			t.Errorf("%q: early says %s; the full judge %s", prompt, early.Why, full.Why)
		}
		if early.Bounded {
			stoppedEarly++
			if full.Shown || early.Cover < full.Cover || early.Cover >= DefaultBar.Cover || !strings.Contains(early.Why, "no passage can hold") {
				t.Errorf("%q: bound %.2f (%s), full cover %.2f (%s)", prompt, early.Cover, early.Why, full.Cover, full.Why)
			}
		}
	}
	if stoppedEarly == 0 {
		t.Fatal("no prompt stopped early")
	}
}

// quickPrompts are the prompts of the tests above, and more.
var quickPrompts = []string{
	"why does the stripe webhook signature fail behind nginx", "stripe webhooks signatures",
	"add a dark mode toggle", "add a dark mode toggle to the settings", "stripe", "widget stripe webhook",
	"widget renders", "where is the jwt, which vault", "kubernetes canary rollback", "kubernetes canary deployment",
	"the grafana dashboard and the stripe proxy", "nginx buffering", "open pull requests for the webhook",
	"jwt_secret rotation", "rotated the signing key in the vault",
}

// The lexicon (terms.Lexicon) changes where the words are looked up,
// not the measures: with it covering every segment or some, the judge
// measures what it measures without it.
func TestQuickJudgeLexicon(t *testing.T) {
	rows := quickRows()
	segs := quickSegmentsOf(t, rows[:9], rows[9:600], rows[600:])
	for _, covered := range [][]*terms.Segment{segs, segs[:1], segs[1:], nil} {
		dir := t.TempDir()
		if err := terms.WriteLexicon(dir, covered); err != nil {
			t.Fatal(err)
		}
		lex, err := terms.OpenLexicon(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, prompt := range quickPrompts {
			for _, early := range []bool{false, true} {
				want := QuickJudge(OpenedAll(segs), QuickOptions{Prompt: prompt, Early: early}, DefaultBar)
				got := QuickJudge(OpenedAll(segs), QuickOptions{Prompt: prompt, Early: early, Lexicon: lex}, DefaultBar)
				if *got != *want {
					t.Errorf("%d segments covered, %q, early %v: with the lexicon %+v, without %+v", len(covered), prompt, early, *got, *want)
				}
			}
		}
	}
}

// The passing mention is a rival only by the weight it holds: the
// answer leads it by far more than the bar asks.
func TestQuickJudgeLead(t *testing.T) {
	h := QuickJudge(quickSegments(t), QuickOptions{Prompt: "stripe webhook signature nginx"}, DefaultBar)
	if h.Best != "solved" || h.Second != "passing" || h.Lead < 3 || h.Cover != 1 {
		t.Fatalf("best %q cover %.2f, second %q lead %.2f: %s", h.Best, h.Cover, h.Second, h.Lead, h.Why)
	}
}

// A session id comes from a transcript: the Why that names it never
// carries a control character to a terminal.
func TestShortIsTerminalSafe(t *testing.T) {
	for id, want := range map[string]string{
		"aaaaaaaa-1111-4111": "aaaaaaaa",
		"abc":                "abc",
		"\x1b[2Jabcdefgh":    "?[2Jabcd",
		"sé\x07ssion":        "s???ssio",
		"":                   "",
	} {
		if got := Short(id); got != want {
			t.Errorf("Short(%q) = %q, want %q", id, got, want)
		}
	}
}

// Segments the lexicon covers may wait to be opened until the judge
// reads their rows, the postings the lexicon places in their files read
// there: the same measures, prompts proved silent without opening any,
// and a segment that cannot be opened or read said (Unread) rather than
// judged without.
func TestQuickJudgeDeferred(t *testing.T) {
	rows := quickRows()
	dir := t.TempDir()
	segs := quickSegmentsIn(t, dir, rows[:9], rows[9:600], rows[600:])
	if err := terms.WriteLexicon(dir, segs[:2]); err != nil {
		t.Fatal(err)
	}
	lex, err := terms.OpenLexicon(dir)
	if err != nil {
		t.Fatal(err)
	}
	opens, reads := 0, 0
	deferred := func(failOpen, failRead error) []*Segment {
		out := OpenedAll(segs)
		for i, s := range segs[:2] {
			ls := lex.Segments[i]
			open := func() (*terms.Segment, error) {
				opens++
				return s, failOpen
			}
			readAt := func(off int64, n int) ([]byte, error) {
				reads++
				if failRead != nil {
					return nil, failRead
				}
				f, err := rawfile.OpenFile(filepath.Join(dir, s.Name))
				if err != nil {
					return nil, err
				}
				defer f.Close()
				return f.ReadAt(off, n)
			}
			out[i] = Deferred(i, ls.Rows, ls.RawBytes, open, readAt)
		}
		return out
	}
	quiet, quietRead := 0, 0
	for _, prompt := range quickPrompts {
		want := QuickJudge(OpenedAll(segs), QuickOptions{Prompt: prompt, Early: true, Lexicon: lex}, DefaultBar)
		opens, reads = 0, 0
		got := QuickJudge(deferred(nil, nil), QuickOptions{Prompt: prompt, Early: true, Lexicon: lex}, DefaultBar)
		if *got != *want {
			t.Errorf("%q: deferred %+v, opened %+v", prompt, *got, *want)
		}
		// Silent from the postings, it opens no segment, and reads in
		// their files the postings the lexicon does not carry
		// ("renders" here).
		if got.Bounded && opens == 0 {
			quiet++
			if reads > 0 {
				quietRead++
			}
		}
	}
	if quiet == 0 || quietRead == 0 {
		t.Fatalf("%d prompts proved silent without opening a segment, %d of them reading postings in a segment's file", quiet, quietRead)
	}
	broken := errors.New("gone")
	for _, fail := range [][2]error{{broken, nil}, {nil, broken}} {
		got := QuickJudge(deferred(fail[0], fail[1]), QuickOptions{Prompt: "why does the stripe webhook signature fail behind nginx renders", Early: true, Lexicon: lex}, DefaultBar)
		if !errors.Is(got.Unread, broken) {
			t.Errorf("a segment that cannot be opened (%v) or read (%v): Unread %v (%s)", fail[0], fail[1], got.Unread, got.Why)
		}
	}
}
