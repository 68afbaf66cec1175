package aider

import (
	"slices"
	"strings"
)

// Aider runs a prompt that starts with "/" as one of its commands (and
// one that starts with "!" as /run), a word that is a unique prefix of
// a command's name naming it: "/ex" is /exit (aider/commands.py:
// Commands.run, matching_commands). What a command typed makes:
//
//   - /ask, /code, /architect, /context and /ok with words after them
//     run a chat with the words as its prompt, which Aider writes to the
//     history again as a prompt of its own (Coder.run(with_message):
//     "#### /ask why …" and then "#### why …"): that one makes the row,
//     the command is a copy.
//   - /help with words after them asks Aider's help chat: the row is the
//     words (the prompt Aider writes for it, the question wrapped in its
//     docs, is noise: machinePrompt).
//   - /run (and "!"), /test and /git run a command: a tool row (Run,
//     Test, Git: the command). Their output is not kept.
//   - Every other command (/add, /drop, /commit, /undo, /diff, /clear,
//     /tokens, /model, /web, …), a prefix of several or of none, and a
//     chat-mode command without words are noise: what they did that is
//     worth a row, Aider's output records (an edit applied, a commit
//     made, a page scraped: output.go).
type commandKind uint8

const (
	notCommand commandKind = iota
	otherCmd               // noise
	chatCmd                // its words come again as a prompt: a copy
	helpCmd                // its words are a prompt
	shellCmd               // a tool row of its words
)

// commandNames are the names of Aider's commands, those of every
// version (a history holds years of them: /clipboard became /paste,
// /add-clipboard-image went), so a prefix names what it named then in
// most cases.
var commandNames = [...]string{
	"add", "add-clipboard-image", "architect", "ask", "chat-mode", "clear", "clipboard",
	"code", "commit", "context", "copy", "copy-context", "diff", "drop", "edit", "editor",
	"editor-model", "exit", "git", "help", "lint", "load", "ls", "map", "map-refresh",
	"mode", "model", "models", "multiline-mode", "ok", "paste", "quit", "read", "read-only",
	"reasoning-effort", "report", "reset", "run", "save", "settings", "test", "think-tokens",
	"tokens", "undo", "voice", "weak-model", "web",
}

// commandKinds are the commands that are not noise, by name; the tool
// name of a shell command's row is its name, capitalised.
var commandKinds = map[string]commandKind{
	"ask": chatCmd, "code": chatCmd, "architect": chatCmd, "context": chatCmd, "ok": chatCmd,
	"help": helpCmd, "run": shellCmd, "test": shellCmd, "git": shellCmd,
}

// parseCommand reads a prompt as Aider does: the command it runs (its
// full name, "" when it runs none or Aider would not know which), what
// that makes, and the words after it.
func parseCommand(prompt string) (name string, kind commandKind, args string) {
	p := strings.TrimLeft(prompt, " \t")
	switch {
	case strings.HasPrefix(p, "!"):
		return "run", shellCmd, strings.TrimSpace(p[1:])
	case !strings.HasPrefix(p, "/"):
		return "", notCommand, ""
	}
	word, rest, _ := strings.Cut(p, " ")
	if i := strings.IndexAny(word, "\t\n"); i >= 0 {
		word, rest = word[:i], word[i+1:]+" "+rest
	}
	name = resolveCommand(strings.TrimPrefix(word, "/"))
	if name == "" {
		return "", otherCmd, ""
	}
	kind, ok := commandKinds[name]
	if !ok {
		kind = otherCmd
	}
	return name, kind, strings.TrimSpace(rest)
}

// resolveCommand is the command word names: itself, or the one command
// it is a prefix of; "" for none or several.
func resolveCommand(word string) string {
	if word == "" {
		return ""
	}
	if slices.Contains(commandNames[:], word) {
		return word
	}
	found := ""
	for _, c := range commandNames {
		if strings.HasPrefix(c, word) {
			if found != "" {
				return ""
			}
			found = c
		}
	}
	return found
}

// machinePrompts start the prompts Aider writes itself: /help's question
// wrapped in the docs it found (aider/help.py: Help.ask), and the lint
// errors it asks the model to fix (aider/linter.py).
var machinePrompts = [...]string{"# Question: ", "# Fix any errors below, if possible."}

// machinePrompt reports whether a prompt is one Aider wrote.
func machinePrompt(prompt string) bool {
	for _, p := range machinePrompts {
		if strings.HasPrefix(prompt, p) {
			return true
		}
	}
	return false
}

// watchOpeners start the prompts Aider writes for the "AI" comments it
// finds in files when run with --watch-files (aider/watch_prompts.py:
// watch_code_prompt, watch_ask_prompt, watch_architect_prompt; the
// wording of the code one varies by version and file type), before the
// comments in their code, each marked with watchMark. Only the comments
// are the person's.
var watchOpeners = [...]string{`Find the "AI" comments below (marked with █)`, "I've written your instructions in "}

// watchMark marks, in such a prompt, the lines holding the comments.
const watchMark = "█"

// watchComments is the person's part of a --watch-files prompt (ok):
// its marked comments, one a line, without the code around them; ""
// when it has none.
func watchComments(prompt string) (string, bool) {
	if !strings.HasPrefix(prompt, watchOpeners[0]) && !(strings.HasPrefix(prompt, watchOpeners[1]) && strings.Contains(prompt[:min(len(prompt), 400)], "(marked with "+watchMark+")")) {
		return "", false
	}
	var out []string
	for line := range strings.Lines(prompt) {
		_, comment, ok := strings.Cut(line, watchMark)
		if !ok || strings.HasPrefix(comment, ")") { // the template's own "(marked with █)"
			continue
		}
		if c := strings.TrimSpace(comment); c != "" {
			out = append(out, c)
		}
	}
	return strings.Join(out, "\n"), true
}
