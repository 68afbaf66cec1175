package search

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/recall-dev/recall/store/snapshot"

	"github.com/recall-dev/recall/filter"
	"github.com/recall-dev/recall/indexer"
	"github.com/recall-dev/recall/query"
	"github.com/recall-dev/recall/rank"
	"github.com/recall-dev/recall/store"
	"github.com/recall-dev/recall/store/storetest"
)

// The differential test: every query, filter and option must give the
// same ranked sessions whether search.Run ranks from the term index or
// reads every row (Request.FullScan).

// accelNow fixes the clock, so recency is the same for both paths and
// from run to run.
var accelNow = time.Date(2026, 3, 10, 0, 0, 0, 0, time.UTC)

// genTurn is one transcript line of the generated corpus.
type genTurn struct {
	kind  string // user, assistant, tool, result
	text  string
	tool  string
	input map[string]string
}

type genSession struct {
	id, cwd string
	// agentCwd, when set, is the folder the session's subagents ran in:
	// their transcripts then name another project than the main one, and
	// the session has two keys in the segment that holds both.
	agentCwd string
	start    time.Time
	turns    []genTurn
	agents   map[string][]genTurn // subagent id → its turns
}

var (
	genProjects = []string{"/home/dev/src/shop", "/home/dev/src/api", "/home/dev/src/blog", "/work/infra"}
	genTopics   = []string{
		"the deadlock in the worker pool", "a race condition on the cache map", "mutex contention under load",
		"the spinlock in the allocator", "unlock order in the scheduler", "Deadlock again", "DEADLOCK detected",
		"a dead lock between two goroutines", "the dead-lock on shutdown", "deadline exceeded errors",
		"pricing.ts rounding", "the pricing rules", "pricing", "the checkout flow", "invoice totals",
		"JWT auth", "token refresh", "École des données", "l'école", "ecole", "the \u212Aelvin scale", "kelvin units",
		"snake_case_name", "reset windows", "reset-windows", "the v2 api", "42 ms latency", "goroutine leak",
		"context cancel", "channel select", "schema migration", "vacuum", "replica lag", "Lock ordering",
		"lockfile drift", "blocking reads", "clock skew",
		"the translated articles", "Translate article 1", "a translation", "painting the fence", "painted walls",
		"překlad do češtiny", "cestiny", "ČEŠTINA", "naïve café", "naive cafe", "reviews found issues", "review rounds",
	}
	// genEdges put words at the edges of tokens and between them, for
	// patterns and phrases whose shape says where a word sits in its
	// token (query.Piece).
	genEdges = []string{
		"the deadline passed while we held the lock", "a dead-lock, then a deadlock", "deadxlock in the test name",
		"dead\tlock across a tab", "embrace conditions", "race-conditions everywhere", "the racecondition flag",
		"garbage collector pauses", "the garbage was in the collector", "garbagecollector stats", "GARBAGE COLLECTOR",
		"colour and color", "deadlocks détectés", "dead·lock", "deadélock", "DEAD\nLOCK", "mu.Lockx() is not mu.Lock()",
		"the user_id, an id_rsa, ID_ID and the id; a Guide in mid-air, userId", "version 1 of 10, 3.1 and 1x",
	}
	genFiller = strings.Fields("we should check then update the file and test function value result because after before " +
		"look at this again maybe later fix it now run build logs output error trace")
	genCode = []string{"`mu.Lock()`", "`deadlock`", "`pricing.ts`", "`race`", "`ctx.Done()`", "`snake_case_name`",
		"```go\nmu.Lock()\ndefer mu.Unlock()\n// deadlock here if the pool is full\n```",
		"```\nrace: data race on cache map\n```", "~~~\npricing.ts:42 rounding\n~~~"}
	// Acknowledgements alone are dropped by the indexer; inside a longer
	// message they are text like any other.
	genAcks = []string{"ok thanks", "thanks!", "ok", "great, thanks", "Thanks", "ok thanks, that fixed the deadlock",
		"thanks, now the pricing page loads"}
)

func (g *genSession) add(kind, text string) {
	g.turns = append(g.turns, genTurn{kind: kind, text: text})
}

func genMessage(r *rand.Rand) string {
	var b strings.Builder
	for i := range 3 + r.IntN(30) {
		if i > 0 {
			b.WriteByte(' ')
		}
		switch n := r.IntN(20); {
		case n < 3:
			b.WriteString(genTopics[r.IntN(len(genTopics))])
		case n == 3:
			if piece := genCode[r.IntN(len(genCode))]; strings.Contains(piece, "\n") {
				b.WriteString("\n" + piece + "\n") // a fence opens and closes lines of its own
			} else {
				b.WriteString(piece)
			}
		default:
			b.WriteString(genFiller[r.IntN(len(genFiller))])
		}
	}
	if r.IntN(15) == 0 {
		b.WriteString("\n" + strings.Repeat("long trace line with deadlock and race details ", 40+r.IntN(40)))
	}
	return b.String()
}

// accelSessions is enough sessions that a search confirms only some of
// them: a search with limit 10 confirms about rank.DedupPool(10).
const accelSessions = 180

// genCorpus plans the sessions: varied projects, times, types, code,
// acknowledgements, recall events and near-duplicate sessions.
func genCorpus() []*genSession {
	r := rand.New(rand.NewPCG(42, 7))
	var out []*genSession
	for i := range accelSessions {
		g := &genSession{
			id:    fmt.Sprintf("%08x-1111-4111-8111-%012d", r.Uint32(), i),
			cwd:   genProjects[r.IntN(len(genProjects))],
			start: accelNow.Add(-time.Duration(1+r.IntN(70*24)) * time.Hour),
		}
		topic := genTopics[r.IntN(len(genTopics))]
		g.add("user", "Can you help with "+topic+"? "+genMessage(r))
		for range 2 + r.IntN(12) {
			switch n := r.IntN(10); {
			case n < 3:
				g.add("user", genMessage(r))
			case n < 7:
				g.add("assistant", genMessage(r))
			case n < 9:
				command := fmt.Sprintf("go test ./... -run Test%s", strings.Fields(genTopics[r.IntN(len(genTopics))])[0])
				if r.IntN(3) == 0 { // prose passed to a command
					command = fmt.Sprintf("gemini -p \"You are a senior reviewer: %s\"", genMessage(r))
				}
				g.turns = append(g.turns, genTurn{kind: "tool", tool: "Bash", input: map[string]string{"command": command}})
				g.add("result", "ok  \tpackage\t0.1s "+genMessage(r))
			default:
				g.add("user", genAcks[r.IntN(len(genAcks))])
			}
		}
		if i%6 == 1 { // a recall, and its echo right after
			g.turns = append(g.turns, genTurn{kind: "tool", tool: "Bash", input: map[string]string{"command": "recall deadlock race"}})
			g.add("result", "deadlock race found in an older session")
			g.add("assistant", "Found it: the deadlock and the race were in the worker pool.")
			g.add("assistant", "I'll search my memory for pricing rules too.")
			g.add("assistant", "The pricing rules were rounded in pricing.ts before.")
		}
		if i%5 == 4 {
			g.add("assistant", genEdges[(i/5)%len(genEdges)])
		}
		if i == 5 {
			g.add("user", "the zanzibar migration is done")
		}
		if i == 3 {
			g.add("user", "the quetzal deploy failed with a deadlock in pricing")
		}
		if i%9 == 2 {
			g.agents = map[string][]genTurn{fmt.Sprintf("a%016x", r.Uint64()): {
				{kind: "user", text: "Find every deadlock and mutex in the pool"},
				{kind: "assistant", text: "The deadlock is in pool.go: `mu.Lock()` twice. " + genMessage(r)},
				{kind: "assistant", text: genMessage(r)},
			}}
			if i%4 == 3 {
				g.agentCwd = g.cwd + "/tools"
			}
		}
		out = append(out, g)
	}
	// Near-duplicates: the same conversation under another session id
	// (other message ids, so not a fork), a little later.
	// Session 3 has many copies, so that collapsing them leaves fewer
	// sessions than the limit unless more are ranked.
	copies := []*genSession{out[0], out[7], out[13]}
	for range 7 {
		copies = append(copies, out[3])
	}
	for i, src := range copies {
		dup := *src
		dup.id = fmt.Sprintf("dddddddd-%04d-4111-8111-%012d", i, i)
		dup.start = src.start.Add(time.Duration(3+i) * time.Minute)
		dup.agents = nil
		out = append(out, &dup)
	}
	return out
}

type jsonLine struct {
	ParentUUID  *string `json:"parentUuid"`
	IsSidechain bool    `json:"isSidechain"`
	UserType    string  `json:"userType"`
	Cwd         string  `json:"cwd"`
	SessionID   string  `json:"sessionId"`
	Version     string  `json:"version"`
	Type        string  `json:"type"`
	UUID        string  `json:"uuid"`
	Timestamp   string  `json:"timestamp"`
	Message     any     `json:"message"`
	AgentID     string  `json:"agentId,omitempty"`
}

func marshalTurns(t *testing.T, g *genSession, turns []genTurn, agent string) []byte {
	t.Helper()
	var buf strings.Builder
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	lastTool := ""
	for i, turn := range turns {
		uuid := fmt.Sprintf("%s-%s-%d", g.id, agent, i)
		cwd := g.cwd
		if agent != "" && g.agentCwd != "" {
			cwd = g.agentCwd
		}
		line := jsonLine{UserType: "external", Cwd: cwd, SessionID: g.id, Version: "2.1.100", UUID: uuid,
			Timestamp:   g.start.Add(time.Duration(i) * 40 * time.Second).UTC().Format("2006-01-02T15:04:05.000Z"),
			IsSidechain: agent != "", AgentID: agent}
		msgID := "msg_" + uuid
		switch turn.kind {
		case "user":
			line.Type, line.Message = "user", map[string]any{"role": "user", "content": turn.text}
		case "assistant":
			line.Type = "assistant"
			line.Message = map[string]any{"model": "claude-opus-4-6", "id": msgID, "type": "message", "role": "assistant",
				"content": []any{map[string]any{"type": "text", "text": turn.text}}}
		case "tool":
			lastTool = "toolu_" + uuid
			line.Type = "assistant"
			line.Message = map[string]any{"model": "claude-opus-4-6", "id": msgID, "type": "message", "role": "assistant",
				"content": []any{map[string]any{"type": "tool_use", "id": lastTool, "name": turn.tool, "input": turn.input}}}
		case "result":
			line.Type = "user"
			line.Message = map[string]any{"role": "user", "content": []any{map[string]any{"tool_use_id": lastTool, "type": "tool_result", "content": turn.text}}}
		}
		if err := enc.Encode(line); err != nil {
			t.Fatal(err)
		}
	}
	return []byte(buf.String())
}

func writeCorpus(t *testing.T, root string, sessions []*genSession) {
	t.Helper()
	for _, g := range sessions {
		dir := filepath.Join(root, strings.ReplaceAll(g.cwd, "/", "-"))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, g.id+".jsonl"), marshalTurns(t, g, g.turns, ""), 0o644); err != nil {
			t.Fatal(err)
		}
		for agent, turns := range g.agents {
			sub := filepath.Join(dir, g.id, "subagents")
			if err := os.MkdirAll(sub, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(sub, "agent-"+agent+".jsonl"), marshalTurns(t, g, turns, agent), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// copyFixtures copies the repository's transcript fixtures under dst.
func copyFixtures(t *testing.T, dst string) {
	t.Helper()
	if err := os.CopyFS(dst, os.DirFS("../testdata/transcripts/projects")); err != nil {
		t.Fatal(err)
	}
}

// accelIndex is one way of building the index of the same corpus.
type accelIndex struct {
	// batches of sessions indexed one run after another (a run per
	// batch gives the index segments of several runs); checkpoint 1
	// commits, and so ends a block, after every transcript.
	batches    int
	checkpoint int64
	// deadEvery hides the rows of every deadEvery-th transcript, as
	// after a replaced transcript was read again and before the
	// compaction that drops its old rows (0: none).
	deadEvery int
}

func buildAccelIndex(t *testing.T, sessions []*genSession, how accelIndex) *snapshot.Snapshot {
	t.Helper()
	src := filepath.Join(t.TempDir(), "projects")
	idx := t.TempDir()
	copyFixtures(t, src)
	per := (len(sessions) + how.batches - 1) / how.batches
	for b := range how.batches {
		writeCorpus(t, src, sessions[b*per:min((b+1)*per, len(sessions))])
		var warnings []string
		_, err := indexer.Run(indexer.Options{Config: indexer.Config{Sources: []string{src}, IndexDir: idx},
			Warn: func(s string) { warnings = append(warnings, s) }, CheckpointBytes: how.checkpoint})
		if err != nil {
			t.Fatalf("index: %v (%q)", err, warnings)
		}
		for _, w := range warnings {
			if strings.Contains(w, "term index") {
				t.Errorf("index warning: %s", w)
			}
		}
	}
	if how.deadEvery > 0 {
		hideRows(t, idx, how.deadEvery)
	}
	snap, err := store.Open(idx).Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { snap.Close() })
	segs, why := snap.TermSegments()
	if segs == nil {
		t.Fatalf("no term index: %s", why)
	}
	return snap
}

// hideRows marks the generations of every n-th transcript with rows dead
// and commits the manifest: their rows stay in the files, as they do
// until a compaction, and every reader must leave them out.
func hideRows(t *testing.T, idx string, n int) {
	t.Helper()
	m, err := store.Open(idx).Manifest()
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for p := range m.Files() {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	hidden := 0
	for i, p := range paths {
		if st := m.File(p); i%n == 0 && st.Rows > 0 {
			m.Dead[st.Gen] += st.Rows
			hidden++
		}
	}
	if hidden == 0 {
		t.Fatal("no transcript with rows to hide")
	}
	if err := storetest.With(idx, func(w *store.Writer) error { return w.CommitManifest(m) }); err != nil {
		t.Fatal(err)
	}
}

// accelCase is one request; accel marks those the term index must
// answer itself (plain words, limited, message scope), which the test
// checks from the work done.
type accelCase struct {
	name  string
	req   Request
	accel bool
}

func accelCases(sessions []*genSession) []accelCase {
	words := func(w ...string) []string { return w }
	sharp := sessions[5].id // holds zanzibar
	rec := sessions[1].id   // has a recall event
	return []accelCase{
		{"word", Request{Terms: words("deadlock")}, true},
		{"word upper", Request{Terms: words("DEADLOCK")}, true},
		{"substring of many tokens", Request{Terms: words("lock")}, true},
		{"fixture word", Request{Terms: words("jwt")}, true},
		{"rare word", Request{Terms: words("zanzibar")}, true},
		{"absent word", Request{Terms: words("qqqabsentqqq")}, true},
		{"unicode word", Request{Terms: words("école")}, true},
		{"unicode word folded", Request{Terms: words("ÉCOLE")}, true},
		{"kelvin sign", Request{Terms: words("kelvin")}, true},
		{"digits", Request{Terms: words("42")}, true},
		{"or of words", Request{Terms: words("deadlock", "race", "mutex")}, true},
		{"or in one argument", Request{Terms: words("checkout invoice qqqabsentqqq")}, true},
		{"question with stop words", Request{Terms: words("how did we fix the deadlock?")}, true},
		{"require", Request{Terms: words("lock"), Require: words("mutex")}, false},
		{"require only", Request{Require: words("pricing", "rounding")}, false},
		{"exclude word", Request{Terms: words("deadlock"), Exclude: words("race")}, false},
		{"exclude phrase", Request{Terms: words("lock"), Exclude: words(`"dead lock"`)}, false},
		{"phrase", Request{Terms: words(`"race condition"`)}, false},
		{"phrase with punctuation", Request{Terms: words(`"pricing.ts"`)}, false},
		{"word with punctuation", Request{Terms: words("pricing.ts")}, false},
		{"code call", Request{Terms: words(`"mu.Lock()"`)}, false},
		{"wildcard", Request{Terms: words("dead_lock")}, false},
		{"wildcard two", Request{Terms: words("reset_windows")}, false},
		{"underscore phrase", Request{Terms: words(`"snake_case_name"`)}, false},
		{"case-sensitive", Request{Terms: words("Lock"), Match: query.MatchOptions{CaseSensitive: true}}, false},
		{"case-sensitive upper", Request{Terms: words("DEADLOCK"), Match: query.MatchOptions{CaseSensitive: true}}, false},
		{"word option", Request{Terms: words("lock"), Match: query.MatchOptions{Word: true}}, true},
		{"word option unicode", Request{Terms: words("ecole"), Match: query.MatchOptions{Word: true}}, true},
		{"regex alternation", Request{Terms: words(`dead.?lock|race\scondition`), Match: query.MatchOptions{Regex: true}}, false},
		{"regex optional between words", Request{Terms: words(`dead.?lock`), Match: query.MatchOptions{Regex: true}}, false},
		{"regex bench", Request{Terms: words(`dead.?lock|race condition`), Match: query.MatchOptions{Regex: true}}, false},
		{"regex optional class", Request{Terms: words(`dead[-\s]?lock`), Match: query.MatchOptions{Regex: true}}, false},
		{"regex spaces", Request{Terms: words(`garbage\s+collector`), Match: query.MatchOptions{Regex: true}}, false},
		{"regex word boundary", Request{Terms: words(`\bdead`), Match: query.MatchOptions{Regex: true}}, false},
		{"regex anchored", Request{Terms: words(`^the\sdead`), Match: query.MatchOptions{Regex: true}}, false},
		{"regex gap", Request{Terms: words(`dead.*lock`), Match: query.MatchOptions{Regex: true}}, false},
		{"regex optional letter", Request{Terms: words(`colou?r`), Match: query.MatchOptions{Regex: true}}, false},
		{"regex group alternation", Request{Terms: words(`(dead|spin)lock`), Match: query.MatchOptions{Regex: true}}, false},
		{"regex word option", Request{Terms: words(`dead.?lock`), Match: query.MatchOptions{Regex: true, Word: true}}, false},
		{"regex case-sensitive", Request{Terms: words(`DEAD.?LOCK|Race condition`), Match: query.MatchOptions{Regex: true, CaseSensitive: true}}, false},
		{"regex non-ASCII", Request{Terms: words(`dead.?lock.?d\w+s`), Match: query.MatchOptions{Regex: true}}, false},
		{"phrase edges", Request{Terms: words(`"garbage collector"`)}, false},
		{"phrase edges word option", Request{Terms: words(`"garbage collector"`), Match: query.MatchOptions{Word: true}}, false},
		{"phrase edges case-sensitive", Request{Terms: words(`"GARBAGE COLLECTOR"`), Match: query.MatchOptions{CaseSensitive: true}}, false},
		{"phrase punctuation both sides", Request{Terms: words(`"mu.Lock()"`), Match: query.MatchOptions{Word: true}}, false},
		{"phrase and word", Request{Terms: words(`"race condition"`, "deadlock")}, false},
		{"regex class prefix", Request{Terms: words(`\w+lock`), Match: query.MatchOptions{Regex: true}}, false},
		{"regex without words", Request{Terms: words(`\d{2}\s?ms`), Match: query.MatchOptions{Regex: true}}, false},
		{"regex case-insensitive flag", Request{Terms: words(`(?i)mu\.lock`), Match: query.MatchOptions{Regex: true}}, false},
		{"types user", Request{Terms: words("deadlock"), Types: words("user")}, true},
		{"types assistant tool", Request{Terms: words("race"), Types: words("assistant", "tool")}, true},
		{"types agent", Request{Terms: words("deadlock"), Types: words("agent")}, true},
		{"since until", Request{Terms: words("deadlock"), Since: accelNow.AddDate(0, 0, -40), Until: accelNow.AddDate(0, 0, -10)}, true},
		{"since only", Request{Terms: words("pricing"), Since: accelNow.AddDate(0, 0, -20)}, true},
		{"project path", Request{Terms: words("deadlock"), Projects: words("/home/dev/src/shop")}, true},
		{"project fragment", Request{Terms: words("lock"), Projects: words("infra", "api")}, true},
		{"session prefix", Request{Terms: words("deadlock", "zanzibar"), Sessions: words(sharp[:8])}, true},
		{"session full id", Request{Terms: words("deadlock"), Sessions: words(rec)}, true},
		{"current session hidden", Request{Terms: words("zanzibar", "deadlock"), CurrentSession: sharp}, true},
		{"current project boost", Request{Terms: words("deadlock"), CurrentProject: "/home/dev/src/api"}, true},
		{"limit 1", Request{Terms: words("deadlock"), Limit: 1}, true},
		{"limit 3", Request{Terms: words("race", "pricing"), Limit: 3}, true},
		{"limit 50", Request{Terms: words("lock"), Limit: 50}, true},
		{"many copies limit 1", Request{Terms: words("quetzal", "deadlock"), Limit: 1}, true},
		{"many copies limit 3", Request{Terms: words("quetzal", "deadlock"), Limit: 3}, true},
		{"many copies only", Request{Terms: words("quetzal"), Limit: 3}, true},
		{"cutoff", Request{Terms: words("deadlock"), Cutoff: true, Window: filter.DefaultWindow()}, true},
		{"cutoff pricing", Request{Terms: words("pricing", "rules"), Cutoff: true, Limit: 3, Window: filter.DefaultWindow()}, true},
		{"cutoff zero window", Request{Terms: words("deadlock"), Cutoff: true}, true},
		{"cutoff narrow window", Request{Terms: words("race"), Cutoff: true, Window: filter.Window{Duration: time.Minute, Messages: 1}}, true},
		{"half-life", Request{Terms: words("deadlock"), HalfLife: 24 * time.Hour}, true},
		{"session scope", Request{Terms: words("deadlock"), Require: words("pricing"), Scope: ScopeSession}, false},
		{"acknowledgement words", Request{Terms: words("thanks")}, true},
		{"word form", Request{Terms: words("translated")}, true},
		{"word forms", Request{Terms: words("painted articles reviewing")}, true},
		{"accents folded", Request{Terms: words("cestiny")}, true},
		{"accented query", Request{Terms: words("češtiny cafe")}, true},
		{"forms question", Request{Terms: words("which agents translated the czech articles?")}, true},
		{"forms and limit 1", Request{Terms: words("translate painting"), Limit: 1}, true},
		{"forms off with word option", Request{Terms: words("translated"), Match: query.MatchOptions{Word: true}}, true},
		{"forms with require", Request{Terms: words("painted"), Require: words("fence")}, false},
		{"forms with exclude", Request{Terms: words("translated"), Exclude: words("article")}, false},
		{"stray quote and possessive", Request{Terms: words(`the reviewer's "deadlock issues`)}, true},
		{"time named", Request{Terms: words("what did we decide last week about the deadlock")}, true},
		{"date named", Request{Terms: words("the deadlock on " + accelNow.AddDate(0, 0, -9).Format("January 2"))}, true},
		{"month named", Request{Terms: words("pricing in " + accelNow.AddDate(0, -1, 0).Format("January 2006"))}, true},
		{"tool prose", Request{Terms: words("senior reviewer deadlock")}, true},
		{"inside words", Request{Terms: words("lock ock")}, true},
		{"short words", Request{Terms: words("go mu 42 ms v2 ok")}, true},
		{"short word parts", Request{Terms: words("id 1")}, true},
		{"short word and word", Request{Terms: words("what was the id of the deadlock")}, true},
		{"short word required", Request{Terms: words("id"), Require: words("id")}, false},
		{"all filters", Request{Terms: words("deadlock", "race"), Exclude: words("pricing"), Types: words("user", "assistant"),
			Since: accelNow.AddDate(0, 0, -60), Projects: words("src"), CurrentProject: "/home/dev/src/shop", Cutoff: true, Window: filter.DefaultWindow(), Limit: 5}, false},
	}
}

func TestAcceleratedMatchesFullScan(t *testing.T) {
	// One run committing every 64 KiB of transcripts: many blocks.
	testAcceleratedMatchesFullScan(t, accelIndex{batches: 1, checkpoint: 64 << 10})
}

func TestAcceleratedMatchesFullScanWithDeadRows(t *testing.T) {
	// Rows of replaced transcripts not compacted away yet.
	testAcceleratedMatchesFullScan(t, accelIndex{batches: 1, checkpoint: 64 << 10, deadEvery: 3})
}

func TestAcceleratedMatchesFullScanAfterSeveralRuns(t *testing.T) {
	// Three runs: segments written by each run, and merged.
	testAcceleratedMatchesFullScan(t, accelIndex{batches: 3})
}

func testAcceleratedMatchesFullScan(t *testing.T, how accelIndex) {
	sessions := genCorpus()
	snap := buildAccelIndex(t, sessions, how)
	segs, _ := snap.TermSegments()
	t.Logf("%d blocks, %d term segments, %d rows", len(snap.Blocks), len(segs), snap.M.Rows)
	accelerated := 0
	for _, tc := range accelCases(sessions) {
		t.Run(tc.name, func(t *testing.T) {
			req := tc.req
			req.Now = accelNow
			req.Explain = true // the factors' notes are compared too
			if req.Limit == 0 {
				req.Limit = 10
			}
			full := req
			full.FullScan = true
			want, err := Run(snap, full)
			if err != nil {
				t.Fatalf("full scan: %v", err)
			}
			got, err := Run(snap, req)
			if err != nil {
				t.Fatalf("accelerated: %v", err)
			}
			if want.Stats.BlocksRead != want.Stats.Blocks {
				t.Errorf("full scan read %d of %d blocks", want.Stats.BlocksRead, want.Stats.Blocks)
			}
			compareSessions(t, got.Sessions, want.Sessions)
			// Dropping decoded blocks once no session reads them (and
			// decoding them again when a later one needs them), and asking
			// for each session's recall events as it is read, change
			// nothing.
			few := req
			few.keepBlocks = 1
			few.lateEvents = true
			dropping, err := Run(snap, few)
			if err != nil {
				t.Fatalf("accelerated, keeping one block: %v", err)
			}
			compareSessions(t, dropping.Sessions, want.Sessions)
			// Without --explain the messages' factors and the best
			// messages have no notes, and nothing else changes.
			plain := req
			plain.Explain = false
			noNotes, err := Run(snap, plain)
			if err != nil {
				t.Fatalf("accelerated, without notes: %v", err)
			}
			compareSessions(t, noNotes.Sessions, withoutMessageNotes(want.Sessions))
			collapsed := 0
			for _, s := range want.Sessions {
				collapsed += len(s.Similar)
			}
			t.Logf("%d sessions (%d copies collapsed); rows scanned %d (full scan %d), blocks read %d of %d",
				len(want.Sessions), collapsed, got.Stats.RowsScanned, want.Stats.RowsScanned, got.Stats.BlocksRead, got.Stats.Blocks)
			// Stats.TermIndex says the term index ranked the sessions;
			// then the search also reads fewer rows than the full scan.
			if want.Stats.TermIndex {
				t.Error("the full scan says it used the term index")
			}
			if got.Stats.TermIndex {
				accelerated++
				if got.Stats.RowsScanned >= want.Stats.RowsScanned {
					t.Errorf("ranked from the term index but scanned %d rows, the full scan %d", got.Stats.RowsScanned, want.Stats.RowsScanned)
				}
			} else if tc.accel {
				t.Errorf("not accelerated: scanned %d rows, the full scan %d", got.Stats.RowsScanned, want.Stats.RowsScanned)
			}
		})
	}
	if accelerated == 0 {
		t.Error("no query used the term index")
	}
}

// TestAcceleratedReadsFewBlocks: a word of one session is answered from
// the blocks holding it, not from all of them.
func TestAcceleratedReadsFewBlocks(t *testing.T) {
	sessions := genCorpus()
	snap := buildAccelIndex(t, sessions, accelIndex{batches: 1, checkpoint: 64 << 10})
	if len(snap.Blocks) < 10 {
		t.Fatalf("only %d blocks: the corpus is too small for this test", len(snap.Blocks))
	}
	res, err := Run(snap, Request{Terms: []string{"zanzibar"}, Limit: 10, Now: accelNow})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Sessions) != 1 || res.Sessions[0].ID != sessions[5].id {
		t.Fatalf("zanzibar found in %v, want %s", sessionIDs(res.Sessions), sessions[5].id)
	}
	if res.Stats.BlocksRead == 0 || res.Stats.BlocksRead > 2 || res.Stats.Blocks != len(snap.Blocks) {
		t.Errorf("read %d of %d blocks, want 1 or 2", res.Stats.BlocksRead, res.Stats.Blocks)
	}
}

func sessionIDs(ss []rank.Session) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = s.ID
	}
	return out
}

// compareSessions requires identical results: ids in order, exact
// scores, factors, times, similar sessions, and every message with its
// score and hits.
// withoutMessageNotes is a copy of sessions whose messages' factors have
// no notes but the fixed ones (type, proximity without two terms), and
// whose best-messages factor has none, as a search without
// Request.Explain ranks them.
func withoutMessageNotes(sessions []rank.Session) []rank.Session {
	out := slices.Clone(sessions)
	for i := range out {
		out[i].Factors = slices.Clone(out[i].Factors)
		for k := range out[i].Factors {
			if f := &out[i].Factors[k]; f.Name == "best messages" {
				f.Note = "" // spelt out for --explain only, as the messages' notes
			}
		}
		out[i].Messages = slices.Clone(out[i].Messages)
		for j := range out[i].Messages {
			m := &out[i].Messages[j]
			m.Factors = slices.Clone(m.Factors)
			for k := range m.Factors {
				if f := &m.Factors[k]; f.Name != "type" && (f.Name != "proximity" || f.Value != 1) {
					f.Note = ""
				}
			}
		}
	}
	return out
}

func compareSessions(t *testing.T, got, want []rank.Session) {
	t.Helper()
	if !slices.Equal(sessionIDs(got), sessionIDs(want)) {
		t.Errorf("sessions\n got %v\nwant %v", sessionIDs(got), sessionIDs(want))
		for i := range min(len(got), len(want)) {
			t.Logf("%d: got %s %.17g, want %s %.17g", i, got[i].ID, got[i].Score, want[i].ID, want[i].Score)
		}
		return
	}
	for i := range want {
		g, w := &got[i], &want[i]
		if g.Score != w.Score {
			t.Errorf("session %d (%s): score %.17g, want %.17g", i, w.ID, g.Score, w.Score)
		}
		if g.Matches != w.Matches || len(g.Messages) != len(w.Messages) {
			t.Errorf("session %d (%s): %d matches %d messages, want %d and %d", i, w.ID, g.Matches, len(g.Messages), w.Matches, len(w.Messages))
			continue
		}
		if g.Project != w.Project || g.Source != w.Source || !g.First.Equal(w.First) || !g.Last.Equal(w.Last) {
			t.Errorf("session %d (%s): project %q source %q %v–%v, want %q %q %v–%v", i, w.ID, g.Project, g.Source, g.First, g.Last, w.Project, w.Source, w.First, w.Last)
		}
		if !slices.Equal(g.Similar, w.Similar) || !slices.Equal(g.SimilarWhy, w.SimilarWhy) {
			t.Errorf("session %d (%s): similar %v %q, want %v %q", i, w.ID, g.Similar, g.SimilarWhy, w.Similar, w.SimilarWhy)
		}
		if !reflect.DeepEqual(g.Factors, w.Factors) {
			t.Errorf("session %d (%s): factors %+v, want %+v", i, w.ID, g.Factors, w.Factors)
		}
		for j := range w.Messages {
			gm, wm := &g.Messages[j], &w.Messages[j]
			if gm.Text != wm.Text || gm.Type != wm.Type || gm.Source != wm.Source || gm.Line != wm.Line || !gm.Timestamp.Equal(wm.Timestamp) {
				t.Errorf("session %d (%s) message %d: %s %s:%d %q, want %s %s:%d %q", i, w.ID, j, gm.Type, gm.Source, gm.Line, gm.Text, wm.Type, wm.Source, wm.Line, wm.Text)
				continue
			}
			if gm.Score != wm.Score {
				t.Errorf("session %d (%s) message %d: score %.17g, want %.17g", i, w.ID, j, gm.Score, wm.Score)
			}
			if !reflect.DeepEqual(gm.Hits, wm.Hits) {
				t.Errorf("session %d (%s) message %d: hits %v, want %v", i, w.ID, j, gm.Hits, wm.Hits)
			}
			if !reflect.DeepEqual(gm.Factors, wm.Factors) {
				t.Errorf("session %d (%s) message %d: factors %+v, want %+v", i, w.ID, j, gm.Factors, wm.Factors)
			}
		}
	}
}

// TestAcceleratedFillsLimitWhenCopiesCollapse: when the best sessions are
// copies of one another, collapsing them leaves fewer than the limit, and
// more sessions must be ranked to fill it, as the full scan does.
func TestAcceleratedFillsLimitWhenCopiesCollapse(t *testing.T) {
	var sessions []*genSession
	copied := &genSession{cwd: "/home/dev/src/shop", start: accelNow.Add(-48 * time.Hour)}
	for i := range 3 {
		copied.add("user", fmt.Sprintf("step %d: the quokka service keeps timing out when the nightly export runs, "+
			"so we traced the quokka client, raised the pool size, added a retry with backoff and wrote "+
			"a regression test for the quokka export path number %d", i, i))
	}
	for i := range 8 {
		c := *copied
		c.id = fmt.Sprintf("cccccccc-%04d-4111-8111-%012d", i, i)
		c.start = copied.start.Add(time.Duration(i) * time.Minute)
		sessions = append(sessions, &c)
	}
	for i := range 10 {
		g := &genSession{id: fmt.Sprintf("%08x-2222-4222-8222-%012d", 0xa0000000+i, i), cwd: "/home/dev/src/api",
			start: accelNow.Add(-time.Duration(72+i) * time.Hour)}
		g.add("user", fmt.Sprintf("unrelated note %d mentions quokka once among other words like %s", i, genTopics[i]))
		sessions = append(sessions, g)
	}
	src := filepath.Join(t.TempDir(), "projects")
	idx := t.TempDir()
	writeCorpus(t, src, sessions)
	if _, err := indexer.Run(indexer.Options{Config: indexer.Config{Sources: []string{src}, IndexDir: idx}}); err != nil {
		t.Fatal(err)
	}
	snap, err := store.Open(idx).Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	for _, limit := range []int{1, 3, 5} {
		req := Request{Terms: []string{"quokka"}, Limit: limit, Now: accelNow}
		full := req
		full.FullScan = true
		want, err := Run(snap, full)
		if err != nil {
			t.Fatal(err)
		}
		if len(want.Sessions) != limit || len(want.Sessions[0].Similar) == 0 {
			t.Fatalf("limit %d: the full scan shows %d sessions, the first with %d copies; the corpus does not test what it should",
				limit, len(want.Sessions), len(want.Sessions[0].Similar))
		}
		got, err := Run(snap, req)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(fmt.Sprintf("limit %d", limit), func(t *testing.T) { compareSessions(t, got.Sessions, want.Sessions) })
	}
}

// TestAcceleratedTimeFilterAtEpoch: a row stamped 1970-01-01T00:00:00Z
// has time 0 in the row table, which the term index also uses for "no
// time". --until (or a --since before 1970) keeps it in a full scan, so
// the index must not drop it either.
func TestAcceleratedTimeFilterAtEpoch(t *testing.T) {
	g := &genSession{id: "e0000000-3333-4333-8333-000000000000", cwd: "/home/dev/src/shop", start: time.Unix(0, 0)}
	g.add("user", "the ptarmigan importer was written at the epoch")
	g.add("user", "a later ptarmigan message, forty seconds on")
	src := filepath.Join(t.TempDir(), "projects")
	idx := t.TempDir()
	writeCorpus(t, src, []*genSession{g})
	if _, err := indexer.Run(indexer.Options{Config: indexer.Config{Sources: []string{src}, IndexDir: idx}}); err != nil {
		t.Fatal(err)
	}
	snap, err := store.Open(idx).Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	for _, tc := range []struct {
		name         string
		since, until time.Time
	}{
		{"until", time.Time{}, accelNow},
		{"since before 1970", time.Date(1960, 1, 1, 0, 0, 0, 0, time.UTC), time.Time{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := Request{Terms: []string{"ptarmigan"}, Limit: 10, Now: accelNow, Since: tc.since, Until: tc.until}
			full := req
			full.FullScan = true
			want, err := Run(snap, full)
			if err != nil {
				t.Fatal(err)
			}
			if len(want.Sessions) != 1 || want.Sessions[0].Matches != 2 {
				t.Fatalf("full scan: %d sessions; want the session with both messages", len(want.Sessions))
			}
			got, err := Run(snap, req)
			if err != nil {
				t.Fatal(err)
			}
			compareSessions(t, got.Sessions, want.Sessions)
		})
	}
}

// A search the term index cannot answer (here --scope session) skips the
// blocks its filters rule out, as before there was a term index; one it
// could answer reads them all when it falls back to the scan, so that its
// document frequencies, and so its scores, are those of the index.
func TestFallbackScanSkipsFilteredBlocks(t *testing.T) {
	sessions := genCorpus()
	snap := buildAccelIndex(t, sessions, accelIndex{batches: 1, checkpoint: 64 << 10})
	if len(snap.Blocks) < 10 {
		t.Fatalf("only %d blocks: the corpus is too small for this test", len(snap.Blocks))
	}
	one := []string{sessions[5].id}
	scoped, err := Run(snap, Request{Terms: []string{"the"}, Sessions: one, Scope: ScopeSession, Limit: 10, Now: accelNow})
	if err != nil {
		t.Fatal(err)
	}
	if scoped.Stats.TermIndex || scoped.Stats.BlocksRead == 0 || scoped.Stats.BlocksRead > len(snap.Blocks)/2 {
		t.Errorf("--scope session --session %s read %d of %d blocks (term index %v), want only the few holding it",
			one[0], scoped.Stats.BlocksRead, len(snap.Blocks), scoped.Stats.TermIndex)
	}
	full, err := Run(snap, Request{Terms: []string{"the"}, Sessions: one, Limit: 10, Now: accelNow, FullScan: true})
	if err != nil {
		t.Fatal(err)
	}
	if full.Stats.BlocksRead != len(snap.Blocks) {
		t.Errorf("--full-scan with --session read %d of %d blocks, want all", full.Stats.BlocksRead, len(snap.Blocks))
	}
}

// The channels reach ranking on both paths: word-form and accent hits are
// found, scored and reported with their form.
func TestChannelHitsReachRanking(t *testing.T) {
	sessions := genCorpus()
	snap := buildAccelIndex(t, sessions, accelIndex{batches: 1, checkpoint: 64 << 10})
	for _, tc := range []struct {
		word string
		form rank.Form
	}{{"translated", rank.FormStem}, {"cestiny", rank.FormAccent}, {"češtiny", rank.FormAccent}, {"ock", rank.FormInside}} {
		for _, full := range []bool{false, true} {
			res, err := Run(snap, Request{Terms: []string{tc.word}, Limit: 10, Now: accelNow, FullScan: full})
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, s := range res.Sessions {
				for _, m := range s.Messages {
					for _, h := range m.Hits {
						found = found || h.Form == tc.form
					}
				}
			}
			if !found {
				t.Errorf("%s (full scan %v): no hit of form %d among %d sessions", tc.word, full, tc.form, len(res.Sessions))
			}
		}
	}
}

// A term segment whose body was damaged after it was written (a flipped
// byte its header checksum does not cover) is caught by the page
// checksums where the search reads it: the search reads the rows instead,
// says why, and gives the full scan's results.
func TestDamagedSegmentBodyFallsBackToRows(t *testing.T) {
	sessions := genCorpus()
	snap := buildAccelIndex(t, sessions, accelIndex{batches: 1, checkpoint: 64 << 10})
	segs, _ := snap.TermSegments()
	path := segs[0].Ref.Path(snap.Dir)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// Flip a byte of the vocabulary, which every word search reads: the
	// one holding the first "DEADLOCK".
	at := strings.Index(string(data), "\nDEADLOCK\n")
	if at < 0 {
		t.Fatal("no DEADLOCK token in the first segment")
	}
	data[at+2] ^= 0x01
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	damaged, err := store.Open(snap.Dir).Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	defer damaged.Close()
	req := Request{Terms: []string{"deadlock", "pricing"}, Limit: 10, Now: accelNow}
	got, err := Run(damaged, req)
	if err != nil {
		t.Fatal(err)
	}
	if got.Stats.TermIndex || got.Stats.Fallback == nil || !strings.Contains(got.Stats.Fallback.Error(), "checksum") {
		t.Fatalf("term index %v, fallback %q: want the rows read because of the checksum", got.Stats.TermIndex, got.Stats.Fallback)
	}
	full := req
	full.FullScan = true
	want, err := Run(damaged, full)
	if err != nil {
		t.Fatal(err)
	}
	compareSessions(t, got.Sessions, want.Sessions)
}

// TestCandidateCountsRoundTrip checks that counts byKey keeps in a
// byte, or in segResult.wide past it, read back as the counter held them
// for each candidate (the bounds take them as exact), and that byKey
// orders candidates by key, each key's in row order.
func TestCandidateCountsRoundTrip(t *testing.T) {
	in := []int32{0, 1, 8, 254, 255, 256, 1000, maxCount, 7, wideCount - 1, wideCount, 3}
	const terms, rows, keyCount = 3, 40, 5
	var c counter
	c.reset(rows, terms, 0)
	var found []candidate
	for row := int32(0); row < rows; row += 3 {
		found = append(found, candidate{row: row, gen: uint32(row) * 7})
		c.keys = append(c.keys, uint32(row*row)%keyCount)
		for term := range terms {
			v := in[(int(row)+term)%len(in)]
			c.terms[term].counts[row] = rowCount{hits: v, code: in[(int(row)+2*term+1)%len(in)]}
		}
	}
	cands, counts, wide, keys := c.byKey(found, keyCount, terms)
	r := segResult{cands: cands, counts: counts, wide: wide}
	if len(cands) != len(found) || len(counts) != len(found)*2*terms {
		t.Fatalf("%d candidates and %d counts kept, want %d and %d", len(cands), len(counts), len(found), len(found)*2*terms)
	}
	seen := 0
	for _, k := range keys {
		for i := k.start; i < k.end; i++ {
			x := cands[i]
			if i > k.start && x.row <= cands[i-1].row {
				t.Errorf("key %d: row %d after row %d", k.key, x.row, cands[i-1].row)
			}
			if uint32(x.row*x.row)%keyCount != k.key || x.gen != uint32(x.row)*7 {
				t.Errorf("candidate %+v under key %d", x, k.key)
			}
			for term := range terms {
				want := c.terms[term].counts[x.row]
				if got := r.count(int(i)*2*terms + 2*term); got != int(want.hits) {
					t.Errorf("row %d term %d: hits %d, want %d", x.row, term, got, want.hits)
				}
				if got := r.count(int(i)*2*terms + 2*term + 1); got != int(want.code) {
					t.Errorf("row %d term %d: code hits %d, want %d", x.row, term, got, want.code)
				}
			}
			seen++
		}
	}
	if seen != len(found) {
		t.Errorf("the key runs hold %d candidates, want %d", seen, len(found))
	}
	if len(wide) == 0 {
		t.Error("no wide counts kept: the test holds counts of 255 and above")
	}
}

// A search whose sessions to read lie in more blocks than its read budget
// reads every block once instead, says why, and ranks as the full scan.
func TestReadBudgetSwitchesToTheScan(t *testing.T) {
	sessions := genCorpus()
	snap := buildAccelIndex(t, sessions, accelIndex{batches: 1, checkpoint: 64 << 10})
	req := Request{Terms: []string{"the"}, Limit: 10, Now: accelNow}
	want, err := Run(snap, Request{Terms: req.Terms, Limit: req.Limit, Now: req.Now, FullScan: true})
	if err != nil {
		t.Fatal(err)
	}
	within, err := Run(snap, req)
	if err != nil {
		t.Fatal(err)
	}
	if !within.Stats.TermIndex || within.Stats.BlocksRead < 2 {
		t.Fatalf("within its budget: term index %v, %d blocks read; the test needs a ranked search reading several", within.Stats.TermIndex, within.Stats.BlocksRead)
	}
	req.readBudget = 1
	over, err := Run(snap, req)
	if err != nil {
		t.Fatal(err)
	}
	if over.Stats.TermIndex || over.Stats.Fallback == nil || !strings.Contains(over.Stats.Fallback.Error(), "each block is read once") || over.Stats.BlocksRead != len(snap.Blocks) {
		t.Errorf("over its budget: term index %v, %d of %d blocks read, fallback %q; want every block read once, and why",
			over.Stats.TermIndex, over.Stats.BlocksRead, len(snap.Blocks), over.Stats.Fallback)
	}
	compareSessions(t, over.Sessions, want.Sessions)
	compareSessions(t, within.Sessions, want.Sessions)
}

// TestUnionListsEveryTouchedRowOnce checks union, sparse and dense (its
// two ways of gathering rows), against a sorted set of the touched rows,
// over resets of the same counter.
func TestUnionListsEveryTouchedRowOnce(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	var c counter
	for _, touches := range []int{0, 1, 5, 100, 900, 3000, 20000, 50} {
		const rows, terms = 4000, 3
		c.reset(rows, terms, 0)
		want := map[int32]bool{}
		for range touches {
			row := int32(r.IntN(rows))
			c.terms[r.IntN(terms)].add(row, 1, 0)
			want[row] = true
		}
		got := c.union()
		if !slices.Equal(got, slices.Sorted(maps.Keys(want))) {
			t.Fatalf("%d touches: union %v, want %v", touches, got, slices.Sorted(maps.Keys(want)))
		}
		for row, m := range c.mark {
			if m != 0 {
				t.Fatalf("%d touches: row %d still marked", touches, row)
			}
		}
	}
}
