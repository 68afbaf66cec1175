package benchgen

import (
	"fmt"
	"math"
	"strings"
	"time"
)

var agentTypes = []string{"general-purpose", "general-purpose", "Explore", "Plan", "code-reviewer"}

// agentCall is a subagent launch (Task, later Agent). The subagent's own
// transcript is written when the call runs; the result is either its
// final answer or, for background agents, a launch notice followed by a
// task notification in a later turn.
func (g *sessionGen) agentCall() plannedCall {
	id := newToolUseID(g.r)
	agentType := pick(g.r, agentTypes)
	description := truncateRunes(strings.Join(g.queryWords(3), " "), 60)
	prompt := "Investigate how " + g.topic.ident(g.r) + " works in " + g.topic.pkg.dir + ". " + g.topic.sentences(g.r, 2+g.r.IntN(3)) + " Report the relevant files and functions."
	async := g.ver.envelopeV2 && g.r.IntN(3) == 0
	call := &toolCall{
		name: g.ver.agentTool,
		input: func(w *jsonWriter) {
			w.str("description", description)
			w.str("prompt", prompt)
			w.str("subagent_type", agentType)
			if async {
				w.bool("run_in_background", true)
			}
		},
	}
	run := func() {
		agentID, result := g.runSubagent(id, agentType, description, prompt)
		if async {
			g.pendingTasks = append(g.pendingTasks, backgroundTask{agentID: agentID, toolUseID: id, description: description, result: result})
			launchResult(call, g.proj.slug, agentID, description, prompt)
			return
		}
		completedResult(call, g.r.Int64N(300000), agentID, prompt, result)
	}
	return plannedCall{id: id, call: call, run: run}
}

func launchResult(call *toolCall, slug, agentID, description, prompt string) {
	outputFile := "/tmp/claude/" + slug + "/tasks/" + agentID + ".output"
	call.result = "Async agent launched successfully.\nagentId: " + agentID + " (internal ID - do not mention to user. Use to resume later if needed.)\noutput_file: " + outputFile + "\nThe agent is working in the background. You will be notified when it completes—no need to check. Continue with other tasks."
	call.useResult = func(w *jsonWriter) {
		w.openObject()
		w.bool("isAsync", true)
		w.str("status", "async_launched")
		w.str("agentId", agentID)
		w.str("description", description)
		w.str("prompt", prompt)
		w.str("outputFile", outputFile)
		w.closeObject()
	}
}

func completedResult(call *toolCall, durationMs int64, agentID, prompt, result string) {
	call.result = result
	call.useResult = func(w *jsonWriter) {
		w.openObject()
		w.str("status", "completed")
		w.str("prompt", prompt)
		w.str("agentId", agentID)
		w.array("content")
		w.openObject()
		w.str("type", "text")
		w.str("text", result)
		w.closeObject()
		w.closeArray()
		w.int("totalDurationMs", durationMs)
		w.int("totalTokens", 20000+durationMs/3)
		w.closeObject()
	}
}

// subagentBudget keeps subagents smaller than their parent session.
func (g *sessionGen) subagentBudget() int64 {
	median := 20.0 * 1024
	v := int64(median * math.Exp(0.8*g.r.NormFloat64()))
	return max(4<<10, min(v, (g.budget-g.written())/2))
}

// runSubagent writes the subagent's transcript: same sessionId as the
// parent, isSidechain on every line, its own agentId, and in the current
// layout a meta.json beside it.
func (g *sessionGen) runSubagent(toolUseID, agentType, description, prompt string) (agentID, result string) {
	var filePath string
	if g.ver.oldAgentLayout {
		agentID = randomHex(g.r, 8)
		filePath = g.projDir + "/agent-" + agentID + ".jsonl"
	} else {
		agentID = newAgentID(g.r)
		filePath = g.sessionDir() + "/subagents/agent-" + agentID + ".jsonl"
	}
	out, err := createTranscript(filePath, false)
	if err != nil {
		g.setErr(err)
		return agentID, ""
	}
	child := &sessionGen{
		lineWriter: &lineWriter{r: g.r, ver: g.ver, env: g.env, clock: g.clock, out: out, stats: g.stats},
		spec:       g.spec,
		proj:       g.proj,
		topic:      g.topic,
		projDir:    g.projDir,
		model:      pick(g.r, models),
		budget:     g.subagentBudget(),
		isSubagent: true,
	}
	child.env.agentID = agentID
	child.env.sidechain = true
	// The first record is the prompt the parent model wrote.
	child.userString(newUUID(g.r), prompt, kindNoise, nil)
	for first := true; (first || child.written() < child.budget) && child.err == nil; first = false {
		child.toolRound()
	}
	resp := child.newResponse(child.model)
	child.tick(time.Second, 20*time.Second)
	result = child.topic.assistantAnswer(g.r)
	child.assistantText(resp, result, "end_turn")
	g.setErr(child.err)
	g.closeTranscript(out)
	g.sideBytes += child.written()
	g.stats.Subagents++
	g.clock = child.clock
	if g.ver.progressLines {
		g.agentProgress(toolUseID, agentID, prompt)
	}
	if !g.ver.oldAgentLayout {
		g.writeAgentMeta(filePath, toolUseID, agentType, description, child.model)
	}
	return agentID, result
}

func (g *sessionGen) closeTranscript(out *transcript) {
	if err := out.close(); err != nil {
		g.setErr(err)
		return
	}
	g.stats.Files++
	g.stats.Transcripts++
}

func (g *sessionGen) writeAgentMeta(transcriptPath, toolUseID, agentType, description, model string) {
	var w jsonWriter
	w.openObject()
	w.str("agentType", agentType)
	w.str("description", description)
	if g.ver.richAgentMeta {
		w.str("toolUseId", toolUseID)
		w.int("spawnDepth", 1)
		w.bool("isBuiltIn", agentType != "code-reviewer")
		w.str("model", model)
		w.bool("finished", true)
	}
	w.closeObject()
	metaPath := strings.TrimSuffix(transcriptPath, ".jsonl") + ".meta.json"
	n, err := writeSmallFile(metaPath, w.b)
	if err != nil {
		g.setErr(fmt.Errorf("subagent meta: %w", err))
		return
	}
	g.countSideFile(n)
}

// agentProgress is the 2.1.x-era copy of a subagent message in the main
// file; an index must not count it twice.
func (g *sessionGen) agentProgress(toolUseID, agentID, prompt string) {
	g.begin("progress")
	w := &g.j
	w.object("data")
	w.object("message")
	w.str("type", "user")
	w.object("message")
	w.str("role", "user")
	w.array("content")
	w.openObject()
	w.str("type", "text")
	w.str("text", prompt)
	w.closeObject()
	w.closeArray()
	w.closeObject()
	w.str("uuid", newUUID(g.r))
	w.str("timestamp", formatTimestamp(g.clock))
	w.closeObject()
	w.str("type", "agent_progress")
	w.str("prompt", prompt)
	w.str("agentId", agentID)
	w.closeObject()
	w.str("toolUseID", "agent_"+newMessageID(g.r))
	w.str("parentToolUseID", toolUseID)
	g.end(newUUID(g.r), kindMeta)
}
