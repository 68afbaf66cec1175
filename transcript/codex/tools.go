package codex

import (
	"encoding/json"
	"maps"
	"path"
	"slices"
	"strings"
	"unicode/utf8"
)

// A tool row reads "name: what it touched" (transcript.Builder.Tool
// takes the first of command, file_path, path, pattern, url, query, …
// of the input it is given). Codex's tools name those things their own
// way, so the reader gives the Builder a small object of its own making:
// the arguments it knows, under the names the Builder reads, strings
// only.

// argName maps an argument of Codex's tools to the name the Builder
// reads it by.
func argName(name string) string {
	switch name {
	case "command", "file_path", "notebook_path", "path", "pattern", "url", "query",
		"description", "prompt", "skill", "subject":
		return name
	case "cmd": // exec_command
		return "command"
	case "dir_path": // list_dir
		return "path"
	case "message": // spawn_agent, send_input
		return "prompt"
	}
	return ""
}

// maxArgBytes caps an argument kept for a tool row: the row shows far
// less, and the rest is a pasted script or file.
const maxArgBytes = 8 << 10

// maxPatchFiles caps the files a patch's row names.
const maxPatchFiles = 20

// toolCall is the row name and input of a function_call: name and its
// arguments (a JSON string holding a JSON object; an object is taken
// too). A shell call of apply_patch is the patch's.
func toolCall(name string, arguments json.RawMessage) (string, []byte) {
	args := argumentsObject(arguments)
	if name == "apply_patch" {
		return name, patchInput(stringArg(args, "input", "patch"))
	}
	in := map[string]string{}
	for _, k := range slices.Sorted(maps.Keys(args)) {
		raw := args[k]
		key := argName(k)
		if key == "" {
			continue
		}
		if key == "command" {
			if argv, ok := stringList(raw); ok {
				if isPatchCommand(argv) {
					return "apply_patch", patchInput(argv[len(argv)-1])
				}
				in[key] = capArg(commandText(argv))
				continue
			}
		}
		var s string
		if json.Unmarshal(raw, &s) == nil && strings.TrimSpace(s) != "" {
			if _, taken := in[key]; !taken || k == key {
				in[key] = capArg(s)
			}
		}
	}
	return name, marshal(in)
}

// customToolCall is the row name and input of a custom_tool_call, whose
// input is free text: apply_patch's is the patch.
func customToolCall(name, input string) (string, []byte) {
	if name == "apply_patch" {
		return name, patchInput(input)
	}
	return name, []byte("{}")
}

// shellCall is the input of a local_shell_call's exec action.
func shellCall(argv []string) []byte {
	if len(argv) == 0 {
		return []byte("{}")
	}
	return marshal(map[string]string{"command": capArg(commandText(argv))})
}

// webSearchAction is a web_search_call's action; its input is a search's
// query (or its queries), a page opened, a pattern looked for in one.
type webSearchAction struct {
	Query   string   `json:"query"`
	Queries []string `json:"queries"`
	URL     string   `json:"url"`
	Pattern string   `json:"pattern"`
}

func (a *webSearchAction) input() []byte {
	in := map[string]string{}
	switch {
	case a.Query != "":
		in["query"] = capArg(a.Query)
	case len(a.Queries) > 0:
		in["query"] = capArg(strings.Join(a.Queries, "; "))
	case a.Pattern != "":
		in["pattern"] = capArg(a.Pattern)
		if a.URL != "" {
			in["path"] = capArg(a.URL)
		}
	case a.URL != "":
		in["url"] = capArg(a.URL)
	}
	return marshal(in)
}

// argumentsObject reads a function call's arguments: a JSON string
// holding an object (what the Responses API returns), or an object.
// Anything else is no arguments.
func argumentsObject(raw json.RawMessage) map[string]json.RawMessage {
	var text string
	if len(raw) > 0 && raw[0] == '"' {
		if json.Unmarshal(raw, &text) != nil {
			return nil
		}
		raw = json.RawMessage(text)
	}
	var args map[string]json.RawMessage
	if json.Unmarshal(raw, &args) != nil {
		return nil
	}
	return args
}

// stringArg is the first of names that args holds as a string.
func stringArg(args map[string]json.RawMessage, names ...string) string {
	for _, n := range names {
		var s string
		if json.Unmarshal(args[n], &s) == nil && s != "" {
			return s
		}
	}
	return ""
}

// stringList reads a JSON array of strings.
func stringList(raw json.RawMessage) ([]string, bool) {
	if len(raw) == 0 || raw[0] != '[' {
		return nil, false
	}
	var list []string
	if json.Unmarshal(raw, &list) != nil {
		return nil, false
	}
	return list, true
}

// isPatchCommand reports whether a shell command is apply_patch given
// the patch (older models called it through the shell tool).
func isPatchCommand(argv []string) bool {
	return len(argv) == 2 && (argv[0] == "apply_patch" || argv[0] == "applypatch")
}

// commandText is a command as a person would type it: the script of a
// shell's -c (Codex runs most commands as ["bash", "-lc", script]), or
// the words quoted where a shell would need it.
func commandText(argv []string) string {
	if len(argv) == 3 && isShell(argv[0]) && (argv[1] == "-c" || argv[1] == "-lc" || argv[1] == "-cl") {
		return argv[2]
	}
	words := make([]string, len(argv))
	for i, w := range argv {
		words[i] = shellQuote(w)
	}
	return strings.Join(words, " ")
}

func isShell(prog string) bool {
	switch path.Base(prog) {
	case "bash", "sh", "zsh", "dash", "ksh", "fish":
		return true
	}
	return false
}

// shellQuote quotes a word that a shell would split or expand.
func shellQuote(w string) string {
	if w != "" && strings.IndexFunc(w, func(r rune) bool {
		return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || strings.ContainsRune("_@%+=:,./-", r))
	}) < 0 {
		return w
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}

// patchInput names the files an apply_patch patch adds, updates, moves
// or deletes ("*** Update File: a.go" …), in the order it names them.
func patchInput(patch string) []byte {
	var files []string
	seen := map[string]bool{}
	for line := range strings.Lines(patch) {
		f, ok := patchFile(line)
		if !ok || seen[f] {
			continue
		}
		if len(files) == maxPatchFiles {
			files = append(files, "…")
			break
		}
		seen[f] = true
		files = append(files, f)
	}
	if len(files) == 0 {
		return []byte("{}")
	}
	return marshal(map[string]string{"path": capArg(strings.Join(files, ", "))})
}

func patchFile(line string) (string, bool) {
	for _, prefix := range []string{"*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: "} {
		if rest, ok := strings.CutPrefix(line, prefix); ok {
			f := strings.TrimSpace(rest)
			return f, f != ""
		}
	}
	return "", false
}

// capArg cuts an argument to maxArgBytes, at a character's start.
func capArg(s string) string {
	if len(s) <= maxArgBytes {
		return s
	}
	cut := maxArgBytes
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}

// marshal encodes a tool input; a map of strings always encodes.
func marshal(in map[string]string) []byte {
	b, err := json.Marshal(in)
	if err != nil {
		return []byte("{}")
	}
	return b
}
