package claude

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// fakeClaude writes a claude CLI stand-in that appends its arguments,
// one call per line, to a log, prints out and exits with code. It returns
// the script's path and a function that reads the calls.
func fakeClaude(t *testing.T, out string, code int) (string, func() []string) {
	t.Helper()
	dir := t.TempDir()
	log := filepath.Join(dir, "calls")
	script := "#!/bin/sh\nprintf '%s\\n' \"$*\" >> " + shellQuote(log) + "\nprintf '%s' " + shellQuote(out) + "\nexit " + string(rune('0'+code)) + "\n"
	path := filepath.Join(dir, "claude")
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path, func() []string {
		data, err := os.ReadFile(log)
		if os.IsNotExist(err) {
			return nil
		}
		if err != nil {
			t.Fatal(err)
		}
		return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	}
}

func mcpRig(t *testing.T, claude, config string) installRig {
	rig := newInstallRig(t)
	rig.setup.MCP = &MCPSetup{Claude: claude, Server: []string{testRecall, "mcp"}, ConfigFile: config}
	return rig
}

func writeClaudeJSON(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), ".claude.json")
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestInstallRegistersMCPServer(t *testing.T) {
	add := "mcp add --scope user recall -- " + testRecall + " mcp"
	remove := "mcp remove --scope user recall"
	tests := []struct {
		name   string
		config string // ~/.claude.json; "" none
		calls  []string
	}{
		{"not registered", "", []string{add}},
		{"registered elsewhere", `{"mcpServers":{"recall":{"type":"stdio","command":"/old/recall","args":["mcp"]}}}`, []string{remove, add}},
		{"registered already", `{"mcpServers":{"recall":{"type":"stdio","command":"` + testRecall + `","args":["mcp"]}}}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			claude, calls := fakeClaude(t, "", 0)
			config := filepath.Join(t.TempDir(), ".claude.json")
			if tt.config != "" {
				config = writeClaudeJSON(t, tt.config)
			}
			rig := mcpRig(t, claude, config)
			if err := Install(rig.setup); err != nil {
				t.Fatal(err)
			}
			if got := calls(); !reflect.DeepEqual(got, tt.calls) {
				t.Errorf("claude calls %q, want %q", got, tt.calls)
			}
		})
	}
}

func TestInstallMCPWithoutClaudeOnPath(t *testing.T) {
	rig := mcpRig(t, "", "")
	if err := Install(rig.setup); err != nil {
		t.Fatal(err)
	}
	if want := "claude mcp add --scope user recall -- " + testRecall + " mcp"; !strings.Contains(rig.log.String(), want) {
		t.Errorf("log %q lacks the command %q", rig.log, want)
	}
}

func TestInstallMCPDryRun(t *testing.T) {
	claude, calls := fakeClaude(t, "", 0)
	rig := mcpRig(t, claude, "")
	rig.setup.DryRun = true
	if err := Install(rig.setup); err != nil {
		t.Fatal(err)
	}
	if want := "would run: claude mcp add --scope user recall -- " + testRecall + " mcp\n"; !strings.Contains(rig.out.String(), want) {
		t.Errorf("dry run output lacks %q:\n%s", want, rig.out)
	}
	if got := calls(); got != nil {
		t.Errorf("dry run ran claude: %q", got)
	}
}

func TestInstallMCPFailureIsReported(t *testing.T) {
	claude, _ := fakeClaude(t, "boom: config locked", 1)
	rig := mcpRig(t, claude, "")
	err := Install(rig.setup)
	if err == nil || !strings.Contains(err.Error(), "boom: config locked") || !strings.Contains(err.Error(), "claude mcp add") {
		t.Errorf("error %v, want the command and claude's output", err)
	}
}

func TestUninstallUnregistersMCPServer(t *testing.T) {
	remove := "mcp remove --scope user recall"
	tests := []struct {
		name, config string
		calls        []string
	}{
		{"registered", `{"mcpServers":{"recall":{"command":"` + testRecall + `","args":["mcp"]}}}`, []string{remove}},
		{"unknown config", "", []string{remove}},
		{"not registered", `{"mcpServers":{}}`, nil},
		{"another server named recall", `{"mcpServers":{"recall":{"command":"npx","args":["other-recall"]}}}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			claude, calls := fakeClaude(t, "", 0)
			config := ""
			if tt.config != "" {
				config = writeClaudeJSON(t, tt.config)
			}
			rig := mcpRig(t, claude, config)
			if err := Uninstall(rig.setup); err != nil {
				t.Fatal(err)
			}
			if got := calls(); !reflect.DeepEqual(got, tt.calls) {
				t.Errorf("claude calls %q, want %q", got, tt.calls)
			}
		})
	}
}
