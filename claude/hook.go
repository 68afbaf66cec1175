package claude

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/recall-dev/recall/internal/hooklog"
	"github.com/recall-dev/recall/store"
)

// HookLogFileName, in the index directory, collects one line per hook
// call and the output of the indexers hooks start (hooklog.FileName).
const HookLogFileName = hooklog.FileName

// Hook is one call of `recall hook` from Claude Code: it reads the hook
// payload and starts a detached incremental index, or, when an indexer is
// already running, leaves it a note to run once more. It never fails:
// problems go to hook.log, because a failing Stop hook can block Claude.
type Hook struct {
	// Stdin holds the hook JSON (see PayloadReader).
	Stdin io.Reader
	// StdinTimeout bounds the wait for a complete payload.
	StdinTimeout time.Duration
	IndexDir     string
	Sources      []string
	// Executable is the recall binary to run the index with.
	Executable string
	// Environ is this process's environment, passed on to the indexer.
	Environ []string
	Now     func() time.Time
	Start   Starter
	// Hint, when set, is the prompt hint (UserPromptSubmit, and
	// SessionStart on startup or resume): the context block to print, ""
	// for none, and why in one line for the log. It reads the index as
	// committed and must give up by its own deadline; a panic in it is
	// caught and logged.
	Hint func(Payload) (text, why string)
	// Stdout gets the hint: Claude Code adds what a UserPromptSubmit or
	// SessionStart hook prints on stdout (exit 0) to the context.
	Stdout io.Writer
	// Stderr gets the log line when hook.log cannot be opened.
	Stderr io.Writer
}

// hookRecord is what one hook call writes as its log line.
type hookRecord struct {
	payload  Payload
	outcome  string
	problems []string
}

// Run does the hook's work and logs one line about it.
func (h Hook) Run() {
	var rec hookRecord
	payload, err := ReadPayload(h.Stdin, h.StdinTimeout)
	rec.payload = payload
	if err != nil {
		rec.problem(err.Error())
	} else {
		rec.checkFields()
	}
	logFile, err := h.openLog()
	if err != nil {
		rec.problem(err.Error())
	}
	if payload.HookEventName == EventSessionEnd && payload.Reason == "clear" {
		// A long-running `recall mcp` of this Claude Code process follows
		// the session through this note (SessionTracker).
		if err := NoteSuccession(h.IndexDir, payload.SessionID, envSession(h.Environ)); err != nil {
			rec.problem("note the session /clear started: " + err.Error())
		}
	}
	hinted := ""
	if IsHintEvent(payload) && h.Hint != nil {
		// The hint first: it reads the committed index, and an update
		// started before it would take the CPU it needs (on two cores
		// that doubled a prompt hook's time).
		hinted = h.hint(payload, &rec)
	}
	rec.outcome = h.startOrNote(payload, logFile, &rec)
	if hinted != "" {
		rec.outcome = hinted + "; " + rec.outcome
	}
	h.writeLog(logFile, rec.line(h.Now()))
	if logFile != nil {
		_ = logFile.Close()
	}
}

// IsHintEvent reports whether p is an event the prompt hint answers
// (UserPromptSubmit; SessionStart on startup or resume). Such an event
// also starts the detached index update, as every event does.
func IsHintEvent(p Payload) bool {
	switch p.HookEventName {
	case EventUserPromptSubmit:
		return true
	case EventSessionStart:
		return p.Source == "startup" || p.Source == "resume"
	}
	return false
}

// hint prints the prompt hint, if there is one, and says what it did.
func (h Hook) hint(p Payload, rec *hookRecord) (outcome string) {
	if h.Hint == nil {
		return "no hint (not configured)"
	}
	defer func() {
		if r := recover(); r != nil {
			rec.problem(fmt.Sprintf("hint: internal error: %v", r))
			outcome = "no hint"
		}
	}()
	text, why := h.Hint(p)
	if text == "" {
		return "no hint: " + why
	}
	if h.Stdout != nil {
		if _, err := io.WriteString(h.Stdout, text); err != nil {
			rec.problem("write hint: " + err.Error())
		}
	}
	return "hint " + why
}

// startOrNote starts the indexer unless one is running, in which case it
// leaves the rerun note: a second indexer would only wait on the lock.
func (h Hook) startOrNote(p Payload, logFile *os.File, rec *hookRecord) string {
	runs, err := store.Open(h.IndexDir).RequestRerun()
	if runs {
		if err != nil {
			rec.problem(err.Error())
			return "indexer already running; could not leave the rerun note"
		}
		return "indexer already running; left the rerun note"
	}
	if err != nil {
		rec.problem(err.Error())
	}
	if h.Executable == "" {
		rec.problem("cannot find the recall executable")
		return "indexer not started"
	}
	cmd := h.indexCommand(p, rec)
	cmd.Output = logFile
	pid, err := h.Start(cmd)
	if err != nil {
		rec.problem(err.Error())
		return "indexer not started"
	}
	return fmt.Sprintf("started indexer pid %d", pid)
}

// indexCommand is the incremental `recall index` a hook starts. The index
// directory and sources are passed explicitly so the child uses this
// process's configuration, wherever that came from.
func (h Hook) indexCommand(p Payload, rec *hookRecord) Command {
	// --sweep: a hook runs in the background, so it can afford to stat
	// every transcript, which catches what the quick check cannot see
	// (a `claude -p --resume` of an old session writes no history).
	args := []string{"index", "--sweep", "--index-dir", h.IndexDir}
	for _, source := range h.Sources {
		args = append(args, "--source", source)
	}
	env := h.Environ
	switch {
	case p.HookEventName == EventSessionEnd:
		// The session has ended and is no longer current: with no
		// current session (flag or the variables of
		// indexer.CurrentSessionFromEnv) the indexer takes its
		// transcript in whole.
		// After /clear the variables already name the new session,
		// which is current and must still be left alone.
		if next := envSession(env); next != "" && next != p.SessionID && plausibleSessionID(next) {
			args = append(args, "--current-session", next)
		}
		env = withoutVars(env, "CLAUDE_CODE_SESSION_ID", "CLAUDE_SESSION_ID")
	case plausibleSessionID(p.SessionID):
		// The session is still being written; the indexer must leave
		// its transcript for later.
		args = append(args, "--current-session", p.SessionID)
	case p.SessionID != "":
		rec.problem(fmt.Sprintf("ignored session_id %q; the indexer takes the current session from the environment", p.SessionID))
	}
	return Command{Path: h.Executable, Args: args, Env: env, Dir: h.IndexDir}
}

// openLog opens hook.log for appending (hooklog.Open).
func (h Hook) openLog() (*os.File, error) { return hooklog.Open(h.IndexDir) }

// writeLog appends the line in one write, so lines from hooks that run at
// the same time do not interleave.
func (h Hook) writeLog(logFile *os.File, line string) {
	if logFile != nil {
		if _, err := io.WriteString(logFile, line); err == nil {
			return
		}
	}
	if h.Stderr != nil {
		_, _ = io.WriteString(h.Stderr, "recall hook: "+line)
	}
}

func (r *hookRecord) problem(msg string) { r.problems = append(r.problems, msg) }

// checkFields notes the fields recall needs that a well-formed payload
// lacks.
func (r *hookRecord) checkFields() {
	if r.payload.HookEventName == "" {
		r.problem("payload has no hook_event_name")
	}
	if r.payload.SessionID == "" {
		r.problem("payload has no session_id")
	}
}

// line formats the record as hooklog.Line does:
// "<time> <event> [source=…] [reason=…] [session=…]: <outcome>[; problem]…".
func (r hookRecord) line(now time.Time) string {
	fields := [][2]string{{"source", r.payload.Source}, {"reason", r.payload.Reason}, {"session", r.payload.SessionID}}
	return hooklog.Line(now, r.payload.HookEventName, fields, r.outcome, r.problems)
}

// plausibleSessionID accepts the ids Claude Code uses (UUIDs) and refuses
// anything the indexer's flag parser could take for a flag.
func plausibleSessionID(id string) bool {
	if id == "" || len(id) > 128 || id[0] == '-' {
		return false
	}
	return strings.Trim(id, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-") == ""
}

// withoutVars returns env without the named variables.
func withoutVars(env []string, names ...string) []string {
	kept := make([]string, 0, len(env))
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		drop := false
		for _, n := range names {
			drop = drop || name == n
		}
		if !drop {
			kept = append(kept, kv)
		}
	}
	return kept
}

// envSession is the session the environment names as current, as
// indexer.CurrentSessionFromEnv reads it.
func envSession(env []string) string {
	var older string
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "CLAUDE_CODE_SESSION_ID="); ok && v != "" {
			return v
		}
		if v, ok := strings.CutPrefix(kv, "CLAUDE_SESSION_ID="); ok {
			older = v
		}
	}
	return older
}
