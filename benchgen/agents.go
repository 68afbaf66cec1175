package benchgen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// The other coding agents recall reads (Codex CLI, Gemini CLI, OpenCode,
// Aider) get sessions of their own in a mixed corpus: the same prose and
// tool model as the Claude Code transcripts, written in each agent's
// format (see /work/shared/docs/agent-formats.md and the fixtures under
// testdata/transcripts/<agent>/), in folders beside projects/:
//
//	codex/sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl   live rollouts
//	codex/archived_sessions/rollout-….jsonl[.zst]            archived ones, some compressed
//	codex/history.jsonl, codex/session_index.jsonl
//	gemini/tmp/<slug>/chats/session-<time>-<id8>.jsonl       chats
//	gemini/tmp/<slug>/chats/<parent>/<id>.jsonl              subagents' chats
//	gemini/tmp/<slug>/.project_root, gemini/projects.json
//	opencode/opencode.db                                     OpenCode's SQLite database
//	aider/<project>/.aider.chat.history.md                   one history per project
//
// Each folder is what `recall index --source AGENT:DIR` takes.
//
// What each agent writes beside the conversation (instructions, reasoning,
// tool outputs and their displays, an event log, Aider's own output) is
// sized after real sessions, record kind by record kind, so that the
// indexed text is about the share of the bytes it is in real ones: the
// figures are in docs/benchmarks-mixed.md.

// MixedShare is what the other agents add to a mixed corpus: this share
// of the Claude Code corpus's size, split across them.
const MixedShare = 0.25

// AgentFolder is one agent's folder in a mixed corpus.
type AgentFolder struct {
	// Agent is recall's name for it, as --source AGENT:DIR and --agent
	// take it.
	Agent string
	// Dir is the folder under the corpus directory.
	Dir   string
	share float64 // of the agents' bytes
}

// AgentFolders lists the other agents' folders in the order recall
// lists agents.
func AgentFolders() []AgentFolder {
	return []AgentFolder{
		{Agent: agentCodex, Dir: "codex", share: 0.40},
		{Agent: agentGemini, Dir: "gemini", share: 0.25},
		{Agent: agentOpenCode, Dir: "opencode", share: 0.20},
		{Agent: agentAider, Dir: "aider", share: 0.15},
	}
}

const (
	agentCodex    = "codex"
	agentGemini   = "gemini"
	agentOpenCode = "opencode"
	agentAider    = "aider"
)

// AgentSummary describes what was written for one agent.
type AgentSummary struct {
	Agent string
	Dir   string // relative to the corpus directory
	Files int
	Bytes int64
	// Sessions counts every conversation, subagents' and forks included.
	Sessions  int
	Subagents int
	Forks     int
	// Projects counts the projects with sessions of this agent.
	Projects int
	// Archived and Compressed count Codex rollouts in archived_sessions/
	// and those of them stored as .jsonl.zst.
	Archived, Compressed int
}

func (s AgentSummary) String() string {
	out := fmt.Sprintf("%s: %d files, %d sessions", s.Agent, s.Files, s.Sessions)
	if s.Subagents > 0 || s.Forks > 0 {
		out += fmt.Sprintf(" (%d subagents, %d forks)", s.Subagents, s.Forks)
	}
	if s.Archived > 0 {
		out += fmt.Sprintf(", %d archived (%d .zst)", s.Archived, s.Compressed)
	}
	return out + ", " + FormatSize(s.Bytes)
}

// AgentOptions configure GenerateAgents.
type AgentOptions struct {
	// Dir receives Dir/codex, Dir/gemini, Dir/opencode and Dir/aider.
	Dir string
	// ProjectsSize is the size of the Claude Code corpus the sessions go
	// with: its projects (and its timeline) are theirs.
	ProjectsSize int64
	// Bytes is the approximate total the agents' files add.
	Bytes int64
	// BaseBytes, when set (below Bytes), makes the sessions drawn past
	// the first BaseBytes' worth go only to the projects those use: the
	// corpus is the one of BaseBytes with more sessions in the same
	// projects, not with more projects (Aider's histories and Gemini's
	// project folders, one per project, stay as many).
	BaseBytes int64
	Seed      uint64
	Workers   int
	// Text is the prose and code to sample; nil loads the Go source tree.
	Text *TextSource
	// Overwrite removes existing agent folders first; without it a
	// non-empty one is an error.
	Overwrite bool
	Log       io.Writer
}

// GenerateAgents writes the other agents' sessions, deterministic by
// seed: the same options give the same files whatever Workers is. A
// corpus with more Bytes holds the sessions of one with fewer and more
// beside them (each agent draws its sessions in order until its budget
// is spent), in the same projects.
func GenerateAgents(opts AgentOptions) ([]AgentSummary, error) {
	if opts.Bytes <= 0 || opts.ProjectsSize <= 0 {
		return nil, fmt.Errorf("agent sessions: sizes must be positive, got %d bytes for a %d-byte corpus", opts.Bytes, opts.ProjectsSize)
	}
	text := opts.Text
	if text == nil {
		text = DefaultTextSource(opts.Log)
	}
	p := makePlan(opts.Seed, opts.ProjectsSize)
	c := &agentContext{text: text, projects: p.projects, end: p.end, seed: opts.Seed, workers: opts.Workers}
	if c.workers <= 0 {
		c.workers = runtime.GOMAXPROCS(0)
	}
	var out []AgentSummary
	for _, f := range AgentFolders() {
		dir := filepath.Join(opts.Dir, f.Dir)
		if err := prepareOutput(dir, opts.Overwrite); err != nil {
			return nil, err
		}
		budget := int64(float64(opts.Bytes) * f.share)
		c.baseBudget = int64(float64(opts.BaseBytes) * f.share)
		var (
			s   AgentSummary
			err error
		)
		switch f.Agent {
		case agentCodex:
			s, err = writeCodex(c, dir, budget)
		case agentGemini:
			s, err = writeGemini(c, dir, budget)
		case agentOpenCode:
			s, err = writeOpenCode(c, dir, budget)
		case agentAider:
			s, err = writeAider(c, dir, budget)
		}
		if err != nil {
			return nil, fmt.Errorf("%s sessions: %w", f.Agent, err)
		}
		s.Agent, s.Dir = f.Agent, f.Dir
		out = append(out, s)
	}
	return out, nil
}

// agentContext is what every agent's writers share, read-only.
type agentContext struct {
	text     *TextSource
	projects []project
	end      time.Time
	seed     uint64
	workers  int
	// baseBudget is the agent being written's share of
	// AgentOptions.BaseBytes.
	baseBudget int64
}

// Salts keep each agent's random streams apart from Claude Code's
// (PCG(seed, session+1)) and from each other's.
const (
	saltCodex    = 0x636f646578 // "codex"
	saltGemini   = 0x67656d696e // "gemin"
	saltOpenCode = 0x6f70656e63 // "openc"
	saltAider    = 0x6169646572 // "aider"
)

// agentSession is what is decided up front about one session of another
// agent.
type agentSession struct {
	index   int
	project int
	start   time.Time
	budget  int64
	r       uint64 // the stream of its own random numbers
}

func (s *agentSession) rand(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed^s.r, uint64(s.index)+1))
}

// agentShape is how an agent's sessions are drawn: their median size,
// how many bytes a session writes for each byte of its budget (what its
// last turn overshoots, its forks and subagents, and for OpenCode the
// database's pages and indexes; measured on 16 to 200 MB corpora), the
// least a session writes whatever its budget (its opening and a first
// turn: planning counts a smaller budget as that, or a small corpus,
// whose sessions all have small budgets, comes out far too big), and
// how many of the first sessions are made old (a small corpus still
// needs some of what only old sessions have, e.g. compressed rollouts).
type agentShape struct {
	salt     uint64
	median   float64
	written  float64
	least    int64
	oldFirst int
}

// planAgentSessions draws sessions until what they write adds up to
// total. An agent is used in some projects more than others, and its
// busiest are not Claude Code's: the projects are weighted in an order
// of its own.
func planAgentSessions(c *agentContext, shape agentShape, total int64) []agentSession {
	r := rand.New(rand.NewPCG(c.seed, shape.salt))
	order := r.Perm(len(c.projects))
	weights := zipfCumulative(len(c.projects), 0.9)
	bound := total
	if c.baseBudget > 0 {
		bound = c.baseBudget // so that the base corpus's sessions come out the same
	}
	maxBudget := min(int64(maxSessionBytes/2), max(bound/6, minSessionBytes))
	var out []agentSession
	var base []int // the projects of the base corpus's sessions, when it is bounded
	inBase := make([]bool, len(c.projects))
	for planned := int64(0); planned < total; {
		s := agentSession{index: len(out), project: order[pickWeighted(r, weights)], r: shape.salt}
		if c.baseBudget > 0 && planned >= c.baseBudget && len(base) > 0 && !inBase[s.project] {
			s.project = base[r.IntN(len(base))]
		}
		if (c.baseBudget == 0 || planned < c.baseBudget) && !inBase[s.project] {
			inBase[s.project] = true
			base = append(base, s.project)
		}
		// The other agents are newer than Claude Code in most workflows:
		// their sessions lean towards the end of the timeline.
		frac := 1 - (1-r.Float64())*(1-r.Float64())
		if s.index < shape.oldFirst {
			frac /= 3
		}
		s.start = c.end.Add(-time.Duration((1 - frac) * timelineDays * 24 * float64(time.Hour)))
		s.start = s.start.Truncate(time.Millisecond)
		s.budget = logNormalBytes(r, shape.median, sessionSizeSigma, maxBudget)
		planned += int64(float64(max(s.budget, shape.least)) * shape.written)
		out = append(out, s)
	}
	return out
}

// distinctProjects counts the projects of sessions.
func distinctProjects(specs []agentSession) int {
	seen := map[int]bool{}
	for _, s := range specs {
		seen[s.project] = true
	}
	return len(seen)
}

// forEachIndex calls fn for 0..n-1 on a pool of workers and returns the
// first error; results must go into slices by index, so that they do not
// depend on scheduling.
func forEachIndex(n, workers int, fn func(i int) error) error {
	var next atomic.Int64
	var failed atomic.Bool
	var mu sync.Mutex
	var firstErr error
	var wg sync.WaitGroup
	for range max(1, workers) {
		wg.Go(func() {
			for !failed.Load() {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				if err := fn(i); err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
					failed.Store(true)
					return
				}
			}
		})
	}
	wg.Wait()
	return firstErr
}

// agentBase is what every agent's session writer has: its random stream,
// topic and project, a clock, the tool-call generators the Claude Code
// sessions use, and the file being built in memory.
type agentBase struct {
	r     *rand.Rand
	topic topic
	proj  *project
	clock time.Time
	// tools borrows the Claude Code generator's tool calls (reads,
	// commands, greps, edits …): every agent's tools do the same work.
	tools *sessionGen
	out   bytes.Buffer
	j     jsonWriter
	lines int
	// budget is the session's, 0 for none: a turn stops calling tools
	// once the session has written twice it, so that a session drawn
	// small is not made large by one long turn (a small corpus, whose
	// sessions all are, would come out far bigger than asked).
	budget int64
}

func newAgentBase(text *TextSource, r *rand.Rand, proj *project, start time.Time) *agentBase {
	t := newTopic(text, r)
	branch := branchFor(r, t)
	a := &agentBase{r: r, topic: t, proj: proj, clock: start}
	a.tools = &sessionGen{
		lineWriter: &lineWriter{r: r, env: envelope{cwd: proj.cwd, gitBranch: branch}},
		proj:       proj,
		topic:      t,
	}
	return a
}

func (a *agentBase) branch() string { return a.tools.env.gitBranch }

// tick moves the clock forward by a random amount in [lo, hi].
func (a *agentBase) tick(lo, hi time.Duration) {
	a.clock = a.clock.Add(lo + time.Duration(a.r.Int64N(int64(hi-lo)+1)))
}

// emit appends the JSON value in j as one line.
func (a *agentBase) emit() {
	a.out.Write(a.j.b)
	a.out.WriteByte('\n')
	a.lines++
}

// keepGoing is runTurns' rule: another turn while half a typical turn
// still fits the budget, and always a first one.
func keepGoing(turns int, written, start, budget int64) bool {
	return turns == 0 || written+(written-start)/int64(2*turns) < budget
}

// spent reports whether a session that has written written bytes is
// past twice its budget.
func (a *agentBase) spent(written int64) bool {
	return a.budget > 0 && written > 2*a.budget
}

// toolRounds is how many tool-calling steps precede an answer.
func (a *agentBase) toolRounds() int {
	if a.r.IntN(100) < 35 {
		return 0
	}
	n := 1
	for n < 30 && a.r.IntN(100) < 50 {
		n++
	}
	return n
}

// agentToolRounds is how many tool-calling steps precede an answer in a
// Codex or Gemini CLI session. They work longer between prompts than
// toolRounds draws for Claude Code: real Codex rollouts have about six
// tool calls a prompt (20 tool rows to 3.3 prompts a file), real Gemini
// chats three to four and 70 KB of file a prompt.
func (a *agentBase) agentToolRounds() int {
	if a.r.IntN(100) < 15 {
		return 0
	}
	n := 1
	for n < 40 && a.r.IntN(100) < 80 {
		n++
	}
	return n
}

// action is one tool call in agent-neutral terms, taken from the Claude
// Code generator's tool calls.
type action struct {
	kind                 string // read, shell, grep, glob, edit, write, todo
	path                 string // absolute (read, edit, write)
	from, n              int    // read: first line (1-based) and count; n 0 = whole file
	command, description string // shell
	pattern, searchPath  string // grep, glob
	oldText, newText     string // edit
	content              string // write
	todos                []string
	output               string // what the tool printed
	exitCode             int
}

// claudeInput is the union of the Claude Code tool inputs the generator
// writes.
type claudeInput struct {
	FilePath    string `json:"file_path"`
	Offset      int    `json:"offset"`
	Limit       int    `json:"limit"`
	Command     string `json:"command"`
	Description string `json:"description"`
	Pattern     string `json:"pattern"`
	Path        string `json:"path"`
	OldString   string `json:"old_string"`
	NewString   string `json:"new_string"`
	Content     string `json:"content"`
	Todos       []struct {
		Content string `json:"content"`
	} `json:"todos"`
}

// nextAction draws one tool call.
func (a *agentBase) nextAction() action {
	call := a.tools.ordinaryToolCall()
	var w jsonWriter
	w.openObject()
	call.input(&w)
	w.closeObject()
	var in claudeInput
	_ = json.Unmarshal(w.b, &in) // the generator's own JSON: it decodes
	act := action{path: in.FilePath, output: call.result}
	switch call.name {
	case "Read":
		act.kind = "read"
		act.from, act.n = in.Offset, in.Limit
		act.output = plainLines(strings.TrimSuffix(call.result, malwareReminder))
	case "Bash":
		act.kind = "shell"
		act.command, act.description = in.Command, in.Description
		if rest, ok := strings.CutPrefix(call.result, "Exit code "); ok && call.isError {
			code, out, _ := strings.Cut(rest, "\n")
			act.exitCode, _ = strconv.Atoi(code)
			act.output = out
		}
	case "Grep":
		act.kind = "grep"
		act.pattern, act.searchPath = in.Pattern, in.Path
	case "Glob":
		act.kind = "glob"
		act.pattern = in.Pattern
	case "Edit":
		act.kind = "edit"
		act.oldText, act.newText = in.OldString, in.NewString
	case "Write":
		act.kind = "write"
		act.content = in.Content
	default:
		act.kind = "todo"
		for _, t := range in.Todos {
			act.todos = append(act.todos, t.Content)
		}
	}
	return act
}

// instructionText is at least minBytes of instruction-like prose: the
// system prompts, AGENTS.md files and modes harnesses inject, which a
// reader must skip.
func (a *agentBase) instructionText(minBytes int) string {
	var b strings.Builder
	for b.Len() < minBytes {
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString("- ")
		b.WriteString(a.topic.sentences(a.r, 2+a.r.IntN(4)))
	}
	return b.String()
}

// windowRead makes act a read of minLines to maxLines lines of a file of
// the topic, from its top half the time. Agents that read through a
// shell (sed -n '1,200p') take a screenful or more at a time, where
// Claude Code's Read takes a few dozen lines around what it looks for.
func (a *agentBase) windowRead(act *action, minLines, maxLines int) {
	f := a.topic.file(a.r)
	total := f.numLines()
	n := min(total, minLines+a.r.IntN(maxLines-minLines+1))
	from := 0
	if total > n && a.r.IntN(2) == 0 {
		from = a.r.IntN(total - n)
	}
	act.path = a.proj.cwd + "/" + f.path
	act.from, act.n = from+1, n
	act.output = f.lineRange(from, from+n) + "\n"
}

// blockEdit makes act an edit of a block of minLines to maxLines lines
// of a file of the topic, a comment line added in its middle: agents
// that replace text by matching it send a whole block, context and all,
// where Claude Code's Edit sends the few lines it changes.
func (a *agentBase) blockEdit(act *action, minLines, maxLines int) {
	f := a.topic.file(a.r)
	total := f.numLines()
	n := min(total, minLines+a.r.IntN(maxLines-minLines+1))
	from := a.r.IntN(max(1, total-n))
	mid := from + n/2
	act.path = a.proj.cwd + "/" + f.path
	act.oldText = f.lineRange(from, from+n)
	act.newText = f.lineRange(from, mid) + "\n\t// " + a.topic.sentence(a.r) + "\n" + f.lineRange(mid, from+n)
	if mid == from {
		act.newText = "\t// " + a.topic.sentence(a.r) + "\n" + act.oldText
	}
}

// fileText is about size bytes of a source file, whole lines, starting
// where that much is left (or at its top when it is smaller).
func (a *agentBase) fileText(size int) string {
	f := a.topic.file(a.r)
	n := len(f.lineStarts)
	if n == 0 {
		return ""
	}
	last := sort.Search(n, func(i int) bool { return len(f.text)-int(f.lineStarts[i]) < size })
	from := 0
	if last > 0 {
		from = a.r.IntN(last)
	}
	to := from + 1
	for to < n && int(f.lineStarts[to])-int(f.lineStarts[from]) < size {
		to++
	}
	return f.lineRange(from, to)
}

// rel is an absolute path of the project relative to its directory.
func (a *agentBase) rel(path string) string {
	if r, ok := strings.CutPrefix(path, a.proj.cwd+"/"); ok {
		return r
	}
	return path
}

// shellCommand is the command line an agent that only has a shell runs
// for an action.
func (a *agentBase) shellCommand(act *action) string {
	switch act.kind {
	case "read":
		if act.n > 0 {
			return fmt.Sprintf("sed -n '%d,%dp' %s", act.from, act.from+act.n-1, a.rel(act.path))
		}
		return "cat " + a.rel(act.path)
	case "grep":
		return "rg -n " + shellWord(act.pattern)
	case "glob":
		return "rg --files -g " + shellWord(act.pattern)
	}
	return act.command
}

// shellWord quotes s for a shell when it needs it.
func shellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// plainLines undoes the Read tool's line numbering ("    12→text").
func plainLines(numbered string) string {
	var b strings.Builder
	b.Grow(len(numbered))
	for line := range strings.Lines(numbered) {
		if _, text, ok := strings.Cut(line, "→"); ok {
			b.WriteString(text)
		} else {
			b.WriteString(line)
		}
	}
	return b.String()
}

// firstLines is the first n lines of text (all of it when it has fewer).
func firstLines(text string, n int) string {
	end := 0
	for range n {
		i := strings.IndexByte(text[end:], '\n')
		if i < 0 {
			return text
		}
		end += i + 1
	}
	return text[:end]
}

// patchText is an apply_patch body for an edit or a new file.
func (a *agentBase) patchText(act *action) string {
	var b strings.Builder
	b.WriteString("*** Begin Patch\n")
	if act.kind == "write" {
		b.WriteString("*** Add File: " + a.rel(act.path) + "\n")
		for line := range strings.Lines(act.content) {
			b.WriteString("+" + strings.TrimSuffix(line, "\n") + "\n")
		}
	} else {
		b.WriteString("*** Update File: " + a.rel(act.path) + "\n@@\n")
		for line := range strings.Lines(act.oldText) {
			b.WriteString("-" + strings.TrimSuffix(line, "\n") + "\n")
		}
		for line := range strings.Lines(act.newText) {
			b.WriteString("+" + strings.TrimSuffix(line, "\n") + "\n")
		}
	}
	b.WriteString("*** End Patch\n")
	return b.String()
}

// newUUIDv7 is a time-ordered UUID (what Codex and OpenCode mint): the
// first 48 bits are milliseconds since 1970.
func newUUIDv7(r *rand.Rand, at time.Time) string {
	ms := uint64(at.UnixMilli())
	hi := ms<<16 | 0x7000 | r.Uint64()&0x0fff
	lo := r.Uint64()&^(0xc<<60) | 0x8<<60
	return formatUUID(hi, lo)
}

// mixedSummary is how Generate reports the agents' part of a mixed corpus.
func agentsLine(agents []AgentSummary) string {
	parts := make([]string, len(agents))
	for i, a := range agents {
		parts[i] = a.String()
	}
	return strings.Join(parts, "; ")
}
