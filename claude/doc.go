// Package claude wires recall into Claude Code: it merges recall's hooks
// into settings.json without disturbing anything else, installs the recall
// skill, parses the JSON Claude Code hands a hook on stdin, and starts the
// detached indexer run that a hook asks for.
//
// Facts about Claude Code used here (settings layout, hook payloads,
// CLAUDE_CONFIG_DIR, skill frontmatter) come from
// shared/docs/claude-code-format.md, sections 6 and 7.
package claude
