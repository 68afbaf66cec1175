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
	aiderMedianBytes = 4 << 10
	aiderHistoryName = ".aider.chat.history.md"
)

var aiderModels = []string{
	"anthropic/claude-sonnet-4-20250514", "anthropic/claude-sonnet-4-20250514", "gpt-4.1",
	"deepseek/deepseek-chat", "gemini/gemini-2.5-pro", "openrouter/anthropic/claude-3.7-sonnet",
}

var aiderVersions = []string{"v0.82.2", "v0.84.0", "v0.85.1", "v0.86.1"}

func writeAider(c *agentContext, dir string, budget int64) (AgentSummary, error) {
	specs := planAgentSessions(c, agentShape{salt: saltAider, median: aiderMedianBytes, written: 1.08}, budget)
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
	cost := 0.0
	for turns := 0; keepGoing(turns, int64(aw.out.Len()), 0, spec.budget); turns++ {
		aw.tick(30*time.Second, 20*time.Minute)
		if r.IntN(8) == 0 {
			aw.command()
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

// command writes one of Aider's commands a person types between prompts.
func (aw *aiderWriter) command() {
	r := aw.r
	switch r.IntN(4) {
	case 0:
		f := aw.topic.file(r).path
		aw.prompt("/add " + f)
		aw.quoted("Added " + f + " to the chat")
	case 1:
		pkg := "./" + aw.topic.pkg.dir + "/..."
		aw.prompt("/run go test " + pkg)
		aw.quoted(fmt.Sprintf("Add %.1fk tokens of command output to the chat? (Y)es/(N)o [Yes]: %s", 0.1+4*r.Float64(), pick(r, []string{"y", "n"})))
	case 2:
		aw.prompt("/drop")
		aw.quoted("Dropping all files from the chat session.")
	default:
		aw.prompt("/clear")
	}
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
	aw.reply(reply.String())
	sent := 2 + 30*r.Float64()
	cost := sent * 0.003
	aw.out.WriteString(fmt.Sprintf("> Tokens: %.1fk sent, %d received.\nCost: $%.2f message, $%.2f session.  \n", sent, 20+r.IntN(2000), cost, sessionCost+cost))
	for _, f := range applied {
		aw.quoted("Applied edit to " + f)
	}
	if len(applied) > 0 && r.IntN(3) > 0 {
		aw.quoted("Commit " + randomHex(r, 7) + " " + pick(r, []string{"fix", "feat", "refactor", "test"}) + ": " + truncateRunes(lowerFirst(aw.topic.sentence(r)), 60))
		aw.quoted("You can use /undo to undo and discard each aider commit.")
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
