package indexer

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/recall-dev/recall/redact/redacttest"
)

// assistantLine is an assistant transcript line with one text block and
// one Bash call.
func assistantLine(n int, text, command string) string {
	rec := map[string]any{
		"type": "assistant", "uuid": fmt.Sprintf("cccccccc-0000-4000-8000-%012d", n),
		"sessionId": testSession, "timestamp": fmt.Sprintf("2026-04-01T11:%02d:00.000Z", n%60),
		"cwd": "/home/dev/src/inc", "message": map[string]any{"role": "assistant", "model": "m", "content": []any{
			map[string]any{"type": "text", "text": text},
			map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_%d", n), "name": "Bash", "input": map[string]any{"command": command}},
		}},
	}
	b, _ := json.Marshal(rec)
	return string(b) + "\n"
}

// secretTranscript writes a session in which every shape of secret is
// typed in a prompt, written in a reply and run in a Bash command.
func secretTranscript(t *testing.T, shapes []redacttest.Shape) string {
	src, path := newSessionFile(t)
	var b strings.Builder
	for i, sh := range shapes {
		b.WriteString(promptLine(2*i+1, "deploy fails, this is the config I use:\n"+sh.Text+"\nwhat is wrong with it?"))
		b.WriteString(assistantLine(2*i+2, "Put it in the environment instead:\n\n"+sh.Text+"\n\nthen run the deploy again.",
			"cat > .env.deploy <<'EOF'\n"+sh.Text+"\nEOF"))
	}
	appendText(t, path, b.String())
	return src
}

var longRun = regexp.MustCompile(`[A-Za-z0-9]{10,}`)

// leaks lists the index files that hold any part of a secret: the secret,
// and each of its runs of ten letters and digits or more (the term index
// keeps tokens, not text), in any case, raw or decompressed.
func leaks(t *testing.T, idx string, sh redacttest.Shape) []string {
	var found []string
	for _, piece := range redacttest.Pieces(sh) {
		words := append([]string{piece}, longRun.FindAllString(piece, -1)...)
		for _, w := range words {
			for _, f := range indexHolds(t, idx, w) {
				found = append(found, fmt.Sprintf("%s holds %q", f, w))
			}
		}
	}
	return found
}

// TestIndexHoldsNoSecret indexes a session full of secrets of every shape
// and finds none of them in any file of the index: not in the rows, the
// term index, the keys, the events or the manifest.
func TestIndexHoldsNoSecret(t *testing.T) {
	shapes := redacttest.Shapes(42)
	if len(shapes) < 10 {
		t.Fatalf("only %d shapes", len(shapes))
	}
	src := secretTranscript(t, shapes)
	idx := t.TempDir()
	sum := runIndex(t, src, idx, "")
	if sum.RowsAdded != int64(3*len(shapes)) {
		t.Fatalf("%d rows added, want %d (a prompt, a reply and a command per shape)", sum.RowsAdded, 3*len(shapes))
	}
	for _, sh := range shapes {
		if found := leaks(t, idx, sh); len(found) > 0 {
			t.Errorf("%s: %s", sh.Kind, strings.Join(found, "; "))
		}
	}
	rows := liveRows(t, idx)
	for _, sh := range shapes {
		n := 0
		for _, r := range rows {
			n += strings.Count(r.Text, "[REDACTED:"+sh.Kind+"]")
		}
		if n != 3 {
			t.Errorf("%s: %d placeholders in the rows, want 3", sh.Kind, n)
		}
	}
}

// TestNoRedactKeepsSecrets: with NoRedact the same session's secrets are
// all in the index, which also shows the search above can find them.
func TestNoRedactKeepsSecrets(t *testing.T) {
	shapes := redacttest.Shapes(42)
	src := secretTranscript(t, shapes)
	idx := t.TempDir()
	if _, err := Run(Options{Config: Config{Sources: []string{src}, IndexDir: idx}, NoRedact: true}); err != nil {
		t.Fatal(err)
	}
	for _, sh := range shapes {
		if len(leaks(t, idx, sh)) == 0 {
			t.Errorf("%s: not in the index with NoRedact", sh.Kind)
		}
	}
}
