package main

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The conformance suite: testdata/transcripts/conformance holds a
// transcript in the likeness of every opening record, entrypoint and
// layout the format reference lists (terminal, VS Code, remote, `claude
// -p` and the SDKs, forks with and without forkedFrom, resumes appended
// to a file, compaction, subagents in both layouts, versions 2.0.64 to
// 2.1.330, a Windows project, a comment line, a byte order mark and CRLF,
// two records on one line, progress records, titles, other languages, a
// file that is not text). Each test below indexes the suite and checks
// one class through the CLI, as a person would see it.

const conformanceFixtures = "../../testdata/transcripts/conformance/projects"

// conformanceIndex indexes the suite once per test into a fresh index and
// returns the flags that search it without updating it again.
func conformanceIndex(t *testing.T) []string {
	t.Helper()
	src, err := filepath.Abs(conformanceFixtures)
	if err != nil {
		t.Fatal(err)
	}
	common := []string{"--source", src, "--index-dir", t.TempDir()}
	if r := runCLI(t, append([]string{"index", "-q"}, common...)...); r.code != 0 {
		t.Fatalf("index: code %d, stderr %q", r.code, r.stderr)
	}
	return append(common, "--no-update")
}

// jsonHit is what the conformance tests read of a --json search result.
type jsonHit struct {
	SessionID string `json:"session_id"`
	Title     string `json:"title"`
	Project   string `json:"project"`
	Messages  []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"messages"`
}

// searchJSON runs a --json search and returns its sessions; code is the
// exit status (1: nothing matched).
func searchJSON(t *testing.T, common []string, args ...string) ([]jsonHit, int) {
	t.Helper()
	r := runCLI(t, append(append([]string{"--json"}, args...), common...)...)
	if r.code > 1 {
		t.Fatalf("recall %v: code %d, stderr %q", args, r.code, r.stderr)
	}
	var out []jsonHit
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		if line == "" {
			continue
		}
		var h jsonHit
		if err := json.Unmarshal([]byte(line), &h); err != nil {
			t.Fatalf("recall %v: not JSON: %v: %s", args, err, line)
		}
		out = append(out, h)
	}
	return out, r.code
}

// wantFirst checks that a search ranks session first, and returns it.
func wantFirst(t *testing.T, common []string, session string, args ...string) jsonHit {
	t.Helper()
	hits, _ := searchJSON(t, common, args...)
	if len(hits) == 0 || hits[0].SessionID != session {
		ids := make([]string, len(hits))
		for i, h := range hits {
			ids[i] = h.SessionID
		}
		t.Fatalf("recall %v: got %v, want %s first", args, ids, session)
	}
	return hits[0]
}

// wantNoMatch checks that a search finds nothing (exit 1).
func wantNoMatch(t *testing.T, common []string, args ...string) {
	t.Helper()
	if hits, code := searchJSON(t, common, args...); code != 1 || len(hits) != 0 {
		t.Fatalf("recall %v: code %d, %d sessions; want nothing", args, code, len(hits))
	}
}

// shownTotal is how many messages `recall show --json` counts in a session.
func shownTotal(t *testing.T, common []string, session string) (int, string) {
	t.Helper()
	r := runCLI(t, append([]string{"show", "--json", session}, common...)...)
	if r.code != 0 {
		t.Fatalf("show %s: code %d, stderr %q", session, r.code, r.stderr)
	}
	var sh struct {
		Total int    `json:"messages_total"`
		Title string `json:"title"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &sh); err != nil {
		t.Fatalf("show %s: %v", session, err)
	}
	return sh.Total, sh.Title
}

func TestConformanceTerminalOpensWithMode(t *testing.T) {
	common := conformanceIndex(t)
	h := wantFirst(t, common, "c0000001-0000-4000-8000-000000000001", "reconcile ledger balances in batches")
	if h.Title != "ledger batching" {
		t.Errorf("title %q: /rename's custom-title names the session over the ai-title", h.Title)
	}
	wantFirst(t, common, "c0000001-0000-4000-8000-000000000001", "batching", "--type", "title")
}

func TestConformanceTerminalOpensWithPermissionMode(t *testing.T) {
	common := conformanceIndex(t)
	h := wantFirst(t, common, "c0000002-0000-4000-8000-000000000002", "kafka consumer lag alert")
	if h.Title != "Kafka consumer lag alert threshold" {
		t.Errorf("title %q, want the ai-title", h.Title)
	}
}

func TestConformanceTerminalOpensWithLastPrompt(t *testing.T) {
	common := conformanceIndex(t)
	wantFirst(t, common, "c0000003-0000-4000-8000-000000000003", "terraform state lock dynamodb")
}

func TestConformanceOldVersionWithoutEntrypoint(t *testing.T) {
	common := conformanceIndex(t)
	wantFirst(t, common, "c0000004-0000-4000-8000-000000000004", "webpack bundle size regression")
}

// Versions before 2.1 wrote summary records, most often of another
// conversation (its leafUuid), at the top of a new file, and kept
// subagents in agent-*.jsonl beside the sessions.
func TestConformanceSummaryRecordsAndOldAgentLayout(t *testing.T) {
	common := conformanceIndex(t)
	const session = "c0000005-0000-4000-8000-000000000005"
	h := wantFirst(t, common, session, "autovacuum bloat")
	if h.Title != "Postgres vacuum and table bloat" {
		t.Errorf("title %q: the summary whose leaf is this session's names it", h.Title)
	}
	wantFirst(t, common, session, "dead tuples", "--type", "agent")
	wantNoMatch(t, common, "quokka") // a summary of a conversation not indexed names nothing
}

// VS Code sessions open with queue-operation records, as `claude -p`
// runs do, and their prompts carry promptSource sdk and IDE tags.
func TestConformanceVSCodeOpensWithQueueOperation(t *testing.T) {
	common := conformanceIndex(t)
	h := wantFirst(t, common, "c0000006-0000-4000-8000-000000000006", "dark mode flicker tailwind")
	for _, m := range h.Messages {
		if strings.Contains(m.Text, "ide_opened_file") {
			t.Errorf("IDE tag kept in %q", m.Text)
		}
	}
	if h.Title != "Stop dark mode flicker on load" {
		t.Errorf("title %q", h.Title)
	}
}

func TestConformanceVSCodeSubagent(t *testing.T) {
	common := conformanceIndex(t)
	wantFirst(t, common, "c0000007-0000-4000-8000-000000000007", "ImageCache reentrancy")
	wantFirst(t, common, "c0000007-0000-4000-8000-000000000007", "SyncEngine", "--type", "agent")
}

// Remote sessions write no entrypoint and open with queue-operation.
func TestConformanceRemoteSession(t *testing.T) {
	common := conformanceIndex(t)
	wantFirst(t, common, "c0000008-0000-4000-8000-000000000008", "token bucket redis lua")
}

// Headless runs are indexed, left out of searches and lists, and brought
// back by --include-headless or a --session that names them.
func TestConformanceHeadlessRuns(t *testing.T) {
	common := conformanceIndex(t)
	for _, tt := range []struct{ session, query string }{
		{"c0000009-0000-4000-8000-000000000009", "changelog"},
		{"c0000010-0000-4000-8000-000000000010", "webhook fetcher forgery"},
		{"c0000011-0000-4000-8000-000000000011", "avatar importer forgery"},
	} {
		wantNoMatch(t, common, tt.query)
		wantFirst(t, common, tt.session, tt.query, "--include-headless")
		wantFirst(t, common, tt.session, tt.query, "--session", tt.session[:8])
	}
	listed := func(args ...string) []string {
		r := runCLI(t, append(append([]string{"sessions", "--json", "-n", "0"}, args...), common...)...)
		var ids []string
		for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
			var s struct {
				ID string `json:"session_id"`
			}
			if json.Unmarshal([]byte(line), &s) == nil {
				ids = append(ids, s.ID)
			}
		}
		return ids
	}
	if ids := listed(); slices.Contains(ids, "c0000009-0000-4000-8000-000000000009") || !slices.Contains(ids, "c0000015-0000-4000-8000-000000000015") {
		t.Errorf("sessions lists %v: no headless run, every session typed into", ids)
	}
	if ids := listed("--include-headless"); !slices.Contains(ids, "c0000009-0000-4000-8000-000000000009") {
		t.Errorf("sessions --include-headless lists %v", ids)
	}
}

// A fork copies its parent's records with their uuids: each message is
// indexed once, in the session that wrote it, with forkedFrom (2.1.123)
// or without (2.1.330), and the fork's own messages are kept.
func TestConformanceForks(t *testing.T) {
	common := conformanceIndex(t)
	for _, tt := range []struct {
		session string
		total   int
	}{
		{"c0000012-0000-4000-8000-000000000012", 4}, // the parent, whole
		{"c0000013-0000-4000-8000-000000000013", 2}, // the fork's own prompt and reply
		{"c0000014-0000-4000-8000-000000000014", 2},
	} {
		if got, _ := shownTotal(t, common, tt.session); got != tt.total {
			t.Errorf("%s: %d messages, want %d", tt.session, got, tt.total)
		}
	}
	wantFirst(t, common, "c0000013-0000-4000-8000-000000000013", "full jitter")
	wantFirst(t, common, "c0000014-0000-4000-8000-000000000014", "circuit breaker")
}

// A `claude -p --resume` appends headless turns to an interactive
// session's file: the session stays a session a person typed into; only
// the headless turns wait for --include-headless.
func TestConformanceResumeAppendsToTheFile(t *testing.T) {
	common := conformanceIndex(t)
	const session = "c0000015-0000-4000-8000-000000000015"
	wantFirst(t, common, session, "decay scale locale")
	wantNoMatch(t, common, "TestRecencyDecay")
	wantFirst(t, common, session, "TestRecencyDecay", "--include-headless")
	if got, _ := shownTotal(t, common, session); got != 6 {
		t.Errorf("show counts %d messages, want all 6", got)
	}
}

func TestConformanceCompaction(t *testing.T) {
	common := conformanceIndex(t)
	wantFirst(t, common, "c0000016-0000-4000-8000-000000000016", "downgrades credit proration")
	wantNoMatch(t, common, "xylophone") // the compaction summary repeats the session: not indexed
}

func TestConformanceWindowsProject(t *testing.T) {
	common := conformanceIndex(t)
	h := wantFirst(t, common, "c0000017-0000-4000-8000-000000000017", "powershell execution policy", "--project", "site")
	if h.Project != `C:\repos\personal\site` {
		t.Errorf("project %q", h.Project)
	}
}

// A comment line on top is one bad line, not a binary file.
func TestConformanceCommentLine(t *testing.T) {
	common := conformanceIndex(t)
	wantFirst(t, common, "c0000018-0000-4000-8000-000000000018", "grpc deadline propagation")
	st := conformanceStats(t, common)
	if st.Excluded["bad_line"] != 1 {
		t.Errorf("bad lines %d, want the comment alone", st.Excluded["bad_line"])
	}
}

func TestConformanceByteOrderMarkAndCRLF(t *testing.T) {
	common := conformanceIndex(t)
	if got, _ := shownTotal(t, common, "c0000019-0000-4000-8000-000000000019"); got != 2 {
		t.Errorf("%d messages, want the prompt after the byte order mark and the reply", got)
	}
	wantFirst(t, common, "c0000019-0000-4000-8000-000000000019", "garbled excel csv")
}

// Copies of transcripts made by other tools glue a record to the end of
// the one before: both are read.
func TestConformanceTwoRecordsOnOneLine(t *testing.T) {
	common := conformanceIndex(t)
	h := wantFirst(t, common, "c0000020-0000-4000-8000-000000000020", "structured logging agent name")
	if h.Title != "Agent name in the logging context" {
		t.Errorf("title %q: the summary glued to the reply names the session", h.Title)
	}
}

func TestConformanceProgressRecords(t *testing.T) {
	common := conformanceIndex(t)
	wantFirst(t, common, "c0000021-0000-4000-8000-000000000021", "playwright flaky retries")
	wantNoMatch(t, common, "zanzibar") // agent_progress repeats a subagent's text
}

func TestConformanceOtherLanguages(t *testing.T) {
	common := conformanceIndex(t)
	wantFirst(t, common, "c0000022-0000-4000-8000-000000000022", "롤백 전략")
	wantFirst(t, common, "c0000022-0000-4000-8000-000000000022", "latencia sao paulo")
}

// A file that is not text is skipped whole, and `recall stats` names it.
func TestConformanceNotText(t *testing.T) {
	common := conformanceIndex(t)
	st := conformanceStats(t, common)
	if len(st.BinaryFiles) != 1 || !strings.HasSuffix(st.BinaryFiles[0], "c0000023-0000-4000-8000-000000000023.jsonl") {
		t.Errorf("binary transcripts %v, want the junk file alone", st.BinaryFiles)
	}
	if st.Excluded["fork"] != 0 {
		t.Errorf("%d transcripts excluded as forks: none is, by where it opens", st.Excluded["fork"])
	}
}

// conformanceStats is `recall stats --json` of the suite's index.
func conformanceStats(t *testing.T, common []string) (st struct {
	Excluded    map[string]int64 `json:"excluded"`
	BinaryFiles []string         `json:"binary_transcripts"`
}) {
	t.Helper()
	args := append([]string{"stats", "--json", "--no-verify"}, common...) // --no-update as the other commands take it
	r := runCLI(t, args...)
	if err := json.Unmarshal([]byte(r.stdout), &st); err != nil {
		t.Fatalf("stats: %v: code %d, stderr %q", err, r.code, r.stderr)
	}
	return st
}
