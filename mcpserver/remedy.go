package mcpserver

import (
	"fmt"
	"strings"

	"github.com/recall-dev/recall/internal/problem"
)

// agentWording says a problem's remedy to the agent calling a tool. The
// agent does not run recall's index itself: the server updates the index
// before each call, and a repair or a restored file is the user's to do,
// so the commands are named as what to ask the user for.
func agentWording(p problem.Problem) string {
	switch p.Remedy {
	case problem.Index:
		return "; recall's next index update " + p.Mends + " (the user can run `recall index` for it now)"
	case problem.Repair:
		return "; the index needs a repair, which " + p.Mends + ": the user should run `recall index --repair` in a shell"
	case problem.RestoreTombstone:
		return "; recall indexes nothing until the user restores it from a backup, or removes it and runs `recall forget` again"
	}
	return ""
}

// agentError is err with its remedy worded for the agent; errors.Is and
// errors.As still see err.
func agentError(err error) error {
	if p, ok := problem.Find(err); ok && p.Remedy != problem.None {
		return fmt.Errorf("%w%s", err, agentWording(p))
	}
	return err
}

// parameterNames replaces the CLI flags request errors name (package
// search words them for the shell) by the tool parameters the agent
// gave instead.
func parameterNames() *strings.Replacer {
	return strings.NewReplacer(
		"-n/--sessions", "limit",
		"-C/--context", "context",
		"-m/--messages", "messages",
		"--project", "project",
		"--require", "require",
		"--exclude", "exclude",
		"--scope", "scope",
		"--agent", "agent",
		"--since", "since",
		"--until", "until",
		"--query", "query",
		"--full", "full=true",
	)
}

// inParameters is a request error worded with the tool's parameter
// names rather than the CLI's flags; errors.Is still sees err.
func inParameters(err error) error {
	if err == nil {
		return nil
	}
	said := parameterNames().Replace(err.Error())
	if said == err.Error() {
		return err
	}
	return wordedError{said: said, err: err}
}

// wordedError is err said otherwise.
type wordedError struct {
	said string
	err  error
}

func (e wordedError) Error() string { return e.said }
func (e wordedError) Unwrap() error { return e.err }
