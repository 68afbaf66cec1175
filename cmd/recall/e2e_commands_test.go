package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/recall-dev/recall/evalcorpus"
)

// End-to-end runs of the built binary, one process per command as a user
// runs them, over one archive: index, search, show (after Claude Code has
// deleted the transcript), sessions, resume, stats, install and
// uninstall. The MCP server has its own (mcp_test.go).

type binRig struct {
	t       *testing.T
	bin     string
	env     []string
	home    string
	src     string
	index   string
	project string
}

func newBinRig(t *testing.T) *binRig {
	t.Helper()
	r := &binRig{t: t, bin: recallBinary(t), src: filepath.Join(t.TempDir(), "projects"), index: filepath.Join(t.TempDir(), "index"), project: t.TempDir()}
	r.env = hermeticEnv(t)
	for _, kv := range r.env {
		if home, ok := strings.CutPrefix(kv, "HOME="); ok {
			r.home = home
		}
	}
	return r
}

// run runs the binary with the rig's sources and index.
func (r *binRig) run(args ...string) runResult {
	r.t.Helper()
	return r.runIn("", append(args, "--source", r.src, "--index-dir", r.index)...)
}

// runIn runs the binary in dir with exactly args.
func (r *binRig) runIn(dir string, args ...string) runResult {
	r.t.Helper()
	cmd := exec.Command(r.bin, args...)
	cmd.Env, cmd.Dir = r.env, dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		r.t.Fatalf("run recall %v: %v", args, err)
	}
	return runResult{stdout.String(), stderr.String(), cmd.ProcessState.ExitCode()}
}

func (r *binRig) write(s evalcorpus.Session) string {
	r.t.Helper()
	if err := s.Write(r.src); err != nil {
		r.t.Fatal(err)
	}
	return s.Path(r.src)
}

func expectExit(t *testing.T, what string, res runResult, code int, stdoutHas ...string) {
	t.Helper()
	if res.code != code {
		t.Fatalf("%s: exit %d, want %d; stdout %q, stderr %q", what, res.code, code, res.stdout, res.stderr)
	}
	for _, want := range stdoutHas {
		if !strings.Contains(res.stdout, want) {
			t.Errorf("%s: stdout lacks %q:\n%s", what, want, res.stdout)
		}
	}
}

func TestEndToEndSessionCommands(t *testing.T) {
	r := newBinRig(t)
	kept := startAt("2026-03-01T10:00:00Z").
		user("How do we rotate the signing keys for the payments webhook?").
		assistant("Rotate them with the keyring command, then redeploy the webhook workers.").
		user("And where is the keyring configured?").
		assistant("In deploy/keyring.yaml, next to the worker manifests.").
		session(sessionID('c'), r.project)
	deleted := startAt("2026-02-01T09:00:00Z").
		user("Why do the payments webhook retries pile up overnight?").
		assistant("The retry queue has no backoff ceiling, so failed webhooks retry every minute all night.").
		user("Cap the backoff at one hour and alert after ten failures.").
		assistant("The backoff is capped at one hour and an alert fires after ten failures.").
		session(sessionID('d'), r.project)
	r.write(kept)
	gone := r.write(deleted)

	expectExit(t, "index", r.run("index"), 0)
	// Claude Code's 30-day cleanup deletes a transcript; the index keeps it.
	if err := os.Remove(gone); err != nil {
		t.Fatal(err)
	}

	search := r.run("--json", "webhook", "backoff")
	expectExit(t, "search", search, 0, sessionID('d'))
	var first struct {
		SessionID string `json:"session_id"`
		Messages  []struct {
			Source string `json:"source"`
			Line   int    `json:"line"`
		} `json:"messages"`
	}
	if err := json.Unmarshal([]byte(strings.SplitN(search.stdout, "\n", 2)[0]), &first); err != nil || first.SessionID != sessionID('d') {
		t.Fatalf("search: best session %q (%v):\n%s", first.SessionID, err, search.stdout)
	}
	evidence := first.Messages[0].Source + ":" + strconv.Itoa(first.Messages[0].Line)

	// show reads the deleted session from the index, by its evidence.
	shown := r.run("show", evidence, "-C", "1", "--color", "never")
	expectExit(t, "show deleted", shown, 0, "transcript deleted, read from the index", "Cap the backoff at one hour", gone+":")
	full := parseShown(t, r.run("show", "--json", "--full", sessionID('d')[:8]))
	if full.TranscriptExists || full.Total != 4 || len(full.Messages) != 4 || full.Messages[2].Text != "Cap the backoff at one hour and alert after ten failures." {
		t.Errorf("show --full of the deleted session: %+v", full)
	}

	sessions := r.run("sessions", "--color", "never")
	expectExit(t, "sessions", sessions, 0, sessionID('c')+"  "+r.project+"  4 messages\n", sessionID('d')+"  "+r.project+"  4 messages (transcript deleted; in the index)")
	if strings.Index(sessions.stdout, sessionID('c')) > strings.Index(sessions.stdout, sessionID('d')) {
		t.Errorf("sessions not newest first:\n%s", sessions.stdout)
	}

	expectExit(t, "resume", r.run("resume", sessionID('c')[:6]), 0, "cd "+r.project+" && claude --resume "+sessionID('c')+"\n")
	gonerResume := r.run("resume", sessionID('d'))
	if gonerResume.code != 2 || !strings.Contains(gonerResume.stderr, "claude --resume cannot reopen it; `recall show "+sessionID('d')+" --full` prints it") {
		t.Errorf("resume of a deleted transcript: exit %d, stderr %q", gonerResume.code, gonerResume.stderr)
	}

	stats := r.run("stats")
	expectExit(t, "stats", stats, 0, "sessions     2 in 1 projects", "archive      1 session whose transcript Claude Code deleted (1 transcripts, 4 rows) live only in the index", "hooks        not installed", "warnings     ")
	var js map[string]any
	if err := json.Unmarshal([]byte(r.run("stats", "--json").stdout), &js); err != nil || js["rows"] != float64(8) || js["warnings"] == nil || js["claude_code"] == nil {
		t.Errorf("stats --json: %v %v", err, js)
	}

	none := r.run("webhook", "--project", "nosuchproj")
	if none.code != 1 || none.stdout != "" || !strings.Contains(none.stderr, "no indexed session is in project nosuchproj") {
		t.Errorf("no match hint: exit %d, stderr %q", none.code, none.stderr)
	}
}

// install and uninstall as a user runs them: with no settings.json, then
// with one; registration through a fake claude on PATH.
func TestEndToEndInstallUninstall(t *testing.T) {
	r := newBinRig(t)
	fakeDir := t.TempDir()
	calls := filepath.Join(fakeDir, "calls")
	if err := os.WriteFile(filepath.Join(fakeDir, "claude"), []byte("#!/bin/sh\nprintf '%s\\n' \"$*\" >> '"+calls+"'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for i, kv := range r.env {
		if strings.HasPrefix(kv, "PATH=") {
			r.env[i] = "PATH=" + fakeDir + string(os.PathListSeparator) + strings.TrimPrefix(kv, "PATH=")
		}
	}
	config := filepath.Join(r.home, ".claude")
	settings := filepath.Join(config, "settings.json")

	dry := r.runIn("", "install", "--dry-run")
	expectExit(t, "install --dry-run", dry, 0, "would run: claude mcp add --scope user recall -- "+r.bin+" mcp\n", "+name: recall")
	if _, err := os.Stat(config); !os.IsNotExist(err) {
		t.Fatalf("dry run created %s: %v", config, err)
	}

	// No settings.json before: none after, and no folder left behind.
	expectExit(t, "install", r.runIn("", "install"), 0)
	if data, _ := os.ReadFile(calls); string(data) != "mcp add --scope user recall -- "+r.bin+" mcp\n" {
		t.Errorf("claude calls: %q", data)
	}
	if _, err := os.Stat(filepath.Join(config, "skills", "recall", "SKILL.md")); err != nil {
		t.Fatal(err)
	}
	un := r.runIn("", "uninstall")
	expectExit(t, "uninstall", un, 0)
	if strings.Contains(un.stderr, "saved the original") {
		t.Errorf("uninstall claims an original: %q", un.stderr)
	}
	if _, err := os.Stat(config); !os.IsNotExist(err) {
		entries, _ := os.ReadDir(config)
		t.Errorf("uninstall left %s: %v", config, entries)
	}

	// An existing settings.json comes back byte for byte.
	const original = "{\"model\":\"opus\",\n  \"hooks\": {\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"say done\"}]}]}}\n"
	if err := os.MkdirAll(config, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(settings, []byte(original), 0o644); err != nil {
		t.Fatal(err)
	}
	expectExit(t, "install over a file", r.runIn("", "install"), 0)
	if data, _ := os.ReadFile(settings); !strings.Contains(string(data), r.bin+" hook") {
		t.Fatalf("hooks not installed:\n%s", data)
	}
	expectExit(t, "uninstall over a file", r.runIn("", "uninstall"), 0)
	if data, _ := os.ReadFile(settings); string(data) != original {
		t.Errorf("settings.json not restored byte for byte:\n%q\nwant\n%q", data, original)
	}
	if entries, _ := os.ReadDir(config); len(entries) != 1 {
		t.Errorf("uninstall left files beside settings.json: %v", entries)
	}
}
