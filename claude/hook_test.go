package claude

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/recall-dev/recall/internal/hooklog"
	"github.com/recall-dev/recall/store/lockfile"

	"golang.org/x/sys/unix"

	"github.com/recall-dev/recall/store"
)

// fixedNow is the clock of every hook test, so log lines can be compared
// whole.
func fixedNow() time.Time { return time.Date(2026, 8, 1, 12, 30, 45, 123e6, time.UTC) }

const testStamp = "2026-08-01T12:30:45.123Z"

// hookEnv is the environment Claude Code gives hooks, cut to what matters.
func hookEnv() []string {
	return []string{
		"PATH=/usr/bin:/bin",
		"CLAUDE_CODE_SESSION_ID=ed01c0de-0000-4000-8000-000000000001",
		"CLAUDE_SESSION_ID=ed01c0de-0000-4000-8000-000000000001",
		"CLAUDE_PROJECT_DIR=/home/user/My Project.v2_test",
		"HOME=/home/user",
	}
}

// started records what the hook asked to start instead of starting it.
type started struct{ commands []Command }

func (s *started) start(c Command) (int, error) {
	s.commands = append(s.commands, c)
	return 4242, nil
}

type hookRig struct {
	hook     Hook
	started  *started
	stderr   *bytes.Buffer
	indexDir string
}

func newHookRig(t *testing.T, stdin io.Reader) hookRig {
	t.Helper()
	root := t.TempDir()
	rig := hookRig{
		started:  &started{},
		stderr:   &bytes.Buffer{},
		indexDir: filepath.Join(root, "data", "recall"),
	}
	rig.hook = Hook{
		Stdin:        stdin,
		StdinTimeout: 2 * time.Second,
		IndexDir:     rig.indexDir,
		Sources:      []string{"/home/user/.claude/projects", "/srv/other/projects"},
		Executable:   "/opt/recall/bin/recall",
		Environ:      hookEnv(),
		Now:          fixedNow,
		Start:        rig.started.start,
		Stderr:       rig.stderr,
	}
	return rig
}

func (r hookRig) log(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(r.indexDir, HookLogFileName))
	if err != nil {
		t.Fatalf("read hook log: %v", err)
	}
	return string(data)
}

func baseArgs(r hookRig) []string {
	return []string{"index", "--sweep", "--index-dir", r.indexDir,
		"--source", "/home/user/.claude/projects", "--source", "/srv/other/projects"}
}

const sid = "ed01c0de-0000-4000-8000-000000000001"

// Payloads as captured in the format reference (§6), one per event and
// SessionStart source and SessionEnd reason.
func TestHookStartsIndexerForEachEvent(t *testing.T) {
	common := `"session_id":"` + sid + `","transcript_path":"/home/user/.claude/projects/-home-user-My-Project-v2-test/` + sid + `.jsonl","cwd":"/home/user/My Project.v2_test",`
	stillCurrent := func(r hookRig) ([]string, []string) {
		return append(baseArgs(r), "--current-session", sid), hookEnv()
	}
	ended := func(r hookRig) ([]string, []string) {
		return baseArgs(r), []string{"PATH=/usr/bin:/bin", "CLAUDE_PROJECT_DIR=/home/user/My Project.v2_test", "HOME=/home/user"}
	}
	tests := []struct {
		name    string
		payload string
		want    func(hookRig) (args, env []string)
		logLine string
	}{
		{"SessionStart startup", `{` + common + `"hook_event_name":"SessionStart","source":"startup","model":"claude-opus-5-5"}`,
			stillCurrent, `SessionStart source="startup" session="` + sid + `": started indexer pid 4242`},
		{"SessionStart resume", `{` + common + `"hook_event_name":"SessionStart","source":"resume","seconds_since_last_response":812,"context_tokens":10421,"prompt_cache_likely_expired":true,"estimated_cache_write_usd":0.04}`,
			stillCurrent, `SessionStart source="resume" session="` + sid + `": started indexer pid 4242`},
		{"SessionStart clear", `{` + common + `"hook_event_name":"SessionStart","source":"clear"}`,
			stillCurrent, `SessionStart source="clear" session="` + sid + `": started indexer pid 4242`},
		{"SessionStart compact", `{` + common + `"hook_event_name":"SessionStart","source":"compact"}`,
			stillCurrent, `SessionStart source="compact" session="` + sid + `": started indexer pid 4242`},
		{"SessionStart fork", `{` + common + `"hook_event_name":"SessionStart","source":"fork","seconds_since_last_response":3}`,
			stillCurrent, `SessionStart source="fork" session="` + sid + `": started indexer pid 4242`},
		{"UserPromptSubmit", `{` + common + `"hook_event_name":"UserPromptSubmit","prompt":"fix the \"jwt\" refresh","prompt_id":"p1","permission_mode":"default"}`,
			stillCurrent, `UserPromptSubmit session="` + sid + `": started indexer pid 4242`},
		{"Stop", `{` + common + `"hook_event_name":"Stop","stop_hook_active":false,"last_assistant_message":"Done.\nAll tests pass.","background_tasks":[],"session_crons":[]}`,
			stillCurrent, `Stop session="` + sid + `": started indexer pid 4242`},
		{"SubagentStop", `{` + common + `"hook_event_name":"SubagentStop","stop_hook_active":false,"agent_id":"a4275c0ffee12345","agent_type":"general-purpose","agent_transcript_path":"/home/user/.claude/projects/p/` + sid + `/subagents/agent-a4275c0ffee12345.jsonl"}`,
			stillCurrent, `SubagentStop session="` + sid + `": started indexer pid 4242`},
		{"PreCompact", `{` + common + `"hook_event_name":"PreCompact","trigger":"manual","custom_instructions":"keep the API notes"}`,
			stillCurrent, `PreCompact session="` + sid + `": started indexer pid 4242`},
		{"SessionEnd clear", `{` + common + `"hook_event_name":"SessionEnd","reason":"clear"}`,
			ended, `SessionEnd reason="clear" session="` + sid + `": started indexer pid 4242`},
		{"SessionEnd resume", `{` + common + `"hook_event_name":"SessionEnd","reason":"resume"}`,
			ended, `SessionEnd reason="resume" session="` + sid + `": started indexer pid 4242`},
		{"SessionEnd logout", `{` + common + `"hook_event_name":"SessionEnd","reason":"logout"}`,
			ended, `SessionEnd reason="logout" session="` + sid + `": started indexer pid 4242`},
		{"SessionEnd prompt_input_exit", `{` + common + `"hook_event_name":"SessionEnd","reason":"prompt_input_exit"}`,
			ended, `SessionEnd reason="prompt_input_exit" session="` + sid + `": started indexer pid 4242`},
		{"SessionEnd other", `{` + common + `"hook_event_name":"SessionEnd","reason":"other"}`,
			ended, `SessionEnd reason="other" session="` + sid + `": started indexer pid 4242`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rig := newHookRig(t, strings.NewReader(tt.payload))
			rig.hook.Run()
			wantArgs, wantEnv := tt.want(rig)
			assertStarted(t, rig, wantArgs, wantEnv)
			if got, want := rig.log(t), testStamp+" "+tt.logLine+"\n"; got != want {
				t.Errorf("log:\n got %q\nwant %q", got, want)
			}
		})
	}
}

func assertStarted(t *testing.T, rig hookRig, wantArgs, wantEnv []string) {
	t.Helper()
	if len(rig.started.commands) != 1 {
		t.Fatalf("started %d commands, want 1", len(rig.started.commands))
	}
	c := rig.started.commands[0]
	if c.Path != "/opt/recall/bin/recall" {
		t.Errorf("path = %q", c.Path)
	}
	if !slices.Equal(c.Args, wantArgs) {
		t.Errorf("args:\n got %q\nwant %q", c.Args, wantArgs)
	}
	if !slices.Equal(c.Env, wantEnv) {
		t.Errorf("env:\n got %q\nwant %q", c.Env, wantEnv)
	}
	if c.Dir != rig.indexDir {
		t.Errorf("dir = %q, want %q", c.Dir, rig.indexDir)
	}
	if c.Output == nil || c.Output.Name() != filepath.Join(rig.indexDir, HookLogFileName) {
		t.Errorf("child output should be the hook log, got %v", c.Output)
	}
}

// Without a usable payload the hook still indexes; the child keeps the
// environment, whose CLAUDE_CODE_SESSION_ID protects the current session.
func TestHookWithoutUsablePayload(t *testing.T) {
	tests := []struct {
		name      string
		stdin     string
		wantArgs  func(hookRig) []string
		logSuffix string
	}{
		{"empty stdin", "", baseArgs,
			"unknown-event: started indexer pid 4242; empty stdin, no payload"},
		{"malformed JSON", `{"session_id":"abc",`, baseArgs,
			"unknown-event: started indexer pid 4242; payload cut short (malformed, or over 4194304 bytes)"},
		{"not JSON", `hello`, baseArgs,
			"unknown-event: started indexer pid 4242; malformed payload: invalid character 'h' looking for beginning of value"},
		{"not an object", `["Stop"]`, baseArgs,
			"unknown-event: started indexer pid 4242; payload: json: cannot unmarshal array into Go value of type claude.Payload"},
		{"session_id of the wrong type", `{"hook_event_name":"Stop","session_id":42}`, baseArgs,
			"Stop: started indexer pid 4242; payload: json: cannot unmarshal number into Go struct field Payload.session_id of type string"},
		{"missing fields", `{}`, baseArgs,
			"unknown-event: started indexer pid 4242; payload has no hook_event_name; payload has no session_id"},
		{"session id that looks like a flag", `{"hook_event_name":"Stop","session_id":"--rebuild"}`, baseArgs,
			`Stop session="--rebuild": started indexer pid 4242; ignored session_id "--rebuild"; the indexer takes the current session from the environment`},
		{"oversized payload", `{"hook_event_name":"Stop","session_id":"` + sid + `","last_assistant_message":"` + strings.Repeat("a", MaxPayloadBytes) + `"}`, baseArgs,
			"unknown-event: started indexer pid 4242; payload cut short (malformed, or over 4194304 bytes)"},
		{"fields after a newline", "{\"hook_event_name\":\"Stop\",\n\"session_id\":\"" + sid + "\"}\n", func(r hookRig) []string {
			return append(baseArgs(r), "--current-session", sid)
		}, `Stop session="` + sid + `": started indexer pid 4242`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rig := newHookRig(t, strings.NewReader(tt.stdin))
			rig.hook.Run()
			assertStarted(t, rig, tt.wantArgs(rig), hookEnv())
			if got, want := rig.log(t), testStamp+" "+tt.logSuffix+"\n"; got != want {
				t.Errorf("log:\n got %q\nwant %q", got, want)
			}
		})
	}
}

// A writer that never closes stdin must not hang the hook.
func TestHookStdinNeverClosed(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	rig := newHookRig(t, pr)
	rig.hook.StdinTimeout = 50 * time.Millisecond
	begin := time.Now()
	rig.hook.Run()
	if elapsed := time.Since(begin); elapsed > time.Second {
		t.Errorf("hook took %v with an open, silent stdin", elapsed)
	}
	assertStarted(t, rig, baseArgs(rig), hookEnv())
	want := testStamp + " unknown-event: started indexer pid 4242; no complete payload on stdin after 50ms\n"
	if got := rig.log(t); got != want {
		t.Errorf("log:\n got %q\nwant %q", got, want)
	}
}

// A complete payload is used even though stdin stays open after it.
func TestHookPayloadWithoutEOF(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	go func() { _, _ = io.WriteString(pw, `{"hook_event_name":"Stop","session_id":"`+sid+`"}`) }()
	rig := newHookRig(t, pr)
	rig.hook.Run()
	assertStarted(t, rig, append(baseArgs(rig), "--current-session", sid), hookEnv())
}

func TestHookLeavesRerunNoteWhenIndexerRunning(t *testing.T) {
	rig := newHookRig(t, strings.NewReader(`{"hook_event_name":"Stop","session_id":"`+sid+`"}`))
	lockPath := filepath.Join(rig.indexDir, lockfile.WriterName)
	holdLock(t, lockPath)

	rig.hook.Run()

	if len(rig.started.commands) != 0 {
		t.Errorf("started %v while the indexer runs", rig.started.commands)
	}
	if !store.Open(rig.indexDir).RerunRequested() {
		t.Error("no rerun note left while an indexer runs")
	}
	if _, err := os.Stat(lockPath); err != nil {
		t.Errorf("lock file: %v", err)
	}
	want := testStamp + ` Stop session="` + sid + `": indexer already running; left the rerun note` + "\n"
	if got := rig.log(t); got != want {
		t.Errorf("log:\n got %q\nwant %q", got, want)
	}
}

func TestHookStartsWhenLockFileFree(t *testing.T) {
	rig := newHookRig(t, strings.NewReader(`{"hook_event_name":"Stop","session_id":"`+sid+`"}`))
	lockPath := filepath.Join(rig.indexDir, lockfile.WriterName)
	if err := os.MkdirAll(rig.indexDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(lockPath, nil, 0o600); err != nil {
		t.Fatal(err)
	}

	rig.hook.Run()

	assertStarted(t, rig, append(baseArgs(rig), "--current-session", sid), hookEnv())
	if store.Open(rig.indexDir).RerunRequested() {
		t.Error("rerun note left with no indexer running")
	}
	if _, err := os.Stat(lockPath); err != nil {
		t.Errorf("lock file: %v", err)
	}
	held, err := store.Open(rig.indexDir).LockHeld(lockfile.WriterName)
	if err != nil || held {
		t.Errorf("after the hook the lock is held=%v (err %v); it must be released", held, err)
	}
}

// holdLock takes the index lock as a running indexer would, through its
// own open file, until the test ends.
func holdLock(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		t.Fatalf("take lock: %v", err)
	}
}

func TestHookCreatesPrivateIndexDirAndLog(t *testing.T) {
	rig := newHookRig(t, strings.NewReader(`{"hook_event_name":"Stop","session_id":"`+sid+`"}`))
	rig.hook.Run()
	for path, want := range map[string]os.FileMode{
		rig.indexDir: 0o700,
		filepath.Join(rig.indexDir, HookLogFileName): 0o600,
	} {
		info, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := info.Mode().Perm(); got != want {
			t.Errorf("%s mode %v, want %v", path, got, want)
		}
	}
}

func TestHookAppendsToLog(t *testing.T) {
	for range 2 {
		rig := newHookRig(t, strings.NewReader(`{"hook_event_name":"Stop","session_id":"`+sid+`"}`))
		if err := os.MkdirAll(rig.indexDir, 0o700); err != nil {
			t.Fatal(err)
		}
		old := "2026-07-31T00:00:00.000Z Stop: earlier line\n"
		if err := os.WriteFile(filepath.Join(rig.indexDir, HookLogFileName), []byte(old), 0o600); err != nil {
			t.Fatal(err)
		}
		rig.hook.Run()
		if got := rig.log(t); !strings.HasPrefix(got, old) || strings.Count(got, "\n") != 2 {
			t.Errorf("log = %q, want the old line then one new line", got)
		}
	}
}

func TestHookRotatesLargeLog(t *testing.T) {
	rig := newHookRig(t, strings.NewReader(`{"hook_event_name":"Stop","session_id":"`+sid+`"}`))
	if err := os.MkdirAll(rig.indexDir, 0o700); err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(rig.indexDir, HookLogFileName)
	big := bytes.Repeat([]byte("x\n"), hooklog.MaxBytes/2+1)
	if err := os.WriteFile(logPath, big, 0o600); err != nil {
		t.Fatal(err)
	}
	rig.hook.Run()
	if got := rig.log(t); strings.Count(got, "\n") != 1 {
		t.Errorf("log after rotation holds %d lines, want 1", strings.Count(got, "\n"))
	}
	if old, err := os.ReadFile(logPath + ".1"); err != nil || !bytes.Equal(old, big) {
		t.Errorf("rotated log: %v", err)
	}
}

// An index dir that cannot be created: the line goes to stderr and the
// hook still returns normally.
func TestHookUnwritableIndexDir(t *testing.T) {
	rig := newHookRig(t, strings.NewReader(`{"hook_event_name":"SessionEnd","reason":"other","session_id":"`+sid+`"}`))
	blocker := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(blocker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	rig.hook.IndexDir = filepath.Join(blocker, "recall")
	rig.hook.Run()

	got := rig.stderr.String()
	for _, want := range []string{
		"recall hook: " + testStamp + ` SessionEnd reason="other" session="` + sid + `": started indexer pid 4242`,
		"create index dir: mkdir " + blocker + ": not a directory",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("stderr = %q, want it to contain %q", got, want)
		}
	}
	if len(rig.started.commands) == 1 && rig.started.commands[0].Output != nil {
		t.Errorf("child output should be discarded without a log")
	}
}

func TestHookStartFailureIsLogged(t *testing.T) {
	rig := newHookRig(t, strings.NewReader(`{"hook_event_name":"Stop","session_id":"`+sid+`"}`))
	rig.hook.Start = StartDetached
	rig.hook.Executable = filepath.Join(t.TempDir(), "missing-recall")
	rig.hook.Run()
	// The path once: fork/exec's error names it (issue 23).
	want := testStamp + ` Stop session="` + sid + `": indexer not started; fork/exec ` + rig.hook.Executable + ": no such file or directory\n"
	if got := rig.log(t); got != want {
		t.Errorf("log:\n got %q\nwant %q", got, want)
	}
}

func TestPayloadReaderSkipsTerminalsAndDevices(t *testing.T) {
	devNull, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer devNull.Close()
	if _, ok := PayloadReader(devNull).(*os.File); ok {
		t.Errorf("a character device should not be read")
	}
	regular, err := os.CreateTemp(t.TempDir(), "payload")
	if err != nil {
		t.Fatal(err)
	}
	defer regular.Close()
	if r := PayloadReader(regular); r != io.Reader(regular) {
		t.Errorf("a regular file or pipe should be read as it is")
	}
}

func TestWithoutVars(t *testing.T) {
	env := []string{"A=1", "CLAUDE_SESSION_ID=x", "CLAUDE_SESSION_ID_EXTRA=y", "B=a=b", "CLAUDE_CODE_SESSION_ID="}
	got := withoutVars(env, "CLAUDE_CODE_SESSION_ID", "CLAUDE_SESSION_ID")
	want := []string{"A=1", "CLAUDE_SESSION_ID_EXTRA=y", "B=a=b"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// The prompt hint runs before the detached indexer starts: the indexer
// would otherwise take the CPU the hint needs while Claude waits on it.
// Events without a hint start the indexer all the same.
func TestHookHintsBeforeStartingIndexer(t *testing.T) {
	common := `"session_id":"` + sid + `","transcript_path":"/p/` + sid + `.jsonl","cwd":"/w",`
	tests := []struct {
		name, payload string
		want          []string
	}{
		{"UserPromptSubmit", `{` + common + `"hook_event_name":"UserPromptSubmit","prompt":"fix the jwt refresh"}`, []string{"hint", "start"}},
		{"SessionStart startup", `{` + common + `"hook_event_name":"SessionStart","source":"startup"}`, []string{"hint", "start"}},
		{"SessionStart clear", `{` + common + `"hook_event_name":"SessionStart","source":"clear"}`, []string{"start"}},
		{"Stop", `{` + common + `"hook_event_name":"Stop"}`, []string{"start"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rig := newHookRig(t, strings.NewReader(tc.payload))
			var order []string
			var out bytes.Buffer
			rig.hook.Stdout = &out
			rig.hook.Hint = func(Payload) (string, string) {
				order = append(order, "hint")
				return "past session\n", "shown"
			}
			rig.hook.Start = func(c Command) (int, error) {
				order = append(order, "start")
				return rig.started.start(c)
			}
			rig.hook.Run()
			if !slices.Equal(order, tc.want) {
				t.Errorf("order %v, want %v", order, tc.want)
			}
			if hinted := slices.Contains(tc.want, "hint"); hinted != (out.String() == "past session\n") {
				t.Errorf("stdout %q with hint %v", out.String(), hinted)
			}
			if !strings.Contains(rig.log(t), "started indexer pid 4242") {
				t.Errorf("log %q names no indexer", rig.log(t))
			}
		})
	}
}
