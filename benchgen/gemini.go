package benchgen

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Gemini CLI chats (packages/core/src/services/chatRecordingService.ts):
// tmp/<slug>/chats/session-<time>-<id8>.jsonl, a metadata line, then a
// MessageRecord per line. A gemini message is written again whole, with
// the same id, as it changes (its tokens, its tool calls once they ran);
// {"$set": …} lines patch the metadata.

const (
	geminiMedianBytes   = 120 << 10 // real chats average 300 KB
	geminiSubagentShare = 0.04
)

var geminiModels = []string{"gemini-2.5-pro", "gemini-2.5-pro", "gemini-2.5-flash", "gemini-3-pro-preview"}

type geminiSessionResult struct {
	files, subagents int
	bytes            int64
	slug, cwd        string
	logs             []geminiLog
}

// geminiLog is an entry of a project's logs.json (prompts only).
type geminiLog struct {
	session string
	n       int
	text    string
	at      time.Time
}

// geminiSlugs names each project's folder under tmp/ the way the project
// registry does: the directory's base name, lower-cased, made unique
// with a number.
func geminiSlugs(projects []project) []string {
	out := make([]string, len(projects))
	used := map[string]int{}
	for i, p := range projects {
		base := strings.Trim(strings.ToLower(projectSlug(path.Base(p.cwd))), "-")
		if base == "" {
			base = "project"
		}
		used[base]++
		if n := used[base]; n > 1 {
			base += "-" + strconv.Itoa(n)
		}
		out[i] = base
	}
	return out
}

func writeGemini(c *agentContext, dir string, budget int64) (AgentSummary, error) {
	specs := planAgentSessions(c, agentShape{salt: saltGemini, median: geminiMedianBytes, written: 1.17, least: 48 << 10}, budget)
	slugs := geminiSlugs(c.projects)
	tmp := filepath.Join(dir, "tmp")
	results := make([]geminiSessionResult, len(specs))
	err := forEachIndex(len(specs), c.workers, func(i int) error {
		res, err := writeGeminiSession(c, tmp, slugs, &specs[i])
		results[i] = res
		return err
	})
	if err != nil {
		return AgentSummary{}, err
	}
	s := AgentSummary{Projects: distinctProjects(specs)}
	logs := map[string][]geminiLog{}
	roots := map[string]string{}
	for i := range results {
		r := &results[i]
		s.Files += r.files
		s.Bytes += r.bytes
		s.Sessions += 1 + r.subagents
		s.Subagents += r.subagents
		logs[r.slug] = append(logs[r.slug], r.logs...)
		roots[r.slug] = r.cwd
	}
	// Each project's .project_root and logs.json, and the registry.
	slugList := make([]string, 0, len(roots))
	for slug := range roots {
		slugList = append(slugList, slug)
	}
	slices.Sort(slugList)
	var reg jsonWriter
	reg.openObject()
	reg.object("projects")
	for _, slug := range slugList {
		reg.str(roots[slug], slug)
		n, err := writeSmallFile(filepath.Join(tmp, slug, ".project_root"), []byte(roots[slug]))
		if err != nil {
			return s, err
		}
		s.Files++
		s.Bytes += n
		n, err = writeSmallFile(filepath.Join(tmp, slug, "logs.json"), geminiLogsJSON(logs[slug]))
		if err != nil {
			return s, err
		}
		s.Files++
		s.Bytes += n
	}
	reg.closeObject()
	reg.closeObject()
	n, err := writeSmallFile(filepath.Join(dir, "projects.json"), append(reg.b, '\n'))
	if err != nil {
		return s, err
	}
	s.Files++
	s.Bytes += n
	return s, nil
}

func geminiLogsJSON(logs []geminiLog) []byte {
	slices.SortStableFunc(logs, func(a, b geminiLog) int {
		if c := a.at.Compare(b.at); c != 0 {
			return c
		}
		return strings.Compare(a.session, b.session)
	})
	var b bytes.Buffer
	b.WriteString("[")
	var j jsonWriter
	for i, l := range logs {
		if i > 0 {
			b.WriteString(",")
		}
		j.reset()
		b.WriteString("\n  {\n    \"sessionId\": ")
		b.Write(appendJSONString(nil, l.session))
		fmt.Fprintf(&b, ",\n    \"messageId\": %d,\n    \"type\": \"user\",\n    \"message\": ", l.n)
		b.Write(appendJSONString(nil, l.text))
		b.WriteString(",\n    \"timestamp\": ")
		b.Write(appendJSONString(nil, formatTimestamp(l.at)))
		b.WriteString("\n  }")
	}
	b.WriteString("\n]")
	return b.Bytes()
}

// geminiWriter writes one chat file.
type geminiWriter struct {
	*agentBase
	sessionID string
	model     string
	logs      []geminiLog
	subagent  *geminiWriter // a subagent chat this one started
	// manuals are the tools' own descriptions, drawn once a session.
	manuals map[string]string
	// searchTools keeps every search a search_file_content or glob
	// call (the first session's: a small corpus still has some).
	searchTools bool
}

func newGeminiWriter(base *agentBase, sessionID string) *geminiWriter {
	return &geminiWriter{agentBase: base, sessionID: sessionID, model: pick(base.r, geminiModels)}
}

func geminiHash(cwd string) string {
	sum := sha256.Sum256([]byte(cwd))
	return hex.EncodeToString(sum[:])
}

func writeGeminiSession(c *agentContext, tmp string, slugs []string, spec *agentSession) (geminiSessionResult, error) {
	r := spec.rand(c.seed)
	proj := &c.projects[spec.project]
	res := geminiSessionResult{slug: slugs[spec.project], cwd: proj.cwd}
	gw := newGeminiWriter(newAgentBase(c.text, r, proj, spec.start), newUUID(r))
	gw.budget = spec.budget
	gw.searchTools = spec.index == 0
	spawn := r.Float64() < geminiSubagentShare || spec.index == 1
	gw.metadata("main", spec.start)
	start := int64(0)
	for turns := 0; keepGoing(turns, int64(gw.out.Len()), start, spec.budget); turns++ {
		if turns > 0 {
			gw.tick(20*time.Second, 30*time.Minute)
		}
		gw.turn(spawn && turns == 1)
	}
	if r.IntN(5) < 2 {
		gw.set(func(w *jsonWriter) {
			w.str("summary", truncateRunes(gw.topic.ident(r)+": "+lowerFirst(gw.topic.sentence(r)), 80))
			w.str("lastUpdated", formatTimestamp(gw.clock))
		})
	}
	chats := filepath.Join(tmp, res.slug, "chats")
	name := "session-" + spec.start.UTC().Format("2006-01-02T15-04") + "-" + gw.sessionID[:8] + ".jsonl"
	n, err := writeSmallFile(filepath.Join(chats, name), gw.out.Bytes())
	if err != nil {
		return res, err
	}
	res.files++
	res.bytes += n
	res.logs = gw.logs
	if sub := gw.subagent; sub != nil {
		n, err := writeSmallFile(filepath.Join(chats, gw.sessionID, sub.sessionID+".jsonl"), sub.out.Bytes())
		if err != nil {
			return res, err
		}
		res.files++
		res.bytes += n
		res.subagents++
	}
	return res, nil
}

func (gw *geminiWriter) metadata(kind string, at time.Time) {
	w := &gw.j
	w.reset()
	w.openObject()
	w.str("sessionId", gw.sessionID)
	w.str("projectHash", geminiHash(gw.proj.cwd))
	w.str("startTime", formatTimestamp(at))
	w.str("lastUpdated", formatTimestamp(at))
	w.str("kind", kind)
	if kind == "subagent" {
		w.strings("directories", []string{gw.proj.cwd})
	}
	w.closeObject()
	gw.emit()
}

func (gw *geminiWriter) set(fill func(w *jsonWriter)) {
	w := &gw.j
	w.reset()
	w.openObject()
	w.object("$set")
	fill(w)
	w.closeObject()
	w.closeObject()
	gw.emit()
}

// beginMessage starts a MessageRecord; the caller adds its fields and
// closes it with endMessage.
func (gw *geminiWriter) beginMessage(id, typ string, at time.Time) {
	w := &gw.j
	w.reset()
	w.openObject()
	w.str("id", id)
	w.str("timestamp", formatTimestamp(at))
	w.str("type", typ)
}

func (gw *geminiWriter) endMessage() {
	gw.j.closeObject()
	gw.emit()
}

func (gw *geminiWriter) user(text string) {
	r := gw.r
	gw.tick(time.Second, 20*time.Second)
	gw.beginMessage(newUUID(r), "user", gw.clock)
	w := &gw.j
	w.array("content")
	if r.IntN(10) == 0 {
		// An @-reference: the file's text goes to the model, the typed
		// line stays in displayContent.
		f := gw.topic.file(r)
		typed := text + " @" + f.path
		w.openObject()
		w.str("text", typed)
		w.closeObject()
		w.openObject()
		w.str("text", "\n--- Content from referenced files ---\nContent from @"+f.path+":\n"+f.lineRange(0, 400)+"\n--- End of content ---")
		w.closeObject()
		w.closeArray()
		w.array("displayContent")
		w.openObject()
		w.str("text", typed)
		w.closeObject()
	} else {
		w.openObject()
		w.str("text", text)
		w.closeObject()
	}
	w.closeArray()
	gw.endMessage()
	gw.logs = append(gw.logs, geminiLog{session: gw.sessionID, n: len(gw.logs), text: text, at: gw.clock})
	gw.set(func(w *jsonWriter) { w.str("lastUpdated", formatTimestamp(gw.clock)) })
}

func (gw *geminiWriter) turn(spawn bool) {
	r := gw.r
	gw.user(gw.topic.typedPrompt(r, gw.proj))
	if spawn {
		gw.spawnSubagent()
	}
	for range gw.agentToolRounds() {
		if gw.spent(int64(gw.out.Len())) {
			break
		}
		lead := ""
		if r.IntN(2) == 0 {
			lead = gw.topic.assistantLeadIn(r)
		}
		acts := make([]action, 1+r.IntN(2))
		for i := range acts {
			acts[i] = gw.nextGeminiAction()
		}
		gw.reply(lead, acts)
		if r.IntN(50) == 0 {
			gw.tick(time.Second, 10*time.Second)
			gw.beginMessage(newUUID(r), "info", gw.clock)
			gw.j.str("content", pick(r, []string{"Request cancelled.", "Switched to fallback model gemini-2.5-flash", "Chat history compressed from 182000 to 31000 tokens."}))
			gw.endMessage()
			return
		}
	}
	gw.reply(gw.topic.assistantAnswer(r), nil)
}

// nextGeminiAction draws a tool call the way Gemini CLI makes them, as
// real chats show: searches mostly through the shell (search_file_content
// and glob are one call in seventy there), replace with a block of the
// file (real arguments: 4 KB median), new files of a few KB.
func (gw *geminiWriter) nextGeminiAction() action {
	r := gw.r
	act := gw.nextAction()
	switch act.kind {
	case "grep", "glob":
		if r.IntN(8) > 0 && !gw.searchTools {
			act.command = gw.shellCommand(&act)
			act.description = "Search the project for " + act.pattern + "."
			act.kind = "shell"
		}
	case "shell":
		// Now and then a command prints pages: a whole test run.
		if r.IntN(25) == 0 {
			act.command, act.description = "go test -v ./...", "Run every test verbosely."
			act.output, act.exitCode = goTestVerbose(r, gw.proj.module, gw.topic, 300+r.IntN(1500)), 0
		}
	case "edit":
		gw.blockEdit(&act, 8, 160)
	case "write":
		act.content = gw.fileText(1<<10 + r.IntN(8<<10))
	}
	return act
}

// geminiOutputHead and geminiOutputTail are what Gemini CLI keeps for
// the model of a command's long output; the call's display keeps it
// whole.
const geminiOutputHead, geminiOutputTail = 8000, 32000

// modelOutput is a command's output as the model is sent it (cut at
// line ends, so that no character is split).
func (gw *geminiWriter) modelOutput(out string) string {
	if len(out) <= geminiOutputHead+geminiOutputTail {
		return out
	}
	head := out[:strings.LastIndexByte(out[:geminiOutputHead], '\n')+1]
	tail := out[len(out)-geminiOutputTail:]
	tail = tail[strings.IndexByte(tail, '\n')+1:]
	for tail != "" && !utf8.RuneStart(tail[0]) { // a tail of one long line
		tail = tail[1:]
	}
	return fmt.Sprintf("Output too large. Showing first 8,000 and last 32,000 characters. For full output see: /home/dev/.gemini/tmp/tool-outputs/session-%s/run_shell_command_%d.txt\n%s\n... [truncated] ...\n\n%s",
		gw.sessionID, gw.clock.UnixMilli(), head, tail)
}

// geminiCall is a tool call in Gemini CLI's terms.
type geminiCall struct {
	id, name, display, description string
	args                           func(w *jsonWriter)
	output                         string
	resultDisplay                  func(w *jsonWriter)
	agentID                        string
}

func (gw *geminiWriter) call(act action) geminiCall {
	r := gw.r
	c := geminiCall{output: act.output}
	switch act.kind {
	case "read":
		c.name, c.display, c.description = "read_file", "ReadFile", "Reads and returns the content of a specified file."
		c.args = func(w *jsonWriter) {
			w.str("file_path", act.path)
			if act.n > 0 {
				w.int("offset", int64(act.from-1))
				w.int("limit", int64(act.n))
			}
		}
		c.resultDisplay = func(w *jsonWriter) { w.stringValue("") }
		if act.n > 0 {
			// Gemini CLI mostly reads whole files: real read_file
			// results average 4 KB.
			c.output = gw.fileText(2<<10 + r.IntN(6<<10))
		}
	case "shell":
		c.name, c.display, c.description = "run_shell_command", "Shell", act.description
		c.args = func(w *jsonWriter) {
			w.str("command", act.command)
			w.str("description", act.description)
		}
		c.output = fmt.Sprintf("Command: %s\nDirectory: (root)\nOutput: %s\nError: (none)\nExit Code: %d\nSignal: (none)\nBackground PIDs: (none)\nProcess Group PGID: %d", act.command, gw.modelOutput(act.output), act.exitCode, 1000+r.IntN(60000))
		c.resultDisplay = func(w *jsonWriter) { w.stringValue(act.output) }
	case "grep":
		c.name, c.display, c.description = "search_file_content", "SearchText", "Searches for a regular expression pattern within the content of files."
		c.args = func(w *jsonWriter) { w.str("pattern", act.pattern) }
		c.output = fmt.Sprintf("Found %d matches for pattern %q in the workspace directory:\n---\n%s---", strings.Count(act.output, "\n"), act.pattern, act.output)
		c.resultDisplay = func(w *jsonWriter) { w.stringValue(fmt.Sprintf("Found %d matches", strings.Count(act.output, "\n"))) }
	case "glob":
		c.name, c.display, c.description = "glob", "FindFiles", "Finds files matching specific glob patterns."
		c.args = func(w *jsonWriter) { w.str("pattern", act.pattern) }
		c.output = fmt.Sprintf("Found %d file(s) matching %q, sorted by modification time (newest first):\n%s", strings.Count(act.output, "\n")+1, act.pattern, act.output)
		c.resultDisplay = func(w *jsonWriter) {
			w.stringValue(fmt.Sprintf("Found %d matching file(s)", strings.Count(act.output, "\n")+1))
		}
	case "edit", "write":
		if act.kind == "edit" {
			c.name, c.display, c.description = "replace", "Edit", "Replaces text within a file."
			c.args = func(w *jsonWriter) {
				w.str("file_path", act.path)
				w.str("old_string", act.oldText)
				w.str("new_string", act.newText)
			}
			c.output = "Successfully modified file: " + act.path + " (1 replacements)."
		} else {
			c.name, c.display, c.description = "write_file", "WriteFile", "Writes content to a specified file in the local filesystem."
			c.args = func(w *jsonWriter) {
				w.str("file_path", act.path)
				w.str("content", act.content)
			}
			c.output = "Successfully created and wrote to new file: " + act.path + "."
		}
		diff := gw.patchText(&act)
		original, updated := gw.fileContents(act)
		c.resultDisplay = func(w *jsonWriter) {
			w.openObject()
			w.str("fileDiff", diff)
			w.str("fileName", path.Base(act.path))
			w.str("originalContent", original)
			w.str("newContent", updated)
			w.closeObject()
		}
	default:
		c.name, c.display, c.description = "write_todos", "WriteTodos", "Lists out the subtasks required to complete a user request."
		c.args = func(w *jsonWriter) {
			w.array("todos")
			for i, t := range act.todos {
				w.openObject()
				w.str("description", t)
				w.str("status", []string{"completed", "in_progress", "pending"}[min(i, 2)])
				w.closeObject()
			}
			w.closeArray()
		}
		// Real results repeat the list, and the display holds it.
		var list strings.Builder
		list.WriteString("Successfully updated the todo list. The current list is now:")
		for i, t := range act.todos {
			fmt.Fprintf(&list, "\n%d. [%s] %s", i+1, []string{"completed", "in_progress", "pending"}[min(i, 2)], t)
		}
		c.output = list.String()
		c.resultDisplay = func(w *jsonWriter) {
			w.openObject()
			c.args(w)
			w.closeObject()
		}
	}
	c.description += gw.toolManual(c.name)
	c.id = c.name + "-" + strconv.FormatInt(gw.clock.UnixMilli(), 10) + "-" + randomHex(r, 12)
	return c
}

// toolManual is the rest of a tool's description, which Gemini CLI
// records with every call: real ones run from a line (write_file) to
// about 1 KB (run_shell_command), 2 KB (replace) and 5 KB (write_todos).
func (gw *geminiWriter) toolManual(name string) string {
	if m, ok := gw.manuals[name]; ok {
		return m
	}
	size := 0
	switch name {
	case "run_shell_command":
		size = 900
	case "read_file":
		size = 400
	case "replace":
		size = 2000
	case "write_todos":
		size = 4800
	}
	m := ""
	if size > 0 {
		m = "\n\n" + gw.instructionText(size)
	}
	if gw.manuals == nil {
		gw.manuals = map[string]string{}
	}
	gw.manuals[name] = m
	return m
}

// fileContents is the whole file before and after an edit, which Gemini
// CLI keeps in the call's display (real replace and write_file displays
// average 9–11 KB).
func (gw *geminiWriter) fileContents(act action) (original, updated string) {
	original = gw.fileText(4<<10 + gw.r.IntN(12<<10))
	if act.kind == "write" {
		return "", act.content
	}
	return original, strings.Replace(original, "\n", "\n"+act.newText+"\n", 1)
}

// reply writes a gemini message: first as it streamed in (its text, no
// tokens yet), then, when it called tools or is long, again whole with
// its tokens and its tool calls run.
func (gw *geminiWriter) reply(text string, acts []action) {
	r := gw.r
	gw.tick(time.Second, 15*time.Second)
	id := newUUID(r)
	at := gw.clock
	// Real gemini messages carry about 900 bytes of thoughts each.
	var thoughts []string
	for range 1 + r.IntN(3) {
		thoughts = append(thoughts, gw.topic.thinkingText(r))
	}
	calls := make([]geminiCall, len(acts))
	for i := range acts {
		calls[i] = gw.call(acts[i])
	}
	write := func(content string, final bool) {
		gw.beginMessage(id, "gemini", at)
		w := &gw.j
		w.str("content", content)
		w.array("thoughts")
		for _, t := range thoughts {
			w.openObject()
			w.str("subject", "Considering "+gw.topic.ident(r))
			w.str("description", t)
			w.str("timestamp", formatTimestamp(at.Add(-time.Second)))
			w.closeObject()
		}
		w.closeArray()
		if !final {
			w.null("tokens")
		} else {
			in := int64(3000 + r.IntN(90000))
			out := int64(20 + r.IntN(2000))
			th := int64(r.IntN(800))
			w.object("tokens")
			w.int("input", in)
			w.int("output", out)
			w.int("cached", in*int64(r.IntN(80))/100)
			w.int("thoughts", th)
			w.int("tool", 0)
			w.int("total", in+out+th)
			w.closeObject()
		}
		w.str("model", gw.model)
		if final && len(calls) > 0 {
			gw.toolCalls(calls, true)
		}
		gw.endMessage()
	}
	switch {
	case len(calls) > 0:
		write(text, false)
		write(text, true)
	case len(text) > 600 && r.IntN(3) == 0:
		write(truncateRunes(text, len(text)/2), false)
		write(text, true)
	default:
		write(text, true)
	}
}

// spawnSubagent writes a tool call that ran a subagent, whose own chat
// goes into chats/<this session's id>/.
func (gw *geminiWriter) spawnSubagent() {
	r := gw.r
	subID := newUUID(r)
	objective := "Investigate how " + gw.topic.ident(r) + " is used and report the relevant files. " + gw.topic.sentence(r)
	gw.tick(time.Second, 5*time.Second)
	sub := newGeminiWriter(&agentBase{r: r, topic: gw.topic, proj: gw.proj, clock: gw.clock, tools: gw.tools}, subID)
	sub.model = gw.model
	sub.metadata("subagent", gw.clock)
	sub.user(objective)
	for range 1 + r.IntN(4) {
		sub.reply("", []action{sub.nextGeminiAction()})
	}
	report := sub.topic.assistantAnswer(r)
	sub.reply(report, nil)
	sub.set(func(w *jsonWriter) { w.str("summary", truncateRunes(report, 80)) })
	sub.logs = nil
	gw.subagent = sub
	gw.clock = sub.clock
	c := geminiCall{
		id: "codebase_investigator-" + strconv.FormatInt(gw.clock.UnixMilli(), 10) + "-" + randomHex(r, 12), name: "codebase_investigator",
		display: "Codebase Investigator Agent", description: "Investigates the codebase.",
		args:          func(w *jsonWriter) { w.str("objective", objective) },
		output:        "Subagent 'codebase_investigator' finished.\nTermination Reason: GOAL\nResult:\n" + report,
		resultDisplay: func(w *jsonWriter) { w.stringValue("Subagent codebase_investigator finished") },
		agentID:       subID,
	}
	gw.replyCalls([]geminiCall{c})
}

// replyCalls writes a gemini message holding ready-made tool calls.
func (gw *geminiWriter) replyCalls(calls []geminiCall) {
	id := newUUID(gw.r)
	gw.beginMessage(id, "gemini", gw.clock)
	w := &gw.j
	w.str("content", "")
	w.str("model", gw.model)
	gw.toolCalls(calls, false)
	gw.endMessage()
}

// toolCalls writes a message's toolCalls, each as it ended; tick moves
// the clock between them (calls run one after another).
func (gw *geminiWriter) toolCalls(calls []geminiCall, tick bool) {
	w := &gw.j
	w.array("toolCalls")
	for _, c := range calls {
		if tick {
			gw.tick(200*time.Millisecond, 8*time.Second)
		}
		w.openObject()
		w.str("id", c.id)
		w.str("name", c.name)
		w.object("args")
		c.args(w)
		w.closeObject()
		w.array("result")
		w.openObject()
		w.object("functionResponse")
		w.str("id", c.id)
		w.str("name", c.name)
		w.object("response")
		w.str("output", c.output)
		w.closeObject()
		w.closeObject()
		w.closeObject()
		w.closeArray()
		w.str("status", "success")
		w.str("timestamp", formatTimestamp(gw.clock))
		w.key("resultDisplay")
		c.resultDisplay(w)
		w.str("displayName", c.display)
		w.str("description", c.description)
		w.bool("renderOutputAsMarkdown", c.name != "run_shell_command")
		if c.agentID != "" {
			w.str("agentId", c.agentID)
		}
		w.closeObject()
	}
	w.closeArray()
}
