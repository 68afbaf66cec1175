package record

import "strings"

// Coding agents whose session files recall reads. A row's agent column
// holds one of these names; a row written before the column is Claude
// Code's (AgentOf). The names are what --agent takes and every output
// prints.
const (
	AgentClaude   = "claude"
	AgentCodex    = "codex"
	AgentGemini   = "gemini"
	AgentOpenCode = "opencode"
	AgentAider    = "aider"
)

// Agents lists every agent recall reads, Claude Code first.
func Agents() []string {
	return []string{AgentClaude, AgentCodex, AgentGemini, AgentOpenCode, AgentAider}
}

// AgentOf is the agent a row's or file's agent field names: "" (rows
// and files recorded before other agents were read) is Claude Code.
func AgentOf(name string) string {
	if name == "" {
		return AgentClaude
	}
	return name
}

// AgentCode is the agent's number in the term index's row table (one
// byte, 0 for Claude Code: the row tables written before other agents
// were read hold 0 there, and every row of theirs is Claude Code's).
func AgentCode(name string) uint8 {
	for i, a := range Agents() {
		if a == name {
			return uint8(i)
		}
	}
	return 0
}

// AgentName is the inverse of AgentCode (Claude Code for a code it does
// not know).
func AgentName(code uint8) string {
	if a := Agents(); int(code) < len(a) {
		return a[code]
	}
	return AgentClaude
}

// IsAgent reports whether name is an agent recall reads.
func IsAgent(name string) bool {
	for _, a := range Agents() {
		if a == name {
			return true
		}
	}
	return false
}

// A file's kind says which agent wrote it and whether it is a session's
// main file or a subagent's. Claude Code's kinds (KindMain, KindSubagent,
// KindAgentOld) predate the others and name no agent; another agent's
// kinds are its name (a session file) and its name with SubagentSuffix
// (a subagent's file), so that the manifest, which stores a kind per
// file, also knows each file's agent without a new field.
const SubagentSuffix = "-subagent"

// KindOf is the kind of a file of agent, a subagent's file when subagent
// is set.
func KindOf(agent string, subagent bool) string {
	switch {
	case agent == "" || agent == AgentClaude:
		if subagent {
			return KindSubagent
		}
		return KindMain
	case subagent:
		return agent + SubagentSuffix
	}
	return agent
}

// KindAgent is the agent that writes files of kind.
func KindAgent(kind string) string {
	switch kind {
	case KindMain, KindSubagent, KindAgentOld, "":
		return AgentClaude
	}
	return strings.TrimSuffix(kind, SubagentSuffix)
}

// IsSessionKind reports whether kind is a session's own file (not a
// subagent's), of any agent.
func IsSessionKind(kind string) bool {
	return kind == KindMain || kind != KindSubagent && kind != KindAgentOld && !strings.HasSuffix(kind, SubagentSuffix) && kind != ""
}
