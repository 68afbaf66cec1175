package codex

import "github.com/recall-dev/recall/transcript/jsonscan"

// Most of a rollout's bytes are records that make no row: tool outputs,
// reasoning, token counts, turn contexts. Codex writes every line in one
// order, {"timestamp":…,["ordinal":…,]"type":…,"payload":{"type":…, so
// the first bytes of a line say what it is, and a line known to make no
// row (and to change nothing the parser keeps) is passed over without
// being decoded: checked to be JSON when read for rows, not even that
// when replayed (identity.go). A line whose head does not read that way
// is decoded whole.

// quiet reports whether line is a record that makes no row and changes
// nothing the parser keeps, by its head alone.
func quiet(line []byte) bool {
	env, item, ok := peekHead(line)
	if !ok {
		return false
	}
	switch env {
	case "response_item":
		return quietItem(item)
	case "event_msg":
		return item != "" && item != "user_message" && item != "agent_message" &&
			item != "task_started" && item != "turn_started"
	}
	return quietRecord(env)
}

// quietRecord: record types skipped whole. compacted is not among them:
// it is counted as noise.
func quietRecord(t string) bool {
	switch t {
	case "turn_context", "world_state", "token_usage_record", "retained_context",
		"realtime_item", "inter_agent_communication", "inter_agent_communication_metadata",
		"security_risk_score":
		return true
	}
	return false
}

// quietItem: response item types that make no row.
func quietItem(t string) bool {
	switch t {
	case "function_call_output", "custom_tool_call_output", "tool_search_output",
		"reasoning", "ghost_snapshot", "compaction", "compaction_summary",
		"context_compaction", "compaction_trigger", "additional_tools",
		"image_generation_call":
		return true
	}
	return false
}

// peekHead reads a line's record type and its payload's type from the
// members it starts with. ok is false when the line does not start the
// way Codex writes it; item is "" when the payload does not start with
// its type (session_meta's).
func peekHead(line []byte) (env, item string, ok bool) {
	s := skipSpace(line)
	if len(s) == 0 || s[0] != '{' {
		return "", "", false
	}
	s = s[1:]
	for range 4 {
		var key string
		if key, s, ok = plainString(skipSpace(s)); !ok {
			return "", "", false
		}
		if s = skipSpace(s); len(s) == 0 || s[0] != ':' {
			return "", "", false
		}
		s = skipSpace(s[1:])
		switch key {
		case "timestamp":
			_, s, ok = plainString(s)
		case "ordinal":
			s, ok = skipDigits(s)
		case "type":
			env, s, ok = plainString(s)
		case "payload":
			if env == "" || len(s) == 0 || s[0] != '{' {
				return "", "", false
			}
			key, rest, isKey := plainString(skipSpace(s[1:]))
			if rest = skipSpace(rest); !isKey || key != "type" || len(rest) == 0 || rest[0] != ':' {
				return env, "", true
			}
			item, _, ok = plainString(skipSpace(rest[1:]))
			if !ok {
				return env, "", true
			}
			return env, item, true
		default:
			return "", "", false
		}
		if !ok {
			return "", "", false
		}
		if s = skipSpace(s); len(s) == 0 || s[0] != ',' {
			return "", "", false
		}
		s = s[1:]
	}
	return "", "", false
}

// plainString reads a JSON string without escapes at the start of s (a
// type or a timestamp: one with an escape is read the long way).
func plainString(s []byte) (string, []byte, bool) {
	if len(s) == 0 || s[0] != '"' {
		return "", s, false
	}
	for i := 1; i < len(s) && i < 128; i++ {
		switch s[i] {
		case '"':
			return string(s[1:i]), s[i+1:], true
		case '\\':
			return "", s, false
		}
	}
	return "", s, false
}

func skipDigits(s []byte) ([]byte, bool) {
	i := 0
	for i < len(s) && '0' <= s[i] && s[i] <= '9' {
		i++
	}
	return s[i:], i > 0
}

func skipSpace(s []byte) []byte { return s[jsonscan.SkipSpace(s, 0):] }
