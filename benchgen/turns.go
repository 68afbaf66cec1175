package benchgen

import (
	"math/rand/v2"
	"time"
)

// sessionGen writes one transcript (a session, a fork or a subagent) turn
// by turn until its byte budget is spent.
type sessionGen struct {
	*lineWriter
	spec    *sessionSpec
	proj    *project
	topic   topic
	projDir string // <out>/projects/<slug>
	model   string
	ide     bool // the user works from an IDE, whose tags prefix prompts
	budget  int64
	// sideBytes counts files written on behalf of this transcript
	// (subagents, meta.json, tool-results), which share its budget.
	sideBytes     int64
	isSubagent    bool
	lastPrompt    string
	recentPrompts []string
	pendingTasks  []backgroundTask
	compacted     bool
}

// backgroundTask is an async subagent whose completion is announced at
// the start of a later turn.
type backgroundTask struct {
	agentID, toolUseID, description, result string
}

func (g *sessionGen) written() int64 { return g.out.bytes + g.sideBytes }

func (g *sessionGen) sessionDir() string { return g.projDir + "/" + g.env.sessionID }

var gitBranches = []string{"main", "main", "main", "master", "HEAD", "develop"}

func sessionNickname(r *rand.Rand) string {
	adjectives := []string{"misty", "quiet", "brave", "lucky", "swift", "gentle", "sunny", "rusty", "clever", "fuzzy"}
	verbs := []string{"jumping", "dancing", "sleeping", "running", "singing", "hiding", "floating", "wandering"}
	nouns := []string{"falcon", "otter", "maple", "comet", "badger", "harbor", "lantern", "meadow", "pebble"}
	return pick(r, adjectives) + "-" + pick(r, verbs) + "-" + pick(r, nouns)
}

func branchFor(r *rand.Rand, t topic) string {
	if r.IntN(3) == 0 {
		return pick(r, []string{"fix/", "feature/", "refactor/"}) + lowerFirst(t.ident(r))
	}
	return pick(r, gitBranches)
}

// runTurns writes turns until the budget is spent; a transcript always
// gets at least one turn. It stops when half a typical turn would not
// fit any more, so that on average sessions end on budget rather than
// always beyond it.
func (g *sessionGen) runTurns() {
	start := g.written()
	for turns := int64(0); turns == 0 || g.written()+(g.written()-start)/(2*turns) < g.budget; turns++ {
		if g.err != nil {
			return
		}
		g.turn(turns == 0)
	}
}

func (g *sessionGen) turn(first bool) {
	if !first {
		g.tick(20*time.Second, 40*time.Minute)
		g.deliverTaskNotifications()
		g.maybeInterlude()
	}
	prompt := g.topic.typedPrompt(g.r, g.proj)
	if g.spec.headless {
		g.headlessPrompt(prompt)
	} else {
		g.interactivePrompt(prompt)
	}
	g.maybeAttachment()
	g.respond()
	g.turnDuration()
}

func (g *sessionGen) rememberPrompt(prompt string) {
	g.lastPrompt = prompt
	g.recentPrompts = append(g.recentPrompts, prompt)
	if len(g.recentPrompts) > 8 {
		g.recentPrompts = g.recentPrompts[1:]
	}
}

func (g *sessionGen) interactivePrompt(prompt string) {
	uuid := newUUID(g.r)
	g.fileHistorySnapshot(uuid, false)
	text := prompt
	if g.ide && g.r.IntN(3) == 0 {
		text = g.ideTag() + text
	}
	g.tick(100*time.Millisecond, 2*time.Second)
	g.userString(uuid, text, kindPrompt, func(w *jsonWriter) {
		if g.ver.envelopeV2 {
			w.str("promptId", newUUID(g.r))
		}
		w.str("permissionMode", "default")
	})
	g.countHuman(prompt)
	g.rememberPrompt(prompt)
}

// headlessPrompt writes what `claude -p` writes: the prompt is queued,
// dequeued, then recorded with entrypoint sdk-cli.
func (g *sessionGen) headlessPrompt(prompt string) {
	g.queueOperation("enqueue", prompt)
	g.tick(time.Millisecond, 30*time.Millisecond)
	g.queueOperation("dequeue", "")
	g.tick(time.Millisecond, 30*time.Millisecond)
	g.userString(newUUID(g.r), prompt, kindPrompt, func(w *jsonWriter) {
		w.str("promptId", newUUID(g.r))
		w.str("promptSource", "sdk")
		w.str("permissionMode", "bypassPermissions")
	})
	g.countHuman(prompt)
	g.rememberPrompt(prompt)
}

func (g *sessionGen) queueOperation(op, content string) {
	g.beginSide("queue-operation")
	w := &g.j
	w.str("operation", op)
	w.str("timestamp", formatTimestamp(g.clock))
	w.str("sessionId", g.env.sessionID)
	if content != "" {
		w.str("content", content)
	}
	g.endSide(kindNoise)
}

func (g *sessionGen) fileHistorySnapshot(messageID string, update bool) {
	g.beginSide("file-history-snapshot")
	w := &g.j
	w.str("messageId", messageID)
	w.object("snapshot")
	w.str("messageId", messageID)
	w.object("trackedFileBackups")
	if update {
		filePath := g.absPath(g.topic.file(g.r).path)
		w.object(filePath)
		w.str("backupFileName", randomHex(g.r, 16)+"@v2")
		w.int("version", int64(2+g.r.IntN(5)))
		w.str("backupTime", formatTimestamp(g.clock))
		w.closeObject()
	}
	w.closeObject()
	w.str("timestamp", formatTimestamp(g.clock))
	w.closeObject()
	w.bool("isSnapshotUpdate", update)
	g.endSide(kindMeta)
}

func (g *sessionGen) turnDuration() {
	if g.ver.summaryFirst { // 2.0.x did not write it
		return
	}
	g.begin("system")
	w := &g.j
	w.str("subtype", "turn_duration")
	w.int("durationMs", int64(2000+g.r.IntN(600000)))
	w.int("messageCount", int64(2+g.r.IntN(60)))
	w.bool("isMeta", false)
	g.end(newUUID(g.r), kindMeta)
}

// toolRounds draws how many tool-calling responses precede the final
// answer: often none or a few, sometimes dozens.
func (g *sessionGen) toolRounds() int {
	if g.r.IntN(100) < 35 {
		return 0
	}
	n := 1
	for n < 40 && g.r.IntN(100) < 52 {
		n++
	}
	return n
}

// respond writes the assistant side of a turn: tool rounds, then a final
// text answer, unless an error or interruption ends the turn early.
func (g *sessionGen) respond() {
	switch k := g.r.IntN(1000); {
	case k < 10:
		g.apiErrorTurn()
		return
	case k < 20:
		g.interruptedTurn()
		return
	case k < 25:
		g.usageLimitTurn()
		return
	case k < 50 && !g.isSubagent:
		g.recallRound()
	}
	for range g.toolRounds() {
		if g.err != nil || !g.toolRound() {
			return
		}
	}
	g.finalAnswer()
}

func (g *sessionGen) thinking(resp apiResponse) {
	text := ""
	if !g.ver.emptyThinking {
		text = g.topic.thinkingText(g.r)
	}
	g.assistantThinking(resp, text)
}

// plannedCall pairs a tool call with its tool_use id.
type plannedCall struct {
	id   string
	call *toolCall
	// run, when set, does the work (a subagent) after the tool_use line
	// is written and before the result is.
	run func()
}

func (g *sessionGen) chooseCalls() []plannedCall {
	agentPercent := 4
	if g.ver.oldAgentLayout {
		agentPercent = 10 // 2.0.x sessions leaned on Task for exploring
	}
	if !g.isSubagent && g.r.IntN(100) < agentPercent {
		return []plannedCall{g.agentCall()}
	}
	n := 1
	if g.r.IntN(5) == 0 {
		n = 2 + g.r.IntN(3) // parallel tool calls in one response
	}
	calls := make([]plannedCall, n)
	for i := range calls {
		calls[i] = plannedCall{id: newToolUseID(g.r), call: g.ordinaryToolCall()}
	}
	return calls
}

// toolRound writes one response that calls tools, then the results. It
// reports false when the user interrupted it.
func (g *sessionGen) toolRound() bool {
	resp := g.newResponse(g.model)
	g.tick(time.Second, 12*time.Second)
	if g.r.IntN(5) == 0 {
		g.thinking(resp)
	}
	if g.r.IntN(7) > 0 {
		g.tick(50*time.Millisecond, time.Second)
		g.assistantText(resp, g.topic.assistantLeadIn(g.r), "")
	}
	calls := g.chooseCalls()
	uuids := make([]string, len(calls))
	for i, c := range calls {
		g.tick(50*time.Millisecond, 800*time.Millisecond)
		uuids[i] = g.assistantToolUse(resp, c.id, c.call)
	}
	for i, c := range calls {
		if g.r.IntN(150) == 0 {
			g.rejectedTool(c.id, uuids[i])
			return false
		}
		g.runTool(c, uuids[i])
	}
	return true
}

func (g *sessionGen) runTool(c plannedCall, assistantUUID string) {
	g.tick(100*time.Millisecond, 20*time.Second)
	if c.run != nil {
		c.run()
	}
	if g.ver.progressLines && c.call.name == "Bash" {
		g.bashProgress(c.id)
	}
	g.persistIfLarge(c.call)
	g.toolResult(c.id, assistantUUID, c.call)
	if c.call.name == "Edit" && !g.spec.headless && !g.isSubagent && g.r.IntN(3) == 0 {
		g.fileHistorySnapshot(newUUID(g.r), true)
	}
	if g.ver.progressLines && g.r.IntN(2) == 0 {
		g.hookProgress(c.id, c.call.name)
	}
}

// rejectedTool is the user pressing Esc on a tool: an error result, then
// the interruption marker.
func (g *sessionGen) rejectedTool(toolUseID, assistantUUID string) {
	g.tick(time.Second, 30*time.Second)
	g.toolResult(toolUseID, assistantUUID, &toolCall{
		result:  "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed.",
		isError: true,
		useResult: func(w *jsonWriter) {
			w.stringValue("User rejected tool use")
		},
	})
	g.userTextBlock("[Request interrupted by user for tool use]")
}

func (g *sessionGen) finalAnswer() {
	resp := g.newResponse(g.model)
	g.tick(time.Second, 20*time.Second)
	if g.r.IntN(3) == 0 {
		g.thinking(resp)
	}
	g.assistantText(resp, g.topic.assistantAnswer(g.r), "end_turn")
}

// persistedOutputLimit is the size above which newer CLIs move a Bash
// output to <session>/tool-results/<id>.txt and keep only a preview.
const persistedOutputLimit = 30 << 10

func (g *sessionGen) persistIfLarge(call *toolCall) {
	if call.name != "Bash" || call.isError || len(call.result) < persistedOutputLimit || !g.ver.envelopeV2 {
		return
	}
	name := newTaskID(g.r) + ".txt"
	filePath := g.sessionDir() + "/tool-results/" + name
	n, err := writeSmallFile(filePath, []byte(call.result))
	if err != nil {
		g.setErr(err)
		return
	}
	g.countSideFile(n)
	preview := truncateRunes(call.result, 2000)
	shownPath := "/home/dev/.claude/projects/" + g.proj.slug + "/" + g.env.sessionID + "/tool-results/" + name
	stub := "<persisted-output>\nOutput too large (" + FormatSize(int64(len(call.result))) + "). Full output saved to: " + shownPath + "\n\nPreview (first 2KB):\n" + preview + "\n</persisted-output>"
	*call = *bashCall(call.command, call.description, stub, 0)
}

func (g *sessionGen) countSideFile(n int64) {
	g.sideBytes += n
	g.stats.Files++
	g.stats.Bytes += n
	g.stats.BytesByKind[kindMeta] += n
}
