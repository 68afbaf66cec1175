package claude

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recall-dev/recall/transcript"
)

func TestSessionTrackerFollowsClear(t *testing.T) {
	const a, b, c = "aaaaaaaa-0000-4000-8000-000000000001", "bbbbbbbb-0000-4000-8000-000000000002", "cccccccc-0000-4000-8000-000000000003"
	const project = "/home/dev/src/shop"
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, cfg, idx string)
		want  string
	}{
		{"no change", func(*testing.T, string, string) {}, a},
		{"the SessionEnd hook noted two clears", func(t *testing.T, _, idx string) {
			must(t, NoteSuccession(idx, a, b))
			must(t, NoteSuccession(idx, b, c))
		}, c},
		{"a resume named in sessions/<pid>.json", func(t *testing.T, cfg, _ string) {
			must(t, os.MkdirAll(filepath.Join(cfg, "sessions"), 0o700))
			must(t, os.WriteFile(filepath.Join(cfg, "sessions", "4242.json"), []byte(`{"pid":4242,"sessionId":"`+b+`","cwd":"`+project+`"}`), 0o600))
		}, b},
		{"a clear only history.jsonl tells", func(t *testing.T, cfg, _ string) {
			history := `{"display":"fix it","project":"` + project + `","sessionId":"` + a + `","timestamp":1}` + "\n" +
				`{"display":"/clear","project":"` + project + `","sessionId":"` + a + `","timestamp":2}` + "\n" +
				`{"display":"other work","project":"/elsewhere","sessionId":"` + c + `","timestamp":3}` + "\n" +
				`{"display":"new work","project":"` + project + `","sessionId":"` + b + `","timestamp":4}` + "\n"
			must(t, os.WriteFile(filepath.Join(cfg, "history.jsonl"), []byte(history), 0o600))
			dir := filepath.Join(cfg, "projects", transcript.ProjectSlug(project))
			must(t, os.MkdirAll(dir, 0o700))
			must(t, os.WriteFile(filepath.Join(dir, b+".jsonl"), []byte(`{"type":"user","message":{"role":"user","content":"<command-name>/clear</command-name>\n            <command-message>clear</command-message>"},"sessionId":"`+b+`"}`+"\n"), 0o600))
		}, b},
		{"a newer prompt of another session in the project is not a clear", func(t *testing.T, cfg, _ string) {
			history := `{"display":"fix it","project":"` + project + `","sessionId":"` + a + `","timestamp":1}` + "\n" +
				`{"display":"new work","project":"` + project + `","sessionId":"` + b + `","timestamp":4}` + "\n"
			must(t, os.WriteFile(filepath.Join(cfg, "history.jsonl"), []byte(history), 0o600))
		}, a},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, idx := t.TempDir(), t.TempDir()
			tr := &SessionTracker{Start: a, IndexDir: idx, ConfigDir: cfg, ParentPID: 4242, Project: project}
			if got := tr.Current(); got != a {
				t.Fatalf("before: %s, want %s", got, a)
			}
			tc.setup(t, cfg, idx)
			if got := tr.Current(); got != tc.want {
				t.Fatalf("Current() = %s, want %s", got, tc.want)
			}
		})
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestInstallHints(t *testing.T) {
	dir := t.TempDir()
	s := Setup{SettingsPath: filepath.Join(dir, "settings.json"), SkillDir: filepath.Join(dir, "skills", "recall"), RecallPath: "/usr/local/bin/recall", Hints: true}
	must(t, Install(s))
	st := ReadStatus(s)
	if !st.Installed() || !st.Hints {
		t.Fatalf("after install --hints: %+v", st)
	}
	data, _ := os.ReadFile(s.SettingsPath)
	for _, want := range []string{`"UserPromptSubmit"`, `"SessionStart"`, `"matcher": "startup|resume"`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("settings lack %s:\n%s", want, data)
		}
	}
	s.Hints = false
	must(t, Install(s))
	if st := ReadStatus(s); !st.Installed() || st.Hints {
		t.Fatalf("after install without --hints: %+v", st)
	}
	s.Hints = true
	must(t, Install(s))
	must(t, Uninstall(s))
	if _, err := os.Stat(s.SettingsPath); !os.IsNotExist(err) {
		data, _ := os.ReadFile(s.SettingsPath)
		t.Fatalf("uninstall left settings.json: %s", data)
	}
}

// With the small binary beside recall, UserPromptSubmit runs it (with
// the same flags); SessionStart stays recall's; installing again changes
// nothing, and uninstall takes it out.
func TestInstallHintsWithSmallBinary(t *testing.T) {
	dir := t.TempDir()
	s := Setup{SettingsPath: filepath.Join(dir, "settings.json"), SkillDir: filepath.Join(dir, "skills", "recall"),
		RecallPath: "/opt/my tools/recall", HintPath: "/opt/my tools/recall-hint", HookArgs: []string{"--index-dir", "/data/recall"}, Hints: true}
	must(t, Install(s))
	data, _ := os.ReadFile(s.SettingsPath)
	prompt := `"command": "'/opt/my tools/recall-hint' --index-dir /data/recall"`
	start := `"command": "'/opt/my tools/recall' hook --index-dir /data/recall"`
	if strings.Count(string(data), prompt) != 1 || !strings.Contains(string(data), start) {
		t.Fatalf("want UserPromptSubmit on recall-hint and the rest on recall hook:\n%s", data)
	}
	if st := ReadStatus(s); !st.Installed() || !st.Hints {
		t.Fatalf("status after install: %+v", st)
	}
	must(t, Install(s))
	if again, _ := os.ReadFile(s.SettingsPath); string(again) != string(data) {
		t.Fatalf("installing twice changed settings:\n%s\nthen\n%s", data, again)
	}
	// Without the small binary the prompt goes back to recall hook.
	s.HintPath = ""
	must(t, Install(s))
	if data, _ := os.ReadFile(s.SettingsPath); strings.Contains(string(data), "recall-hint") {
		t.Fatalf("recall-hint stayed after installing without it:\n%s", data)
	}
	s.HintPath = "/opt/my tools/recall-hint"
	must(t, Install(s))
	must(t, Uninstall(s))
	if _, err := os.Stat(s.SettingsPath); !os.IsNotExist(err) {
		data, _ := os.ReadFile(s.SettingsPath)
		t.Fatalf("uninstall left settings.json: %s", data)
	}
}

// Installed reports whether every hook recall installs is there.
func (st Status) Installed() bool { return len(st.Hooks) == len(hookEvents()) }
