package claude

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
)

// hookEvents are the events recall install hooks: Stop after every turn
// and SessionEnd when a session closes, so the index follows each session
// as it grows and takes it in whole once it ends.
func hookEvents() []string { return []string{"SessionEnd", "Stop"} }

// hintEvents are the events `recall install --hints` adds: the prompt
// hint runs as a prompt is submitted and as a session starts or resumes.
// Their handler is not async: Claude Code adds what a hook prints on
// these events to the context only when it waits for it.
func hintEvents() []string { return []string{EventUserPromptSubmit, EventSessionStart} }

// allHookEvents are every event recall may have a handler on: what
// uninstall takes it out of.
func allHookEvents() []string { return append(hookEvents(), hintEvents()...) }

// hintMatcher limits the SessionStart hint to new and resumed sessions:
// a session cleared or compacted starts on work already in hand.
const hintMatcher = "startup|resume"

// hintTimeout is the hint handler's timeout, in seconds: the hint gives
// up on its own well before (hintDeadline), so this only bounds a hook
// that hangs.
const hintTimeout = "5"

// hintHandler is the handler of the hint events: synchronous, so its
// output reaches the context, and short. On UserPromptSubmit it is the
// small binary when there is one (handlerPaths.hint): Claude waits for it
// on every prompt.
func hintHandler(paths handlerPaths, event string, args []string) *Object {
	h := &Object{}
	h.Set("type", "command")
	if event == EventUserPromptSubmit && paths.hint != "" {
		h.Set("command", HintCommand(paths.hint, args...))
	} else {
		h.Set("command", HookCommand(paths.recall, args...))
	}
	h.Set("timeout", json.Number(hintTimeout))
	return h
}

// handlerPaths are the programs recall's handlers run: recall, and the
// prompt hook's small binary ("" when it is not installed).
type handlerPaths struct{ recall, hint string }

// hintProgram is the name of the prompt hook's small binary
// (cmd/recall-hint).
const hintProgram = "recall-hint"

// HintCommand is the shell command of the UserPromptSubmit handler when
// the small binary is installed: it, then args (the same flags `recall
// hook` gets, which it passes on when it hands a prompt to recall).
func HintCommand(hintPath string, args ...string) string {
	cmd := shellQuote(hintPath)
	for _, a := range args {
		cmd += " " + shellQuote(a)
	}
	return cmd
}

// isRecallHintCommand accepts "<recall-hint>" optionally followed by
// flags; every " -" is tried as the end of the program, so a quoted path
// holding one is still read right.
func isRecallHintCommand(s string) bool {
	for end := len(s); end > 0; {
		if filepath.Base(shellUnquote(strings.TrimSpace(s[:end]))) == hintProgram {
			return true
		}
		end = strings.LastIndex(s[:end], " -")
	}
	return false
}

// hookSubcommand is what identifies recall's hook handlers: a command
// handler whose command is "<path to a program named recall> hook". That
// pattern is the marker; no extra field is added to the handler, since
// Claude Code validates settings.json and may reject unknown keys.
const hookSubcommand = " hook"

// HookCommand is the shell command Claude Code runs for recall's hooks:
// the binary, "hook", then args (flags such as --index-dir that were given
// at install time). Claude Code runs command hooks through a shell, so
// words with spaces or other special characters are single-quoted.
func HookCommand(recallPath string, args ...string) string {
	cmd := shellQuote(recallPath) + hookSubcommand
	for _, a := range args {
		cmd += " " + shellQuote(a)
	}
	return cmd
}

// recallHandler is the handler recall installs. It is async so a turn
// never waits on it, and the timeout stays small because the hook only
// starts a detached indexer and returns.
func recallHandler(recallPath string, args []string) *Object {
	h := &Object{}
	h.Set("type", "command")
	h.Set("command", HookCommand(recallPath, args...))
	h.Set("async", true)
	h.Set("timeout", json.Number("10"))
	return h
}

// isRecallHandler reports whether handler is one recall install wrote,
// from this binary or from a recall at another path.
func isRecallHandler(handler any) bool {
	h, ok := handler.(*Object)
	if !ok {
		return false
	}
	if kind, _ := h.Get("type"); kind != "command" {
		return false
	}
	command, _ := h.Get("command")
	s, ok := command.(string)
	if !ok {
		return false
	}
	s = strings.TrimSpace(s)
	return isRecallHookCommand(s) || isRecallHintCommand(s)
}

// isRecallHookCommand accepts "<recall> hook" optionally followed by
// flags. Every " hook" in the command is tried as the split point, so a
// quoted path that itself contains " hook" is still read right.
func isRecallHookCommand(s string) bool {
	for from := 0; ; {
		i := strings.Index(s[from:], hookSubcommand)
		if i < 0 {
			return false
		}
		i += from
		program, rest := s[:i], s[i+len(hookSubcommand):]
		if (rest == "" || strings.HasPrefix(rest, " -")) && filepath.Base(shellUnquote(strings.TrimSpace(program))) == "recall" {
			return true
		}
		from = i + 1
	}
}

// addHooks makes each hook event run recall exactly once, from recallPath,
// and reports whether settings changed. An event already in that state is
// left alone, so installing twice changes nothing and recall's group does
// not move when other tools append theirs after it.
func addHooks(settings *Object, paths handlerPaths, args []string, hints bool) (bool, error) {
	hooks, err := hooksObject(settings, true)
	if err != nil {
		return false, err
	}
	changed := false
	for _, event := range allHookEvents() {
		groups, err := eventGroups(hooks, event)
		if err != nil {
			return false, err
		}
		isHint := slices.Contains(hintEvents(), event)
		if isHint && !hints {
			// Installed without --hints: no hint handler stays behind.
			if kept, removed := withoutRecallHandlers(groups); removed {
				if len(kept) == 0 {
					hooks.Delete(event)
				} else {
					hooks.Set(event, kept)
				}
				changed = true
			}
			continue
		}
		want, matcher := recallHandler(paths.recall, args), ""
		if isHint {
			want = hintHandler(paths, event, args)
			if event == EventSessionStart {
				matcher = hintMatcher
			}
		}
		if hasOnly(groups, want) {
			continue
		}
		groups, _ = withoutRecallHandlers(groups)
		group := &Object{}
		if matcher != "" {
			group.Set("matcher", matcher)
		}
		group.Set("hooks", []any{want})
		hooks.Set(event, append(groups, group))
		changed = true
	}
	return changed, nil
}

// containers says which of the containers recall's hooks live in existed
// before recall first touched settings.json; uninstall keeps those even
// when they end up empty.
type containers struct {
	hooks  bool
	events map[string]bool
}

// removeHooks takes out every recall handler from the hook events, then
// the groups, event arrays and "hooks" object that emptied and that were
// not there originally. It reports whether settings changed.
func removeHooks(settings *Object, original containers) (bool, error) {
	hooks, err := hooksObject(settings, false)
	if err != nil || hooks == nil {
		return false, err
	}
	changed := false
	for _, event := range allHookEvents() {
		groups, err := eventGroups(hooks, event)
		if err != nil {
			return false, err
		}
		kept, removed := withoutRecallHandlers(groups)
		if !removed {
			continue
		}
		changed = true
		if len(kept) == 0 && !original.events[event] {
			hooks.Delete(event)
		} else {
			hooks.Set(event, kept)
		}
	}
	if changed && hooks.Len() == 0 && !original.hooks {
		settings.Delete("hooks")
	}
	return changed, nil
}

// containersIn lists the hook containers present in a settings document.
func containersIn(settings *Object) containers {
	found := containers{events: map[string]bool{}}
	v, ok := settings.Get("hooks")
	hooks, isObject := v.(*Object)
	if !ok || !isObject {
		return found
	}
	found.hooks = true
	for _, event := range hooks.Keys() {
		found.events[event] = true
	}
	return found
}

// hooksObject returns settings["hooks"], creating it when create is set.
// A "hooks" that is not an object is refused rather than overwritten:
// it is the user's to fix.
func hooksObject(settings *Object, create bool) (*Object, error) {
	v, ok := settings.Get("hooks")
	if !ok {
		if !create {
			return nil, nil
		}
		hooks := &Object{}
		settings.Set("hooks", hooks)
		return hooks, nil
	}
	hooks, isObject := v.(*Object)
	if !isObject {
		return nil, fmt.Errorf(`"hooks" is %s, want an object`, jsonKind(v))
	}
	return hooks, nil
}

// eventGroups returns hooks[event], the event's matcher groups.
func eventGroups(hooks *Object, event string) ([]any, error) {
	v, ok := hooks.Get(event)
	if !ok {
		return nil, nil
	}
	groups, isArray := v.([]any)
	if !isArray {
		return nil, fmt.Errorf(`"hooks.%s" is %s, want an array`, event, jsonKind(v))
	}
	return groups, nil
}

// hasOnly reports whether the groups hold exactly one recall handler and
// it is want.
func hasOnly(groups []any, want *Object) bool {
	var found []any
	for _, handler := range handlersIn(groups) {
		if isRecallHandler(handler) {
			found = append(found, handler)
		}
	}
	return len(found) == 1 && reflect.DeepEqual(plain(found[0]), plain(want))
}

// handlersIn lists the handlers of every well-formed group.
func handlersIn(groups []any) []any {
	var all []any
	for _, g := range groups {
		if handlers, ok := groupHandlers(g); ok {
			all = append(all, handlers...)
		}
	}
	return all
}

// withoutRecallHandlers returns new groups with recall's handlers taken out
// and the groups left with no handler dropped (they would do nothing).
// Groups it does not understand are kept as they are.
func withoutRecallHandlers(groups []any) (kept []any, removed bool) {
	kept = []any{}
	for _, g := range groups {
		handlers, ok := groupHandlers(g)
		if !ok {
			kept = append(kept, g)
			continue
		}
		others := []any{}
		for _, h := range handlers {
			if isRecallHandler(h) {
				removed = true
			} else {
				others = append(others, h)
			}
		}
		switch {
		case len(others) == len(handlers):
			kept = append(kept, g)
		case len(others) > 0:
			g.(*Object).Set("hooks", others)
			kept = append(kept, g)
		}
	}
	return kept, removed
}

func groupHandlers(group any) ([]any, bool) {
	g, ok := group.(*Object)
	if !ok {
		return nil, false
	}
	v, _ := g.Get("hooks")
	handlers, ok := v.([]any)
	return handlers, ok
}

// plain converts order-preserving values to maps so two values compare
// equal whatever their key order.
func plain(v any) any {
	switch v := v.(type) {
	case *Object:
		m := make(map[string]any, v.Len())
		for _, k := range v.Keys() {
			value, _ := v.Get(k)
			m[k] = plain(value)
		}
		return m
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = plain(e)
		}
		return out
	}
	return v
}

func jsonKind(v any) string {
	switch v.(type) {
	case *Object:
		return "an object"
	case []any:
		return "an array"
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", v)
}

// ShellQuote quotes s for a POSIX shell when it needs it, as recall
// writes the commands it prints or installs.
func ShellQuote(s string) string { return shellQuote(s) }

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, shellSafeChars) == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// shellSafeChars never need quoting in a POSIX shell word.
const shellSafeChars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_@%+=:,./-"

// shellUnquote undoes shellQuote and plain double quotes, enough to read
// back the program of a hook command written by recall or by hand.
func shellUnquote(s string) string {
	if len(s) >= 2 && (s[0] == '\'' && s[len(s)-1] == '\'') {
		return strings.ReplaceAll(s[1:len(s)-1], `'\''`, "'")
	}
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		return s[1 : len(s)-1]
	}
	return s
}
