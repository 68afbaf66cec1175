package benchgen

import (
	"bytes"
	"cmp"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/klauspost/compress/zstd"
)

// Codex CLI rollouts (codex-rs/rollout, codex-rs/protocol): one JSON line
// per record, {timestamp, type, payload}. A session writes session_meta,
// the harness's developer and user context messages, then per turn:
// turn_context, task_started, the prompt as a response item and again as
// a user_message event, reasoning, tool calls and their outputs, the
// reply as a response item and again as an agent_message event,
// token_count and task_complete.

const (
	codexMedianBytes = 160 << 10 // real rollouts average 240 KB
	// The instructions a rollout carries outside its messages, sized as
	// in real rollouts (0.58–0.135): base instructions in nineteen
	// session_meta lines of twenty (13.8 KB on average), developer
	// messages of 13.6 KB on average, and an AGENTS.md of 2–4 KB or
	// 10–24 KB repeated in turn_context (a line per model request in
	// some versions). With the tool outputs they make a real rollout's
	// indexed text about 8% of its bytes.
	codexInstructedShare       = 0.95
	codexBaseInstructions      = 13 << 10
	codexDeveloperInstructions = 12 << 10
	codexArchiveShare          = 0.3 // of sessions older than codexArchiveAge
	codexArchiveAge            = 10 * 24 * time.Hour
	codexCompressShare         = 0.6 // of archived rollouts
	codexForkShare             = 0.03
	codexSubagentShare         = 0.05
	codexResumeShare           = 0.06
	codexExecShare             = 0.08
	codexVSCodeShare           = 0.15
)

var codexVersions = []struct {
	name     string
	shellCmd bool // shell_command with a string command and a plain-text output
	// requestContext writes a turn_context and a token_count before
	// every model request of a turn, not once a turn: real 0.60–0.105
	// rollouts hold 5 to 8 turn_context lines a prompt, each with the
	// AGENTS.md (the newest write one a turn again).
	requestContext bool
	// collaborationMode adds the collaboration mode and its
	// instructions to every turn_context (0.98 on).
	collaborationMode bool
}{
	{"0.36.0", false, false, false}, {"0.46.0", false, false, false}, {"0.58.0", true, false, false},
	{"0.63.0", true, true, false}, {"0.77.0", true, true, false}, {"0.98.0", true, true, true}, {"0.118.0", true, false, true},
}

var codexModels = []string{"gpt-5-codex", "gpt-5.1-codex", "gpt-5.1-codex-max", "gpt-5"}

// codexSessionResult is what one planned session wrote.
type codexSessionResult struct {
	files                      int
	bytes                      int64
	sessions, subagents, forks int
	archived, compressed       int
	history                    []codexHistory
	index                      []byte // its session_index.jsonl line, if any
}

type codexHistory struct {
	id   string
	at   time.Time
	text string
}

func writeCodex(c *agentContext, dir string, budget int64) (AgentSummary, error) {
	specs := planAgentSessions(c, agentShape{salt: saltCodex, median: codexMedianBytes, written: 1.1, least: 64 << 10, oldFirst: 2}, budget)
	results := make([]codexSessionResult, len(specs))
	err := forEachIndex(len(specs), c.workers, func(i int) error {
		res, err := writeCodexSession(c, dir, &specs[i])
		results[i] = res
		return err
	})
	if err != nil {
		return AgentSummary{}, err
	}
	s := AgentSummary{Projects: distinctProjects(specs)}
	var history []codexHistory
	var index [][]byte
	for i := range results {
		r := &results[i]
		s.Files += r.files
		s.Bytes += r.bytes
		s.Sessions += r.sessions
		s.Subagents += r.subagents
		s.Forks += r.forks
		s.Archived += r.archived
		s.Compressed += r.compressed
		history = append(history, r.history...)
		if r.index != nil {
			index = append(index, r.index)
		}
	}
	// history.jsonl: a line per prompt, in the order they were typed.
	slices.SortStableFunc(history, func(a, b codexHistory) int {
		return cmp.Or(a.at.Compare(b.at), strings.Compare(a.id, b.id))
	})
	var j jsonWriter
	var buf bytes.Buffer
	for _, h := range history {
		j.reset()
		j.openObject()
		j.str("session_id", h.id)
		j.int("ts", h.at.Unix())
		j.str("text", h.text)
		j.closeObject()
		buf.Write(j.b)
		buf.WriteByte('\n')
	}
	for _, f := range []struct {
		name string
		data []byte
	}{{"history.jsonl", buf.Bytes()}, {"session_index.jsonl", bytes.Join(index, nil)}} {
		n, err := writeSmallFile(filepath.Join(dir, f.name), f.data)
		if err != nil {
			return s, err
		}
		s.Files++
		s.Bytes += n
	}
	return s, nil
}

// codexWriter writes one rollout.
type codexWriter struct {
	*agentBase
	id, cwd    string
	model      string
	version    int // index into codexVersions
	originator string
	source     func(w *jsonWriter)
	// lineEnds are the end offsets of the lines in out, kept for a fork.
	lineEnds []int
	// usage accumulates token counts for token_count events.
	inTok, cachedTok, outTok, reasonTok int64
	history                             []codexHistory
	lastPrompt                          string
	extended                            bool // writes exec_command_end and patch_apply_end events
	spawn                               *codexSpawn
	// agentsMD is the project's AGENTS.md as the harness injects it, ""
	// without one; newer Codex repeats it in every turn_context.
	agentsMD string
	// collaboration is the collaboration mode's instructions, which the
	// newest versions repeat in every turn_context.
	collaboration string
}

// codexSpawn is a subagent thread a session starts during a turn.
type codexSpawn struct {
	id, task, role, nickname string
	at                       time.Time
	parentPrompt             string
}

func codexRolloutName(at time.Time, id string) string {
	return "rollout-" + at.UTC().Format("2006-01-02T15-04-05") + "-" + id + ".jsonl"
}

func codexLivePath(dir string, at time.Time, id string) string {
	at = at.UTC()
	return filepath.Join(dir, "sessions", at.Format("2006"), at.Format("01"), at.Format("02"), codexRolloutName(at, id))
}

func writeCodexSession(c *agentContext, dir string, spec *agentSession) (codexSessionResult, error) {
	var res codexSessionResult
	r := spec.rand(c.seed)
	proj := &c.projects[spec.project]
	cw := newCodexWriter(c.text, r, proj, spec.start)
	if spec.index == 1 {
		cw.extended = true // so that a small corpus has the events too
	}
	cw.budget = spec.budget
	kind := r.Float64()
	// A small corpus still gets a fork and a subagent: the third and
	// fourth sessions have them.
	forceFork, forceSubagent := spec.index == 2, spec.index == 3
	if forceFork || forceSubagent {
		kind = 1
	}
	switch {
	case kind < codexExecShare:
		cw.originator = "codex_exec"
		cw.source = func(w *jsonWriter) { w.str("source", "exec") }
	case kind < codexExecShare+codexVSCodeShare:
		cw.originator = "codex_vscode"
		cw.source = func(w *jsonWriter) { w.str("source", "vscode") }
	}
	interactive := kind >= codexExecShare
	resume := interactive && r.Float64() < codexResumeShare
	fork := interactive && (r.Float64() < codexForkShare || forceFork)
	subagent := interactive && (r.Float64() < codexSubagentShare || forceSubagent)
	old := spec.start.Before(c.end.Add(-codexArchiveAge))
	archived := old && (r.Float64() < codexArchiveShare || spec.index < 2)
	// The first two are old and archived: one compressed, one not.
	compressed := archived && (r.Float64() < codexCompressShare || spec.index == 0) && spec.index != 1

	cw.opening(r.IntN(4) > 0) // real: 62% of turn contexts carry an AGENTS.md
	start := int64(0)
	resumed := false
	for turns := 0; keepGoing(turns, int64(cw.out.Len()), start, spec.budget); turns++ {
		if turns > 0 {
			cw.tick(20*time.Second, 30*time.Minute)
			if resume && !resumed && int64(cw.out.Len()) > spec.budget/2 {
				resumed = true
				cw.tick(time.Hour, 48*time.Hour)
				cw.sessionMeta(spec.start, "")
				cw.contextMessages(false)
			}
		}
		if subagent && cw.spawn == nil && turns > 0 {
			cw.turn(true)
			continue
		}
		cw.turn(false)
	}
	res.sessions = 1
	res.history = cw.history
	var path string
	if archived {
		path = filepath.Join(dir, "archived_sessions", codexRolloutName(spec.start, cw.id))
		res.archived = 1
	} else {
		path = codexLivePath(dir, spec.start, cw.id)
	}
	n, err := writeRollout(path, cw.out.Bytes(), compressed)
	if err != nil {
		return res, err
	}
	if compressed {
		res.compressed = 1
	}
	res.files++
	res.bytes += n
	if r.IntN(3) == 0 {
		var j jsonWriter
		j.openObject()
		j.str("id", cw.id)
		j.str("thread_name", truncateRunes(cw.topic.ident(r)+" "+lowerFirst(cw.topic.sentence(r)), 48))
		j.str("updated_at", cw.clock.UTC().Format(time.RFC3339))
		j.closeObject()
		res.index = append(j.b, '\n')
	}
	if cw.spawn != nil {
		n, err := writeCodexSubagent(c, dir, cw, r)
		if err != nil {
			return res, err
		}
		res.files++
		res.bytes += n
		res.sessions++
		res.subagents++
	}
	if fork {
		n, hist, err := writeCodexFork(dir, cw, r, spec.budget/2)
		if err != nil {
			return res, err
		}
		res.files++
		res.bytes += n
		res.sessions++
		res.forks++
		res.history = append(res.history, hist...)
	}
	return res, nil
}

func newCodexWriter(text *TextSource, r *rand.Rand, proj *project, start time.Time) *codexWriter {
	cw := &codexWriter{agentBase: newAgentBase(text, r, proj, start), cwd: proj.cwd}
	cw.id = newUUIDv7(r, start)
	cw.model = pick(r, codexModels)
	cw.version = r.IntN(len(codexVersions))
	cw.originator = "codex_cli_rs"
	cw.source = func(w *jsonWriter) { w.str("source", "cli") }
	// Real rollouts have an exec_command_end for one command in ten.
	cw.extended = r.IntN(8) == 0
	return cw
}

// begin starts a {timestamp, type, payload} line; the caller fills the
// payload and calls end.
func (cw *codexWriter) begin(typ string) {
	w := &cw.j
	w.reset()
	w.openObject()
	w.str("timestamp", formatTimestamp(cw.clock))
	w.str("type", typ)
	w.object("payload")
}

func (cw *codexWriter) end() {
	cw.j.closeObject()
	cw.j.closeObject()
	cw.emit()
	cw.lineEnds = append(cw.lineEnds, cw.out.Len())
}

func (cw *codexWriter) step() { cw.tick(time.Millisecond, 40*time.Millisecond) }

func (cw *codexWriter) sessionMeta(at time.Time, forkedFrom string) {
	cw.begin("session_meta")
	w := &cw.j
	w.str("id", cw.id)
	w.str("timestamp", formatTimestamp(at))
	w.str("cwd", cw.cwd)
	w.str("originator", cw.originator)
	w.str("cli_version", codexVersions[cw.version].name)
	cw.source(w)
	w.str("model_provider", "openai")
	if forkedFrom != "" {
		w.str("forked_from_id", forkedFrom)
	}
	if cw.r.Float64() < codexInstructedShare {
		w.object("base_instructions")
		w.str("text", cw.instructionText(codexBaseInstructions))
		w.closeObject()
	}
	w.object("git")
	w.str("commit_hash", randomHex(cw.r, 40))
	w.str("branch", cw.branch())
	w.str("repository_url", "git@github.com:dev/"+projectSlug(cw.proj.name)+".git")
	w.closeObject()
	cw.end()
}

func (cw *codexWriter) message(role, partType, text string) {
	cw.begin("response_item")
	w := &cw.j
	w.str("type", "message")
	w.str("role", role)
	w.array("content")
	w.openObject()
	w.str("type", partType)
	w.str("text", text)
	w.closeObject()
	w.closeArray()
	cw.end()
}

// contextMessages are what the harness puts at the start of a session
// (and of a resume): the permissions, AGENTS.md, the environment.
func (cw *codexWriter) contextMessages(agentsMD bool) {
	cw.step()
	developer := "<permissions instructions>\nFilesystem sandboxing defines which files can be read or written. `sandbox_mode` is `workspace-write`: The sandbox permits reading files, and editing files in `cwd` and `writable_roots`. Editing files in other directories requires approval.\nApprovals are your mechanism to get user consent to run shell commands without the sandbox. `approval_policy` is `on-request`.\n</permissions instructions>"
	if cw.r.Float64() < codexInstructedShare {
		developer += "\n<collaboration_mode>\n" + cw.instructionText(codexDeveloperInstructions) + "\n</collaboration_mode>"
	}
	cw.message("developer", "input_text", developer)
	if agentsMD {
		if cw.agentsMD == "" {
			cw.agentsMD = cw.instructionText(codexAgentsMDSize(cw.r)) + "\nRun `go test ./...` before you commit."
		}
		cw.step()
		cw.message("user", "input_text", "# AGENTS.md instructions for "+cw.cwd+"\n\n<INSTRUCTIONS>\n"+cw.agentsMD+"\n</INSTRUCTIONS>")
	}
	cw.step()
	cw.message("user", "input_text", cw.environmentContext())
}

// codexAgentsMDSize draws an AGENTS.md size: real ones are either a short
// page or, in two projects of three, a long handbook (10.8 KB on
// average in the real turn_context lines that carry one).
func codexAgentsMDSize(r *rand.Rand) int {
	if r.IntN(3) == 0 {
		return 2<<10 + r.IntN(2<<10)
	}
	return 10<<10 + r.IntN(14<<10)
}

func (cw *codexWriter) environmentContext() string {
	return "<environment_context>\n  <cwd>" + cw.cwd + "</cwd>\n  <approval_policy>on-request</approval_policy>\n  <sandbox_mode>workspace-write</sandbox_mode>\n  <network_access>restricted</network_access>\n  <shell>bash</shell>\n</environment_context>"
}

func (cw *codexWriter) opening(agentsMD bool) {
	cw.sessionMeta(cw.clock, "")
	cw.contextMessages(agentsMD)
}

func (cw *codexWriter) event(typ string, fill func(w *jsonWriter)) {
	cw.begin("event_msg")
	cw.j.str("type", typ)
	if fill != nil {
		fill(&cw.j)
	}
	cw.end()
}

// turn writes one prompt and everything Codex does for it; spawn makes
// the turn start a subagent thread.
func (cw *codexWriter) turn(spawn bool) {
	r := cw.r
	turnID := newUUIDv7(r, cw.clock)
	effort := pick(r, []string{"low", "medium", "medium", "high"})
	cw.turnContext(turnID, effort)
	cw.event("task_started", func(w *jsonWriter) {
		w.str("turn_id", turnID)
		w.int("model_context_window", 272000)
	})
	if r.IntN(40) == 0 {
		cw.step()
		cw.message("user", "input_text", cw.environmentContext())
	}
	prompt := cw.topic.typedPrompt(r, cw.proj)
	cw.tick(time.Second, 20*time.Second)
	cw.message("user", "input_text", prompt)
	cw.event("user_message", func(w *jsonWriter) {
		w.str("message", prompt)
		w.emptyArray("images")
	})
	cw.history = append(cw.history, codexHistory{id: cw.id, at: cw.clock, text: prompt})
	cw.lastPrompt = prompt
	if r.IntN(60) == 0 { // the user interrupted this turn
		cw.reasoning()
		cw.tick(time.Second, 30*time.Second)
		cw.message("user", "input_text", "<turn_aborted>\nThe user interrupted the previous turn. Do not continue with the previous task.\n</turn_aborted>")
		cw.event("turn_aborted", func(w *jsonWriter) { w.str("reason", "interrupted") })
		return
	}
	if spawn {
		cw.spawnSubagent()
	}
	for i := range cw.agentToolRounds() {
		if cw.spent(int64(cw.out.Len())) {
			break
		}
		if i > 0 {
			cw.requestContext(turnID, effort)
		}
		// Real rollouts hold six reasoning items to ten tool calls.
		if r.IntN(10) < 7 {
			cw.reasoning()
		}
		if r.IntN(3) == 0 {
			cw.assistant(cw.topic.assistantLeadIn(r))
		}
		for range 1 + r.IntN(2) {
			cw.toolCall(cw.nextAction())
		}
		cw.tokenCount()
	}
	cw.requestContext(turnID, effort)
	if r.IntN(2) == 0 {
		cw.reasoning()
	}
	answer := cw.topic.assistantAnswer(r)
	cw.assistant(answer)
	cw.tokenCount()
	cw.event("task_complete", func(w *jsonWriter) { w.str("last_agent_message", answer) })
}

// turnContext writes the settings a turn (in some versions, a model
// request) runs with, and the instructions they repeat.
func (cw *codexWriter) turnContext(turnID, effort string) {
	v := codexVersions[cw.version]
	cw.begin("turn_context")
	w := &cw.j
	w.str("turn_id", turnID)
	w.str("cwd", cw.cwd)
	w.str("approval_policy", "on-request")
	w.object("sandbox_policy")
	w.str("type", "workspace-write")
	w.emptyArray("writable_roots")
	w.bool("network_access", false)
	w.bool("exclude_tmpdir_env_var", false)
	w.bool("exclude_slash_tmp", false)
	w.closeObject()
	w.str("model", cw.model)
	if v.collaborationMode {
		w.str("personality", "pragmatic")
		w.object("collaboration_mode")
		w.str("mode", "default")
		w.object("settings")
		w.str("model", cw.model)
		w.str("reasoning_effort", effort)
		w.str("developer_instructions", cw.collaborationText())
		w.closeObject()
		w.closeObject()
	}
	w.str("effort", effort)
	w.str("summary", "auto")
	if cw.agentsMD != "" && cw.version > 0 {
		w.str("user_instructions", cw.agentsMD)
	}
	if v.collaborationMode {
		w.object("truncation_policy")
		w.str("mode", "tokens")
		w.int("limit", 10000)
		w.closeObject()
	}
	cw.end()
}

// collaborationText is the session's collaboration mode instructions,
// drawn once (real ones are about 900 bytes).
func (cw *codexWriter) collaborationText() string {
	if cw.collaboration == "" {
		cw.collaboration = "# Collaboration Mode: Default\n\n" + cw.instructionText(600+cw.r.IntN(600))
	}
	return cw.collaboration
}

// requestContext writes what some versions write before each model
// request after a turn's first: its turn_context again and the token
// count so far.
func (cw *codexWriter) requestContext(turnID, effort string) {
	if !codexVersions[cw.version].requestContext {
		return
	}
	cw.step()
	cw.turnContext(turnID, effort)
	cw.tokenCount()
}

func (cw *codexWriter) assistant(text string) {
	cw.tick(time.Second, 15*time.Second)
	cw.message("assistant", "output_text", text)
	cw.event("agent_message", func(w *jsonWriter) { w.str("message", text) })
}

func (cw *codexWriter) reasoning() {
	r := cw.r
	cw.tick(time.Second, 10*time.Second)
	title := "**" + pick(r, []string{"Inspecting", "Checking", "Planning", "Reviewing", "Tracing", "Fixing"}) + " " + cw.topic.ident(r) + "**"
	text := title
	if r.IntN(2) == 0 {
		text += "\n\n" + cw.topic.thinkingText(r)
	}
	cw.begin("response_item")
	w := &cw.j
	w.str("type", "reasoning")
	w.array("summary")
	w.openObject()
	w.str("type", "summary_text")
	w.str("text", text)
	w.closeObject()
	w.closeArray()
	w.null("content")
	// Real encrypted reasoning averages about 3 KB a line.
	w.str("encrypted_content", "gAAAAAB"+randomFrom(r, base64Chars, 1000+r.IntN(4000)))
	cw.end()
	cw.event("agent_reasoning", func(w *jsonWriter) { w.str("text", text) })
}

func newCallID(r *rand.Rand) string { return "call_" + randomFrom(r, base62, 24) }

func (cw *codexWriter) toolCall(act action) {
	r := cw.r
	id := newCallID(r)
	cw.tick(time.Second, 8*time.Second)
	switch act.kind {
	case "edit", "write":
		patch := cw.patchText(&act)
		cw.begin("response_item")
		w := &cw.j
		w.str("type", "custom_tool_call")
		w.str("status", "completed")
		w.str("call_id", id)
		w.str("name", "apply_patch")
		w.str("input", patch)
		cw.end()
		verb := "M "
		if act.kind == "write" {
			verb = "A "
		}
		out := "Success. Updated the following files:\n" + verb + cw.rel(act.path) + "\n"
		cw.tick(100*time.Millisecond, 2*time.Second)
		if cw.extended {
			cw.event("patch_apply_end", func(w *jsonWriter) {
				w.str("call_id", id)
				w.str("stdout", out)
				w.str("stderr", "")
				w.bool("success", true)
			})
		}
		cw.begin("response_item")
		w = &cw.j
		w.str("type", "custom_tool_call_output")
		w.str("call_id", id)
		w.str("output", cw.jsonOutput(out, 0, 0.01))
		cw.end()
		return
	case "todo":
		var args jsonWriter
		args.openObject()
		args.str("explanation", truncateRunes(cw.topic.sentence(r), 100))
		args.array("plan")
		for i, t := range act.todos {
			args.openObject()
			args.str("step", truncateRunes(t, 80))
			args.str("status", []string{"completed", "in_progress", "pending"}[min(i, 2)])
			args.closeObject()
		}
		args.closeArray()
		args.closeObject()
		cw.functionCall("update_plan", id, string(args.b))
		cw.functionOutput(id, "Plan updated")
		return
	}
	if act.kind == "read" {
		// Codex reads through the shell a screenful or more at a time
		// (sed -n '1,200p'): real tool outputs average 3 KB.
		cw.windowRead(&act, 100, 450)
	}
	command := cw.shellCommand(&act)
	var args jsonWriter
	args.openObject()
	if codexVersions[cw.version].shellCmd {
		args.str("command", command)
	} else {
		args.strings("command", []string{"bash", "-lc", command})
	}
	args.str("workdir", cw.cwd)
	args.int("timeout_ms", 120000)
	args.closeObject()
	name := "shell"
	if codexVersions[cw.version].shellCmd {
		name = "shell_command"
	}
	cw.functionCall(name, id, string(args.b))
	secs := 0.05 + 6*r.Float64()*r.Float64()
	cw.clock = cw.clock.Add(time.Duration(secs * float64(time.Second)))
	if cw.extended {
		// Real events keep the output once, in aggregated_output.
		cw.event("exec_command_end", func(w *jsonWriter) {
			w.str("call_id", id)
			w.strings("command", []string{"bash", "-lc", command})
			w.str("cwd", cw.cwd)
			w.str("stdout", "")
			w.str("stderr", "")
			w.str("aggregated_output", act.output)
			w.int("exit_code", int64(act.exitCode))
			w.object("duration")
			w.int("secs", int64(secs))
			w.int("nanos", int64((secs-float64(int64(secs)))*1e9))
			w.closeObject()
			w.str("formatted_output", "")
			w.str("status", "completed")
		})
	}
	if codexVersions[cw.version].shellCmd {
		cw.functionOutput(id, fmt.Sprintf("Exit code: %d\nWall time: %.1f seconds\nOutput:\n%s", act.exitCode, secs, act.output))
	} else {
		cw.functionOutput(id, cw.jsonOutput(act.output, act.exitCode, secs))
	}
}

// jsonOutput is the {"output", "metadata"} JSON text older versions
// store as a tool's output.
func (cw *codexWriter) jsonOutput(out string, exitCode int, secs float64) string {
	var o jsonWriter
	o.openObject()
	o.str("output", out)
	o.object("metadata")
	o.int("exit_code", int64(exitCode))
	o.float("duration_seconds", float64(int64(secs*10))/10)
	o.closeObject()
	o.closeObject()
	return string(o.b)
}

func (cw *codexWriter) functionCall(name, id, arguments string) {
	cw.begin("response_item")
	w := &cw.j
	w.str("type", "function_call")
	w.str("name", name)
	w.str("arguments", arguments)
	w.str("call_id", id)
	cw.end()
}

func (cw *codexWriter) functionOutput(id, output string) {
	cw.step()
	cw.begin("response_item")
	w := &cw.j
	w.str("type", "function_call_output")
	w.str("call_id", id)
	w.str("output", output)
	cw.end()
}

func (cw *codexWriter) tokenCount() {
	r := cw.r
	in := int64(4000 + r.IntN(60000))
	cached := in * int64(r.IntN(90)) / 100
	out := int64(50 + r.IntN(2500))
	reason := out * int64(r.IntN(80)) / 100
	cw.inTok += in
	cw.cachedTok += cached
	cw.outTok += out
	cw.reasonTok += reason
	usage := func(w *jsonWriter, k string, in, cached, out, reason int64) {
		w.object(k)
		w.int("input_tokens", in)
		w.int("cached_input_tokens", cached)
		w.int("output_tokens", out)
		w.int("reasoning_output_tokens", reason)
		w.int("total_tokens", in+out)
		w.closeObject()
	}
	cw.event("token_count", func(w *jsonWriter) {
		w.object("info")
		usage(w, "total_token_usage", cw.inTok, cw.cachedTok, cw.outTok, cw.reasonTok)
		usage(w, "last_token_usage", in, cached, out, reason)
		w.int("model_context_window", 272000)
		w.closeObject()
		w.object("rate_limits")
		w.object("primary")
		w.float("used_percent", float64(r.IntN(1000))/10)
		w.int("window_minutes", 300)
		w.int("resets_in_seconds", int64(r.IntN(18000)))
		w.closeObject()
		if codexVersions[cw.version].collaborationMode {
			w.object("secondary")
			w.float("used_percent", float64(r.IntN(1000))/10)
			w.int("window_minutes", 10080)
			w.int("resets_at", cw.clock.Unix()+int64(r.IntN(604800)))
			w.closeObject()
			w.object("credits")
			w.bool("has_credits", false)
			w.bool("unlimited", false)
			w.null("balance")
			w.closeObject()
			w.null("plan_type")
		}
		w.closeObject()
	})
}

// spawnSubagent writes the parent's side of a subagent thread: the
// spawn call and its answer; the thread's own rollout is written after.
func (cw *codexWriter) spawnSubagent() {
	r := cw.r
	sp := &codexSpawn{
		task:         "Find where " + cw.topic.ident(r) + " is handled and list the files. " + cw.topic.sentence(r),
		role:         pick(r, []string{"explorer", "worker", "reviewer"}),
		nickname:     pick(r, []string{"Pascal", "Ada", "Turing", "Hopper", "Curie", "Noether"}),
		parentPrompt: cw.lastPrompt,
	}
	cw.tick(time.Second, 5*time.Second)
	sp.at = cw.clock.Add(50 * time.Millisecond)
	sp.id = newUUIDv7(r, sp.at)
	cw.spawn = sp
	id := newCallID(r)
	var args jsonWriter
	args.openObject()
	args.str("message", sp.task)
	args.str("agent_type", sp.role)
	args.closeObject()
	cw.functionCall("spawn_agent", id, string(args.b))
	cw.functionOutput(id, `{"agent_id":"`+sp.id+`","nickname":"`+sp.nickname+`"}`)
	wait := newCallID(r)
	cw.functionCall("wait", wait, `{"ids":["`+sp.id+`"],"timeout_ms":300000}`)
	cw.tick(20*time.Second, 4*time.Minute)
	cw.functionOutput(wait, "completed: "+cw.topic.sentences(r, 2+r.IntN(4)))
}

// writeCodexSubagent writes the rollout of the thread the session
// spawned.
func writeCodexSubagent(c *agentContext, dir string, parent *codexWriter, r *rand.Rand) (int64, error) {
	sp := parent.spawn
	sub := &codexWriter{agentBase: newAgentBase(c.text, r, parent.proj, sp.at), cwd: parent.cwd}
	sub.topic, sub.tools.topic = parent.topic, parent.topic
	sub.id, sub.model, sub.version, sub.originator, sub.extended = sp.id, parent.model, parent.version, parent.originator, parent.extended
	sub.source = func(w *jsonWriter) {
		w.object("source")
		w.object("subagent")
		w.object("thread_spawn")
		w.str("parent_thread_id", parent.id)
		w.int("depth", 1)
		w.str("agent_nickname", sp.nickname)
		w.str("agent_role", sp.role)
		w.closeObject()
		w.closeObject()
		w.closeObject()
	}
	sub.sessionMeta(sp.at, "")
	sub.step()
	sub.message("developer", "input_text", "<permissions instructions>\nFilesystem sandboxing defines which files can be read or written. `sandbox_mode` is `read-only`.\n</permissions instructions>")
	if sp.parentPrompt != "" {
		sub.step()
		sub.message("user", "input_text", sp.parentPrompt)
		// An inherited prompt is marked on its line, outside the payload.
		last := sub.out.Len() - 1
		sub.out.Truncate(last - 1)
		sub.out.WriteString(`,"metadata":{"inherited_user_message":true}}` + "\n")
		sub.lineEnds[len(sub.lineEnds)-1] = sub.out.Len()
	}
	sub.step()
	sub.message("user", "input_text", sp.task)
	sub.event("user_message", func(w *jsonWriter) {
		w.str("message", sp.task)
		w.emptyArray("images")
	})
	for range 1 + r.IntN(5) {
		sub.reasoning()
		sub.toolCall(sub.nextAction())
	}
	sub.tokenCount()
	sub.assistant(sub.topic.assistantAnswer(r))
	return writeRollout(codexLivePath(dir, sp.at, sp.id), sub.out.Bytes(), false)
}

// writeCodexFork writes a fork of the session: a new thread whose rollout
// starts with its own session_meta and then a copy of the parent's
// history (its session_meta included), every copied line stamped with
// the time the fork wrote it, then turns of its own.
func writeCodexFork(dir string, parent *codexWriter, r *rand.Rand, budget int64) (int64, []codexHistory, error) {
	at := parent.clock.Add(time.Duration(5+r.IntN(60*48)) * time.Minute).Truncate(time.Millisecond)
	f := &codexWriter{agentBase: &agentBase{r: r, topic: parent.topic, proj: parent.proj, clock: at, tools: parent.tools}, cwd: parent.cwd}
	f.id, f.model, f.version, f.originator, f.source, f.extended = newUUIDv7(r, at), parent.model, parent.version, parent.originator, parent.source, parent.extended
	f.sessionMeta(at, parent.id)
	n := max(1, len(parent.lineEnds)*(30+r.IntN(65))/100)
	data := parent.out.Bytes()
	stamp := []byte(formatTimestamp(at))
	const tsAt = len(`{"timestamp":"`)
	for i, start := 0, 0; i < n; i++ {
		line := slices.Clone(data[start:parent.lineEnds[i]])
		start = parent.lineEnds[i]
		copy(line[tsAt:], stamp)
		f.out.Write(line)
		f.lineEnds = append(f.lineEnds, f.out.Len())
	}
	f.tick(time.Second, 10*time.Second)
	start := int64(f.out.Len())
	for turns := 0; keepGoing(turns, int64(f.out.Len())-start, 0, budget); turns++ {
		if turns > 0 {
			f.tick(20*time.Second, 30*time.Minute)
		}
		f.turn(false)
	}
	size, err := writeRollout(codexLivePath(dir, at, f.id), f.out.Bytes(), false)
	return size, f.history, err
}

// writeRollout writes a rollout, or its zstd level 3 compression as Codex
// keeps old archived ones (path + ".zst").
func writeRollout(path string, data []byte, compress bool) (int64, error) {
	if compress {
		enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.EncoderLevelFromZstd(3)), zstd.WithEncoderConcurrency(1))
		if err != nil {
			return 0, err
		}
		data = enc.EncodeAll(data, nil)
		enc.Close()
		path += ".zst"
	}
	return writeSmallFile(path, data)
}
