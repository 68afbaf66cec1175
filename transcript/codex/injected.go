package codex

import (
	"encoding/json"
	"strings"
)

// injectedMarkers start the user-role text Codex writes itself, not the
// person: a part of a user message that starts with one (compared
// without regard to case, after leading space, as Codex compares them)
// is the harness's. From codex-rs/core/src/contextual_user_message.rs
// (CONTEXTUAL_USER_FRAGMENTS: AGENTS.md instructions, environment
// context, a skill, a `!command` the user ran and its output, a turn
// aborted, a subagent's notification, an editor's additional context),
// codex-rs/protocol/src/protocol.rs (USER_INSTRUCTIONS_OPEN_TAG, which
// older versions used for AGENTS.md) and the session prefixes of older
// versions (<context_update>, <skills_instructions>, …). The developer
// messages (<permissions instructions>, <model_switch>, …) are dropped
// by their role; their markers are here for a version that sends them as
// the user's.
var injectedMarkers = [...]string{
	"# agents.md instructions for ",
	"# agents.md instructions\n\n<instructions>", // versions that name no folder (global instructions)
	"<environment_context>",
	"<user_instructions>",
	"<skill>",
	"<skills_instructions>",
	"<user_shell_command>",
	"<turn_aborted>",
	"<subagent_notification>",
	"<additional_context>",
	"<context_update>",
	"<codex_internal_context",
	"<recommended_plugins>",
	"<hook_prompt",
	"<permissions instructions>",
	"<model_switch>",
	"<collaboration_mode>",
	"<realtime_conversation>",
	"<personality_spec>",
	// the result of a /review run, as Codex puts it in the thread
	"<user_action>",
	// a goal's steering prompt (codex-rs/ext/goal: ExtensionContext; the
	// versions before it wrote <goal_context>)
	"<extension_context>",
	"<goal_context>",
}

// harnessWarnings start the warnings older Codex versions wrote into the
// thread as the user's turn (Session::record_model_warning; today's
// contextual_user_message.rs still lists them, as legacy fragments, to
// leave them out of old threads). Codex compares them as written.
var harnessWarnings = [...]string{
	"Warning: The maximum number of unified exec processes you can keep open is",
	"Warning: apply_patch was requested via exec_command.",
	"Warning: Your account was flagged for potentially high-risk cyber activity",
}

// externalContextPrefix opens the context a hook adds to a turn,
// <external_KEY>VALUE</external_KEY> (context/fragments.rs,
// AdditionalContextUserFragment), closed by the same key.
const externalContextPrefix = "<external_"

// isInjected reports whether a user message's text part is the harness's.
func isInjected(text string) bool {
	text = strings.TrimLeft(text, " \t\r\n")
	for _, m := range injectedMarkers {
		if len(text) >= len(m) && strings.EqualFold(text[:len(m)], m) {
			return true
		}
	}
	for _, w := range harnessWarnings {
		if strings.HasPrefix(text, w) {
			return true
		}
	}
	return isExternalContext(text)
}

// interAgentContent is the message of an agent's message to another
// (a task a parent gives its subagent, a subagent's report), which Codex
// writes into the recipient's thread as a message whose one text part is
// the InterAgentCommunication as JSON ({"author":"/root","recipient":
// "/root/worker",…,"content":…}; protocol.rs, to_response_input_item);
// ok is false for any other message.
func interAgentContent(texts []string) (content string, ok bool) {
	if len(texts) != 1 {
		return "", false
	}
	t := strings.TrimSpace(texts[0])
	if !strings.HasPrefix(t, `{"author":`) || !strings.HasSuffix(t, "}") {
		return "", false
	}
	var m struct {
		Author    string  `json:"author"`
		Recipient string  `json:"recipient"`
		Content   *string `json:"content"`
	}
	if json.Unmarshal([]byte(t), &m) != nil || m.Author == "" || m.Recipient == "" || m.Content == nil {
		return "", false
	}
	return *m.Content, true
}

// isExternalContext reports whether text (trimmed at its start) is a
// hook's context: <external_KEY>, then anything, then </external_KEY>
// at its end. A person's text that only starts so is kept.
func isExternalContext(text string) bool {
	rest, ok := strings.CutPrefix(text, externalContextPrefix)
	if !ok {
		return false
	}
	key, _, ok := strings.Cut(rest, ">")
	if !ok || key == "" || strings.ContainsAny(key, "<> \t\n") {
		return false
	}
	return strings.HasSuffix(strings.TrimRight(text, " \t\r\n"), "</external_"+key+">")
}

// reviewPrompts are the prompts Codex writes for a /review
// (codex-rs/core/src/review_prompts.rs): the review thread's first user
// message, with a copy as a user_message event in the thread that ran
// /review. Each is Codex's text around a branch, a merge base or a
// commit; a custom review's instructions are the person's own words and
// are kept.
var reviewPrompts = [...]struct{ prefix, suffix string }{
	{"Review the current code changes (staged, unstaged, and untracked files) and provide prioritized findings.", ""},
	{"Review the code changes against the base branch '", "Provide prioritized, actionable findings."},
	{"Review the code changes introduced by commit ", "Provide prioritized, actionable findings."},
}

// maxReviewPrompt bounds a text taken for one of reviewPrompts: Codex's
// are a few hundred bytes, its longest a commit title's worth more.
const maxReviewPrompt = 2048

// isReviewRequest reports whether a user message's text part is a
// prompt Codex wrote for a /review.
func isReviewRequest(text string) bool {
	t := strings.TrimSpace(text)
	if len(t) > maxReviewPrompt {
		return false
	}
	for _, p := range reviewPrompts {
		if p.suffix == "" && t == p.prefix ||
			p.suffix != "" && len(t) >= len(p.prefix)+len(p.suffix) && strings.HasPrefix(t, p.prefix) && strings.HasSuffix(t, p.suffix) {
			return true
		}
	}
	return false
}

// isImageTag reports whether a text part is one of the tags Codex puts
// around an attached image (<image name=[Image #1]>, </image>).
func isImageTag(text string) bool {
	t := strings.TrimSpace(text)
	if len(t) > 256 || !strings.HasSuffix(t, ">") {
		return false
	}
	for _, prefix := range []string{"<image", "</image", "<local_image", "</local_image"} {
		if strings.HasPrefix(t, prefix) {
			return true
		}
	}
	return false
}

// requestMarker ends the context Codex's first editor extension put
// before a prompt ("# Context from my IDE setup: … ## My request for
// Codex:"; protocol.rs USER_MESSAGE_BEGIN).
const requestMarker = "## My request for Codex:"

// requestOf is a prompt without the editor context before its request.
func requestOf(text string) string {
	if _, request, ok := strings.Cut(text, requestMarker); ok {
		return request
	}
	return text
}

// specKitInput opens, and specKitMarker follows the arguments of, the
// prompts GitHub's spec-kit installs as Codex custom prompts
// (/prompts:speckit.specify and the others: templates/commands/*.md,
// "## User Input\n\n```text\n$ARGUMENTS\n```\n\nYou **MUST** consider
// the user input…"). Codex sends a custom prompt expanded, its arguments
// in place of $ARGUMENTS, and records only that: the person's words are
// the arguments, the rest is the template (kilobytes of it).
const (
	specKitInput  = "## User Input\n\n```text\n"
	specKitMarker = "\n```\n\nYou **MUST** consider the user input before proceeding"
)

// specKitArguments is the arguments a spec-kit prompt was run with (ok),
// "" when it was run with none.
func specKitArguments(text string) (string, bool) {
	rest, ok := strings.CutPrefix(strings.TrimLeft(text, " \t\r\n"), specKitInput)
	if !ok {
		return "", false
	}
	if strings.HasPrefix(rest, specKitMarker[1:]) {
		return "", true // no arguments: the fence closes at once
	}
	args, _, ok := strings.Cut(rest, specKitMarker)
	if !ok {
		return "", false
	}
	return strings.TrimSpace(args), true
}
