package textrules

import "strings"

// IsHeadlessEntrypoint reports whether a record's entrypoint marks a run
// that no person typed into: `claude -p` writes "sdk-cli", and the Agent
// SDKs write "sdk-ts", "sdk-py" and the like (each SDK sets
// CLAUDE_CODE_ENTRYPOINT to "sdk-" and its language). Every other value
// is a person at a terminal, an editor or an app ("cli", "claude-vscode",
// "claude-desktop", …), and so is a record without one (remote sessions
// and versions before the field write none). Where a session opens, or
// what its first record is, says nothing: VS Code and remote sessions open
// with queue-operation records exactly as `claude -p` runs do.
func IsHeadlessEntrypoint(entrypoint string) bool {
	return strings.HasPrefix(entrypoint, headlessPrefix)
}

// headlessPrefix starts every SDK entrypoint.
const headlessPrefix = "sdk-"
