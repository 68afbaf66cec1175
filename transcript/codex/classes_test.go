package codex

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recall-dev/recall/filter"
	"github.com/recall-dev/recall/record"
)

// TestRecordClasses: each kind of record a rollout holds becomes the rows
// it should, or none, with what it drops counted by reason.
func TestRecordClasses(t *testing.T) {
	userMsg := func(texts ...string) string {
		var parts []string
		for _, s := range texts {
			parts = append(parts, fmt.Sprintf(`{"type":"input_text","text":%q}`, s))
		}
		return itemLine("message", `"role":"user","content":[`+strings.Join(parts, ",")+`]`)
	}
	reply := func(s string) string {
		return itemLine("message", fmt.Sprintf(`"role":"assistant","content":[{"type":"output_text","text":%q}]`, s))
	}
	call := func(name, args string) string {
		return itemLine("function_call", fmt.Sprintf(`"name":%q,"arguments":%q,"call_id":"call_1"`, name, args))
	}
	long := strings.Repeat("word ", 60<<10)
	tests := []struct {
		name   string
		lines  []string
		want   []string // type/role: text
		counts map[filter.Reason]int64
		bad    int
	}{
		{name: "user prompt", lines: []string{userMsg("How do I add a column to the orders table?")},
			want: []string{"user/user: How do I add a column to the orders table?"}},
		{name: "assistant reply", lines: []string{reply("Add a migration that alters the table.")},
			want: []string{"assistant/assistant: Add a migration that alters the table."}},
		{name: "developer message is noise", lines: []string{itemLine("message", `"role":"developer","content":[{"type":"input_text","text":"<permissions instructions>x</permissions instructions>"}]`)},
			counts: map[filter.Reason]int64{filter.Noise: 1}},
		{name: "system message is noise", lines: []string{itemLine("message", `"role":"system","content":[{"type":"input_text","text":"You are a coding agent with tools."}]`)},
			counts: map[filter.Reason]int64{filter.Noise: 1}},
		{name: "environment context is noise", lines: []string{userMsg("<environment_context>\n<cwd>/a</cwd>\n</environment_context>")},
			counts: map[filter.Reason]int64{filter.Noise: 1}},
		{name: "AGENTS.md instructions are noise", lines: []string{userMsg("# AGENTS.md instructions for /a\n\n<INSTRUCTIONS>\nbe brief\n</INSTRUCTIONS>")},
			counts: map[filter.Reason]int64{filter.Noise: 1}},
		{name: "AGENTS.md instructions naming no folder are noise", lines: []string{userMsg("# AGENTS.md instructions\n\n<INSTRUCTIONS>\n# Global rules\n</INSTRUCTIONS>")},
			counts: map[filter.Reason]int64{filter.Noise: 1}},
		{name: "user instructions are noise", lines: []string{userMsg("<user_instructions>\nAlways write tests.\n</user_instructions>")},
			counts: map[filter.Reason]int64{filter.Noise: 1}},
		{name: "turn aborted is noise, whatever its case", lines: []string{userMsg("  <TURN_ABORTED>\nThe user interrupted.\n</TURN_ABORTED>")},
			counts: map[filter.Reason]int64{filter.Noise: 1}},
		{name: "skill, shell command, subagent notification, editor context are noise", lines: []string{
			userMsg("<skill>\n<name>pdf</name>\n</skill>"),
			userMsg("<user_shell_command>\n<command>ls</command>\n</user_shell_command>"),
			userMsg("<subagent_notification>{\"agent\":\"x\"}</subagent_notification>"),
			userMsg("<additional_context>\n<title>Context from my editor</title>\n</additional_context>")},
			counts: map[filter.Reason]int64{filter.Noise: 4}},
		{name: "a /review result (user_action) is noise", lines: []string{userMsg("<user_action>\n  <context>User initiated a review task. Here's the full review output from reviewer model.</context>\n  <action>review</action>\n  <results>\nNo issues found.\n  </results>\n</user_action>")},
			counts: map[filter.Reason]int64{filter.Noise: 1}},
		{name: "the prompts Codex writes for /review are noise", lines: []string{
			userMsg("Review the current code changes (staged, unstaged, and untracked files) and provide prioritized findings."),
			userMsg("Review the code changes against the base branch 'main'. The merge base commit for this comparison is 5c2031e347e42f8eefde569db2d1ad513c0a5564. Run `git diff 5c2031e347e42f8eefde569db2d1ad513c0a5564` to inspect the changes relative to main. Provide prioritized, actionable findings."),
			userMsg("Review the code changes against the base branch 'dev'. Start by finding the merge diff between the current branch and dev's upstream e.g. (`git merge-base HEAD \"$(git rev-parse --abbrev-ref \"dev@{upstream}\")\"`), then run `git diff` against that SHA to see what changes we would merge into the dev branch. Provide prioritized, actionable findings."),
			userMsg("  Review the code changes introduced by commit 4f1c2b7 (\"Fix the tax rounding\"). Provide prioritized, actionable findings.\n")},
			counts: map[filter.Reason]int64{filter.Noise: 4}},
		{name: "a review the person words is kept", lines: []string{
			userMsg("Review the code changes against the base branch 'main' and tell me whether the migration is safe to ship"),
			userMsg("Review the current code changes (staged, unstaged, and untracked files) and provide prioritized findings. Focus on the SQL."),
			userMsg("Check the locking in the cache, then Review the code changes introduced by commit 4f1c2b7. Provide prioritized, actionable findings.")},
			want: []string{
				"user/user: Review the code changes against the base branch 'main' and tell me whether the migration is safe to ship",
				"user/user: Review the current code changes (staged, unstaged, and untracked files) and provide prioritized findings. Focus on the SQL.",
				"user/user: Check the locking in the cache, then Review the code changes introduced by commit 4f1c2b7. Provide prioritized, actionable findings."}},
		{name: "injected part beside a typed one: the typed one is kept",
			lines: []string{userMsg("<environment_context>\n<cwd>/a</cwd>\n</environment_context>", "Rename the helper to parseOrder")},
			want:  []string{"user/user: Rename the helper to parseOrder"}},
		{name: "image tags are left out", lines: []string{userMsg("<image name=[Image #1]>", "</image>", "What is wrong in this screenshot?")},
			want: []string{"user/user: What is wrong in this screenshot?"}},
		{name: "editor context before the request is left out",
			lines: []string{userMsg("# Context from my IDE setup:\n\n## Active file: a.go\n\n## My request for Codex:\nExplain the retry loop in a.go")},
			want:  []string{"user/user: Explain the retry loop in a.go"}},
		{name: "acknowledgement", lines: []string{userMsg("thanks")}, counts: map[filter.Reason]int64{filter.Acknowledgement: 1}},
		{name: "image only: nothing", lines: []string{itemLine("message", `"role":"user","content":[{"type":"input_image","image_url":"data:image/png;base64,AA=="}]`)}},
		{name: "event messages are copies of message items", lines: []string{
			userMsg("Explain why the build is slow on CI"),
			eventLine("user_message", `"message":"Explain why the build is slow on CI","images":[]`),
			reply("The cache key changes on every run."),
			eventLine("agent_message", `"message":"The cache key changes on every run."`)},
			want:   []string{"user/user: Explain why the build is slow on CI", "assistant/assistant: The cache key changes on every run."},
			counts: map[filter.Reason]int64{filter.Copy: 2}},
		{name: "event messages make rows in a file without message items", lines: []string{
			eventLine("user_message", `"message":"Explain why the build is slow on CI","kind":"plain"`),
			eventLine("user_message", `"message":"<environment_context></environment_context>","kind":"environment_context"`),
			eventLine("user_message", `"message":"<user_instructions>be brief</user_instructions>"`),
			eventLine("agent_message", `"message":"The cache key changes on every run."`)},
			want:   []string{"user/user: Explain why the build is slow on CI", "assistant/assistant: The cache key changes on every run."},
			counts: map[filter.Reason]int64{filter.Noise: 2}},
		{name: "other events make nothing", lines: []string{
			eventLine("token_count", `"info":null`), eventLine("task_started", `"turn_id":"t"`),
			eventLine("exec_command_end", `"call_id":"c","aggregated_output":"`+strings.Repeat("x", 1000)+`","exit_code":0`),
			eventLine("agent_reasoning", `"text":"thinking about it"`), eventLine("turn_aborted", `"reason":"interrupted"`)}},
		{name: "shell: the script of bash -lc", lines: []string{call("shell", `{"command":["bash","-lc","go test ./..."],"workdir":"/a"}`)},
			want: []string{"tool/tool: shell: go test ./..."}},
		{name: "shell: words joined, quoted where needed", lines: []string{call("shell", `{"command":["git","commit","-m","fix the bug"]}`)},
			want: []string{"tool/tool: shell: git commit -m 'fix the bug'"}},
		{name: "shell_command", lines: []string{call("shell_command", `{"command":"ls -la","login":true}`)},
			want: []string{"tool/tool: shell_command: ls -la"}},
		{name: "exec_command", lines: []string{call("exec_command", `{"cmd":"npm run build","yield_time_ms":500}`)},
			want: []string{"tool/tool: exec_command: npm run build"}},
		{name: "apply_patch through the shell", lines: []string{call("shell", `{"command":["apply_patch","*** Begin Patch\n*** Update File: a.go\n*** Move to: b.go\n*** End Patch"]}`)},
			want: []string{"tool/tool: apply_patch: a.go, b.go"}},
		{name: "apply_patch as a function", lines: []string{call("apply_patch", `{"input":"*** Begin Patch\n*** Delete File: old.go\n*** End Patch"}`)},
			want: []string{"tool/tool: apply_patch: old.go"}},
		{name: "apply_patch as a custom tool", lines: []string{itemLine("custom_tool_call", `"status":"completed","call_id":"c","name":"apply_patch","input":"*** Begin Patch\n*** Add File: x/new.go\n+package x\n*** Update File: y.go\n@@\n-a\n+b\n*** End Patch\n"`)},
			want: []string{"tool/tool: apply_patch: x/new.go, y.go"}},
		{name: "another custom tool: its name", lines: []string{itemLine("custom_tool_call", `"call_id":"c","name":"js_repl","input":"1+1"`)},
			want: []string{"tool/tool: js_repl"}},
		{name: "local shell call", lines: []string{itemLine("local_shell_call", `"call_id":"c","status":"completed","action":{"type":"exec","command":["ls","-la"]}`)},
			want: []string{"tool/tool: local_shell: ls -la"}},
		{name: "web search", lines: []string{itemLine("web_search_call", `"status":"completed","action":{"type":"search","query":"sqlite wal checkpoint"}`)},
			want: []string{"tool/tool: web_search: sqlite wal checkpoint"}},
		{name: "web page opened", lines: []string{itemLine("web_search_call", `"action":{"type":"open_page","url":"https://sqlite.org/wal.html"}`)},
			want: []string{"tool/tool: web_search: https://sqlite.org/wal.html"}},
		{name: "MCP tool: its arguments", lines: []string{call("github__get_issue", `{"url":"https://github.com/a/b/issues/1"}`)},
			want: []string{"tool/tool: github__get_issue: https://github.com/a/b/issues/1"}},
		{name: "arguments that are no object: the name", lines: []string{call("update_plan", `not json`)},
			want: []string{"tool/tool: update_plan"}},
		{name: "tool outputs and reasoning make nothing", lines: []string{
			itemLine("function_call_output", `"call_id":"c","output":"`+strings.Repeat("y", 2000)+`"`),
			itemLine("custom_tool_call_output", `"call_id":"c","output":"done"`),
			itemLine("reasoning", `"summary":[{"type":"summary_text","text":"**Planning**"}],"encrypted_content":"gAAA"`)}},
		{name: "agent to agent message is noise", lines: []string{itemLine("agent_message", `"author":"w","recipient":"root","content":[{"type":"input_text","text":"done"}]`)},
			counts: map[filter.Reason]int64{filter.Noise: 1}},
		{name: "compacted summary is noise", lines: []string{`{"timestamp":"2026-01-01T00:00:03.000Z","type":"compacted","payload":{"message":"Summary: the user asked for a migration.","replacement_history":[]}}`},
			counts: map[filter.Reason]int64{filter.Noise: 1}},
		{name: "inherited parent context is a copy", lines: []string{`{"timestamp":"2026-01-01T00:00:03.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"The parent's prompt, copied"}]},"metadata":{"inherited_user_message":true}}`},
			counts: map[filter.Reason]int64{filter.Copy: 1}},
		{name: "records that make no row", lines: []string{
			`{"timestamp":"2026-01-01T00:00:03.000Z","type":"turn_context","payload":{"cwd":"/a","model":"gpt-5"}}`,
			`{"timestamp":"2026-01-01T00:00:03.000Z","type":"world_state","payload":{}}`,
			`{"timestamp":"2026-01-01T00:00:03.000Z","type":"token_usage_record","payload":{}}`,
			`{"timestamp":"2026-01-01T00:00:03.000Z","type":"retained_context","payload":{}}`,
			`{"timestamp":"2026-01-01T00:00:03.000Z","type":"realtime_item","payload":{}}`,
			`{"timestamp":"2026-01-01T00:00:03.000Z","type":"inter_agent_communication","payload":{"author":"a"}}`,
			`{"timestamp":"2026-01-01T00:00:03.000Z","type":"a_type_from_the_future","payload":{"x":1}}`,
			itemLine("an_item_from_the_future", `"x":1`)}},
		{name: "secret redacted", lines: []string{userMsg("my token is ghp_" + strings.Repeat("aB3", 12) + " please rotate it")},
			want: []string{"user/user: my token is [REDACTED:github-pat] please rotate it"}},
		{name: "long message capped", lines: []string{userMsg(long)},
			want: []string{"user/user: word word word word  … rst 256 KiB of this 307199-byte message] (262208 bytes)"}},
		{name: "hostile lines are bad lines, one each", lines: []string{
			`not json`, `[1]`, `null`, `"a string"`, `{}`, `{"type":"response_item","payload":"text"}`,
			`{"type":"response_item","payload":{"type":"message","role":"user","content":7}}`,
			`{"type":"response_item","payload":{"type":"message","role":5}}`,
			`{"type":"session_meta","payload":[1]}`, `{"type":"event_msg","payload":{"type":"user_message","message":{"a":1}}}`,
			`{"timestamp":"x","type":"turn_context","payload":{"cwd":`, ``},
			bad: 12},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "rollout-2026-01-01T00-00-00-"+threadPlain+".jsonl")
			writeFile(t, path, []byte(metaLine(threadPlain, "/home/dev/app", "cli")+"\n"+strings.Join(tt.lines, "\n")+"\n"))
			res := read(t, path, record.FileState{})
			var got []string
			for _, r := range res.Rows {
				text := r.Text
				if len(text) > 200 {
					text = fmt.Sprintf("%s … %s (%d bytes)", text[:20], text[len(text)-40:], len(text))
				}
				got = append(got, r.Type+"/"+r.Role+": "+text)
				if r.UUID == "" || r.Session != threadPlain || r.Project != "/home/dev/app" || r.Entrypoint != "codex-cli" || r.Agent != record.AgentCodex {
					t.Errorf("row %+v", r.Row)
				}
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("rows\n got %q\nwant %q", got, tt.want)
			}
			for r := filter.Noise; r <= filter.Binary; r++ {
				if res.Counts[r] != tt.counts[r] {
					t.Errorf("%s = %d, want %d", r, res.Counts[r], tt.counts[r])
				}
			}
			if res.BadLines != tt.bad {
				t.Errorf("%d bad lines, want %d (%s)", res.BadLines, tt.bad, res.Warning)
			}
		})
	}
}

// TestSessionMeta: a thread's session_meta says whose rows its file holds
// and how it ran; one of another thread (a fork's copy) changes nothing.
func TestSessionMeta(t *testing.T) {
	const parent = "0199b6f2-0000-7000-8000-00000000aaaa"
	tests := []struct {
		name    string
		meta    string // the payload
		session string
		agentID string
		entry   string
		project string
	}{
		{"cli", `{"id":"` + threadPlain + `","cwd":"/a","source":"cli","originator":"codex_cli_rs"}`, threadPlain, "", "codex-cli", "/a"},
		{"Codex Desktop: its originator, not vscode", `{"id":"` + threadPlain + `","cwd":"/a","source":"vscode","originator":"Codex Desktop"}`, threadPlain, "", "codex-desktop", "/a"},
		{"codex exec run from Codex Desktop's shell: headless, as its source says", `{"id":"` + threadPlain + `","cwd":"/a","source":"exec","originator":"Codex Desktop"}`, threadPlain, "", "sdk-codex-exec", "/a"},
		{"a Codex Desktop subagent", `{"id":"` + threadPlain + `","cwd":"/a","originator":"Codex Desktop","source":{"subagent":{"thread_spawn":{"parent_thread_id":"` + parent + `","depth":1}}}}`,
			parent, threadPlain, "codex-desktop", "/a"},
		{"vscode", `{"id":"` + threadPlain + `","cwd":"/a","source":"vscode","originator":"codex_vscode"}`, threadPlain, "", "codex-vscode", "/a"},
		{"exec is headless", `{"id":"` + threadPlain + `","cwd":"/a","source":"exec","originator":"codex_exec"}`, threadPlain, "", "sdk-codex-exec", "/a"},
		{"mcp is headless", `{"id":"` + threadPlain + `","cwd":"/a","source":"mcp"}`, threadPlain, "", "sdk-codex-mcp", "/a"},
		{"an unknown source", `{"id":"` + threadPlain + `","cwd":"/a","source":"Desk Top!"}`, threadPlain, "", "codex-desk-top", "/a"},
		{"no source: the originator", `{"id":"` + threadPlain + `","cwd":"/a","originator":"codex-tui"}`, threadPlain, "", "codex-cli", "/a"},
		{"an SDK's originator is headless", `{"id":"` + threadPlain + `","cwd":"/a","source":"unknown","originator":"codex_sdk_ts"}`, threadPlain, "", "sdk-codex-sdk-ts", "/a"},
		{"a spawned subagent: its parent's rows", `{"id":"` + threadPlain + `","cwd":"/a","originator":"codex_cli_rs","source":{"subagent":{"thread_spawn":{"parent_thread_id":"` + parent + `","depth":1}}}}`,
			parent, threadPlain, "codex-cli", "/a"},
		{"a subagent named by parent_thread_id", `{"id":"` + threadPlain + `","cwd":"/a","source":{"subagent":"review"},"parent_thread_id":"` + parent + `"}`,
			parent, threadPlain, "", "/a"},
		{"a fork is its own thread", `{"id":"` + threadPlain + `","cwd":"/a","source":"cli","forked_from_id":"` + parent + `"}`, threadPlain, "", "codex-cli", "/a"},
		{"a review subagent without a parent", `{"id":"` + threadPlain + `","cwd":"/a","source":{"subagent":"review"},"originator":"codex_cli_rs"}`, threadPlain, "", "codex-cli", "/a"},
		{"another thread's meta is a copy", `{"id":"` + parent + `","cwd":"/elsewhere","source":"exec"}`, threadPlain, "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "rollout-2026-01-01T00-00-00-"+threadPlain+".jsonl")
			writeFile(t, path, []byte(`{"timestamp":"2026-01-01T00:00:00.000Z","type":"session_meta","payload":`+tt.meta+"}\n"+
				// the thread's own turn (after another thread's meta, its lines start here)
				`{"timestamp":"2026-01-01T00:00:00.000Z","type":"event_msg","payload":{"type":"task_started","turn_id":"ffffffff-ffff-7fff-bfff-ffffffffffff"}}`+"\n"+
				itemLine("message", `"role":"user","content":[{"type":"input_text","text":"A prompt of this thread"}]`)+"\n"))
			res := read(t, path, record.FileState{})
			if len(res.Rows) != 1 {
				t.Fatalf("%d rows", len(res.Rows))
			}
			r := res.Rows[0]
			wantType := record.TypeUser
			if tt.agentID != "" {
				wantType = record.TypeAgent
			}
			if r.Session != tt.session || r.AgentID != tt.agentID || r.Entrypoint != tt.entry || r.Project != tt.project || r.Type != wantType || r.Role != "user" {
				t.Errorf("row: session %q agent %q entry %q project %q type %q role %q", r.Session, r.AgentID, r.Entrypoint, r.Project, r.Type, r.Role)
			}
			if res.Session != tt.session || res.Project != tt.project {
				t.Errorf("where: %q %q", res.Session, res.Project)
			}
		})
	}
}

// TestResumedEntrypoint: a thread run by `codex exec` and resumed in the
// terminal appends a second session_meta; the rows after it are the
// terminal's.
func TestResumedEntrypoint(t *testing.T) {
	res := read(t, fixturePath(t, threadResumed), record.FileState{})
	var entries []string
	for _, r := range res.Rows {
		entries = append(entries, r.Entrypoint)
	}
	want := "sdk-codex-exec sdk-codex-exec sdk-codex-exec codex-cli codex-cli codex-cli"
	if strings.Join(entries, " ") != want {
		t.Fatalf("entrypoints %v, want %s", entries, want)
	}
}

// TestOldFormatCwd: a rollout of August 2025 starts with a line of its
// id, time, instructions and git state, no cwd: the project is the one
// its first environment context message names, as a <cwd> element or,
// in the versions of that month that wrote plain lines, as a "Current
// working directory:" line.
func TestOldFormatCwd(t *testing.T) {
	const id = "0f3a5b7c-1d2e-4f60-8a9b-0c1d2e3f4a5b"
	tests := []struct {
		name, context, want string
	}{
		{"cwd element", `<environment_context>\n  <cwd>/home/dev/src/shop</cwd>\n  <approval_policy>on-request</approval_policy>\n</environment_context>`, "/home/dev/src/shop"},
		{"plain lines", `<environment_context>\nCurrent working directory: /Users/dev/src/shop\nApproval policy: on-request\nSandbox mode: workspace-write\nNetwork access: restricted\n</environment_context>`, "/Users/dev/src/shop"},
		{"plain line, Windows path", `<environment_context>\nCurrent working directory: C:\\Users\\dev\\shop\nApproval policy: never\n</environment_context>`, `C:\Users\dev\shop`},
		{"empty cwd element", `<environment_context>\n  <cwd></cwd>\n</environment_context>`, ""},
		{"unclosed cwd element", `<environment_context>\n  <cwd>/home/dev/src/shop\n</environment_context>`, ""},
		{"empty plain line", `<environment_context>\nCurrent working directory: \nApproval policy: never\n</environment_context>`, ""},
		{"neither", `<environment_context>\nApproval policy: never\n</environment_context>`, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "rollout-2025-08-25T11-22-51-"+id+".jsonl")
			writeFile(t, path, []byte(`{"id":"`+id+`","timestamp":"2025-08-25T11:22:51.133Z","instructions":null,"git":{"commit_hash":"0123456789abcdef0123456789abcdef01234567","branch":"main","repository_url":"git@example.com:dev/shop"}}`+"\n"+
				`{"record_type":"state"}`+"\n"+
				`{"type":"message","id":null,"role":"user","content":[{"type":"input_text","text":"`+tc.context+`"}]}`+"\n"+
				`{"type":"message","id":null,"role":"user","content":[{"type":"input_text","text":"Why does the cart test fail on CI only?"}]}`+"\n"))
			res := read(t, path, record.FileState{})
			if len(res.Rows) != 1 || res.Rows[0].Project != tc.want || res.Project != tc.want {
				t.Fatalf("rows %+v, project %q, want %q", res.Rows, res.Project, tc.want)
			}
		})
	}
}

// TestHarnessTextOfNewerAndOlderVersions: the user-role text Codex
// writes itself in the versions after the first reader (a goal's
// steering, a hook's context) and before it (the warnings it wrote as
// the user's turn) is the harness's; a person's text that only looks
// like it is kept.
func TestHarnessTextOfNewerAndOlderVersions(t *testing.T) {
	for _, tc := range []struct {
		text     string
		injected bool
	}{
		{"<extension_context>\nContinue working toward the goal: ship it\n</extension_context>", true},
		{"<goal_context>\nContinue working toward the goal: ship it\n</goal_context>", true},
		{"<external_project>hook context</external_project>", true},
		{"  <external_ci_status>red on main</external_ci_status>\n", true},
		{"<external_project>hook context</external_other>", false},
		{"<external_project> and then my question", false},
		{"<external_>x</external_>", false},
		{"Warning: The maximum number of unified exec processes you can keep open is 60 and you currently have 61 processes open.", true},
		{"Warning: apply_patch was requested via exec_command. Use the apply_patch tool instead of exec_command.", true},
		{"Warning: Your account was flagged for potentially high-risk cyber activity and this request was routed to gpt-5.2 as a fallback.", true},
		{"Warning: the build is flaky on arm64, can you look?", false},
		{"warning: the maximum number of unified exec processes you can keep open is 4", false},
	} {
		if got := isInjected(tc.text); got != tc.injected {
			t.Errorf("isInjected(%q) = %v, want %v", tc.text, got, tc.injected)
		}
	}
}

// TestInterAgentMessage: an agent's message to another, which Codex
// writes into the recipient's thread as JSON, is read for its message;
// an encrypted one has none; a person's JSON is kept as it is.
func TestInterAgentMessage(t *testing.T) {
	for _, tc := range []struct {
		text, content string
		ok            bool
	}{
		{`{"author":"/root","recipient":"/root/worker","other_recipients":[],"content":"Audit the retry loop in fetch.go","trigger_turn":true}`, "Audit the retry loop in fetch.go", true},
		{`{"author":"/root/worker","recipient":"/root","content":"","encrypted_content":"gAAAA","trigger_turn":false}`, "", true},
		{`{"author":"me","title":"x"}`, "", false},
		{`{"name":"recall","version":"1.0"}`, "", false},
	} {
		content, ok := interAgentContent([]string{tc.text})
		if content != tc.content || ok != tc.ok {
			t.Errorf("interAgentContent(%s) = %q, %v; want %q, %v", tc.text, content, ok, tc.content, tc.ok)
		}
	}
}

// TestOwnRunsAreNoise: the threads Codex runs for itself, the approval
// reviewer's (Codex Desktop 0.126) and a compaction's, make no row, nor
// a title when named: their prompts are the history they assess or sum
// up, their replies verdicts and summaries.
func TestOwnRunsAreNoise(t *testing.T) {
	for _, source := range []string{`{"subagent":{"other":"guardian"}}`, `{"subagent":"compact"}`} {
		home := t.TempDir()
		writeFile(t, filepath.Join(home, sessionIndexFile), []byte(`{"id":"`+threadPlain+`","thread_name":"Approval review"}`+"\n"))
		path := filepath.Join(home, "sessions", "2026", "01", "01", "rollout-2026-01-01T00-00-00-"+threadPlain+".jsonl")
		writeFile(t, path, []byte(metaLineWith(threadPlain, "/a", source)+"\n"+
			itemLine("message", `"role":"user","content":[{"type":"input_text","text":"The following is the Codex agent history whose request action you are assessing."}]`)+"\n"+
			itemLine("message", `"role":"assistant","content":[{"type":"output_text","text":"{\"outcome\":\"allow\"}"}]`)+"\n"+
			itemLine("function_call", `"name":"shell","arguments":"{\"command\":[\"ls\"]}","call_id":"c1"`)+"\n"))
		res := read(t, path, record.FileState{})
		if len(res.Rows) != 0 || res.Counts[filter.Noise] != 3 {
			t.Errorf("%s: rows %q, noise %d; want none, 3 noise", source, rowKeys(res.Rows), res.Counts[filter.Noise])
		}
	}
}

// metaLineWith is a session_meta line of thread, run in cwd, whose
// source is the JSON value source.
func metaLineWith(thread, cwd, source string) string {
	return `{"timestamp":"2026-01-01T00:00:00.000Z","type":"session_meta","payload":{"id":"` + thread +
		`","timestamp":"2026-01-01T00:00:00.000Z","cwd":"` + cwd + `","originator":"Codex Desktop","cli_version":"0.126.0","source":` + source + `}}`
}

// TestSpecKitPromptIsItsArguments: a spec-kit prompt run as a Codex
// custom prompt is recorded expanded; its row is the arguments the
// person gave, and one run without arguments is the template's alone
// (noise). A prompt that only opens the same way is kept whole.
func TestSpecKitPromptIsItsArguments(t *testing.T) {
	template := "\n## User Input\n\n```text\n%s\n```\n\nYou **MUST** consider the user input before proceeding (if not empty).\n\n## Outline\n\nYou are updating the project constitution at `.specify/memory/constitution.md`."
	for _, tc := range []struct {
		text, want string
	}{
		{fmt.Sprintf(template, "Bitte anpassen an Hand der Datei Lastenheft_Change.md"), "Bitte anpassen an Hand der Datei Lastenheft_Change.md"},
		{fmt.Sprintf(template, "embed the vector store\n```sql\nselect 1\n```\nand keep SQLite"), "embed the vector store\n```sql\nselect 1\n```\nand keep SQLite"},
		{fmt.Sprintf(template, ""), ""},
		{"## User Input\n\n```text\nmy own notes on the input form, with no template after", "## User Input\n\n```text\nmy own notes on the input form, with no template after"},
	} {
		path := filepath.Join(t.TempDir(), "rollout-2026-01-01T00-00-00-"+threadPlain+".jsonl")
		b, err := json.Marshal(tc.text)
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, path, []byte(metaLine(threadPlain, "/a", "cli")+"\n"+
			itemLine("message", `"role":"user","content":[{"type":"input_text","text":`+string(b)+`}]`)+"\n"))
		res := read(t, path, record.FileState{})
		var got string
		if len(res.Rows) == 1 {
			got = res.Rows[0].Text
		}
		if got != tc.want || len(res.Rows) > 1 {
			t.Errorf("%q: rows %q, want %q", tc.text, rowKeys(res.Rows), tc.want)
		}
	}
}
