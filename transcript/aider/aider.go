// Package aider reads the chat history of Aider (Aider-AI/aider): one
// markdown file per project, <git root>/.aider.chat.history.md (moved
// by --chat-history-file or AIDER_CHAT_HISTORY_FILE), which every run
// of aider in that project appends to. One file holds many sessions;
// Aider writes it through InputOutput.append_chat_history (aider/io.py):
//
//   - "# aider chat started at YYYY-MM-DD HH:MM:SS" (local time, no zone)
//     after a blank line starts a session: there is no session id and no
//     time per message (identity.go derives both).
//   - A prompt is one or more lines "#### <line>  " (user_input: each
//     line of the input, ending in the two spaces of a markdown line
//     break), after a blank line; an empty input is "#### <blank>". A
//     prompt starting with "/" or "!" is one of Aider's commands
//     (commands.go says which make a row).
//   - A reply is the model's markdown as it was (ai_output: a blank line,
//     the text, a blank line), so it may hold blank lines, headings and
//     code blocks whose lines start with "#" or ">": lines inside a
//     fence (```, ~~~, <source>, …) are the reply's, whatever they start
//     with.
//   - Aider's own output is quoted: "> <text>  " (tool_output,
//     tool_warning, tool_error, confirm_ask, prompt_ask). A message of
//     several lines given at once is quoted on its first line only, its
//     other lines follow bare, the last ending in the two spaces; so a
//     bare line right after a quoted one is output too.
//
// What each becomes (parse.go, commands.go, output.go):
//
//   - a prompt: a user row. An empty one ("<blank>"), the prompts Aider
//     writes itself (a confirmation it answered for the user, /help's
//     question wrapped in docs, lint errors to fix) and commands that
//     are no prompt (/add, /drop, /undo, …) are noise; /run, /test and
//     /git make a tool row; /ask, /code, /architect, /context and /ok are
//     copies of the prompt Aider writes again after them, and so is a
//     prompt that repeats the session's last reply (architect mode hands
//     the architect's plan to its editor as a prompt).
//   - a reply: an assistant row.
//   - Aider's output: no row (the command line and versions it starts
//     with, token reports, warnings, confirmations, repo maps, test
//     output: noise), but for what records an action: "Applied edit to
//     <file>" (Edit), "Commit <hash> <message>" (Commit), "Running
//     <command>" (Run: a shell command the model proposed and the user
//     let run), "Scraping <url>..." (Web); and the instructions a user
//     typed to "Add the output to the chat? (y/n/instructions)" make a
//     user row.
//   - what comes before the first session header (a history cut at its
//     start) is in no session: noise.
//
// A message is only known to be whole when a line of the next one comes,
// so the parser holds back the lines of the last one (transcript.Holder):
// a read stops before them, and the next read gives them again. The rows
// a file makes are the same whatever offsets it was read at. So the last
// message of a history (most often a line of output, which a bare line
// may yet continue) makes its rows once the file grows: at the latest,
// with the blank line before the next run's header.
package aider

import (
	"path/filepath"
	"strings"

	"github.com/recall-dev/recall/record"
	"github.com/recall-dev/recall/transcript"
)

const (
	// historyName is the chat history's name in a project's root
	// (aider/args.py: default_chat_history_file).
	historyName = ".aider.chat.history.md"
	// historyEnv names the history file instead (configargparse reads
	// every option from AIDER_<OPTION>).
	historyEnv = "AIDER_CHAT_HISTORY_FILE"
	// entrypoint is the entrypoint of an interactive run's rows, and
	// headlessEntrypoint that of a run with --message or --message-file
	// (one prompt, no one typing: textrules.IsHeadlessEntrypoint), which
	// the command line Aider logs at a session's start tells
	// (messageRun).
	entrypoint         = "aider"
	headlessEntrypoint = "sdk-aider-message"
)

// Format is how Aider's chat history is read: line by line, holding back
// the last message until the next one starts.
func Format() transcript.Format {
	return transcript.Format{Agent: record.AgentAider, NewParser: newParser, Dense: true}
}

// DefaultRoot is the history file AIDER_CHAT_HISTORY_FILE names, when
// it is absolute (or starts with ~/). Aider has no home folder of its
// own: its histories are in the projects (FindInProjects looks there),
// and a relative AIDER_CHAT_HISTORY_FILE names one in each of them, so
// it gives no root either ("").
func DefaultRoot(getenv func(string) string, home string) string {
	file := strings.TrimSpace(getenv(historyEnv))
	if rest, ok := strings.CutPrefix(file, "~/"); ok && home != "" {
		file = filepath.Join(home, rest)
	}
	if !filepath.IsAbs(file) {
		return ""
	}
	return filepath.Clean(file)
}

// ResumeCommand reopens an Aider session, run in its project directory.
// Aider has no way to reopen one session: --restore-chat-history loads
// the project's whole chat history (its last sessions, summarised to
// fit) into the new chat, which is as near as it comes.
// A history of another name than Aider's default (--chat-history-file,
// AIDER_CHAT_HISTORY_FILE) is named, or Aider would restore the default.
func ResumeCommand(_, file string) [][]string {
	argv := []string{"aider", "--restore-chat-history"}
	if file != "" && filepath.Base(file) != historyName {
		argv = append(argv, "--chat-history-file", file)
	}
	return [][]string{argv}
}
