package aider

import (
	"encoding/json"
	"strings"
)

// Aider's own output ("> " lines) is mostly chatter: the command line
// and versions it starts with, token and cost reports, confirmations
// and their answers, warnings, errors, lint and test output, the repo
// map. None of it makes a row (Claude Code's reader keeps no tool output
// either), but for the lines that record an action, which make a tool
// row as a tool call of Claude Code's would:
//
//   - "Applied edit to <file>" (Coder.apply_updates): Edit, the file;
//   - "Commit <hash> <message>" (GitRepo.commit): Commit, the hash and
//     the message's first line;
//   - "Running <command>" (Coder.handle_shell_commands: a command the
//     model proposed and the user let run): Run, the command;
//   - "Scraping <url>..." (Commands.cmd_web: /web, or a URL in a prompt
//     the user let Aider fetch): Web, the URL.
//
// The answer typed to "Add the output to the chat? (y/n/instructions)"
// (older versions' /run and /test) is a prompt when it is not y or n:
// the instructions go to the model with the output.

// outputTool is the tool row an output line records: its name and
// input (a JSON object); name is "" for chatter.
func outputTool(text string) (name string, input []byte) {
	if file, ok := strings.CutPrefix(text, "Applied edit to "); ok && file != "" {
		return "Edit", toolInput("file_path", file)
	}
	if hash, msg, ok := commitLine(text); ok {
		return "Commit", toolInput("description", hash+" "+msg)
	}
	if cmd, ok := strings.CutPrefix(text, "Running "); ok && strings.TrimSpace(cmd) != "" {
		return "Run", toolInput("command", cmd)
	}
	if url, ok := strings.CutPrefix(text, "Scraping "); ok && strings.HasSuffix(url, "...") && len(url) > 3 {
		return "Web", toolInput("url", strings.TrimSuffix(url, "..."))
	}
	return "", nil
}

// actionPrefixes start the output lines outputTool makes a row of.
var actionPrefixes = [...]string{"Applied edit to ", "Commit ", "Running ", "Scraping "}

// recordsAction reports whether outputTool may make a row of text: only
// a line that starts as one of actionPrefixes is kept to be read when the
// output ends (most output is chatter).
func recordsAction(text string) bool {
	for _, p := range actionPrefixes {
		if strings.HasPrefix(text, p) {
			return true
		}
	}
	return false
}

// commitLine reads "Commit <hash> <message>": a hash of 7 to 40 hex
// digits, so that "Committing <file> before applying edits." and prose
// are not taken for one.
func commitLine(text string) (hash, msg string, ok bool) {
	rest, found := strings.CutPrefix(text, "Commit ")
	if !found {
		return "", "", false
	}
	hash, msg, _ = strings.Cut(rest, " ")
	if len(hash) < 7 || len(hash) > 40 || strings.TrimLeft(hash, "0123456789abcdef") != "" {
		return "", "", false
	}
	return hash, strings.TrimSpace(msg), strings.TrimSpace(msg) != ""
}

// answerPrefix starts the line of "Add the output to the chat?
// (y/n/instructions)" that holds what the user typed (prompt_ask with a
// question of two lines: the second is bare).
const answerPrefix = "(y/n/instructions)"

// instructions is what a user typed to that question, when it is
// instructions rather than yes or no.
func instructions(line string) (string, bool) {
	rest, ok := strings.CutPrefix(line, answerPrefix)
	if !ok {
		return "", false
	}
	s := strings.TrimSpace(rest)
	switch strings.ToLower(s) {
	case "", "y", "n", "yes", "no":
		return "", false
	}
	return s, true
}

// toolInput is the JSON object {key: value} (key needs no escaping),
// as encoding/json writes it.
func toolInput(key, value string) []byte {
	v, _ := json.Marshal(strings.TrimSpace(value)) // a string always marshals
	b := make([]byte, 0, len(key)+len(v)+5)
	b = append(b, '{', '"')
	b = append(b, key...)
	b = append(b, '"', ':')
	b = append(b, v...)
	return append(b, '}')
}

// isConfirmEcho reports whether a prompt is the answer Aider typed for
// the user: with an answer chosen for a group of questions ("(A)ll",
// "(S)kip all"), confirm_ask writes the question and the answer as if
// typed ("Run shell command? (Y)es/(N)o/… [Yes]: a").
func isConfirmEcho(prompt string) bool {
	return !strings.Contains(prompt, "\n") && strings.Contains(prompt, "(Y)es/(N)o") && strings.Contains(prompt, "]: ")
}
