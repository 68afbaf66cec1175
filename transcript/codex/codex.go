// Package codex reads the session files of OpenAI's Codex CLI: its
// "rollouts", one JSON line per record, under ${CODEX_HOME:-~/.codex}:
// sessions/YYYY/MM/DD/rollout-<time>-<thread id>.jsonl while a thread is
// live, archived_sessions/rollout-….jsonl once archived, and
// archived_sessions/rollout-….jsonl.zst once Codex compressed an old
// archived one (the framework decompresses those; this package lists
// them).
//
// What each record becomes (parse.go):
//
//   - session_meta: the thread id, its working directory (the project),
//     how it ran (Entrypoint: "codex-cli", "codex-vscode", and for the
//     runs nobody typed into, "sdk-codex-exec" and "sdk-codex-mcp"), and
//     for a spawned subagent's thread, its parent: the rows of a subagent's
//     file are the parent's session's, with the subagent's own thread id.
//     A session_meta of another thread (a fork copies its parent's) is
//     left alone.
//   - response_item message: a user prompt or an assistant reply; the
//     developer and system messages, and the user messages Codex writes
//     itself (environment context, AGENTS.md and user instructions,
//     skills, a turn aborted, …: see injectedMarkers) are noise.
//   - response_item function_call, custom_tool_call (apply_patch: the
//     files the patch touches), local_shell_call, web_search_call,
//     tool_search_call: a tool row. Tool outputs and reasoning make none
//     (Claude Code's reader keeps no thinking either).
//   - event_msg user_message and agent_message repeat the message
//     response items: a file's messages are read from its response items,
//     and from these events only in a file that has had none (older
//     rollouts); otherwise they are dropped as copies.
//   - compacted: the summary Codex writes of a conversation it compacts is
//     noise. Every other record (turn_context, other events, token
//     usage, world state, …) and any type not known is skipped.
//
// Rollouts written before Codex wrapped each record in
// {timestamp, type, payload} (spring 2025: a first line holding the
// session's id and then the response items themselves) read too.
//
// Identity: a rollout's record has no id of its own but in the newest
// versions (the "id" of a response item); see identity.go for how every
// other message's is derived, so that a rollout moved, compressed or
// copied into a fork keeps its messages' identities.
package codex

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/recall-dev/recall/record"
	"github.com/recall-dev/recall/transcript"
)

const (
	// homeEnv moves Codex's home folder.
	homeEnv = "CODEX_HOME"
	// threadEnv is what Codex sets, in every command it runs, to the
	// thread running it (codex-rs/protocol/src/shell_environment.rs,
	// CODEX_THREAD_ID_ENV_VAR).
	threadEnv = "CODEX_THREAD_ID"

	sessionsDir = "sessions"
	archivedDir = "archived_sessions"
)

// Format is how Codex's rollouts are read: line by line, compressed
// ones whole by the framework, and the TypeScript CLI's JSON documents
// whole (readDocument).
func Format() transcript.Format {
	return transcript.Format{Agent: record.AgentCodex, NewParser: newParser, ReadAll: readDocument, Whole: isDocument}
}

// DefaultRoot is Codex's home folder for the user whose home is home:
// $CODEX_HOME when set, else ~/.codex.
func DefaultRoot(getenv func(string) string, home string) string {
	if dir := getenv(homeEnv); dir != "" {
		return dir
	}
	if home == "" {
		return ""
	}
	return filepath.Join(home, ".codex")
}

// ResumeCommand reopens a Codex thread whose rollout is file, run in its
// project directory. An archived thread (its rollout under
// archived_sessions, plain or compressed) is one Codex refuses to resume
// ("session … is archived. Run `codex unarchive …` to unarchive it
// first": app-server's thread resume): it is unarchived first.
func ResumeCommand(session, file string) [][]string {
	resume := []string{"codex", "resume", session}
	if isArchived(file) {
		return [][]string{{"codex", "unarchive", session}, resume}
	}
	return [][]string{resume}
}

// isArchived reports whether a rollout's path is in an archived_sessions
// folder: the nearest of its folders that is Codex's (archived rollouts
// lie flat, live ones in date folders) is named so.
func isArchived(file string) bool {
	dir := filepath.Dir(file)
	for range 4 { // YYYY/MM/DD below the folder at most
		switch filepath.Base(dir) {
		case archivedDir:
			return true
		case sessionsDir:
			return false
		}
		dir = filepath.Dir(dir)
	}
	return false
}

// Reopens says why Codex cannot reopen the session whose rollout is
// file, nil when it can: today's Codex resumes rollouts of lines, and
// cannot resume a TypeScript CLI's JSON document (document.go).
func Reopens(file string) error {
	if isDocument(file) {
		return fmt.Errorf("its rollout %s was written by the TypeScript Codex CLI of 2025, whose sessions today's Codex cannot resume", filepath.Base(file))
	}
	return nil
}

// CurrentSession is the Codex thread running the process, when it runs
// under Codex: Codex sets CODEX_THREAD_ID in the environment of every
// command it runs, recall included. Its rollout is still being written,
// and is indexed once it ends.
func CurrentSession(getenv func(string) string) string {
	return strings.TrimSpace(getenv(threadEnv))
}
