package claude

import "strings"

// Status is how recall is wired into Claude Code, for `recall stats`.
type Status struct {
	Settings string   // the settings.json read
	Hooks    []string // the hook events that run recall (SessionEnd, Stop when installed)
	// HooksPath is the recall binary the hooks run ("" when none).
	HooksPath string
	Skill     bool // the recall skill is installed
	Hints     bool // the prompt hint's hooks are installed (install --hints)
	MCP       MCPRegistration
	Problem   string // settings.json could not be read
}

// ReadStatus reads s's settings.json, skill and MCP registration. It only
// reads: nothing is changed.
func ReadStatus(s Setup) Status {
	st := Status{Settings: s.SettingsPath, Skill: exists(skillFile(s.SkillDir))}
	if s.MCP != nil {
		st.MCP = s.MCP.Registered()
	}
	f, err := readSettings(s.SettingsPath)
	if err != nil {
		st.Problem = err.Error()
		return st
	}
	hooks, err := hooksObject(f.root, false)
	if err != nil || hooks == nil {
		return st
	}
	for _, event := range hintEvents() {
		groups, _ := eventGroups(hooks, event)
		for _, h := range handlersIn(groups) {
			st.Hints = st.Hints || isRecallHandler(h)
		}
	}
	for _, event := range hookEvents() {
		groups, err := eventGroups(hooks, event)
		if err != nil {
			continue
		}
		for _, h := range handlersIn(groups) {
			if isRecallHandler(h) {
				st.Hooks = append(st.Hooks, event)
				command, _ := h.(*Object).Get("command")
				program, _, _ := strings.Cut(command.(string), hookSubcommand)
				st.HooksPath = shellUnquote(strings.TrimSpace(program))
				break
			}
		}
	}
	return st
}
