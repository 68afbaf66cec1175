package claude

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

const testRecall = "/opt/recall/bin/recall"

// ourHandler is the handler install must add, spelled out independently
// of recallHandler.
func ourHandler() map[string]any {
	return map[string]any{"type": "command", "command": testRecall + " hook", "async": true, "timeout": json.Number("10")}
}

// Settings files as other tools and Claude Code leave them. Each is in
// JSON.stringify layout, so a faithful round trip is byte-identical.
type settingsFixture struct{ name, text string }

func settingsFixtures() []settingsFixture {
	return []settingsFixture{
		{"no hooks key", `{
  "model": "claude-opus-4-6",
  "cleanupPeriodDays": 99
}
`},
		{"other tools' hooks and settings", `{
  "$schema": "https://json.schemastore.org/claude-code-settings.json",
  "model": "claude-opus-4-6",
  "env": {
    "FOO": "a&b<c>",
    "UNICODE": "café ✓",
    "ESCAPES": "tab\there \"quoted\" back\\slash \u001b[2m"
  },
  "permissions": {
    "allow": [
      "Bash(npm run test:*)",
      "Read(~/.zshrc)"
    ],
    "deny": [
      "Read(./.env)"
    ],
    "defaultMode": "acceptEdits"
  },
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "command",
            "command": "/usr/local/bin/guard check && echo ok",
            "timeout": 5
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
    ],
    "SessionStart": [
      {
        "matcher": "startup|resume|clear|compact",
        "hooks": [
          {
            "type": "command",
            "command": "ccidx ingest"
          }
        ]
      }
    ],
    "SessionEnd": [
      {
        "matcher": "clear",
        "hooks": [
          {
            "type": "http",
            "url": "http://localhost:8080/end"
          }
        ]
      }
    ]
  },
  "statusLine": {
    "type": "command",
    "command": "~/.claude/statusline.sh"
  },
  "feedbackSurveyRate": 0.0,
  "maxTokens": 1e3,
  "alwaysThinkingEnabled": true,
  "apiKeyHelper": null,
  "empty": {},
  "none": []
}
`},
		{"empty hooks object", `{
  "hooks": {}
}
`},
		{"empty event arrays", `{
  "hooks": {
    "Stop": [],
    "Notification": []
  }
}
`},
		{"four spaces, no final newline", `{
    "hooks": {
        "Stop": [
            {
                "hooks": [
                    {
                        "type": "command",
                        "command": "say done"
                    }
                ]
            }
        ]
    },
    "model": "sonnet"
}`},
		{"tabs and CRLF", "{\r\n\t\"env\": {\r\n\t\t\"A\": \"1\"\r\n\t}\r\n}\r\n"},
		{"empty object", "{}\n"},
	}
}

type installRig struct {
	setup    Setup
	out, log *bytes.Buffer
}

func newInstallRig(t *testing.T) installRig {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "claude-config")
	rig := installRig{out: &bytes.Buffer{}, log: &bytes.Buffer{}}
	rig.setup = Setup{
		SettingsPath: filepath.Join(dir, "settings.json"),
		SkillDir:     filepath.Join(dir, "skills", "recall"),
		RecallPath:   testRecall,
		Out:          rig.out,
		Log:          rig.log,
	}
	return rig
}

func (r installRig) writeSettings(t *testing.T, text string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(r.setup.SettingsPath), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(r.setup.SettingsPath, []byte(text), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(r.setup.SettingsPath, mode); err != nil {
		t.Fatal(err)
	}
}

func (r installRig) readSettings(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(r.setup.SettingsPath)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// parsePlain decodes JSON into maps for comparison, keeping numbers as
// written.
func parsePlain(t *testing.T, text string) map[string]any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var v map[string]any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("parse %q: %v", text, err)
	}
	return v
}

// withOurGroups is the original plus one group holding our handler at the
// end of SessionEnd and Stop: what install must produce.
func withOurGroups(original map[string]any) map[string]any {
	hooks, _ := original["hooks"].(map[string]any)
	if hooks == nil {
		hooks = map[string]any{}
		original["hooks"] = hooks
	}
	for _, event := range []string{"SessionEnd", "Stop"} {
		groups, _ := hooks[event].([]any)
		hooks[event] = append(groups, map[string]any{"hooks": []any{ourHandler()}})
	}
	return original
}

func TestInstallAddsOnlyOurHooks(t *testing.T) {
	for _, fx := range settingsFixtures() {
		t.Run(fx.name, func(t *testing.T) {
			rig := newInstallRig(t)
			rig.writeSettings(t, fx.text, 0o644)

			if err := Install(rig.setup); err != nil {
				t.Fatal(err)
			}
			after := rig.readSettings(t)
			if got, want := parsePlain(t, after), withOurGroups(parsePlain(t, fx.text)); !reflect.DeepEqual(got, want) {
				t.Errorf("after install:\n got %v\nwant %v", got, want)
			}
			assertOnlyInserted(t, fx.text, after)
			assertMode(t, rig.setup.SettingsPath, 0o644)
			assertFile(t, rig.setup.SettingsPath+backupSuffix, fx.text, 0o600)
			assertFile(t, filepath.Join(rig.setup.SkillDir, "SKILL.md"), SkillText(testRecall), 0o600)
		})
	}
}

// assertOnlyInserted checks that install kept every line of the original
// in place and only inserted lines, apart from the two edits an insertion
// needs: a comma after the line before it, and an empty {} or [] opened.
func assertOnlyInserted(t *testing.T, before, after string) {
	t.Helper()
	for _, e := range diffLines(splitLines([]byte(before)), splitLines([]byte(after))) {
		line := strings.TrimSuffix(strings.TrimRight(e.line, "\r"), ",")
		opened := strings.HasSuffix(line, "{}") || strings.HasSuffix(line, "[]")
		if e.op == '-' && !opened && !strings.Contains(after, line+",") {
			t.Errorf("install changed the original line %q", e.line)
		}
	}
}

func TestInstallTwiceChangesNothing(t *testing.T) {
	for _, fx := range settingsFixtures() {
		t.Run(fx.name, func(t *testing.T) {
			rig := newInstallRig(t)
			rig.writeSettings(t, fx.text, 0o644)
			if err := Install(rig.setup); err != nil {
				t.Fatal(err)
			}
			first := rig.readSettings(t)
			before := stat(t, rig.setup.SettingsPath)
			skillBefore := stat(t, filepath.Join(rig.setup.SkillDir, "SKILL.md"))

			if err := Install(rig.setup); err != nil {
				t.Fatal(err)
			}
			if second := rig.readSettings(t); second != first {
				t.Errorf("second install changed the file:\n%s", unifiedDiff("first", "second", []byte(first), []byte(second)))
			}
			if !os.SameFile(before, stat(t, rig.setup.SettingsPath)) {
				t.Errorf("second install rewrote settings.json")
			}
			if !os.SameFile(skillBefore, stat(t, filepath.Join(rig.setup.SkillDir, "SKILL.md"))) {
				t.Errorf("second install rewrote the skill")
			}
			assertFile(t, rig.setup.SettingsPath+backupSuffix, fx.text, 0o600)
		})
	}
}

func TestUninstallRestoresOriginal(t *testing.T) {
	for _, fx := range settingsFixtures() {
		t.Run(fx.name, func(t *testing.T) {
			rig := newInstallRig(t)
			rig.writeSettings(t, fx.text, 0o640)
			if err := Install(rig.setup); err != nil {
				t.Fatal(err)
			}
			if err := Uninstall(rig.setup); err != nil {
				t.Fatal(err)
			}
			after := rig.readSettings(t)
			if got, want := parsePlain(t, after), parsePlain(t, fx.text); !reflect.DeepEqual(got, want) {
				t.Errorf("after uninstall:\n got %v\nwant %v", got, want)
			}
			// Every fixture is in the layout recall writes, so even the
			// bytes come back.
			if after != fx.text {
				t.Errorf("after uninstall the bytes differ:\n%s", unifiedDiff("original", "after", []byte(fx.text), []byte(after)))
			}
			assertMode(t, rig.setup.SettingsPath, 0o640)
			if _, err := os.Stat(rig.setup.SkillDir); !os.IsNotExist(err) {
				t.Errorf("skill dir still there: %v", err)
			}
		})
	}
}

// Another tool adds its hooks after recall's; uninstall takes out only
// recall's and a later install does not move recall's group.
func TestOtherToolsHooksAddedAfterInstall(t *testing.T) {
	rig := newInstallRig(t)
	rig.writeSettings(t, "{}\n", 0o600)
	if err := Install(rig.setup); err != nil {
		t.Fatal(err)
	}
	settings := parsePlain(t, rig.readSettings(t))
	stop := settings["hooks"].(map[string]any)["Stop"].([]any)
	other := map[string]any{"hooks": []any{map[string]any{"type": "command", "command": "notify-send done"}}}
	settings["hooks"].(map[string]any)["Stop"] = append(stop, other)
	edited, _ := json.MarshalIndent(settings, "", "  ")
	rig.writeSettings(t, string(edited)+"\n", 0o600)

	if err := Install(rig.setup); err != nil {
		t.Fatal(err)
	}
	if got := rig.readSettings(t); got != string(edited)+"\n" {
		t.Errorf("install moved or changed hooks:\n%s", unifiedDiff("before", "after", edited, []byte(got)))
	}
	if err := Uninstall(rig.setup); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"hooks": map[string]any{"Stop": []any{other}}}
	if got := parsePlain(t, rig.readSettings(t)); !reflect.DeepEqual(got, want) {
		t.Errorf("after uninstall got %v, want %v", got, want)
	}
}

func TestInstallReplacesRecallFromAnotherPath(t *testing.T) {
	rig := newInstallRig(t)
	rig.writeSettings(t, `{
  "hooks": {
    "SessionEnd": [
      {
        "hooks": [
          {"type": "command", "command": "echo bye"},
          {"type": "command", "command": "'/home/me/old build/recall' hook", "async": true}
        ]
      }
    ],
    "Stop": [
      {"hooks": [{"type": "command", "command": "recall hook"}]},
      {"hooks": [{"type": "command", "command": "/usr/bin/recall index"}]}
    ]
  }
}`, 0o600)
	if err := Install(rig.setup); err != nil {
		t.Fatal(err)
	}
	ours := map[string]any{"hooks": []any{ourHandler()}}
	want := map[string]any{"hooks": map[string]any{
		"SessionEnd": []any{
			map[string]any{"hooks": []any{map[string]any{"type": "command", "command": "echo bye"}}},
			ours,
		},
		"Stop": []any{
			map[string]any{"hooks": []any{map[string]any{"type": "command", "command": "/usr/bin/recall index"}}},
			ours,
		},
	}}
	if got := parsePlain(t, rig.readSettings(t)); !reflect.DeepEqual(got, want) {
		t.Errorf("got  %v\nwant %v", got, want)
	}
}

func TestInstallCreatesMissingFile(t *testing.T) {
	rig := newInstallRig(t)
	if err := Install(rig.setup); err != nil {
		t.Fatal(err)
	}
	want := `{
  "hooks": {
    "SessionEnd": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "/opt/recall/bin/recall hook",
            "async": true,
            "timeout": 10
          }
        ]
      }
    ],
    "Stop": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "/opt/recall/bin/recall hook",
            "async": true,
            "timeout": 10
          }
        ]
      }
    ]
  }
}
`
	assertFile(t, rig.setup.SettingsPath, want, 0o600)
	if _, err := os.Stat(rig.setup.SettingsPath + backupSuffix); !os.IsNotExist(err) {
		t.Errorf("backup of a file that did not exist: %v", err)
	}
	if err := Uninstall(rig.setup); err != nil {
		t.Fatal(err)
	}
	// Install created the file and the configuration directory itself:
	// uninstall leaves neither.
	if _, err := os.Stat(filepath.Dir(rig.setup.SettingsPath)); !os.IsNotExist(err) {
		entries, _ := os.ReadDir(filepath.Dir(rig.setup.SettingsPath))
		t.Errorf("uninstall left the directory install created: %v %v", err, entries)
	}
	if strings.Contains(rig.log.String(), "saved the original") {
		t.Errorf("claims to have saved an original that never existed:\n%s", rig.log)
	}
}

func TestInstallRefusesInvalidSettings(t *testing.T) {
	tests := []struct{ name, text, wantErr string }{
		{"truncated", "{\n  \"model\": \"x\",\n", "unexpected end of JSON"},
		{"trailing comma", "{\n  \"a\": 1,\n}\n", "line 3: invalid character '}'"},
		{"comment", "// mine\n{}\n", "line 1: invalid character '/'"},
		{"array", "[]\n", "the top-level value is an array, want an object"},
		{"two values", "{} {}\n", "more than one JSON value"},
		{"hooks is a string", `{"hooks": "none"}`, `"hooks" is a string, want an object`},
		{"Stop is an object", `{"hooks": {"Stop": {}}}`, `"hooks.Stop" is an object, want an array`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, op := range []struct {
				name string
				run  func(Setup) error
			}{{"install", Install}, {"uninstall", Uninstall}} {
				rig := newInstallRig(t)
				rig.writeSettings(t, tt.text, 0o600)
				before := stat(t, rig.setup.SettingsPath)

				err := op.run(rig.setup)
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), rig.setup.SettingsPath) {
					t.Errorf("%s: error %v, want one naming the file and %q", op.name, err, tt.wantErr)
				}
				if got := rig.readSettings(t); got != tt.text || !os.SameFile(before, stat(t, rig.setup.SettingsPath)) {
					t.Errorf("%s touched an invalid settings file", op.name)
				}
				for _, path := range []string{rig.setup.SettingsPath + backupSuffix, rig.setup.SkillDir} {
					if _, err := os.Stat(path); !os.IsNotExist(err) {
						t.Errorf("%s created %s for invalid settings", op.name, path)
					}
				}
			}
		})
	}
}

func TestDryRunWritesNothing(t *testing.T) {
	for _, existing := range []bool{true, false} {
		rig := newInstallRig(t)
		original := settingsFixtures()[1].text
		if existing {
			rig.writeSettings(t, original, 0o644)
		}
		rig.setup.DryRun = true
		if err := Install(rig.setup); err != nil {
			t.Fatal(err)
		}
		if existing {
			assertFile(t, rig.setup.SettingsPath, original, 0o644)
		} else if _, err := os.Stat(filepath.Dir(rig.setup.SettingsPath)); !os.IsNotExist(err) {
			t.Errorf("dry run created the config dir: %v", err)
		}
		for _, path := range []string{rig.setup.SettingsPath + backupSuffix, rig.setup.SkillDir} {
			if _, err := os.Stat(path); !os.IsNotExist(err) {
				t.Errorf("dry run created %s", path)
			}
		}
		diff := rig.out.String()
		for _, want := range []string{
			"--- " + rig.setup.SettingsPath + "\n",
			`+            "command": "/opt/recall/bin/recall hook",`,
			"+name: recall\n",
		} {
			if !strings.Contains(diff, want) {
				t.Errorf("existing=%v: dry-run output lacks %q:\n%s", existing, want, diff)
			}
		}
		if !strings.Contains(rig.log.String(), "dry run") {
			t.Errorf("summary does not say it was a dry run: %q", rig.log.String())
		}
	}
}

func TestUninstallDryRunWritesNothing(t *testing.T) {
	rig := newInstallRig(t)
	rig.writeSettings(t, settingsFixtures()[1].text, 0o644)
	if err := Install(rig.setup); err != nil {
		t.Fatal(err)
	}
	installed := rig.readSettings(t)
	rig.setup.DryRun = true
	if err := Uninstall(rig.setup); err != nil {
		t.Fatal(err)
	}
	if rig.readSettings(t) != installed {
		t.Errorf("dry-run uninstall changed settings.json")
	}
	if _, err := os.Stat(filepath.Join(rig.setup.SkillDir, "SKILL.md")); err != nil {
		t.Errorf("dry-run uninstall removed the skill: %v", err)
	}
	if diff := rig.out.String(); !strings.Contains(diff, `-            "command": "/opt/recall/bin/recall hook",`) || !strings.Contains(diff, "+++ /dev/null") {
		t.Errorf("dry-run uninstall output:\n%s", diff)
	}
}

func TestUninstallWithoutInstallChangesNothing(t *testing.T) {
	rig := newInstallRig(t)
	rig.writeSettings(t, settingsFixtures()[1].text, 0o644)
	before := stat(t, rig.setup.SettingsPath)
	if err := Uninstall(rig.setup); err != nil {
		t.Fatal(err)
	}
	if !os.SameFile(before, stat(t, rig.setup.SettingsPath)) {
		t.Errorf("uninstall rewrote a file with no recall hooks")
	}
}

func TestUninstallKeepsUserFilesInSkillDir(t *testing.T) {
	rig := newInstallRig(t)
	if err := Install(rig.setup); err != nil {
		t.Fatal(err)
	}
	notes := filepath.Join(rig.setup.SkillDir, "notes.md")
	if err := os.WriteFile(notes, []byte("mine"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Uninstall(rig.setup); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(rig.setup.SkillDir, "SKILL.md")); !os.IsNotExist(err) {
		t.Errorf("SKILL.md still there: %v", err)
	}
	if _, err := os.Stat(notes); err != nil {
		t.Errorf("uninstall removed the user's file: %v", err)
	}
}

// A settings.json linked from a dotfiles repository stays a link.
func TestInstallFollowsSymlink(t *testing.T) {
	rig := newInstallRig(t)
	real := filepath.Join(t.TempDir(), "dotfiles-settings.json")
	if err := os.WriteFile(real, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(rig.setup.SettingsPath), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, rig.setup.SettingsPath); err != nil {
		t.Fatal(err)
	}
	if err := Install(rig.setup); err != nil {
		t.Fatal(err)
	}
	info, err := os.Lstat(rig.setup.SettingsPath)
	if err != nil || info.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("settings.json is no longer a symlink: %v", err)
	}
	data, _ := os.ReadFile(real)
	if !strings.Contains(string(data), testRecall+" hook") {
		t.Errorf("the link target was not updated: %s", data)
	}
}

func TestDefaultSetupHonoursClaudeConfigDir(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("CLAUDE_CONFIG_DIR", dir)
	s, err := DefaultSetup("")
	if err != nil {
		t.Fatal(err)
	}
	if s.SettingsPath != filepath.Join(dir, "settings.json") || s.SkillDir != filepath.Join(dir, "skills", "recall") {
		t.Errorf("got %+v", s)
	}

	t.Setenv("CLAUDE_CONFIG_DIR", "")
	t.Setenv("HOME", dir)
	s, err = DefaultSetup("")
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, ".claude", "settings.json"); s.SettingsPath != want {
		t.Errorf("without CLAUDE_CONFIG_DIR settings = %q, want %q", s.SettingsPath, want)
	}

	s, err = DefaultSetup(filepath.Join(dir, "x", "my-settings.json"))
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "x", "skills", "recall"); s.SkillDir != want {
		t.Errorf("with --settings the skill dir = %q, want %q", s.SkillDir, want)
	}
}

func stat(t *testing.T, path string) os.FileInfo {
	t.Helper()
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return info
}

func assertMode(t *testing.T, path string, want os.FileMode) {
	t.Helper()
	if got := stat(t, path).Mode().Perm(); got != want {
		t.Errorf("%s mode %v, want %v", path, got, want)
	}
}

func assertFile(t *testing.T, path, want string, mode os.FileMode) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(data) != want {
		t.Errorf("%s:\n%s", path, unifiedDiff("want", "got", []byte(want), data))
	}
	assertMode(t, path, mode)
}

// Run as root (say, under sudo) install must leave settings.json owned by
// the user, or Claude Code could no longer save it.
func TestInstallKeepsOwner(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to give a file away")
	}
	rig := newInstallRig(t)
	rig.writeSettings(t, "{}\n", 0o600)
	const uid, gid = 12345, 23456
	if err := os.Chown(rig.setup.SettingsPath, uid, gid); err != nil {
		t.Fatal(err)
	}
	if err := Install(rig.setup); err != nil {
		t.Fatal(err)
	}
	st, ok := ownerOf(stat(t, rig.setup.SettingsPath))
	if !ok || st.Uid != uid || st.Gid != gid {
		t.Errorf("owner after install = %+v, want %d:%d", st, uid, gid)
	}
}

// Layouts recall would not write itself: uninstall still gives back the
// very bytes, not just equal JSON, and leaves no backup or record.
func TestUninstallRestoresBytesOfAnyLayout(t *testing.T) {
	layouts := []settingsFixture{
		{"compact", `{"model":"opus","hooks":{"Stop":[{"hooks":[{"type":"command","command":"say done"}]}]},"env":{"A":"1"}}`},
		{"compact objects in an indented file", "{\n  \"permissions\": {\"allow\": [\"Bash(ls)\"], \"deny\": []},\n  \"hooks\": {\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"ccidx tail\"}]}]},\n  \"statusLine\": {\"type\": \"command\", \"command\": \"x\"}\n}\n"},
		{"odd spacing and escapes", "{ \"env\" : { \"PATH\":\"/a\\u002fb\" } ,\n\n \"maxTokens\": 1.50E+3 }\n"},
		{"blank", ""},
	}
	for _, fx := range append(layouts, settingsFixtures()...) {
		t.Run(fx.name, func(t *testing.T) {
			rig := newInstallRig(t)
			rig.writeSettings(t, fx.text, 0o640)
			if err := Install(rig.setup); err != nil {
				t.Fatal(err)
			}
			if rig.readSettings(t) == fx.text {
				t.Fatal("install changed nothing")
			}
			if err := Uninstall(rig.setup); err != nil {
				t.Fatal(err)
			}
			if after := rig.readSettings(t); after != fx.text {
				t.Errorf("after uninstall the bytes differ:\n%s", unifiedDiff("original", "after", []byte(fx.text), []byte(after)))
			}
			assertMode(t, rig.setup.SettingsPath, 0o640)
			entries, _ := os.ReadDir(filepath.Dir(rig.setup.SettingsPath))
			if len(entries) != 1 {
				t.Errorf("uninstall left files beside settings.json: %v", entries)
			}
		})
	}
}

// Settings changed after install (by the user or Claude Code) are kept:
// only recall's hooks go, and the original stays in the backup, said so.
func TestUninstallKeepsLaterChanges(t *testing.T) {
	rig := newInstallRig(t)
	original := settingsFixtures()[0].text
	rig.writeSettings(t, original, 0o600)
	if err := Install(rig.setup); err != nil {
		t.Fatal(err)
	}
	settings := parsePlain(t, rig.readSettings(t))
	settings["theme"] = "dark"
	edited, _ := json.MarshalIndent(settings, "", "  ")
	rig.writeSettings(t, string(edited)+"\n", 0o600)
	rig.log.Reset()
	if err := Uninstall(rig.setup); err != nil {
		t.Fatal(err)
	}
	want := parsePlain(t, original)
	want["theme"] = "dark"
	if got := parsePlain(t, rig.readSettings(t)); !reflect.DeepEqual(got, want) {
		t.Errorf("after uninstall got %v, want %v", got, want)
	}
	assertFile(t, rig.setup.SettingsPath+backupSuffix, original, 0o600)
	if log := rig.log.String(); !strings.Contains(log, "other settings changed since install") || strings.Contains(log, "saved the original") {
		t.Errorf("uninstall summary: %q", log)
	}
}

// Installed into a missing file, installed again (as after an upgrade),
// then uninstalled: no file, no backup of recall's own file.
func TestReinstallIntoMissingFile(t *testing.T) {
	rig := newInstallRig(t)
	for _, path := range []string{"/opt/recall/bin/recall", "/usr/local/bin/recall"} {
		rig.setup.RecallPath = path
		if err := Install(rig.setup); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(rig.setup.SettingsPath + backupSuffix); !os.IsNotExist(err) {
		t.Errorf("a backup of the file recall created: %v", err)
	}
	if err := Uninstall(rig.setup); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Dir(rig.setup.SettingsPath)); !os.IsNotExist(err) {
		t.Errorf("uninstall left the config directory recall created: %v", err)
	}
}

// Directories that were there before install stay, even empty.
func TestUninstallKeepsDirectoriesItDidNotCreate(t *testing.T) {
	rig := newInstallRig(t)
	rig.writeSettings(t, "{}\n", 0o600)
	skills := filepath.Dir(rig.setup.SkillDir)
	if err := os.Mkdir(skills, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := Install(rig.setup); err != nil {
		t.Fatal(err)
	}
	if err := Uninstall(rig.setup); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(skills); err != nil {
		t.Errorf("uninstall removed a skills/ it did not create: %v", err)
	}
	if _, err := os.Stat(rig.setup.SkillDir); !os.IsNotExist(err) {
		t.Errorf("skill dir still there: %v", err)
	}
	assertFile(t, rig.setup.SettingsPath, "{}\n", 0o600)
}

func TestUninstallDryRunOfCreatedFile(t *testing.T) {
	rig := newInstallRig(t)
	if err := Install(rig.setup); err != nil {
		t.Fatal(err)
	}
	rig.setup.DryRun = true
	if err := Uninstall(rig.setup); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(rig.out.String(), "+++ /dev/null") || !strings.Contains(rig.log.String(), "would remove it") {
		t.Errorf("dry run: out %q log %q", rig.out, rig.log)
	}
	if _, err := os.Stat(rig.setup.SettingsPath); err != nil {
		t.Errorf("dry run removed settings.json: %v", err)
	}
}
