package benchgen

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestMixedCorpusEndToEnd indexes a small mixed corpus with the recall
// binary built from this tree, a --source for each agent's folder, and
// checks that every agent's sessions became rows and that a Codex prompt
// is found in its own session.
func TestMixedCorpusEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds recall")
	}
	dir := t.TempDir()
	if _, err := Generate(Options{Dir: dir, Size: 3 << 20, Seed: 21, Text: testText(), Mixed: true}); err != nil {
		t.Fatal(err)
	}
	// recall-opencode beside recall: it reads the OpenCode database.
	binDir := t.TempDir()
	bin := filepath.Join(binDir, "recall")
	build := exec.Command("go", "build", "-o", binDir+string(filepath.Separator),
		"github.com/recall-dev/recall/cmd/recall", "github.com/recall-dev/recall/cmd/recall-opencode")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	idx := filepath.Join(t.TempDir(), "index")
	sources := []string{"--source", ProjectsDir(dir)}
	for _, f := range AgentFolders() {
		sources = append(sources, "--source", f.Agent+":"+filepath.Join(dir, f.Dir))
	}
	recall := func(args ...string) []byte {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Env = recallEnv()
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("recall %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
		}
		return out
	}
	recall(append(append([]string{"index"}, sources...), "--index-dir", idx)...)

	var stats struct {
		Rows   int64 `json:"rows"`
		Agents map[string]struct {
			Files int64 `json:"files"`
			Rows  int64 `json:"rows"`
		} `json:"agents"`
	}
	out := recall(append(append([]string{"stats", "--json", "--no-verify"}, sources...), "--index-dir", idx)...)
	if err := json.Unmarshal(out, &stats); err != nil {
		t.Fatalf("stats --json: %v\n%s", err, out)
	}
	for _, agent := range []string{"claude", "codex", "gemini", "opencode", "aider"} {
		if a := stats.Agents[agent]; a.Rows == 0 || a.Files == 0 {
			t.Errorf("stats: %s has %d files, %d rows; want some of each (all: %s)", agent, a.Files, a.Rows, out)
		}
	}

	word, session := codexPromptWord(t, filepath.Join(dir, "codex", "history.jsonl"))
	out = recall("search", "--agent", "codex", "--json", "--no-update", "--include-headless", "--sessions", "0", "--index-dir", idx, word)
	found := false
	results := 0
	for _, line := range bytes.Split(bytes.TrimSpace(out), []byte("\n")) {
		var r struct {
			SessionID string `json:"session_id"`
			Agent     string `json:"agent"`
		}
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatalf("search --json line %q: %v", line, err)
		}
		results++
		if r.Agent != "codex" {
			t.Errorf("search --agent codex %s: a %s session %s", word, r.Agent, r.SessionID)
		}
		found = found || r.SessionID == session
	}
	if !found {
		t.Errorf("search --agent codex %s: %d sessions, not %s, whose prompt says it", word, results, session)
	}

	// The compressed, archived rollouts were read too.
	out = recall("sessions", "--agent", "codex", "--json", "--no-update", "--include-headless", "--limit", "0", "--index-dir", idx)
	if !bytes.Contains(out, []byte(`.jsonl.zst"`)) {
		t.Errorf("sessions --agent codex lists no session from a .jsonl.zst rollout")
	}
}

// recallEnv is the environment without anything that points recall at
// another index or a live session of an agent.
func recallEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "RECALL_") || strings.HasPrefix(name, "CLAUDE_") || strings.HasPrefix(name, "CODEX_") ||
			strings.HasPrefix(name, "GEMINI_") || strings.HasPrefix(name, "OPENCODE_") || strings.HasPrefix(name, "AIDER_") {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "NO_COLOR=1")
}

// codexPromptWord is a long word of a prompt typed into Codex, from its
// history.jsonl, and the session it was typed in.
func codexPromptWord(t *testing.T, history string) (string, string) {
	t.Helper()
	f, err := os.Open(history)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var h struct {
			SessionID string `json:"session_id"`
			Text      string `json:"text"`
		}
		if err := json.Unmarshal(sc.Bytes(), &h); err != nil {
			t.Fatal(err)
		}
		for _, w := range strings.Fields(h.Text) {
			w = strings.Trim(w, ".,;:()?!'\"`")
			if len(w) >= 9 && isLetters(w) {
				return w, h.SessionID
			}
		}
	}
	t.Fatalf("no prompt in %s has a long word", history)
	return "", ""
}
