package benchgen

import (
	"bufio"
	"bytes"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
)

const (
	testAgentsSeed      = 13
	testAgentsProjects  = 8 << 20 // the Claude Code corpus size the agents' sessions go with
	testAgentsBytes     = 2 << 20
	testAgentsBaseBytes = testAgentsBytes / 4
)

type testAgents struct {
	dir  string
	sums []AgentSummary
	err  error
}

// sharedAgents is one set of the other agents' sessions for the tests
// that only read it.
var sharedAgents = sync.OnceValue(func() testAgents {
	dir, err := os.MkdirTemp("", "benchgen-agents-")
	if err != nil {
		return testAgents{err: err}
	}
	sums, err := GenerateAgents(AgentOptions{Dir: dir, ProjectsSize: testAgentsProjects, Bytes: testAgentsBytes, Seed: testAgentsSeed, Text: testText()})
	sharedAgentsDir = dir
	return testAgents{dir: dir, sums: sums, err: err}
})

// sharedAgentsDir is removed by TestMain once the tests are done.
var sharedAgentsDir string

func agentsCorpus(t *testing.T) testAgents {
	t.Helper()
	a := sharedAgents()
	if a.err != nil {
		t.Fatalf("generate agents: %v", a.err)
	}
	return a
}

func (a testAgents) summary(t *testing.T, agent string) AgentSummary {
	t.Helper()
	for _, s := range a.sums {
		if s.Agent == agent {
			return s
		}
	}
	t.Fatalf("no summary for %s in %+v", agent, a.sums)
	return AgentSummary{}
}

func TestGenerateAgentsIsDeterministic(t *testing.T) {
	gen := func(seed uint64, workers int) map[string][32]byte {
		dir := t.TempDir()
		if _, err := GenerateAgents(AgentOptions{Dir: dir, ProjectsSize: 4 << 20, Bytes: 1 << 20, Seed: seed, Workers: workers, Text: testText()}); err != nil {
			t.Fatal(err)
		}
		return treeDigest(t, dir)
	}
	serial, parallel := gen(5, 1), gen(5, 4)
	if len(serial) == 0 {
		t.Fatal("generated no files")
	}
	for path, sum := range serial {
		if other, ok := parallel[path]; !ok || other != sum {
			t.Errorf("%s differs between a serial and a parallel run with the same seed", path)
		}
	}
	if len(serial) != len(parallel) {
		t.Errorf("serial run wrote %d files, parallel %d", len(serial), len(parallel))
	}
	other := gen(6, 0)
	for path, sum := range other {
		if serial[path] == sum && !strings.HasSuffix(path, ".project_root") {
			t.Errorf("seeds 5 and 6 both wrote %s the same", path)
		}
	}
}

func TestAgentSummariesAddUp(t *testing.T) {
	a := agentsCorpus(t)
	for _, f := range AgentFolders() {
		s := a.summary(t, f.Agent)
		size, files := dirSize(t, filepath.Join(a.dir, f.Dir))
		if size != s.Bytes || files != s.Files {
			t.Errorf("%s: summary says %d files, %d bytes; the folder holds %d files, %d bytes", f.Agent, s.Files, s.Bytes, files, size)
		}
		if s.Sessions == 0 || s.Projects == 0 {
			t.Errorf("%s: %d sessions in %d projects", f.Agent, s.Sessions, s.Projects)
		}
	}
}

// TestAgentsWriteAboutWhatIsAsked checks the sizes the agents' sessions
// are planned by (agentShape's written and least) on a corpus big enough
// for them to hold: a few dozen sessions an agent (in the 2 MB one the
// other tests share, a session or two more or less is a third of an
// agent's bytes).
func TestAgentsWriteAboutWhatIsAsked(t *testing.T) {
	const asked = 16 << 20
	sums, err := GenerateAgents(AgentOptions{Dir: t.TempDir(), ProjectsSize: 4 * asked, Bytes: asked, Seed: testAgentsSeed, Text: testText()})
	if err != nil {
		t.Fatal(err)
	}
	var total int64
	for i, f := range AgentFolders() {
		want := float64(asked) * f.share
		if got := float64(sums[i].Bytes); got < want*2/3 || got > want*3/2 {
			t.Errorf("%s wrote %.0f bytes, asked for about %.0f", f.Agent, got, want)
		}
		total += sums[i].Bytes
	}
	if total < asked*4/5 || total > asked*5/4 {
		t.Errorf("agents wrote %d bytes, asked for about %d", total, asked)
	}
}

func dirSize(t *testing.T, dir string) (int64, int) {
	t.Helper()
	var size int64
	files := 0
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		size += info.Size()
		files++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return size, files
}

// codexLine is a rollout line as the format lists it.
type codexLine struct {
	Timestamp string          `json:"timestamp"`
	Type      string          `json:"type"`
	Payload   json.RawMessage `json:"payload"`
}

type codexPayload struct {
	Type string `json:"type"`
	// session_meta
	ID           string          `json:"id"`
	Cwd          string          `json:"cwd"`
	CLIVersion   string          `json:"cli_version"`
	Originator   string          `json:"originator"`
	Source       json.RawMessage `json:"source"`
	ForkedFromID string          `json:"forked_from_id"`
	// response_item
	Role    string `json:"role"`
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	Name             string          `json:"name"`
	Arguments        *string         `json:"arguments"`
	CallID           string          `json:"call_id"`
	Output           *string         `json:"output"`
	Input            *string         `json:"input"`
	Summary          json.RawMessage `json:"summary"` // reasoning: an array; turn_context: a string
	EncryptedContent string          `json:"encrypted_content"`
	// event_msg
	Message *string         `json:"message"`
	Info    json.RawMessage `json:"info"`
	// turn_context
	TurnID string `json:"turn_id"`
	Model  string `json:"model"`
}

var rolloutName = regexp.MustCompile(`^rollout-(\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2})-([0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12})\.jsonl(\.zst)?$`)

// readRollout returns a rollout's lines, decompressing a .zst one.
func readRollout(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasSuffix(path, ".zst") {
		dec, err := zstd.NewReader(nil)
		if err != nil {
			t.Fatal(err)
		}
		defer dec.Close()
		if data, err = dec.DecodeAll(data, nil); err != nil {
			t.Fatalf("%s does not decompress: %v", path, err)
		}
	}
	return data
}

func TestCodexRolloutsAreWellFormed(t *testing.T) {
	a := agentsCorpus(t)
	s := a.summary(t, "codex")
	var rollouts []string
	for _, pattern := range []string{"codex/sessions/*/*/*/*", "codex/archived_sessions/*"} {
		m, err := filepath.Glob(filepath.Join(a.dir, pattern))
		if err != nil {
			t.Fatal(err)
		}
		rollouts = append(rollouts, m...)
	}
	if len(rollouts) != s.Sessions {
		t.Fatalf("%d rollouts, summary says %d sessions", len(rollouts), s.Sessions)
	}
	counts := map[string]int{}
	for _, path := range rollouts {
		name := filepath.Base(path)
		m := rolloutName.FindStringSubmatch(name)
		if m == nil {
			t.Errorf("%s: not a rollout name", path)
			continue
		}
		archived := strings.Contains(path, "archived_sessions")
		if m[3] != "" {
			counts["zst"]++
			if !archived {
				t.Errorf("%s: only archived rollouts are compressed", path)
			}
		}
		if archived {
			counts["archived"]++
		} else if day := filepath.Base(filepath.Dir(path)); m[1][8:10] != day {
			t.Errorf("%s: in day folder %s", path, day)
		}
		checkRollout(t, path, m[2], readRollout(t, path), counts)
	}
	if counts["zst"] == 0 || counts["archived"] == counts["zst"] {
		t.Errorf("want both plain and .zst archived rollouts, got %d archived, %d .zst", counts["archived"], counts["zst"])
	}
	if counts["archived"] != s.Archived || counts["zst"] != s.Compressed {
		t.Errorf("summary says %d archived, %d compressed; found %d, %d", s.Archived, s.Compressed, counts["archived"], counts["zst"])
	}
	for _, kind := range []string{"session_meta", "turn_context", "response_item/message", "response_item/function_call", "response_item/function_call_output",
		"response_item/reasoning", "response_item/custom_tool_call", "event_msg/user_message", "event_msg/agent_message", "event_msg/token_count", "environment_context", "fork"} {
		if counts[kind] == 0 {
			t.Errorf("no %s in the rollouts", kind)
		}
	}
	for _, side := range []string{"history.jsonl", "session_index.jsonl"} {
		data, err := os.ReadFile(filepath.Join(a.dir, "codex", side))
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
			if !json.Valid(line) {
				t.Errorf("%s: invalid line %q", side, line)
			}
		}
	}
}

// checkRollout checks every line of one rollout against the format and
// counts the kinds of line.
func checkRollout(t *testing.T, path, id string, data []byte, counts map[string]int) {
	t.Helper()
	if len(data) == 0 || data[len(data)-1] != '\n' {
		t.Errorf("%s: empty or not ending in a newline", path)
		return
	}
	calls := map[string]bool{}
	var lastUser string
	for n, raw := range bytes.Split(data[:len(data)-1], []byte("\n")) {
		var line codexLine
		if err := json.Unmarshal(raw, &line); err != nil {
			t.Errorf("%s:%d: invalid JSON: %v", path, n+1, err)
			return
		}
		if _, err := time.Parse(timestampLayout, line.Timestamp); err != nil || line.Type == "" || len(line.Payload) == 0 {
			t.Errorf("%s:%d: want timestamp, type and payload: %s", path, n+1, raw)
			return
		}
		var p codexPayload
		if err := json.Unmarshal(line.Payload, &p); err != nil {
			t.Errorf("%s:%d: payload: %v", path, n+1, err)
			return
		}
		if n == 0 && (line.Type != "session_meta" || p.ID != id) {
			t.Errorf("%s: first line is %s of %q, want the session_meta of %s", path, line.Type, p.ID, id)
		}
		switch line.Type {
		case "session_meta":
			counts["session_meta"]++
			if p.ID == "" || p.Cwd == "" || p.CLIVersion == "" || p.Originator == "" || len(p.Source) == 0 {
				t.Errorf("%s:%d: session_meta lacks a field: %s", path, n+1, raw)
			}
			if n == 0 && p.ForkedFromID != "" {
				counts["fork"]++
			}
		case "turn_context":
			counts["turn_context"]++
			if p.TurnID == "" || p.Cwd == "" || p.Model == "" {
				t.Errorf("%s:%d: turn_context lacks a field: %s", path, n+1, raw)
			}
		case "response_item":
			counts["response_item/"+p.Type]++
			switch p.Type {
			case "message":
				if p.Role == "" || len(p.Content) == 0 {
					t.Errorf("%s:%d: message without role or content", path, n+1)
				}
				for _, c := range p.Content {
					want := "input_text"
					if p.Role == "assistant" {
						want = "output_text"
					}
					if c.Type != want {
						t.Errorf("%s:%d: %s message part %s, want %s", path, n+1, p.Role, c.Type, want)
					}
					if strings.HasPrefix(c.Text, "<environment_context>") {
						counts["environment_context"]++
					}
				}
				if p.Role == "user" {
					lastUser = p.Content[0].Text
				}
			case "function_call":
				if p.Name == "" || p.CallID == "" || p.Arguments == nil || !json.Valid([]byte(*p.Arguments)) {
					t.Errorf("%s:%d: function_call wants name, call_id and JSON arguments: %s", path, n+1, raw)
				}
				calls[p.CallID] = true
			case "custom_tool_call":
				if p.Name == "" || p.CallID == "" || p.Input == nil {
					t.Errorf("%s:%d: custom_tool_call wants name, call_id and input", path, n+1)
				}
				calls[p.CallID] = true
			case "function_call_output", "custom_tool_call_output":
				if p.Output == nil || !calls[p.CallID] {
					t.Errorf("%s:%d: output of call %q, which was not made", path, n+1, p.CallID)
				}
			case "reasoning":
				if len(p.Summary) < 3 || p.Summary[0] != '[' || p.EncryptedContent == "" {
					t.Errorf("%s:%d: reasoning wants summary and encrypted_content", path, n+1)
				}
			default:
				t.Errorf("%s:%d: response item %q", path, n+1, p.Type)
			}
		case "event_msg":
			counts["event_msg/"+p.Type]++
			switch p.Type {
			case "user_message":
				// The event repeats the prompt the response item just gave.
				if p.Message == nil || *p.Message != lastUser {
					t.Errorf("%s:%d: user_message does not repeat the prompt before it", path, n+1)
				}
			case "agent_message":
				if p.Message == nil {
					t.Errorf("%s:%d: agent_message without message", path, n+1)
				}
			case "token_count":
				if len(p.Info) == 0 {
					t.Errorf("%s:%d: token_count without info", path, n+1)
				}
			}
		default:
			t.Errorf("%s:%d: line type %q", path, n+1, line.Type)
		}
	}
}

func TestGeminiChatsAreWellFormed(t *testing.T) {
	a := agentsCorpus(t)
	s := a.summary(t, "gemini")
	tmp := filepath.Join(a.dir, "gemini", "tmp")
	var registry struct {
		Projects map[string]string `json:"projects"`
	}
	data, err := os.ReadFile(filepath.Join(a.dir, "gemini", "projects.json"))
	if err != nil || json.Unmarshal(data, &registry) != nil {
		t.Fatalf("projects.json: %v %s", err, data)
	}
	chats := 0
	kinds := map[string]int{}
	for root, slug := range registry.Projects {
		got, err := os.ReadFile(filepath.Join(tmp, slug, ".project_root"))
		if err != nil || string(got) != root {
			t.Errorf("%s/.project_root = %q (%v), want %s", slug, got, err, root)
		}
		files, _ := filepath.Glob(filepath.Join(tmp, slug, "chats", "*.jsonl"))
		subs, _ := filepath.Glob(filepath.Join(tmp, slug, "chats", "*", "*.jsonl"))
		for _, path := range append(files, subs...) {
			chats++
			checkGeminiChat(t, path, root, kinds)
		}
	}
	if chats != s.Sessions {
		t.Errorf("%d chat files, summary says %d sessions", chats, s.Sessions)
	}
	for _, k := range []string{"user", "gemini", "toolCalls", "$set"} {
		if kinds[k] == 0 {
			t.Errorf("no %s records", k)
		}
	}
}

var chatName = regexp.MustCompile(`^session-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-([0-9a-f]{8})\.jsonl$`)

func checkGeminiChat(t *testing.T, path, root string, kinds map[string]int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for n := 0; sc.Scan(); n++ {
		var rec struct {
			SessionID   string `json:"sessionId"`
			ProjectHash string `json:"projectHash"`
			StartTime   string `json:"startTime"`
			LastUpdated string `json:"lastUpdated"`
			Kind        string `json:"kind"`
			ID          string `json:"id"`
			Timestamp   string `json:"timestamp"`
			Type        string `json:"type"`
			Set         json.RawMessage
			ToolCalls   []struct {
				ID, Name, Status string
				Args             json.RawMessage
				Result           []json.RawMessage
			} `json:"toolCalls"`
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Errorf("%s:%d: %v", path, n+1, err)
			return
		}
		if n == 0 {
			if rec.SessionID == "" || rec.ProjectHash != geminiHash(root) || rec.StartTime == "" || rec.LastUpdated == "" || rec.Kind == "" {
				t.Errorf("%s: first line is not the metadata: %s", path, sc.Bytes())
			}
			if m := chatName.FindStringSubmatch(filepath.Base(path)); rec.Kind == "main" && (m == nil || m[1] != rec.SessionID[:8]) {
				t.Errorf("%s: name does not end with the session id's first 8 characters (%s)", path, rec.SessionID)
			}
			if rec.Kind == "subagent" && filepath.Base(path) != rec.SessionID+".jsonl" {
				t.Errorf("%s: a subagent's chat is named by its id %s", path, rec.SessionID)
			}
			continue
		}
		if bytes.HasPrefix(sc.Bytes(), []byte(`{"$set":`)) {
			kinds["$set"]++
			continue
		}
		if rec.ID == "" || rec.Timestamp == "" || (rec.Type != "user" && rec.Type != "gemini" && rec.Type != "info") {
			t.Errorf("%s:%d: not a message record: %s", path, n+1, sc.Bytes())
		}
		kinds[rec.Type]++
		for _, c := range rec.ToolCalls {
			kinds["toolCalls"]++
			if c.ID == "" || c.Name == "" || c.Status == "" || len(c.Args) == 0 || len(c.Result) == 0 {
				t.Errorf("%s:%d: tool call lacks a field", path, n+1)
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Error(err)
	}
}

var aiderHeader = regexp.MustCompile(`^# aider chat started at (.*)$`)

func TestAiderHistoriesParse(t *testing.T) {
	a := agentsCorpus(t)
	s := a.summary(t, "aider")
	files, err := filepath.Glob(filepath.Join(a.dir, "aider", "*", ".aider.chat.history.md"))
	if err != nil || len(files) != s.Files {
		t.Fatalf("%d histories (%v), summary says %d", len(files), err, s.Files)
	}
	sessions, promptless := 0, 0
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var last time.Time
		prompts := -1
		fenced := false
		for i, line := range strings.Split(string(data), "\n") {
			if strings.HasPrefix(line, "```") {
				fenced = !fenced
			}
			if m := aiderHeader.FindStringSubmatch(line); m != nil && !fenced {
				at, err := time.Parse("2006-01-02 15:04:05", m[1])
				if err != nil {
					t.Errorf("%s:%d: header time %q: %v", path, i+1, m[1], err)
				}
				if at.Before(last) {
					t.Errorf("%s:%d: sessions out of order", path, i+1)
				}
				if prompts == 0 {
					promptless++
				}
				last, prompts = at, 0
				sessions++
				continue
			}
			if i == 1 && prompts < 0 {
				t.Errorf("%s: does not start with a header", path)
			}
			if strings.HasPrefix(line, "#### ") && !fenced {
				prompts++
				if !strings.HasSuffix(line, "  ") {
					t.Errorf("%s:%d: a prompt line ends in two spaces", path, i+1)
				}
			}
		}
		if fenced {
			t.Errorf("%s: a code fence is left open", path)
		}
		if prompts == 0 {
			promptless++
		}
	}
	if sessions != s.Sessions {
		t.Errorf("%d headers, summary says %d sessions", sessions, s.Sessions)
	}
	// Two runs in five end before a prompt, as in real histories; most
	// have one.
	if promptless == 0 || promptless*2 > sessions {
		t.Errorf("%d of %d sessions have no prompt", promptless, sessions)
	}
}

func TestOpenCodeDatabase(t *testing.T) {
	a := agentsCorpus(t)
	s := a.summary(t, "opencode")
	db, err := sql.Open("sqlite", "file:"+filepath.Join(a.dir, "opencode", "opencode.db")+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var sessions, children int
	if err := db.QueryRow("SELECT count(*), count(parent_id) FROM session").Scan(&sessions, &children); err != nil {
		t.Fatal(err)
	}
	if sessions != s.Sessions || children != s.Subagents {
		t.Errorf("%d sessions (%d children), summary says %d (%d)", sessions, children, s.Sessions, s.Subagents)
	}
	var orphans int
	if err := db.QueryRow("SELECT count(*) FROM part WHERE message_id NOT IN (SELECT id FROM message) OR session_id NOT IN (SELECT id FROM session)").Scan(&orphans); err != nil || orphans > 0 {
		t.Errorf("%d parts of no message or session (%v)", orphans, err)
	}
	rows, err := db.Query("SELECT 'message', data FROM message UNION ALL SELECT 'part', data FROM part")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	types := map[string]int{}
	for rows.Next() {
		var table, data string
		if err := rows.Scan(&table, &data); err != nil {
			t.Fatal(err)
		}
		var d struct {
			Role, Type, CallID, Tool string
			State                    *struct{ Status string }
		}
		if err := json.Unmarshal([]byte(data), &d); err != nil {
			t.Fatalf("%s data %q: %v", table, data, err)
		}
		if table == "message" {
			types["role:"+d.Role]++
			continue
		}
		types[d.Type]++
		if d.Type == "tool" && (d.CallID == "" || d.Tool == "" || d.State == nil || d.State.Status == "") {
			t.Errorf("tool part lacks a field: %s", data)
		}
	}
	for _, k := range []string{"role:user", "role:assistant", "text", "tool", "step-start", "step-finish"} {
		if types[k] == 0 {
			t.Errorf("no %s rows", k)
		}
	}
}

// TestScaledAgentsKeepTheBaseSessions checks what the no-change
// benchmark relies on: a corpus with BaseBytes is the base corpus's
// sessions and more, in the same projects.
func TestScaledAgentsKeepTheBaseSessions(t *testing.T) {
	base, scaled := t.TempDir(), t.TempDir()
	opts := AgentOptions{Dir: base, ProjectsSize: testAgentsProjects, Bytes: testAgentsBaseBytes, Seed: testAgentsSeed, Text: testText()}
	baseSums, err := GenerateAgents(opts)
	if err != nil {
		t.Fatal(err)
	}
	opts.Dir, opts.Bytes, opts.BaseBytes = scaled, 4*testAgentsBaseBytes, testAgentsBaseBytes
	scaledSums, err := GenerateAgents(opts)
	if err != nil {
		t.Fatal(err)
	}
	for i := range baseSums {
		b, s := baseSums[i], scaledSums[i]
		if s.Projects != b.Projects || s.Sessions < 2*b.Sessions {
			t.Errorf("%s: %d sessions in %d projects, then %d in %d; want more sessions, the same projects", b.Agent, b.Sessions, b.Projects, s.Sessions, s.Projects)
		}
	}
	baseTree, scaledTree := treeDigest(t, base), treeDigest(t, scaled)
	for path, sum := range baseTree {
		// Histories, registries and the database hold every session; each
		// rollout and chat file is its own.
		if !strings.Contains(path, "rollout-") && !strings.Contains(path, "session-") {
			continue
		}
		if scaledTree[path] != sum {
			t.Errorf("%s is not in the scaled corpus as it is in the base one", path)
		}
	}
}

func TestMixedCorpusKeepsTheClaudeCorpus(t *testing.T) {
	plain, mixed := t.TempDir(), t.TempDir()
	if _, err := Generate(Options{Dir: plain, Size: 2 << 20, Seed: 3, Text: testText()}); err != nil {
		t.Fatal(err)
	}
	sum, err := Generate(Options{Dir: mixed, Size: 2 << 20, Seed: 3, Text: testText(), Mixed: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Agents) != len(AgentFolders()) {
		t.Fatalf("mixed summary lists %d agents", len(sum.Agents))
	}
	a, b := treeDigest(t, ProjectsDir(plain)), treeDigest(t, ProjectsDir(mixed))
	if len(a) != len(b) {
		t.Errorf("projects/ holds %d files alone, %d in a mixed corpus", len(a), len(b))
	}
	for path, s := range a {
		if b[path] != s {
			t.Errorf("projects/%s differs in the mixed corpus", path)
		}
	}
	for _, f := range AgentFolders() {
		if _, err := os.Stat(filepath.Join(mixed, f.Dir)); err != nil {
			t.Errorf("mixed corpus lacks %s: %v", f.Dir, err)
		}
		if _, err := os.Stat(filepath.Join(plain, f.Dir)); err == nil {
			t.Errorf("a Claude Code corpus has %s", f.Dir)
		}
	}
}

func TestAgentsWithFallbackText(t *testing.T) {
	if _, err := GenerateAgents(AgentOptions{Dir: t.TempDir(), ProjectsSize: 1 << 20, Bytes: 256 << 10, Seed: 2, Text: fallbackTextSource()}); err != nil {
		t.Fatal(err)
	}
}
