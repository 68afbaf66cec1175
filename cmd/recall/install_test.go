package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// A settings.json with other tools' hooks and settings, in the layout
// Claude Code writes.
const otherToolsSettings = `{
  "model": "claude-opus-4-6",
  "env": {
    "DEBUG": "1"
  },
  "permissions": {
    "allow": [
      "Bash(git status)"
    ]
  },
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "command",
            "command": "guard && echo ok"
          }
        ]
      }
    ],
    "Stop": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "ccidx tail",
            "async": true
          }
        ]
      }
    ]
  }
}
`

// recallOnPath puts recall on PATH, in a fresh directory, as a symlink to
// the executable install finds (this test binary, which runs the CLI in
// process), gives the test a fresh HOME and returns the PATH entry: what
// install names in the hooks. A fake claude CLI (fakeClaudeOnPath) goes
// first on PATH, so no test ever runs a real one.
func recallOnPath(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	pathDir := t.TempDir()
	link := filepath.Join(pathDir, "recall")
	if err := os.Symlink(exe, link); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", pathDir+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("HOME", t.TempDir())
	fakeClaudeOnPath(t)
	return link
}

func readJSON(t *testing.T, path string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return v
}

// hookCommands lists the commands of an event's handlers in order.
func hookCommands(settings map[string]any, event string) []string {
	var commands []string
	hooks, _ := settings["hooks"].(map[string]any)
	groups, _ := hooks[event].([]any)
	for _, g := range groups {
		handlers, _ := g.(map[string]any)["hooks"].([]any)
		for _, h := range handlers {
			command, _ := h.(map[string]any)["command"].(string)
			commands = append(commands, command)
		}
	}
	return commands
}

func TestInstallCommandRoundTrip(t *testing.T) {
	// recall on PATH as a symlink to the binary: the hooks should name
	// the PATH entry, which survives an upgrade that moves the binary.
	link := recallOnPath(t)
	settings := filepath.Join(t.TempDir(), "settings.json")
	if err := os.WriteFile(settings, []byte(otherToolsSettings), 0o644); err != nil {
		t.Fatal(err)
	}

	run := runCLI(t, "install", "--settings", settings)
	if run.code != 0 || run.stdout != "" {
		t.Fatalf("install: exit %d, stdout %q, stderr %q", run.code, run.stdout, run.stderr)
	}
	if !strings.Contains(run.stderr, "add the recall hooks") || !strings.Contains(run.stderr, "wrote the recall skill") {
		t.Errorf("install summary: %q", run.stderr)
	}
	installed := readJSON(t, settings)
	want := link + " hook"
	if got := hookCommands(installed, "Stop"); !reflect.DeepEqual(got, []string{"ccidx tail", want}) {
		t.Errorf("Stop commands = %q", got)
	}
	if got := hookCommands(installed, "SessionEnd"); !reflect.DeepEqual(got, []string{want}) {
		t.Errorf("SessionEnd commands = %q", got)
	}
	skill := filepath.Join(filepath.Dir(settings), "skills", "recall", "SKILL.md")
	if _, err := os.Stat(skill); err != nil {
		t.Errorf("skill: %v", err)
	}

	run = runCLI(t, "uninstall", "--settings", settings)
	if run.code != 0 || run.stdout != "" {
		t.Fatalf("uninstall: exit %d, stdout %q, stderr %q", run.code, run.stdout, run.stderr)
	}
	if data, _ := os.ReadFile(settings); string(data) != otherToolsSettings {
		t.Errorf("uninstall did not restore the original:\n%s", data)
	}
	if _, err := os.Stat(filepath.Dir(skill)); !os.IsNotExist(err) {
		t.Errorf("skill dir left after uninstall: %v", err)
	}
}

func TestInstallCommandHonoursClaudeConfigDir(t *testing.T) {
	recallOnPath(t)
	configDir := filepath.Join(t.TempDir(), "claude")
	home := os.Getenv("HOME")
	t.Setenv("CLAUDE_CONFIG_DIR", configDir)

	run := runCLI(t, "install")
	if run.code != 0 {
		t.Fatalf("install: exit %d, stderr %q", run.code, run.stderr)
	}
	settings := readJSON(t, filepath.Join(configDir, "settings.json"))
	if got := hookCommands(settings, "SessionEnd"); len(got) != 1 || !strings.HasSuffix(got[0], "/recall hook") {
		t.Errorf("SessionEnd commands = %q", got)
	}
	if _, err := os.Stat(filepath.Join(configDir, "skills", "recall", "SKILL.md")); err != nil {
		t.Errorf("skill: %v", err)
	}
	if _, err := os.Stat(filepath.Join(home, ".claude")); !os.IsNotExist(err) {
		t.Errorf("install wrote to ~/.claude despite CLAUDE_CONFIG_DIR: %v", err)
	}
}

func TestInstallCommandRefusesInvalidJSON(t *testing.T) {
	recallOnPath(t)
	settings := filepath.Join(t.TempDir(), "settings.json")
	const broken = "{\n  \"model\": \"opus\",\n}\n"
	if err := os.WriteFile(settings, []byte(broken), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, command := range []string{"install", "uninstall"} {
		run := runCLI(t, command, "--settings", settings)
		if run.code != 2 {
			t.Errorf("%s: exit %d, want 2", command, run.code)
		}
		if want := "recall: " + settings + " is not valid settings JSON, left it untouched: line 3"; !strings.HasPrefix(run.stderr, want) {
			t.Errorf("%s: stderr %q, want it to start %q", command, run.stderr, want)
		}
		if data, _ := os.ReadFile(settings); string(data) != broken {
			t.Errorf("%s changed an invalid file", command)
		}
	}
	if entries, _ := os.ReadDir(filepath.Dir(settings)); len(entries) != 1 {
		t.Errorf("files were created next to an invalid settings.json: %v", entries)
	}
}

func TestInstallCommandDryRun(t *testing.T) {
	bin := recallOnPath(t)
	dir := t.TempDir()
	settings := filepath.Join(dir, "settings.json")
	if err := os.WriteFile(settings, []byte(otherToolsSettings), 0o644); err != nil {
		t.Fatal(err)
	}
	run := runCLI(t, "install", "--dry-run", "--settings", settings)
	if run.code != 0 {
		t.Fatalf("exit %d, stderr %q", run.code, run.stderr)
	}
	for _, want := range []string{"--- " + settings + "\n", "+++ " + settings + " (after)\n", `+            "command": "` + bin + ` hook",`, "+name: recall",
		"would run: claude mcp add --scope user recall -- " + bin + " mcp\n"} {
		if !strings.Contains(run.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, run.stdout)
		}
	}
	if !strings.Contains(run.stderr, "dry run, nothing written") {
		t.Errorf("stderr = %q", run.stderr)
	}
	if data, _ := os.ReadFile(settings); string(data) != otherToolsSettings {
		t.Errorf("dry run changed settings.json")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("dry run created files: %v", entries)
	}
}

// With no settings.json before, install creates it, the skill and the
// folders it needs, and registers the MCP server; uninstall leaves the
// configuration directory as it was: empty.
func TestInstallCommandWithoutSettings(t *testing.T) {
	link := recallOnPath(t)
	calls := fakeClaudeOnPath(t)
	config := t.TempDir()
	settings := filepath.Join(config, "settings.json")
	run := runCLI(t, "install", "--settings", settings)
	if run.code != 0 || run.stdout != "" {
		t.Fatalf("install: exit %d, stdout %q, stderr %q", run.code, run.stdout, run.stderr)
	}
	if got := calls(); len(got) != 1 || !strings.HasSuffix(got[0], ": mcp add --scope user recall -- "+link+" mcp") {
		t.Errorf("claude calls %q", got)
	}
	if strings.Contains(run.stderr, "saved the original") {
		t.Errorf("install claims an original: %q", run.stderr)
	}
	// What `claude mcp add` records, which uninstall reads to know the
	// server is recall's.
	registered := `{"mcpServers":{"recall":{"type":"stdio","command":"` + link + `","args":["mcp"],"env":{}}}}`
	if err := os.WriteFile(filepath.Join(os.Getenv("HOME"), ".claude.json"), []byte(registered), 0o600); err != nil {
		t.Fatal(err)
	}
	run = runCLI(t, "uninstall", "--settings", settings)
	if run.code != 0 || run.stdout != "" || strings.Contains(run.stderr, "saved the original") {
		t.Fatalf("uninstall: exit %d, stdout %q, stderr %q", run.code, run.stdout, run.stderr)
	}
	if entries, _ := os.ReadDir(config); len(entries) != 0 {
		t.Errorf("uninstall left %v in the configuration directory", entries)
	}
	if got := calls(); len(got) != 2 || !strings.HasSuffix(got[1], ": mcp remove --scope user recall") {
		t.Errorf("claude calls %q", got)
	}
}

// An existing settings.json in a layout recall does not write (compact)
// comes back byte for byte.
func TestInstallCommandRestoresBytes(t *testing.T) {
	recallOnPath(t)
	settings := filepath.Join(t.TempDir(), "settings.json")
	const compact = `{"model":"opus","hooks":{"Stop":[{"hooks":[{"type":"command","command":"say done"}]}]},"permissions":{"allow":["Bash(ls)"]}}`
	if err := os.WriteFile(settings, []byte(compact), 0o644); err != nil {
		t.Fatal(err)
	}
	if run := runCLI(t, "install", "--settings", settings); run.code != 0 {
		t.Fatalf("install: exit %d, stderr %q", run.code, run.stderr)
	}
	if run := runCLI(t, "uninstall", "--settings", settings); run.code != 0 {
		t.Fatalf("uninstall: exit %d, stderr %q", run.code, run.stderr)
	}
	if data, _ := os.ReadFile(settings); string(data) != compact {
		t.Errorf("uninstall did not restore the bytes:\n%s", data)
	}
	if entries, _ := os.ReadDir(filepath.Dir(settings)); len(entries) != 1 {
		t.Errorf("uninstall left files: %v", entries)
	}
}

// Without the claude CLI, install prints the command that registers the
// MCP server instead of running it.
func TestInstallCommandWithoutClaude(t *testing.T) {
	link := recallOnPath(t)
	t.Setenv("PATH", filepath.Dir(link)) // recall only: no claude
	settings := filepath.Join(t.TempDir(), "settings.json")
	run := runCLI(t, "install", "--settings", settings)
	if run.code != 0 {
		t.Fatalf("install: exit %d, stderr %q", run.code, run.stderr)
	}
	if want := "claude mcp add --scope user recall -- " + link + " mcp"; !strings.Contains(run.stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, run.stderr)
	}
}
