// Package gemini reads the sessions of Gemini CLI (google-gemini/gemini-cli).
//
// Gemini CLI keeps its state in ~/.gemini, or in $GEMINI_CLI_HOME/.gemini:
// the variable names the home that holds .gemini, not the folder itself
// (homedir() in packages/core/src/utils/paths.ts, Storage.getGlobalGeminiDir).
// Each project has a folder under tmp/ named by a short slug
// (projectRegistry.ts; older versions named it by the SHA-256 of the
// project's path and migrate it on first use), and its sessions are in
// that folder's chats/:
//
//	tmp/<slug>/.project_root                       the project's path
//	tmp/<slug>/chats/session-<time>-<id8>.jsonl    a session
//	tmp/<slug>/chats/session-<time>-<id8>.json     a session of the older, whole-file format
//	tmp/<slug>/chats/<parentId>/<sessionId>.jsonl  a subagent's session (.json before)
//	tmp/<slug>/logs.json                           the prompts typed, of every session
//	projects.json                                  {"projects": {"<path>": "<slug>"}}
//
// A session file of lines (chatRecordingService.ts, chatRecordingTypes.ts)
// opens with its metadata {sessionId, projectHash, startTime, lastUpdated,
// kind}, then holds one MessageRecord per line {id, timestamp, type, content,
// displayContent, toolCalls, thoughts, tokens, model}, and two kinds of
// control lines: {"$set": {...}} patches the metadata, {"$rewindTo": id}
// takes that message and every later one out of the conversation. A message
// that changes (its tokens, its tool calls as they are scheduled and run)
// is written again whole with the same id: the later record replaces the
// earlier one. A file of the older format is one JSON document holding the
// metadata and a messages array; resuming such a session rewrites it as
// lines beside it (<name>.jsonl), with the same message ids.
//
// What rows a session makes:
//
//   - user: the prompt as the person typed it (displayContent when the file
//     has it, which leaves out the contents of @-referenced files), else the
//     text parts of content. A user message holding a functionResponse part
//     is a tool's result, and text parts the harness adds
//     (<session_context>, <hook_context>) are not the person's: both are
//     left out as noise, and so is a user message whose displayContent
//     is a tool's result (the CLI's "System: Please continue.").
//   - gemini: its text parts as the assistant's reply (thought parts and
//     thoughts make none), and one tool row per toolCalls entry.
//   - info, error, warning: the CLI's own notices, left out as noise.
//   - a title from the metadata's summary (kept as an AI title).
//   - a project's logs.json: a user row per prompt of each session that
//     has no chat file (logs.go).
//   - a subagent's file: the same rows, of its parent session (the folder
//     it is in) and marked with its own id as the subagent's. One in a
//     folder that names no session (a background agent's, such as skill
//     extraction's) is a run Gemini CLI makes for itself: noise. A session
//     file whose first prompt is the cli_help agent's task (older
//     versions wrote that agent's chat beside its parent's, under the
//     parent's id) is that subagent's.
//
// A message's UUID is its id, so the same message read from the legacy
// .json and from the .jsonl it was rewritten as is one message. The rows
// of a message are numbered by block: 0 is its text, 1+i its i-th tool
// call, so a message written again with one more tool call gives its
// earlier rows again with the same keys.
//
// Within one read, a message written again replaces its rows (see
// parser.message), and a $rewindTo cuts the rows the read made for the
// messages it rewinds (Builder.Cut, which counts them as noise; a row a
// new version of a message replaces is counted so too). Across reads,
// only what a read made can be taken back: a message rewound after an
// earlier read indexed it keeps its rows, and a message changed after
// an earlier read indexed it gives its changed rows beside the old ones
// (its unchanged rows come again with the keys indexed, and are left
// out as copies). A $set that holds messages (a checkpoint of the
// model's history) makes no rows, and the copies of earlier messages a
// compression records again with new ids are left out by their text
// (parser.replayed).
package gemini

import (
	"errors"
	"path/filepath"

	"github.com/recall-dev/recall/record"
	"github.com/recall-dev/recall/transcript"
)

// entrypoint is every row's. A session file does not say whether it was
// run interactively or headless (gemini -p): nothing in the metadata or
// the records tells them apart, so no row is marked headless.
const entrypoint = "gemini-cli"

// Format is how Gemini CLI's session files are read: the .jsonl files line
// by line, from where the last read stopped, and the older .json files
// whole.
func Format() transcript.Format {
	return transcript.Format{
		Agent:     record.AgentGemini,
		NewParser: func(w transcript.Work) transcript.LineParser { return newParser(w) },
		ReadAll:   readWhole,
		Whole:     isLegacy,
	}
}

// readWhole reads a file read whole: a project's prompt log, or a
// session of the older format.
func readWhole(w transcript.Work, b *transcript.Builder) (session, project string, cursor int64, err error) {
	if isLogs(w.T.Path) {
		return readLogs(w, b)
	}
	return readLegacy(w, b)
}

// DefaultRoot is Gemini CLI's folder for the user whose home is home:
// .gemini in $GEMINI_CLI_HOME when it is set (Gemini CLI takes the
// variable for the home itself), else in home.
func DefaultRoot(getenv func(string) string, home string) string {
	if h := getenv("GEMINI_CLI_HOME"); h != "" {
		home = h
	}
	if home == "" {
		return ""
	}
	return filepath.Join(home, ".gemini")
}

// ResumeCommand reopens session in Gemini CLI, run from the session's
// project directory (sessions are kept per project).
func ResumeCommand(session, _ string) [][]string { return [][]string{{"gemini", "--resume", session}} }

// Reopens says why a session whose rows come from file cannot be
// reopened by gemini --resume: one read from a project's prompt log has
// no chat for Gemini CLI to load; one whose chat holds no session UUID
// (Cloud Shell's agent server writes "a2a-server" in each, and its file
// names end so) is not one gemini --resume finds by id (it takes a
// UUID, "latest" or a number: sessionUtils.ts, findSession).
func Reopens(file string) error {
	if isLogs(file) {
		return errors.New("Gemini CLI kept no chat of it, only its prompts (" + logsName + "), so gemini --resume cannot reopen it")
	}
	if id, named := fileSessionID(trimExt(filepath.Base(file))); named && id == "" {
		return errors.New("its chat (" + filepath.Base(file) + ") has no session id of its own (Cloud Shell's agent server writes one id in all its chats), so gemini --resume cannot name it")
	}
	return nil
}

// CurrentSession is the id of the Gemini CLI session running the calling
// process, "" when none is known. Gemini CLI sets GEMINI_SESSION_ID only
// in the environment of the hooks it runs (hookRunner.ts); its shell
// tool and MCP servers get no session id, so recall run from those
// cannot tell its own session.
func CurrentSession(getenv func(string) string) string { return getenv("GEMINI_SESSION_ID") }
