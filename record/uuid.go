package record

import "strings"

// uuidLen is the length of a UUID's text form, 8-4-4-4-12 digits.
const uuidLen = len("00000000-0000-0000-0000-000000000000")

// IsUUID reports whether s has a UUID's shape: 8-4-4-4-12 hexadecimal
// digits, of either case (the ids Claude Code, Codex and Gemini CLI give
// their sessions).
func IsUUID(s string) bool {
	if len(s) != uuidLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if l := c | 0x20; !('0' <= c && c <= '9' || 'a' <= l && l <= 'f') {
				return false
			}
		}
	}
	return true
}

// TrailingUUID is the UUID a session file's name ends with before its
// extensions (.jsonl, .jsonl.zst, .json): a Claude Code transcript's
// (<id>.jsonl) or a Codex rollout's (rollout-<time>-<id>.jsonl), as
// written; "" when it ends with none.
func TrailingUUID(name string) string {
	name = strings.TrimSuffix(name, ".zst")
	name = strings.TrimSuffix(name, ".jsonl")
	name = strings.TrimSuffix(name, ".json")
	if len(name) < uuidLen {
		return ""
	}
	if id := name[len(name)-uuidLen:]; IsUUID(id) {
		return id
	}
	return ""
}
