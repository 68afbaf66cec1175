package search

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/recall-dev/recall/store/snapshot"

	"github.com/recall-dev/recall/indexer"
	"github.com/recall-dev/recall/rank"
	"github.com/recall-dev/recall/store"
)

func TestParseTime(t *testing.T) {
	now := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		in   string
		want time.Time
		ok   bool
	}{
		{"", time.Time{}, true},
		{"30d", now.Add(-30 * 24 * time.Hour), true},
		{"2w", now.Add(-14 * 24 * time.Hour), true},
		{"12h", now.Add(-12 * time.Hour), true},
		{"90m", now.Add(-90 * time.Minute), true},
		{"2026-01-31T08:00:00Z", time.Date(2026, 1, 31, 8, 0, 0, 0, time.UTC), true},
		{"yesterday", time.Time{}, false},
		{"-3d", time.Time{}, false},
		{"3x", time.Time{}, false},
	}
	for _, tt := range tests {
		got, err := ParseTime(tt.in, now)
		if (err == nil) != tt.ok || (tt.ok && !got.Equal(tt.want)) {
			t.Errorf("ParseTime(%q) = %v, %v; want %v, ok %v", tt.in, got, err, tt.want, tt.ok)
		}
	}
	if d, err := ParseTime("2026-01-31", now); err != nil || d.Day() != 31 {
		t.Errorf("date only: %v %v", d, err)
	}
}

func TestProjectMatches(t *testing.T) {
	tests := []struct {
		project string
		wanted  []string
		want    bool
	}{
		{"/home/dev/src/shop", nil, true},
		{"/home/dev/src/shop", []string{"/home/dev/src/shop"}, true},
		{"/home/dev/src/shop/api", []string{"/home/dev/src/shop"}, true},
		{"/home/dev/src/shopping", []string{"/home/dev/src/shop"}, false},
		{"/home/dev/src/blog", []string{"/home/dev/src/shop"}, false},
		{"/home/dev/src/Shop-API", []string{"shop"}, true},
		{"/home/dev/src/blog", []string{"/x", "blog"}, true},
	}
	for _, tt := range tests {
		if got := projectMatches(tt.project, tt.wanted); got != tt.want {
			t.Errorf("projectMatches(%q, %q) = %v, want %v", tt.project, tt.wanted, got, tt.want)
		}
	}
}

// The failures issue 11 reported from two real coding sessions (one Czech,
// one English), on fixtures written in their likeness, searched as the
// CLI searches: search.Params, Request, Run, and what the human output
// shows (the first DefaultMessages messages of a session).

var realNow = time.Date(2026, 3, 10, 0, 0, 0, 0, time.UTC)

func bashTurn(command string) genTurn {
	return genTurn{kind: "tool", tool: "Bash", input: map[string]string{"command": command}}
}

// realSessions are the fixtures: the review rounds with their gemini
// prompts, the translation by agents with its commit, the typography of
// Czech, the glider that flew away and the 3" cube, and sessions that
// share their words without answering them.
func realSessions() map[string]*genSession {
	day := func(d, h int) time.Time { return time.Date(2026, 3, d, h, 0, 0, 0, time.UTC) }
	s := map[string]*genSession{}
	add := func(name, cwd string, start time.Time, turns ...genTurn) {
		s[name] = &genSession{id: fmt.Sprintf("%08x-5555-4555-8555-%012d", len(name)*7919+len(s), len(s)), cwd: cwd, start: start, turns: turns}
	}
	gemini := func(article string) genTurn {
		return bashTurn(`gemini -p "You are a senior editor reviewing Czech technical articles. This is review round 4. Read clanky/` + article +
			` and list every issue you found: factual errors, awkward Czech, typos, broken links. Number the issues and say how severe each one is."`)
	}
	add("review", "/home/dev/src/clanky", day(4, 15),
		genTurn{kind: "user", text: "Pusť další kolo review článků přes gemini a pak mi shrň, kolik issues jsme v jednotlivých kolech našli a kolik je opravených."},
		gemini("01-uvod.md"), genTurn{kind: "result", text: "No issues found."},
		gemini("02-instalace.md"), genTurn{kind: "result", text: "1. An old link."},
		gemini("03-nasazeni.md"), genTurn{kind: "result", text: "1. A typo."},
		gemini("04-monitoring.md"), genTurn{kind: "result", text: "No issues found."},
		genTurn{kind: "assistant", text: "## Výsledek 4. kola review\n\n| Kolo | Nalezené issues | Opraveno |\n|---|---|---|\n| 1 | 23 | 23 |\n| 2 | 11 | 11 |\n| 3 | 6 | 6 |\n| 4 | 2 | 1 |\n\nVe čtvrtém kole gemini našel jen dvě drobnosti; celkem 42 nalezených problémů, 41 opravených."},
		genTurn{kind: "user", text: "super, ten odkaz vyřešíme, až vyjde nová dokumentace"},
	)
	add("gemini-setup", "/home/dev/src/clanky", day(1, 10),
		genTurn{kind: "user", text: "Nastav mi gemini CLI, ať můžu nechat články projít druhým modelem."},
		bashTurn(`gemini -p "You are a senior reviewer. This is a test review round: list the issues you found in this sentence and say how many issues there are."`),
		genTurn{kind: "result", text: "1 issue found"},
		genTurn{kind: "assistant", text: "Gemini CLI funguje. Klíč k API je v ~/.gemini/settings.json. Pozor na kvóty bezplatného tarifu."},
	)
	agent := func(n int) genTurn {
		return genTurn{kind: "tool", tool: "Agent", input: map[string]string{"description": fmt.Sprintf("Translate CZ article %d to EN", n), "prompt": "Translate the article."}}
	}
	add("agents", "/home/dev/src/clanky", day(6, 10),
		genTurn{kind: "user", text: "Přelož všechny české články do angličtiny. Na každý článek pusť jednoho agenta a výsledky ulož do en/."},
		agent(1), genTurn{kind: "result", text: "done"}, agent(2), genTurn{kind: "result", text: "done"},
		genTurn{kind: "assistant", text: "Oba agenti doběhli, překlady jsou v en/."},
		bashTurn(`gemini -p "Compare the Czech article with its English translation and list any sentences that were translated wrongly or left out of the translated articles."`),
		genTurn{kind: "result", text: "One sentence missing."},
		bashTurn(`git add en/ && git commit -m "Add English translations of the Czech articles, translated by agents and checked with gemini"`),
		genTurn{kind: "result", text: "[main 4c1d2e9]"},
		genTurn{kind: "assistant", text: "Gemini našel jednu vynechanou větu, doplnil jsem ji. Překlady jsou commitnuté."},
	)
	add("cestina", "/home/dev/src/clanky", day(2, 17),
		genTurn{kind: "user", text: "Projdi články a oprav typografii češtiny: uvozovky, pomlčky a nezlomitelné mezery."},
		genTurn{kind: "assistant", text: "V češtině se píšou uvozovky „takto“ a po jednopísmenných předložkách patří nezlomitelná mezera."},
	)
	add("cestiny-plain", "/home/dev/src/notes", day(3, 9),
		genTurn{kind: "user", text: "poznamky k prekladu do cestiny: zkontrolovat terminologii a nazvy souboru"},
	)
	add("glider", "/home/dev/src/lifesim", day(1, 14),
		genTurn{kind: "user", text: "When I load the glider pattern it moves for a few generations, then flies away off the canvas and never comes back. Is the loader broken?"},
		genTurn{kind: "assistant", text: "The loader is fine: the glider is a spaceship. The grid drops cells past its edge, so the glider disappears; I made the world wrap around and center loaded patterns."},
	)
	add("zoom", "/home/dev/src/lifesim", day(3, 16),
		genTurn{kind: "user", text: "Move the load pattern button next to play/pause and add zoom with the mouse wheel."},
		genTurn{kind: "assistant", text: "The load pattern button sits next to play/pause now, and the wheel zooms."},
	)
	add("cube", "/home/dev/src/printshop", day(2, 19),
		genTurn{kind: "user", text: `The 3" calibration cube comes out about 3 mm wide. I exported it in inches.`},
		genTurn{kind: "assistant", text: "STL files carry no units; the slicer reads millimetres, so the cube meant to be 76.2 mm prints at 3 mm. The converter now takes --units in."},
	)
	add("bed", "/home/dev/src/printshop", day(5, 11),
		genTurn{kind: "user", text: "First layers are squished on one side. Print a calibration cube after leveling the bed?"},
		genTurn{kind: "assistant", text: "Yes: level the bed, then print a calibration cube to check the size and the first layer."},
	)
	return s
}

// realIndex indexes the fixtures as `recall index` would.
func realIndex(t *testing.T) (*snapshot.Snapshot, map[string]*genSession) {
	t.Helper()
	sessions := realSessions()
	var list []*genSession
	for _, g := range sessions {
		list = append(list, g)
	}
	src := filepath.Join(t.TempDir(), "projects")
	idx := t.TempDir()
	writeCorpus(t, src, list)
	if _, err := indexer.Run(indexer.Options{Config: indexer.Config{Sources: []string{src}, IndexDir: idx}}); err != nil {
		t.Fatal(err)
	}
	snap, err := store.Open(idx).Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { snap.Close() })
	return snap, sessions
}

// searchAsCLI runs `recall QUERY --now …` through the CLI's request
// builder; fullScan adds --full-scan.
func searchAsCLI(t *testing.T, snap *snapshot.Snapshot, query string, fullScan bool) *Result {
	t.Helper()
	req, err := Params{Terms: []string{query}, Now: realNow.Format(time.RFC3339), FullScan: fullScan}.Request()
	if err != nil {
		t.Fatalf("recall %q: %v", query, err)
	}
	res, err := Run(snap, req)
	if err != nil {
		t.Fatalf("recall %q: %v (the CLI would exit 2)", query, err)
	}
	return res
}

func TestRealSessionFailures(t *testing.T) {
	snap, sessions := realIndex(t)
	for _, full := range []bool{false, true} {
		t.Run(fmt.Sprintf("full scan %v", full), func(t *testing.T) {
			first := func(query, want string) *rank.Session {
				t.Helper()
				res := searchAsCLI(t, snap, query, full)
				if len(res.Sessions) == 0 || res.Sessions[0].ID != sessions[want].id {
					t.Fatalf("recall %q: first %v, want the %s session %s", query, sessionIDs(res.Sessions), want, sessions[want].id)
				}
				return &res.Sessions[0]
			}
			// Stray double quotes are plain characters, not errors.
			first(`why did the "load pattern glider fly away`, "glider")
			first(`the 3" cube size`, "cube")

			// The answer of the review rounds shows among the session's
			// first messages, above every prompt passed to gemini.
			s := first("review rounds how many issues found", "review")
			answer := slices.IndexFunc(s.Messages, func(m rank.ScoredMessage) bool { return strings.Contains(m.Text, "Výsledek 4. kola review") })
			if answer < 0 || answer >= DefaultMessages {
				t.Errorf("review rounds: the answer is message %d of the session, want among the first %d", answer+1, DefaultMessages)
			}
			for i, m := range s.Messages[:max(answer, 0)] {
				if strings.Contains(m.Text, "gemini -p") {
					t.Errorf("review rounds: message %d is a gemini prompt, above the answer: %.60q", i+1, m.Text)
				}
			}

			// The agents that translated show, above the commit and the
			// gemini check that merely mention the translation.
			s = first("which agents translated the czech articles", "agents")
			if len(s.Messages) == 0 || !strings.HasPrefix(s.Messages[0].Text, "Agent: Translate CZ article") {
				t.Errorf("translated articles: first message %.60q, want an Agent: Translate CZ article row", s.Messages[0].Text)
			}

			// Accents: each spelling finds the other.
			for _, q := range []string{"cestiny", "češtiny"} {
				res := searchAsCLI(t, snap, q, full)
				got := sessionIDs(res.Sessions)
				if !slices.Contains(got, sessions["cestina"].id) || !slices.Contains(got, sessions["cestiny-plain"].id) {
					t.Errorf("recall %s found %v, want both the session with češtiny and the one with cestiny", q, got)
				}
			}
		})
	}
}
