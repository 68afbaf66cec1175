package main

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

const fixtures = "../../testdata/transcripts/projects"

func TestEndToEndIndexAndZstdcat(t *testing.T) {
	idx := filepath.Join(t.TempDir(), "index")
	src, _ := filepath.Abs(fixtures)
	r := runCLI(t, "index", "--source", src, "--index-dir", idx)
	if r.code != 0 || r.stdout != "" {
		t.Fatalf("index: code %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "rows added") || !strings.Contains(r.stderr, "noise") {
		t.Errorf("summary missing from stderr: %q", r.stderr)
	}
	info, err := os.Stat(idx)
	if err != nil || info.Mode().Perm() != 0o700 {
		t.Errorf("index dir mode %v, want 0700", info.Mode().Perm())
	}
	for _, f := range mustGlob(t, filepath.Join(idx, "*")) {
		if info, err := os.Stat(f); err == nil && info.Mode().Perm() != 0o600 {
			t.Errorf("%s mode %v, want 0600", filepath.Base(f), info.Mode().Perm())
		}
	}
	if _, err := exec.LookPath("zstdcat"); err != nil {
		t.Skip("zstdcat not installed")
	}
	files, _ := filepath.Glob(filepath.Join(idx, "rows-*.zst")) // as README says
	out, err := exec.Command("zstdcat", files...).Output()
	if err != nil {
		t.Fatalf("zstdcat: %v", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<24)
	sc.Scan()
	header := strings.Split(sc.Text(), "\t")
	if strings.Join(header[:5], ",") != "session_id,timestamp,type,text,project_path" {
		t.Fatalf("header = %q", header)
	}
	rows := 0
	for sc.Scan() {
		if cols := strings.Split(sc.Text(), "\t"); len(cols) != len(header) {
			t.Fatalf("row has %d columns, header %d: %q", len(cols), len(header), sc.Text())
		}
		rows++
	}
	if rows != 15 { // 13 messages of interactive sessions and the headless run's 2, kept and marked
		t.Errorf("zstdcat printed %d rows, want 15", rows)
	}
}

func TestEndToEndExitCodesAndJSON(t *testing.T) {
	idx := t.TempDir()
	src, _ := filepath.Abs(fixtures)
	common := []string{"--source", src, "--index-dir", idx}
	hit := runCLI(t, append([]string{"--json", "jwt"}, common...)...)
	if hit.code != 0 {
		t.Fatalf("match: code %d, stderr %q", hit.code, hit.stderr)
	}
	lines := strings.Split(strings.TrimSpace(hit.stdout), "\n")
	for i, line := range lines {
		var s struct {
			Rank      int      `json:"rank"`
			SessionID string   `json:"session_id"`
			Similar   []string `json:"similar"`
			Messages  []struct {
				Type, Source, Snippet string
				Line                  int
			} `json:"messages"`
		}
		if err := json.Unmarshal([]byte(line), &s); err != nil {
			t.Fatalf("line %d is not JSON: %v: %s", i+1, err, line)
		}
		if s.Rank != i+1 || s.SessionID == "" || s.Similar == nil || len(s.Messages) == 0 {
			t.Errorf("line %d breaks the schema: %s", i+1, line)
		}
		for _, m := range s.Messages {
			if m.Source == "" || m.Line < 1 || m.Snippet == "" {
				t.Errorf("message without evidence: %+v", m)
			}
		}
	}
	miss := runCLI(t, append([]string{"zzqxjnotthere"}, common...)...)
	if miss.code != 1 || miss.stdout != "" {
		t.Errorf("no match: code %d, stdout %q", miss.code, miss.stdout)
	}
	bad := runCLI(t, append([]string{"-e", "(unclosed"}, common...)...)
	if bad.code != 2 || bad.stdout != "" || !strings.Contains(bad.stderr, "query:") {
		t.Errorf("bad regex: code %d, stdout %q, stderr %q", bad.code, bad.stdout, bad.stderr)
	}
	badFlag := runCLI(t, append([]string{"--no-such-flag", "x"}, common...)...)
	if badFlag.code != 2 {
		t.Errorf("bad flag: code %d", badFlag.code)
	}
}

func TestEndToEndCurrentSessionNeverShown(t *testing.T) {
	idx := t.TempDir()
	src, _ := filepath.Abs(fixtures)
	const shop = "11111111-1111-4111-8111-111111111111"
	r := runCLI(t, "-l", "jwt", "--source", src, "--index-dir", idx, "--current-session", shop)
	if strings.Contains(r.stdout, shop) {
		t.Fatalf("current session listed: %q", r.stdout)
	}
	r = runCLI(t, "-l", "jwt", "--source", src, "--index-dir", idx)
	if !strings.Contains(r.stdout, shop) {
		t.Fatalf("session missing once no longer current: %q (stderr %q)", r.stdout, r.stderr)
	}
}

func mustGlob(t *testing.T, pattern string) []string {
	t.Helper()
	m, err := filepath.Glob(pattern)
	if err != nil || len(m) == 0 {
		t.Fatalf("glob %s: %v (%d files)", pattern, err, len(m))
	}
	return m
}
