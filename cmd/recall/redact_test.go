package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recall-dev/recall/redact/redacttest"
)

// writePrompt appends a typed prompt to session's transcript under src.
func writePrompt(t *testing.T, src, session string, n int, text string) {
	t.Helper()
	dir := filepath.Join(src, "-home-dev-src-shop")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	line, _ := json.Marshal(map[string]any{
		"type": "user", "uuid": "dddddddd-0000-4000-8000-00000000000" + string(rune('0'+n)),
		"sessionId": session, "timestamp": "2026-03-01T10:00:0" + string(rune('0'+n)) + ".000Z",
		"cwd": "/home/dev/src/shop", "message": map[string]any{"role": "user", "content": text},
	})
	f, err := os.OpenFile(filepath.Join(dir, session+".jsonl"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(append(line, '\n')); err != nil {
		t.Fatal(err)
	}
}

// TestRedactionFlags: `recall index` and the update a search runs redact
// by default; `recall index --no-redact` keeps secrets.
func TestRedactionFlags(t *testing.T) {
	shapes := redacttest.Shapes(9)
	var token, key redacttest.Shape
	for _, sh := range shapes {
		switch sh.Kind {
		case "github-pat":
			token = sh
		case "aws-access-token":
			key = sh
		}
	}
	src, idx := t.TempDir(), t.TempDir()
	session := "66666666-6666-4666-8666-666666666666"
	writePrompt(t, src, session, 1, "the deploy script fails with token "+token.Secret+" on push")
	where := []string{"--source", src, "--index-dir", idx}

	if res := runCLI(t, append([]string{"index", "-q"}, where...)...); res.code != 0 {
		t.Fatalf("index: %d %s", res.code, res.stderr)
	}
	res := runCLI(t, append([]string{"deploy", "--json", "--no-update"}, where...)...)
	if res.code != 0 || strings.Contains(res.stdout, token.Secret) || !strings.Contains(res.stdout, "[REDACTED:github-pat]") {
		t.Fatalf("after index: code %d, stdout %s", res.code, res.stdout)
	}

	// A search brings the index up to date first: that run redacts too.
	writePrompt(t, src, session, 2, "and the deploy also needs the key "+key.Secret+" for S3")
	res = runCLI(t, append([]string{"deploy", "--json"}, where...)...)
	if res.code != 0 || strings.Contains(res.stdout, key.Secret) || !strings.Contains(res.stdout, "[REDACTED:aws-access-token]") {
		t.Fatalf("after a search's update: code %d, stdout %s", res.code, res.stdout)
	}

	if res := runCLI(t, append([]string{"index", "-q", "--rebuild", "--yes", "--no-redact"}, where...)...); res.code != 0 {
		t.Fatalf("index --no-redact: %d %s", res.code, res.stderr)
	}
	res = runCLI(t, append([]string{"deploy", "--json", "--no-update"}, where...)...)
	if res.code != 0 || !strings.Contains(res.stdout, token.Secret) || !strings.Contains(res.stdout, key.Secret) {
		t.Fatalf("after --no-redact: code %d, stdout %s", res.code, res.stdout)
	}
}
