package codex

import (
	"encoding/json"
	"strings"
)

// sessionMeta is the part of a session_meta payload the reader uses
// (codex-rs/protocol/src/protocol.rs, SessionMeta). A rollout written
// before the {timestamp, type, payload} lines starts with a line of the
// same fields.
type sessionMeta struct {
	ID           string          `json:"id"`
	Timestamp    json.RawMessage `json:"timestamp"`
	Cwd          string          `json:"cwd"`
	Originator   string          `json:"originator"`
	Source       json.RawMessage `json:"source"`
	ForkedFromID string          `json:"forked_from_id"`
	// ParentThreadID names the thread that spawned this one (newer
	// versions; older ones say it in source only).
	ParentThreadID string `json:"parent_thread_id"`
}

// source is a session_meta's source when it is an object: a subagent's,
// {"subagent": "review"} or {"subagent": {"thread_spawn":
// {"parent_thread_id": …, "depth": …}}}.
type source struct {
	Subagent json.RawMessage `json:"subagent"`
}

type subagentSource struct {
	ThreadSpawn *struct {
		ParentThreadID string `json:"parent_thread_id"`
	} `json:"thread_spawn"`
	Other string `json:"other"`
}

// ownRun names a thread Codex runs for itself, not one a person or a
// parent thread asked for: a compaction's ({"subagent": "compact"}) or
// one of its own kind ({"subagent": {"other": "guardian"}}, the approval
// reviewer, whose prompt is the history it assesses and whose reply is
// a verdict). "" for any other thread.
func (m *sessionMeta) ownRun() string {
	var src source
	if len(m.Source) == 0 || m.Source[0] != '{' || json.Unmarshal(m.Source, &src) != nil || len(src.Subagent) == 0 {
		return ""
	}
	var kind string
	if json.Unmarshal(src.Subagent, &kind) == nil {
		if kind == "compact" {
			return kind
		}
		return ""
	}
	var sub subagentSource
	if json.Unmarshal(src.Subagent, &sub) != nil || sub.ThreadSpawn != nil {
		return ""
	}
	return slug(sub.Other)
}

// sourceName is the source when it is a string ("cli", "vscode", "exec",
// "mcp", "unknown"), "" when it is not.
func (m *sessionMeta) sourceName() string {
	var s string
	if json.Unmarshal(m.Source, &s) != nil {
		return ""
	}
	return s
}

// parent is the thread that spawned this one, "" for a thread a person
// or a program started (a fork names the thread it copied in
// forked_from_id, and is a thread of its own).
func (m *sessionMeta) parent() string {
	var src source
	if len(m.Source) > 0 && m.Source[0] == '{' && json.Unmarshal(m.Source, &src) == nil {
		var sub subagentSource
		if len(src.Subagent) > 0 && src.Subagent[0] == '{' && json.Unmarshal(src.Subagent, &sub) == nil &&
			sub.ThreadSpawn != nil && sub.ThreadSpawn.ParentThreadID != "" {
			return sub.ThreadSpawn.ParentThreadID
		}
	}
	if m.ForkedFromID == "" {
		return m.ParentThreadID
	}
	return ""
}

// entrypoint says how the thread ran, from its source or else its
// originator: "codex-cli" (the terminal UI), "codex-vscode" (the editor
// extension), "sdk-codex-exec" (`codex exec` and the SDKs built on it)
// and "sdk-codex-mcp" (Codex run as an MCP server by another program):
// the last two are runs no person typed into, kept but left out of
// searches unless asked (the "sdk-" prefix says so). The threads Codex
// runs for itself are "sdk-codex-guardian" and "sdk-codex-compact" (see
// ownRun), and their messages are left out (parser.ownRun). Any other
// value is
// "codex-" and its name. "" when the record says neither.
func (m *sessionMeta) entrypoint() string {
	if own := m.ownRun(); own != "" {
		return "sdk-codex-" + own // a run no person typed into, whatever client ran it
	}
	src := m.sourceName()
	// Codex Desktop runs its threads as the editor extension does
	// (source "vscode") and its subagents with no source name: its
	// originator ("Codex Desktop") names it for both. A `codex exec`
	// run from a shell of Desktop's agent inherits that originator
	// (Desktop passes it down in the environment) and is headless
	// still, as its source says.
	if e := originatorEntrypoint(m.Originator); e == "codex-desktop" && src != "exec" && src != "mcp" {
		return e
	}
	switch src {
	case "cli":
		return "codex-cli"
	case "vscode":
		return "codex-vscode"
	case "exec":
		return "sdk-codex-exec"
	case "mcp":
		return "sdk-codex-mcp"
	case "", "unknown":
	default:
		if s := slug(src); s != "" {
			return "codex-" + s
		}
	}
	return originatorEntrypoint(m.Originator)
}

// originatorEntrypoint names a run by the client Codex says it was
// (codex_cli_rs, codex-tui, codex_vscode, codex_exec, codex_sdk_ts, …).
func originatorEntrypoint(originator string) string {
	s := slug(originator)
	switch {
	case s == "":
		return ""
	case s == "codex-cli-rs" || s == "codex-tui" || s == "codex-cli":
		return "codex-cli"
	case s == "codex-vscode":
		return "codex-vscode"
	case strings.Contains(s, "exec") || strings.Contains(s, "sdk"):
		return "sdk-" + s
	case strings.HasPrefix(s, "codex-"):
		return s
	}
	return "codex-" + s
}

// slug is s lower-cased, with each run of other characters than letters
// and digits made one '-', at most 40 bytes.
func slug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if 'a' <= r && r <= 'z' || '0' <= r && r <= '9' {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
			if b.Len() >= 40 {
				break
			}
			continue
		}
		dash = true
	}
	return b.String()
}
