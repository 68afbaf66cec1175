package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/recall-dev/recall/search/show"
	"github.com/recall-dev/recall/transcript/agents"

	"github.com/recall-dev/recall/store/manifest"
	"github.com/recall-dev/recall/store/snapshot"

	"github.com/recall-dev/recall/claude"
	"github.com/recall-dev/recall/record"
	"github.com/recall-dev/recall/render"
)

type resumeCmd struct {
	Session string `arg:"" name:"session" help:"Session id (a unique prefix is enough) or transcript path."`
	Exec    bool   `help:"Run the command instead of printing it in the session's project directory: claude --resume (or codex resume, gemini --resume, opencode -s for their sessions)."`
}

// Run prints `cd <project> && claude --resume <id>`, the way Claude Code
// reopens a session: it looks transcripts up from the directory it runs
// in. With --exec it runs claude there itself.
func (c *resumeCmd) Run(g *Globals) error {
	cfg, err := g.config()
	if err != nil {
		return err
	}
	m, snap, err := openIndex(cfg)
	if err != nil {
		return err
	}
	defer snap.Close()
	id, err := show.SessionOf(m, snap, c.Session)
	if errors.Is(err, manifest.ErrNoSession) {
		return notFoundError{fmt.Errorf("%w (`recall sessions` lists them)", err)}
	}
	if err != nil {
		return err
	}
	if agent, project, file, ok := otherAgentSession(m, snap, id); ok {
		return c.resumeOther(g, agent, project, file, id)
	}
	project, err := resumable(m, id)
	var moved movedError
	if errors.As(err, &moved) && !c.Exec {
		// The command is still the one to run, once the directory is
		// back (checked out again, or moved back): print it, and why
		// it fails as it is.
		fmt.Fprintln(g.env.stdout, render.Safe(resumeCommand(project, id)))
		fmt.Fprintln(g.env.stderr, "recall:", err)
		return nil
	}
	if err != nil {
		return err
	}
	if !c.Exec {
		// Safe: a project path or id holding a control character could
		// not be resumed anyway, and must not reach the terminal.
		fmt.Fprintln(g.env.stdout, render.Safe(resumeCommand(project, id)))
		return nil
	}
	return runClaudeResume(g, project, id)
}

// resumeOther prints (or runs, with --exec) another agent's command that
// reopens session id, in its project directory: `codex resume <id>`,
// `gemini --resume <id>`, `opencode -s <id>`.
func (c *resumeCmd) resumeOther(g *Globals, agent, project, file, id string) error {
	a, ok := agents.Lookup(agent)
	if !ok {
		return fmt.Errorf("session %s is of an agent this recall does not know (%s)", render.Safe(id), render.Safe(agent))
	}
	if a.Reopens != nil && file != "" {
		if err := a.Reopens(file); err != nil {
			return fmt.Errorf("session %s: %s; `recall show %s --full` prints it", render.Safe(id), render.Safe(err.Error()), render.Safe(id))
		}
	}
	argvs := a.Resume(id, file)
	command := shellCommands(argvs)
	if project == "" {
		// The session file named no working directory (an old Codex
		// rollout, a Gemini chat of a project it no longer maps): the
		// command, and where it should run is for the user to say.
		fmt.Fprintln(g.env.stdout, render.Safe(command))
		fmt.Fprintf(g.env.stderr, "recall: session %s names no project directory; run that in it\n", render.Safe(id))
		if c.Exec {
			return exitStatus(1)
		}
		return nil
	}
	line := "cd " + claude.ShellQuote(project) + " && " + command
	info, err := os.Stat(project)
	if err != nil || !info.IsDir() {
		fmt.Fprintln(g.env.stdout, render.Safe(line))
		fmt.Fprintf(g.env.stderr, "recall: session %s: its project directory %s no longer exists; %s must run there\n", render.Safe(id), render.Safe(project), a.Name)
		if c.Exec {
			return exitStatus(1)
		}
		return nil
	}
	if !c.Exec {
		fmt.Fprintln(g.env.stdout, render.Safe(line))
		return nil
	}
	for _, argv := range argvs {
		if err := runIn(g, project, argv, line); err != nil {
			return err
		}
	}
	return nil
}

// shellCommands is argvs as one shell line: each quoted, joined by &&.
func shellCommands(argvs [][]string) string {
	var cmds []string
	for _, argv := range argvs {
		words := make([]string, len(argv))
		for i, arg := range argv {
			words[i] = claude.ShellQuote(arg)
		}
		cmds = append(cmds, strings.Join(words, " "))
	}
	return strings.Join(cmds, " && ")
}

// otherAgentSession says whether session id is another agent's than
// Claude Code's, and its agent, project and session file: from its
// session file's entry when the manifest knows it, else from its rows
// (a session of a file that holds many, whose entry names only the
// last; file is then the one its first prompt came from).
func otherAgentSession(m *manifest.Manifest, snap *snapshot.Snapshot, id string) (agent, project, file string, ok bool) {
	if files := m.SessionFiles()[id]; len(files) > 0 {
		agent = record.KindAgent(files[0].Kind)
		return agent, files[0].Project, files[0].Path, agent != record.AgentClaude
	}
	sums, err := snap.SessionSummaries()
	if err != nil {
		return "", "", "", false
	}
	for i := range sums {
		if sums[i].ID == id {
			agent = record.AgentOf(sums[i].Agent)
			one := sums[i : i+1]
			_ = snap.FillFirstPrompts(one) // a failure leaves Source "": no file to judge
			return agent, one[0].Project, one[0].Source, agent != record.AgentClaude
		}
	}
	return "", "", "", false
}

// resumeCommand is the shell command that reopens session id: in its
// project, or alone when that is not known.
func resumeCommand(project, id string) string {
	if project == "" {
		return "claude --resume " + claude.ShellQuote(id)
	}
	return fmt.Sprintf("cd %s && claude --resume %s", claude.ShellQuote(project), claude.ShellQuote(id))
}

// resumable returns the project directory to resume session id from, or
// why Claude Code cannot reopen it.
func resumable(m *manifest.Manifest, id string) (string, error) {
	files := m.SessionFiles()[id]
	if len(files) == 0 {
		return "", fmt.Errorf("session %s has no indexed transcript", render.Safe(id))
	}
	main := files[0]
	if main.Kind != record.KindMain {
		return "", fmt.Errorf("session %s: only its subagents' transcripts were indexed; claude --resume needs the main one", render.Safe(id))
	}
	if _, err := os.Stat(main.Path); main.Gone || err != nil {
		return "", fmt.Errorf("session %s: its transcript %s is gone (Claude Code deletes them after 30 days), so claude --resume cannot reopen it; `recall show %s --full` prints it from the index",
			render.Safe(id), render.Safe(main.Path), render.Safe(id))
	}
	if main.Project == "" {
		// A transcript of title records only names no working directory.
		return "", movedError{fmt.Errorf("session %s: its transcript names no project directory: run the command in the session's project", render.Safe(id))}
	}
	if info, err := os.Stat(main.Project); err != nil || !info.IsDir() {
		return main.Project, movedError{fmt.Errorf("session %s: its project directory %s no longer exists; claude --resume must run there, so recreate it (or check the project out there again) first", render.Safe(id), render.Safe(main.Project))}
	}
	return main.Project, nil
}

// movedError is a session whose project directory is gone (or unknown):
// the resume command is right, but cannot run until the directory is
// back (or from where it is not known).
type movedError struct{ error }

// runClaudeResume runs claude --resume in project on recall's own
// terminal and passes its exit status on.
func runClaudeResume(g *Globals, project, id string) error {
	return runIn(g, project, []string{"claude", "--resume", id}, resumeCommand(project, id))
}

// runIn runs argv in dir on recall's own terminal and passes its exit
// status on; line is the shell command to give when argv[0] is not on
// PATH.
func runIn(g *Globals, dir string, argv []string, line string) error {
	bin, err := exec.LookPath(argv[0])
	if err != nil {
		return fmt.Errorf("%s is not on PATH: run `%s` where it is", argv[0], render.Safe(line))
	}
	cmd := exec.Command(bin, argv[1:]...)
	cmd.Dir, cmd.Stdin, cmd.Stdout, cmd.Stderr = dir, g.env.stdin, g.env.stdout, g.env.stderr
	err = cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exitStatus(exit.ExitCode())
	}
	if err != nil {
		return fmt.Errorf("run %s: %w", strings.Join(argv[:min(len(argv), 2)], " "), err)
	}
	return nil
}
