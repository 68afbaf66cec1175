package benchgen

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// Loading the Go tree takes a few hundred milliseconds; share it.
var testText = sync.OnceValue(func() *TextSource { return DefaultTextSource(os.Stderr) })

const (
	testCorpusSeed = 11
	testCorpusSize = 16 << 20
)

type testCorpus struct {
	dir string
	sum Summary
	err error
}

// sharedCorpus is generated once for all the tests that only read it.
var sharedCorpus = sync.OnceValue(func() testCorpus {
	dir, err := os.MkdirTemp("", "benchgen-test-")
	if err != nil {
		return testCorpus{err: err}
	}
	sum, err := Generate(Options{Dir: dir, Size: testCorpusSize, Seed: testCorpusSeed, Text: testText()})
	return testCorpus{dir: dir, sum: sum, err: err}
})

func TestMain(m *testing.M) {
	code := m.Run()
	if c := sharedCorpus(); c.dir != "" {
		os.RemoveAll(c.dir)
	}
	if sharedAgentsDir != "" {
		os.RemoveAll(sharedAgentsDir)
	}
	os.Exit(code)
}

func corpus(t *testing.T) testCorpus {
	t.Helper()
	c := sharedCorpus()
	if c.err != nil {
		t.Fatalf("generate: %v", c.err)
	}
	return c
}

// record is the subset of fields the tests look at.
type record struct {
	Type        string          `json:"type"`
	UUID        *string         `json:"uuid"`
	ParentUUID  *string         `json:"parentUuid"`
	SessionID   string          `json:"sessionId"`
	Timestamp   string          `json:"timestamp"`
	Cwd         string          `json:"cwd"`
	IsSidechain *bool           `json:"isSidechain"`
	AgentID     string          `json:"agentId"`
	Entrypoint  string          `json:"entrypoint"`
	Operation   string          `json:"operation"`
	Content     string          `json:"content"`
	Message     json.RawMessage `json:"message"`
}

type message struct {
	Content json.RawMessage `json:"content"`
}

// transcriptFile is one parsed .jsonl file.
type transcriptFile struct {
	rel     string // relative to projects/
	raw     []string
	records []record
}

func readTranscripts(t *testing.T, projectsDir string) []transcriptFile {
	t.Helper()
	files, err := loadTranscripts(projectsDir)
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// loadTranscripts parses every .jsonl line under projectsDir with
// encoding/json, failing on the first invalid one.
func loadTranscripts(projectsDir string) ([]transcriptFile, error) {
	var files []transcriptFile
	err := filepath.WalkDir(projectsDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".jsonl") {
			return err
		}
		rel, _ := filepath.Rel(projectsDir, path)
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		tf := transcriptFile{rel: filepath.ToSlash(rel)}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 64<<20)
		for n := 1; sc.Scan(); n++ {
			var rec record
			if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
				return fmt.Errorf("%s:%d: invalid JSON: %v", rel, n, err)
			}
			tf.raw = append(tf.raw, sc.Text())
			tf.records = append(tf.records, rec)
		}
		if err := sc.Err(); err != nil {
			return err
		}
		if len(tf.records) == 0 {
			return fmt.Errorf("%s: empty transcript", rel)
		}
		files = append(files, tf)
		return nil
	})
	return files, err
}

var sharedTranscripts = sync.OnceValues(func() ([]transcriptFile, error) {
	c := sharedCorpus()
	if c.err != nil {
		return nil, c.err
	}
	return loadTranscripts(ProjectsDir(c.dir))
})

// transcripts returns the parsed shared corpus; parsing it is the
// valid-JSON check for every line.
func transcripts(t *testing.T) []transcriptFile {
	t.Helper()
	files, err := sharedTranscripts()
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func treeDigest(t *testing.T, root string) map[string][32]byte {
	t.Helper()
	sums := map[string][32]byte{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		sums[rel] = sha256.Sum256(data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return sums
}

func TestGenerateIsDeterministic(t *testing.T) {
	gen := func(seed uint64, workers int) map[string][32]byte {
		dir := t.TempDir()
		if _, err := Generate(Options{Dir: dir, Size: 3 << 20, Seed: seed, Workers: workers, Text: testText()}); err != nil {
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
	same := 0
	for path, sum := range other {
		if serial[path] == sum {
			same++
		}
	}
	if same > 0 {
		t.Errorf("seeds 5 and 6 produced %d identical files, want none", same)
	}
}

func TestGenerateRefusesNonEmptyOutput(t *testing.T) {
	dir := t.TempDir()
	stale := filepath.Join(ProjectsDir(dir), "stale", "old.jsonl")
	if err := os.MkdirAll(filepath.Dir(stale), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(stale, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	opts := Options{Dir: dir, Size: 1 << 20, Seed: 1, Text: testText()}
	if _, err := Generate(opts); err == nil {
		t.Fatal("Generate over a non-empty projects dir succeeded, want an error")
	}
	opts.Overwrite = true
	if _, err := Generate(opts); err != nil {
		t.Fatalf("Generate with Overwrite: %v", err)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("stale file survived Overwrite: %v", err)
	}
}

func TestGenerateWithFallbackText(t *testing.T) {
	dir := t.TempDir()
	sum, err := Generate(Options{Dir: dir, Size: 1 << 20, Seed: 2, Text: fallbackTextSource()})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Sessions < minProjects {
		t.Errorf("fallback corpus has %d sessions, want at least %d", sum.Sessions, minProjects)
	}
	readTranscripts(t, ProjectsDir(dir)) // fails on invalid JSON
}

func TestCorpusSizeAndAccounting(t *testing.T) {
	c := corpus(t)
	var onDisk int64
	files := 0
	err := filepath.WalkDir(ProjectsDir(c.dir), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		onDisk += info.Size()
		files++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if onDisk != c.sum.Bytes || files != c.sum.Files {
		t.Errorf("summary says %d files, %d bytes; disk has %d files, %d bytes", c.sum.Files, c.sum.Bytes, files, onDisk)
	}
	if ratio := float64(onDisk) / testCorpusSize; ratio < 0.85 || ratio > 1.15 {
		t.Errorf("asked for %d bytes, got %d (%.2fx), want within 15%%", testCorpusSize, onDisk, ratio)
	}
}

func TestCorpusByteMix(t *testing.T) {
	sum := corpus(t).sum
	human := float64(sum.HumanTextBytes) / float64(sum.Bytes)
	if human < 0.08 || human > 0.16 {
		t.Errorf("human text is %.1f%% of bytes, want about 12%%", 100*human)
	}
	names := LineKindNames()
	largest := slices.Max(sum.BytesByKind[:])
	if sum.BytesByKind[kindToolResult] != largest {
		t.Errorf("tool results (%d bytes) are not the largest kind: %v %v", sum.BytesByKind[kindToolResult], names, sum.BytesByKind)
	}
}

func TestCorpusRecordsAreWellFormed(t *testing.T) {
	end := timelineEnd(testCorpusSeed)
	for _, f := range transcripts(t) {
		for i, rec := range f.records {
			where := fmt.Sprintf("%s:%d", f.rel, i+1)
			if rec.Type == "" {
				t.Fatalf("%s: no type", where)
			}
			if rec.UUID == nil {
				continue // side records have no envelope
			}
			if rec.SessionID == "" || rec.Cwd == "" || rec.IsSidechain == nil {
				t.Fatalf("%s: threaded record without sessionId, cwd or isSidechain", where)
			}
			ts, err := time.Parse(timestampLayout, rec.Timestamp)
			if err != nil {
				t.Fatalf("%s: timestamp %q: %v", where, rec.Timestamp, err)
			}
			if ts.Before(end.AddDate(0, 0, -timelineDays-1)) || ts.After(end.AddDate(0, 0, 30)) {
				t.Fatalf("%s: timestamp %s outside the corpus timeline ending %s", where, ts, end)
			}
			var msg message
			if len(rec.Message) > 0 {
				if err := json.Unmarshal(rec.Message, &msg); err != nil {
					t.Fatalf("%s: message: %v", where, err)
				}
			}
			if rec.Type == "assistant" {
				var blocks []json.RawMessage
				if err := json.Unmarshal(msg.Content, &blocks); err != nil || len(blocks) != 1 {
					t.Fatalf("%s: assistant line with %d content blocks (%v), want exactly 1", where, len(blocks), err)
				}
			}
		}
	}
}

func TestCorpusProjects(t *testing.T) {
	c := corpus(t)
	entries, err := os.ReadDir(ProjectsDir(c.dir))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) < 20 || c.sum.Projects != len(entries) {
		t.Errorf("%d project folders (summary says %d), want 20 or more", len(entries), c.sum.Projects)
	}
	memory := 0
	for _, e := range entries {
		if _, err := os.Stat(filepath.Join(ProjectsDir(c.dir), e.Name(), "memory", "MEMORY.md")); err == nil {
			memory++
		}
	}
	if memory == 0 {
		t.Error("no project has a memory/ folder")
	}
	for _, f := range transcripts(t) {
		folder, _, _ := strings.Cut(f.rel, "/")
		for _, rec := range f.records {
			if rec.Cwd != "" && projectSlug(rec.Cwd) != folder {
				t.Fatalf("%s: cwd %q belongs in folder %q", f.rel, rec.Cwd, projectSlug(rec.Cwd))
			}
		}
	}
}

func TestCorpusSessionsVaryInLengthAndTime(t *testing.T) {
	var lengths []int
	var starts []time.Time
	for _, f := range transcripts(t) {
		if strings.Count(f.rel, "/") != 1 || strings.Contains(f.rel, "/agent-") {
			continue // main session files only
		}
		n := 0
		for _, rec := range f.records {
			if rec.Type == "user" || rec.Type == "assistant" {
				n++
			}
		}
		lengths = append(lengths, n)
		starts = append(starts, firstTimestamp(t, f))
	}
	if slices.Min(lengths) > 10 || slices.Max(lengths) < 100 {
		t.Errorf("session lengths from %d to %d messages, want some under 10 and some over 100", slices.Min(lengths), slices.Max(lengths))
	}
	slices.SortFunc(starts, func(a, b time.Time) int { return a.Compare(b) })
	if span := starts[len(starts)-1].Sub(starts[0]); span < 120*24*time.Hour {
		t.Errorf("sessions span %v, want several months", span)
	}
}

func firstTimestamp(t *testing.T, f transcriptFile) time.Time {
	t.Helper()
	for _, rec := range f.records {
		if rec.Timestamp != "" {
			ts, err := time.Parse(timestampLayout, rec.Timestamp)
			if err != nil {
				t.Fatalf("%s: timestamp %q: %v", f.rel, rec.Timestamp, err)
			}
			return ts
		}
	}
	t.Fatalf("%s: no timestamp", f.rel)
	return time.Time{}
}

var subagentName = regexp.MustCompile(`^([^/]+)/([0-9a-f-]{36})/subagents/agent-(a[0-9a-f]{16})\.jsonl$`)
var oldAgentName = regexp.MustCompile(`^([^/]+)/agent-([0-9a-f]{8})\.jsonl$`)

func TestCorpusSubagents(t *testing.T) {
	c := corpus(t)
	files := transcripts(t)
	exists := map[string]bool{}
	for _, f := range files {
		exists[f.rel] = true
	}
	current, old := 0, 0
	for _, f := range files {
		var sessionID, agentID string
		if m := subagentName.FindStringSubmatch(f.rel); m != nil {
			current++
			sessionID, agentID = m[2], m[3]
			if !exists[m[1]+"/"+m[2]+".jsonl"] {
				t.Errorf("%s: no parent transcript", f.rel)
			}
			meta := filepath.Join(ProjectsDir(c.dir), strings.TrimSuffix(f.rel, ".jsonl")+".meta.json")
			data, err := os.ReadFile(meta)
			var fields map[string]any
			if err != nil || json.Unmarshal(data, &fields) != nil || fields["agentType"] == nil {
				t.Errorf("%s: missing or invalid meta.json (%v)", f.rel, err)
			}
		} else if m := oldAgentName.FindStringSubmatch(f.rel); m != nil {
			old++
			agentID = m[2]
			sessionID = f.records[0].SessionID
			if !exists[m[1]+"/"+sessionID+".jsonl"] {
				t.Errorf("%s: sessionId %s has no transcript in the project", f.rel, sessionID)
			}
		} else {
			continue
		}
		for i, rec := range f.records {
			if rec.IsSidechain == nil || !*rec.IsSidechain || rec.SessionID != sessionID || rec.AgentID != agentID {
				t.Fatalf("%s:%d: want isSidechain, sessionId %s, agentId %s; got %v %s %s", f.rel, i+1, sessionID, agentID, rec.IsSidechain, rec.SessionID, rec.AgentID)
			}
		}
	}
	if current == 0 || old == 0 || current+old != c.sum.Subagents {
		t.Errorf("%d current-layout and %d old-layout subagent files, summary says %d; want both layouts", current, old, c.sum.Subagents)
	}
}

func TestCorpusToolResultFiles(t *testing.T) {
	matches, err := filepath.Glob(filepath.Join(ProjectsDir(corpus(t).dir), "*", "*", "tool-results", "*.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if len(matches) == 0 {
		t.Fatal("no <session>/tool-results/*.txt files")
	}
	for _, f := range transcripts(t) {
		for _, line := range f.raw {
			if strings.Contains(line, "<persisted-output>") {
				return
			}
		}
	}
	t.Error("no <persisted-output> stub points at the tool-results files")
}

func TestCorpusForksCopyParentLines(t *testing.T) {
	type origin struct{ sessionID, timestamp string }
	firstSeen := map[string]origin{}
	files := transcripts(t)
	for _, f := range files {
		for _, rec := range f.records {
			if rec.UUID != nil && rec.AgentID == "" {
				if _, ok := firstSeen[*rec.UUID]; !ok {
					firstSeen[*rec.UUID] = origin{rec.SessionID, rec.Timestamp}
				}
			}
		}
	}
	forks := 0
	for _, f := range files {
		copied := 0
		for _, rec := range f.records {
			if rec.UUID == nil || rec.AgentID != "" {
				continue
			}
			o := firstSeen[*rec.UUID]
			if o.sessionID != rec.SessionID {
				if o.timestamp != rec.Timestamp {
					t.Fatalf("%s: uuid %s copied with timestamp %s, original %s", f.rel, *rec.UUID, rec.Timestamp, o.timestamp)
				}
				copied++
			}
		}
		if copied > 0 {
			forks++
			for _, rec := range f.records {
				if rec.SessionID != "" && !strings.HasSuffix(f.rel, "/"+rec.SessionID+".jsonl") {
					t.Fatalf("%s: fork line with sessionId %s; a fork's lines carry its own id", f.rel, rec.SessionID)
				}
			}
		}
	}
	if forks == 0 || forks != corpus(t).sum.Forks {
		t.Errorf("%d files copy another session's lines, summary says %d forks; want the same, above 0", forks, corpus(t).sum.Forks)
	}
}

func TestCorpusHeadlessRuns(t *testing.T) {
	headless := 0
	for _, f := range transcripts(t) {
		r := f.records
		if r[0].Type != "queue-operation" || r[0].Operation != "enqueue" {
			continue
		}
		headless++
		if len(r) < 3 || r[1].Operation != "dequeue" || r[2].Type != "user" || r[2].Entrypoint != "sdk-cli" {
			t.Fatalf("%s: starts with enqueue but not enqueue, dequeue, sdk-cli user", f.rel)
		}
		var msg message
		var prompt string
		if json.Unmarshal(r[2].Message, &msg) != nil || json.Unmarshal(msg.Content, &prompt) != nil || prompt != r[0].Content {
			t.Errorf("%s: the user record does not repeat the enqueued prompt", f.rel)
		}
	}
	if headless == 0 || headless != corpus(t).sum.Headless {
		t.Errorf("%d files start with an enqueue, summary says %d headless runs", headless, corpus(t).sum.Headless)
	}
}

func TestCorpusHasEveryLineTypeAndNoiseKind(t *testing.T) {
	types := map[string]bool{}
	var all bytes.Buffer
	for _, f := range transcripts(t) {
		for i, rec := range f.records {
			types[rec.Type] = true
			all.WriteString(f.raw[i])
			all.WriteByte('\n')
		}
	}
	for _, typ := range []string{"user", "assistant", "system", "attachment", "progress", "file-history-snapshot",
		"last-prompt", "permission-mode", "queue-operation", "custom-title", "summary", "mode"} {
		if !types[typ] {
			t.Errorf("no %q records", typ)
		}
	}
	text := all.String()
	markers := []struct{ what, marker string }{
		{"system reminder", "<system-reminder>"},
		{"command echo", `<command-name>/`},
		{"command message", "<command-message>"},
		{"command args", "<command-args>"},
		{"local command stdout", "<local-command-stdout>"},
		{"caveat", "<local-command-caveat>"},
		{"meta flag", `"isMeta":true`},
		{"bang input", "<bash-input>"},
		{"bang output", "<bash-stdout>"},
		{"task notification", "<task-notification>"},
		{"interruption", "[Request interrupted by user]"},
		{"tool-use interruption", "[Request interrupted by user for tool use]"},
		{"compaction summary", `"isCompactSummary":true`},
		{"compact boundary", `"subtype":"compact_boundary"`},
		{"synthetic no-response", "No response requested."},
		{"synthetic model", `"model":"<synthetic>"`},
		{"API error", `"isApiErrorMessage":true`},
		{"usage limit", "usage limit reached|"},
		{"session limit", "You've hit your session limit"},
		{"IDE file tag", "<ide_opened_file>"},
		{"IDE selection", "<ide_selection>"},
		{"short acknowledgement", `"content":"thanks"`},
		{"turn duration", `"subtype":"turn_duration"`},
		{"local command record", `"subtype":"local_command"`},
		{"thinking", `"type":"thinking"`},
		{"tool result copy", `"toolUseResult":{`},
		{"Bash", `"name":"Bash","input":{"command":`},
		{"Read", `"name":"Read","input":{"file_path":`},
		{"Edit", `"name":"Edit","input":{"file_path":`},
		{"Write", `"name":"Write","input":{"file_path":`},
		{"Grep", `"name":"Grep","input":{"pattern":`},
		{"Agent", `"name":"Agent"`},
		{"Task", `"name":"Task"`},
		{"recall call", `"command":"recall `},
		{"memory search call", `"command":"memory search `},
		{"recall output", `[1/`},
		{"recall announcement", "I'll search my memory for"},
		{"headless entrypoint", `"entrypoint":"sdk-cli"`},
		{"fork marker", `"forkedFrom":{`},
	}
	for _, m := range markers {
		if !strings.Contains(text, m.marker) {
			t.Errorf("no %s (%s) anywhere in the corpus", m.what, m.marker)
		}
	}
	if !regexp.MustCompile(`\[1/\d+\] [0-9a-f]{7} • [A-Z][a-z]{2} \d+ `).MatchString(text) {
		t.Error("no recall-style result header like [1/5] abc1234 • Dec 28 …")
	}
}
