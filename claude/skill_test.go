package claude

import (
	"strings"
	"testing"
)

// frontmatter splits a SKILL.md into its YAML fields (flat key: value
// lines, which is all the recall skill uses) and its body.
func frontmatter(t *testing.T, text string) (map[string]string, string) {
	t.Helper()
	rest, ok := strings.CutPrefix(text, "---\n")
	if !ok {
		t.Fatalf("no frontmatter")
	}
	head, body, ok := strings.Cut(rest, "\n---\n")
	if !ok {
		t.Fatalf("frontmatter not closed")
	}
	fields := map[string]string{}
	for _, line := range strings.Split(head, "\n") {
		key, value, ok := strings.Cut(line, ": ")
		if !ok {
			t.Fatalf("frontmatter line %q is not key: value", line)
		}
		// In a plain YAML scalar ": " and " #" end the value early.
		if strings.Contains(value, ": ") || strings.Contains(value, " #") {
			t.Errorf("%s: %q is not a plain YAML value", key, value)
		}
		fields[key] = value
	}
	return fields, body
}

func TestSkillFrontmatter(t *testing.T) {
	fields, _ := frontmatter(t, SkillText("/opt/recall/bin/recall"))
	if fields["name"] != "recall" {
		t.Errorf("name = %q", fields["name"])
	}
	for _, key := range []string{"description", "when_to_use"} {
		if len(fields[key]) < 40 {
			t.Errorf("%s is missing or too short: %q", key, fields[key])
		}
	}
	// Claude Code cuts description plus when_to_use at 1,536 characters.
	if n := len(fields["description"]) + len(fields["when_to_use"]); n > 1536 {
		t.Errorf("description and when_to_use are %d characters, over 1536", n)
	}
}

// The body must teach every part of the interface the skill is for.
func TestSkillTeachesTheInterface(t *testing.T) {
	_, body := frontmatter(t, SkillText("/opt/recall/bin/recall"))
	for _, want := range []string{
		"`/opt/recall/bin/recall`",
		"OR'ed", "--require", "-r ", "--exclude", "-x ", `"double-quoted phrase"`, "`_`", "--regex",
		"--scope session", "--project .", "--since 30d", "--type user|assistant|tool|agent",
		"--json", "`rank`", "`session_id`", "`project`", "`score`", "`matches`", "`first_timestamp`",
		"`last_timestamp`", "`source`", "`similar`", "{type, timestamp, source, line, text, snippet,",
		"`-l`", "--count",
		"0 when something matched", "1 when nothing matched", "2 on an error",
		"sed -n '1234p'", "| jq",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the skill body does not mention %q", want)
		}
	}
	if strings.Contains(body, "{{RECALL}}") {
		t.Errorf("the recall path placeholder was left in")
	}
}
