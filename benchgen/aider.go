package benchgen

import (
	"bytes"
	"cmp"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Aider keeps one markdown history per project, <project>/.aider.chat.
// history.md, which every run appends to (aider/io.py): a "# aider chat
// started at <local time>" header, Aider's own output quoted "> … ",
// prompts as "#### <line>  " lines, replies as plain markdown with their
// SEARCH/REPLACE edit blocks.

const (
	// Real histories hold many short sessions (a chat started to ask one
	// thing, or stopped at once): 3.8 KB a session on average.
	aiderMedianBytes = 3 << 10
	aiderHistoryName = ".aider.chat.history.md"
	// aiderBannerOnlyShare is the runs that end before a prompt (aider
	// --commit or --lint, a run quit at once): two in five in real
	// histories.
	aiderBannerOnlyShare = 0.4
)

var aiderModels = []string{
	"anthropic/claude-sonnet-4-20250514", "anthropic/claude-sonnet-4-20250514", "gpt-4.1",
	"deepseek/deepseek-chat", "gemini/gemini-2.5-pro", "openrouter/anthropic/claude-3.7-sonnet",
}

var aiderVersions = []string{"v0.82.2", "v0.84.0", "v0.85.1", "v0.86.1"}

func writeAider(c *agentContext, dir string, budget int64) (AgentSummary, error) {
	specs := planAgentSessions(c, agentShape{salt: saltAider, median: aiderMedianBytes, written: 0.75, least: 2 << 10}, budget)
	texts := make([][]byte, len(specs))
	err := forEachIndex(len(specs), c.workers, func(i int) error {
		texts[i] = aiderSession(c, &specs[i])
		return nil
	})
	if err != nil {
		return AgentSummary{}, err
	}
	// A project's history holds its sessions in the order they ran.
	byProject := map[int][]int{}
	for i := range specs {
		byProject[specs[i].project] = append(byProject[specs[i].project], i)
	}
	s := AgentSummary{Projects: distinctProjects(specs)}
	for p := range c.projects {
		sessions := byProject[p]
		if len(sessions) == 0 {
			continue
		}
		slices.SortStableFunc(sessions, func(a, b int) int { return cmp.Compare(specs[a].start.UnixNano(), specs[b].start.UnixNano()) })
		var b bytes.Buffer
		for _, i := range sessions {
			b.Write(texts[i])
		}
		n, err := writeSmallFile(filepath.Join(dir, aiderFolder(&c.projects[p]), aiderHistoryName), b.Bytes())
		if err != nil {
			return s, err
		}
		s.Files++
		s.Bytes += n
		s.Sessions += len(sessions)
	}
	return s, nil
}

// aiderFolder is a project's folder under aider/: its name.
func aiderFolder(p *project) string { return p.name }

// aiderWriter writes one session of a history.
type aiderWriter struct {
	*agentBase
	model string
}

// quoted writes Aider's own output: the first line quoted, any others
// bare, the last ending in the two spaces of a markdown line break.
func (aw *aiderWriter) quoted(text string) {
	aw.out.WriteString("> " + strings.TrimSpace(text) + "  \n")
}

// quotedLines writes output Aider prints line by line (lint and test
// output, errors), every line quoted.
func (aw *aiderWriter) quotedLines(text string) {
	for line := range strings.Lines(strings.TrimRight(text, "\n")) {
		line = strings.TrimRight(line, " \t\n")
		if line == "" {
			aw.out.WriteString(">  \n")
			continue
		}
		aw.out.WriteString("> " + line + "  \n")
	}
}

func (aw *aiderWriter) prompt(text string) {
	aw.out.WriteString("\n")
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	for _, line := range lines {
		aw.out.WriteString("#### " + strings.TrimRight(line, " \t") + "  \n")
	}
}

func (aw *aiderWriter) reply(text string) {
	aw.out.WriteString("\n" + strings.TrimSpace(text) + "\n\n")
}

func aiderSession(c *agentContext, spec *agentSession) []byte {
	r := spec.rand(c.seed)
	proj := &c.projects[spec.project]
	aw := &aiderWriter{agentBase: newAgentBase(c.text, r, proj, spec.start)}
	aw.model = pick(r, aiderModels)
	var added []string
	for range r.IntN(4) {
		added = append(added, aw.topic.file(r).path)
	}
	fmt.Fprintf(&aw.out, "\n# aider chat started at %s\n\n", spec.start.UTC().Format("2006-01-02 15:04:05"))
	cmdline := "/home/dev/.local/bin/aider"
	if r.IntN(3) == 0 {
		cmdline += " --model " + strings.TrimPrefix(aw.model, "anthropic/")
	}
	if len(added) > 0 {
		cmdline += " " + strings.Join(added, " ")
	}
	aw.quoted(cmdline)
	aw.quoted("Aider " + pick(r, aiderVersions))
	aw.quoted("Main model: " + aw.model + " with diff edit format, infinite output")
	if r.IntN(2) == 0 {
		aw.quoted("Weak model: anthropic/claude-3-5-haiku-20241022")
	}
	aw.quoted(fmt.Sprintf("Git repo: .git with %d files", 40+r.IntN(3000)))
	aw.quoted("Repo-map: using 4096 tokens, auto refresh")
	for _, f := range added {
		aw.quoted("Added " + f + " to the chat.")
	}
	aw.quoted(`Use /help <question> for help, run "aider --help" to see cmd line args`)
	if r.Float64() < aiderBannerOnlyShare {
		aw.endBeforePrompt()
		return aw.out.Bytes()
	}
	cost := 0.0
	for turns := 0; keepGoing(turns, int64(aw.out.Len()), 0, spec.budget); turns++ {
		aw.tick(30*time.Second, 20*time.Minute)
		// Real histories hold about as many commands as prompts.
		if r.IntN(3) > 0 {
			aw.command()
		}
		if r.IntN(50) == 0 {
			cost += aw.help(cost)
			continue
		}
		aw.prompt(aw.topic.typedPrompt(r, proj))
		cost += aw.answer(cost)
	}
	switch r.IntN(3) {
	case 0:
		aw.prompt("/exit")
	case 1:
		aw.quoted("^C again to exit")
		aw.quoted("^C KeyboardInterrupt")
	}
	return aw.out.Bytes()
}

// help writes a /help question: the question, the prompt Aider writes
// for it (the question and the docs it retrieved: 9–15 KB, 6% of a
// real history's bytes), and the answer; it returns the answer's cost.
func (aw *aiderWriter) help(sessionCost float64) float64 {
	r := aw.r
	question := "how do I " + lowerFirst(aw.topic.sentence(r))
	aw.prompt("/help " + question)
	var b strings.Builder
	b.WriteString("# Question: " + question + "\n\n# Relevant docs:\n")
	for size := 8<<10 + r.IntN(8<<10); b.Len() < size; {
		b.WriteString("\n<doc>\n" + aw.instructionText(500+r.IntN(1500)) + "\n</doc>\n")
	}
	aw.prompt(b.String())
	aw.tick(5*time.Second, time.Minute)
	aw.reply(aw.topic.assistantAnswer(r))
	return aw.costLine(sessionCost)
}

// costLine writes the tokens and cost of a reply and returns its cost.
func (aw *aiderWriter) costLine(sessionCost float64) float64 {
	r := aw.r
	sent := 2 + 30*r.Float64()
	cost := sent * 0.003
	aw.out.WriteString(fmt.Sprintf("> Tokens: %.1fk sent, %d received.\nCost: $%.2f message, $%.2f session.  \n", sent, 20+r.IntN(2000), cost, sessionCost+cost))
	return cost
}

// endBeforePrompt ends a run that had no prompt: quit at once, a commit
// of what was pending, or a lint run's report.
func (aw *aiderWriter) endBeforePrompt() {
	r := aw.r
	switch r.IntN(4) {
	case 0:
		aw.quoted("^C again to exit")
		aw.quoted("^C KeyboardInterrupt")
	case 1:
		aw.quoted("Commit " + randomHex(r, 7) + " " + pick(r, []string{"fix", "feat", "refactor", "chore"}) + ": " + truncateRunes(lowerFirst(aw.topic.sentence(r)), 60))
	case 2:
		aw.lintReport(aw.topic.file(r))
	default:
		aw.prompt("/exit")
	}
}

// lintReport writes what Aider's linter prints for a file it finds
// errors in: the lines around them, marked.
func (aw *aiderWriter) lintReport(f *sourceFile) {
	r := aw.r
	var b strings.Builder
	b.WriteString("# Fix any errors below, if possible.\n\n## See relevant lines below marked with █.\n\n" + f.path + ":\n")
	for range 1 + r.IntN(3) {
		at := r.IntN(max(1, f.numLines()-8))
		b.WriteString("...⋮...\n")
		for i := at; i < min(at+7, f.numLines()); i++ {
			mark := "│"
			if i == at+3 {
				mark = "█"
			}
			fmt.Fprintf(&b, "%3d%s%s\n", i+1, mark, f.lineRange(i, i+1))
		}
	}
	b.WriteString("...⋮...\n")
	aw.quotedLines(b.String())
}

// apiRetries writes the errors of a model request Aider retried (real
// histories: a retry every thirteen replies, and about as many errors
// and tracebacks of other kinds, which these stand for too).
func (aw *aiderWriter) apiRetries() {
	r := aw.r
	delay := 0.125
	for range 1 + r.IntN(4) {
		delay *= 2
		aw.quotedLines(fmt.Sprintf("litellm.InternalServerError: AnthropicException - {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}. Handle with `litellm.InternalServerError`.\n"+
			"The API provider's servers are down or overloaded.\nRetrying in %g seconds...", delay))
	}
}

// editFailure writes Aider's report of an edit block that matched
// nothing in its file: the block again and the lines it may have meant.
func (aw *aiderWriter) editFailure(rel string) {
	r := aw.r
	f := aw.topic.file(r)
	n := 6 + r.IntN(30)
	from := r.IntN(max(1, f.numLines()-n))
	search := f.lineRange(from, from+n)
	near := f.lineRange(from+1, from+n+1)
	aw.quotedLines("The LLM did not conform to the edit format.\nhttps://aider.chat/docs/troubleshooting/edit-errors.html\n# 1 SEARCH/REPLACE block failed to match!\n\n" +
		"## SearchReplaceNoExactMatch: This SEARCH block failed to exactly match lines in " + rel + "\n<<<<<<< SEARCH\n" + search + "\n=======\n\t// " + aw.topic.sentence(r) + "\n" + search + "\n>>>>>>> REPLACE\n\n" +
		"Did you mean to match some of these actual lines from " + rel + "?\n\n```\n" + near + "\n```\n\n" +
		"The SEARCH section must exactly match an existing block of lines including all white space, comments, indentation, docstrings, etc")
}

// command writes one of Aider's commands a person types between prompts.
func (aw *aiderWriter) command() {
	r := aw.r
	switch r.IntN(6) {
	case 0:
		f := aw.topic.file(r).path
		aw.prompt("/add " + f)
		aw.quoted("Added " + f + " to the chat")
	case 1:
		pkg := "./" + aw.topic.pkg.dir + "/..."
		aw.prompt("/run go test " + pkg)
		switch r.IntN(4) {
		case 0:
			aw.quotedLines(goTestOK(r, aw.proj.module, aw.topic))
		case 1:
			aw.quotedLines(goTestFailure(r, aw.topic, aw.proj.module, aw.topic.ident(r)))
		case 2:
			aw.quotedLines(goPanic(r, aw.topic, aw.proj.module))
		default:
			aw.quotedLines(goTestVerbose(r, aw.proj.module, aw.topic, 10+r.IntN(120)))
		}
		aw.quoted(fmt.Sprintf("Add %.1fk tokens of command output to the chat? (Y)es/(N)o [Yes]: %s", 0.1+4*r.Float64(), pick(r, []string{"y", "n"})))
	case 2:
		aw.prompt("/drop")
		aw.quoted("Dropping all files from the chat session.")
	case 3:
		aw.prompt("/undo")
		aw.quoted("Removed: " + randomHex(r, 7) + " fix: " + truncateRunes(lowerFirst(aw.topic.sentence(r)), 60))
		aw.quoted("Now at:  " + randomHex(r, 7) + " feat: " + truncateRunes(lowerFirst(aw.topic.sentence(r)), 60))
		aw.quoted("You can use /undo to undo and discard each aider commit.")
	case 4:
		aw.prompt("/tokens")
		aw.tokensReport()
	default:
		aw.prompt("/clear")
	}
}

// tokensReport is what /tokens prints: the context window's use.
func (aw *aiderWriter) tokensReport() {
	r := aw.r
	var b strings.Builder
	fmt.Fprintf(&b, "Approximate context window usage for %s, in tokens:\n", aw.model)
	total := 0
	row := func(n int, what string) {
		total += n
		fmt.Fprintf(&b, "$ %.4f %8d %s\n", float64(n)*3e-6, n, what)
	}
	row(1000+r.IntN(2000), "system messages")
	row(r.IntN(20000), "chat history                          use /clear to clear")
	row(1000+r.IntN(8000), "repository map                        use --map-tokens to resize")
	for range r.IntN(5) {
		row(200+r.IntN(9000), fmt.Sprintf("%-37s use /drop to drop from chat", aw.rel(aw.proj.cwd+"/"+aw.topic.file(r).path)))
	}
	fmt.Fprintf(&b, "==================\n$ %.4f %8d tokens total\n%d tokens remaining in context window\n200,000 tokens max context window size", float64(total)*3e-6, total, 200000-total)
	aw.quotedLines(b.String())
}

// answer writes the model's reply to a prompt and what Aider did with
// it; it returns the reply's cost.
func (aw *aiderWriter) answer(sessionCost float64) float64 {
	r := aw.r
	var reply strings.Builder
	var applied []string
	var run []string
	var asked []string
	rounds := aw.toolRounds()
	if rounds > 0 {
		reply.WriteString(aw.topic.assistantLeadIn(r) + "\n\n")
	}
	for range min(rounds, 6) {
		act := aw.nextAction()
		switch act.kind {
		case "edit", "write":
			if act.kind == "edit" {
				// A SEARCH block holds enough context to match once:
				// real replies average 2.3 KB.
				aw.blockEdit(&act, 4, 40)
			}
			old, repl := act.oldText, act.newText
			if act.kind == "write" {
				old, repl = "", act.content
			}
			if strings.Contains(old, "```") || strings.Contains(repl, "```") {
				continue
			}
			rel := aw.rel(act.path)
			fmt.Fprintf(&reply, "%s\n```go\n<<<<<<< SEARCH\n%s\n=======\n%s\n>>>>>>> REPLACE\n```\n\n", rel, strings.TrimRight(old, "\n"), strings.TrimRight(repl, "\n"))
			applied = append(applied, rel)
		case "shell":
			if len(run) == 0 && !strings.Contains(act.command, "```") {
				run = append(run, act.command)
			}
		case "read":
			asked = append(asked, aw.rel(act.path))
		}
	}
	if len(asked) > 0 && len(applied) == 0 {
		reply.WriteString("To make this change I need to see " + strings.Join(asked, ", ") + ". Please add them to the chat.")
	} else {
		reply.WriteString(aw.topic.assistantAnswer(r))
	}
	if len(run) > 0 {
		reply.WriteString("\n\nYou can check the change with:\n\n```bash\n" + run[0] + "\n```")
	}
	aw.tick(5*time.Second, 2*time.Minute)
	if r.IntN(7) == 0 {
		aw.apiRetries()
	}
	aw.reply(reply.String())
	cost := aw.costLine(sessionCost)
	if len(applied) > 0 && r.IntN(8) == 0 {
		aw.editFailure(applied[len(applied)-1])
		applied = applied[:len(applied)-1]
	}
	for _, f := range applied {
		aw.quoted("Applied edit to " + f)
	}
	if len(applied) > 0 && r.IntN(3) > 0 {
		aw.quoted("Commit " + randomHex(r, 7) + " " + pick(r, []string{"fix", "feat", "refactor", "test"}) + ": " + truncateRunes(lowerFirst(aw.topic.sentence(r)), 60))
		aw.quoted("You can use /undo to undo and discard each aider commit.")
	}
	if len(applied) > 0 && r.IntN(3) == 0 { // the edited files linted
		aw.lintReport(aw.topic.file(r))
		aw.quoted("Attempt to fix lint errors? (Y)es/(N)o [Yes]: n")
	}
	for _, f := range asked {
		if len(applied) == 0 {
			aw.quoted(f)
			aw.quoted("Add file to the chat? (Y)es/(N)o/(A)ll/(S)kip all/(D)on't ask again [Yes]: y")
		}
	}
	if len(run) > 0 {
		aw.quoted(run[0])
		aw.quoted("Run shell command? (Y)es/(N)o/(D)on't ask again [Yes]: y")
		aw.quoted("Running " + run[0])
		aw.quoted("Add command output to the chat? (Y)es/(N)o/(D)on't ask again [Yes]: " + pick(aw.r, []string{"y", "n"}))
	}
	return cost
}
