package transcript

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recall-dev/recall/record"
	"github.com/recall-dev/recall/redact"
	"github.com/recall-dev/recall/redact/redacttest"
)

func userLine(t *testing.T, text string) []byte {
	return jsonLine(t, map[string]any{"type": "user", "uuid": "u-1", "sessionId": "s-1", "cwd": "/p",
		"timestamp": "2026-01-01T00:00:00.000Z", "message": map[string]any{"role": "user", "content": text}})
}

func assistantLine(t *testing.T, blocks ...map[string]any) []byte {
	return jsonLine(t, map[string]any{"type": "assistant", "uuid": "a-1", "sessionId": "s-1", "cwd": "/p",
		"timestamp": "2026-01-01T00:00:01.000Z", "message": map[string]any{"role": "assistant", "model": "m", "content": blocks}})
}

func textBlock(text string) map[string]any { return map[string]any{"type": "text", "text": text} }

func bashBlock(command string) map[string]any {
	return map[string]any{"type": "tool_use", "name": "Bash", "input": map[string]any{"command": command, "description": "run it"}}
}

func jsonLine(t *testing.T, v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// secretLines puts one secret in a user prompt, an assistant message and
// a Bash command, the three ways a secret reaches a transcript.
func secretLines(t *testing.T, sh redacttest.Shape) map[string][]byte {
	return map[string][]byte{
		"user":      userLine(t, "the deploy fails with this config, why?\n"+sh.Text+"\nthanks"),
		"assistant": assistantLine(t, textBlock("I set it in the environment:\n\n"+sh.Text+"\n\nand restarted the service.")),
		"tool":      assistantLine(t, bashBlock("cat > .env <<'EOF'\n"+sh.Text+"\nEOF\n./deploy.sh --env .env")),
	}
}

func TestRowsHoldNoSecret(t *testing.T) {
	for seed := uint64(1); seed <= 3; seed++ {
		for _, sh := range redacttest.Shapes(seed) {
			for role, line := range secretLines(t, sh) {
				x := &lineExtractor{kind: record.KindMain, source: "/s.jsonl"}
				if err := x.add(line, 1); err != nil {
					t.Fatal(err)
				}
				if len(x.rows) != 1 || x.rows[0].Role != role {
					t.Fatalf("%s %s: rows %+v", sh.Kind, role, x.rows)
				}
				text := x.rows[0].Text
				for _, p := range redacttest.Pieces(sh) {
					if strings.Contains(text, p) {
						t.Fatalf("seed %d: %s row keeps the %s:\n%s", seed, role, sh.Kind, text)
					}
				}
				if !strings.Contains(text, redact.Placeholder(sh.Kind)) {
					t.Errorf("seed %d: %s row has no %s:\n%s", seed, role, redact.Placeholder(sh.Kind), text)
				}
			}
		}
	}
}

func TestKeepSecretsKeepsThem(t *testing.T) {
	for _, sh := range redacttest.Shapes(1) {
		for role, line := range secretLines(t, sh) {
			x := &lineExtractor{kind: record.KindMain, source: "/s.jsonl", keepSecrets: true}
			if err := x.add(line, 1); err != nil {
				t.Fatal(err)
			}
			if role == "tool" && len(sh.Text) > 300 {
				continue // the tool row's cap cuts a long secret
			}
			if len(x.rows) != 1 || !strings.Contains(x.rows[0].Text, sh.Secret) {
				t.Errorf("%s %s: secret not kept: %+v", sh.Kind, role, x.rows)
			}
		}
	}
}

// A secret the tool row's cap would cut is redacted whole first: no head
// of it is left to read.
func TestSecretAtTheToolRowCap(t *testing.T) {
	for _, sh := range redacttest.Shapes(2) {
		for pad := maxToolText - 30; pad < maxToolText; pad += 3 {
			cmd := strings.Repeat("a", pad-len("Bash: ")) + " " + sh.Text
			x := &lineExtractor{kind: record.KindMain, source: "/s.jsonl"}
			if err := x.add(assistantLine(t, bashBlock(cmd)), 1); err != nil {
				t.Fatal(err)
			}
			row := x.rows[0].Text
			for _, p := range redacttest.Pieces(sh) {
				if head := p[:min(len(p), 12)]; strings.Contains(row, head) {
					t.Fatalf("%s at %d: the row keeps %q:\n%s", sh.Kind, pad, head, row)
				}
			}
		}
	}
}

// Secrets in a message longer than a row keeps: before the cut, across it
// and after it, and after a key block so long that its placeholder pulls
// text from past the cut into what the row keeps.
func TestSecretsAroundTheRowCap(t *testing.T) {
	shapes := redacttest.Shapes(4)
	var key redacttest.Shape
	for _, sh := range shapes {
		if sh.Kind == "private-key" {
			key = sh
		}
	}
	lines := strings.Split(key.Secret, "\n")
	hugeKey := lines[0] + "\n" + strings.Repeat(lines[1]+"\n", (MaxRowText+16<<10)/len(lines[1])) + lines[len(lines)-1]
	filler := strings.Repeat("the build log goes on and on here. ", 2*MaxRowText/35)
	var msgs []string
	for _, sh := range shapes {
		if sh.Kind == "private-key" {
			continue
		}
		for _, at := range []int{MaxRowText - 100, MaxRowText - len(sh.Text)/2, MaxRowText + 10} {
			msgs = append(msgs, filler[:at]+" "+sh.Text+" "+filler)
		}
		if sh.Kind == "github-pat" {
			msgs = append(msgs, hugeKey+"\n"+sh.Text+"\n"+filler)
		}
	}
	path := filepath.Join(t.TempDir(), "s.jsonl")
	var b []byte
	for _, m := range msgs {
		b = append(append(b, userLine(t, m)...), '\n')
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	res := Read(Work{T: Transcript{Path: path, Kind: record.KindMain}}, "", bufio.NewReaderSize(nil, ReadBufferSize))
	if res.Err != nil || len(res.Rows) != len(msgs) {
		t.Fatalf("read %d rows of %d: %v %s", len(res.Rows), len(msgs), res.Err, res.Warning)
	}
	for i, row := range res.Rows {
		if len(row.Text) > MaxRowText+200 {
			t.Fatalf("row %d keeps %d bytes", i, len(row.Text))
		}
		for _, sh := range shapes {
			for _, p := range redacttest.Pieces(sh) {
				if head := p[:min(len(p), 12)]; strings.Contains(row.Text, head) {
					t.Fatalf("row %d keeps %q of the %s", i, head, sh.Kind)
				}
			}
		}
	}
}

// TestSecretSplitAcrossMessages: a key pasted in two messages, each part
// of which no rule recognises alone, is redacted in both rows.
func TestSecretSplitAcrossMessages(t *testing.T) {
	rest := "Qx7pL2mZ9vK4tR8wN3bY6cJ1"
	for _, tc := range []struct{ first, second, kind string }{
		{"here is the stripe key: sk_live_51Hq", rest + "\nthe rest of it", "stripe-access-token"},
		{"my token ghp_aB3dE6", "  gH9jK2mN5pQ8rS1tU4vW7xY0zA3bC6dE9f ok?", "github-pat"},
		{"the telegram bot: 7512349876:AAH", "fq2Lx9ZpQ4mW7nR1tY6uI3oP8aS5dF0gHk sorry, cut", "telegram-bot-api-token"},
	} {
		x := &lineExtractor{kind: record.KindMain, source: "/s.jsonl"}
		for i, text := range []string{tc.first, tc.second} {
			if err := x.add(userLine(t, text), i+1); err != nil {
				t.Fatal(err)
			}
		}
		if len(x.rows) != 2 {
			t.Fatalf("%d rows", len(x.rows))
		}
		second := strings.TrimSpace(tc.second)
		secret := second[:strings.IndexAny(second, " \n")]
		for _, r := range x.rows {
			if strings.Contains(r.Text, secret[:12]) {
				t.Errorf("%s: a row keeps the second half %q:\n%s", tc.kind, secret, r.Text)
			}
		}
		if !strings.Contains(x.rows[1].Text, redact.Placeholder(tc.kind)) {
			t.Errorf("%s: second row %q", tc.kind, x.rows[1].Text)
		}
		if strings.Contains(x.rows[0].Text, tc.first[len(tc.first)-4:]) {
			t.Errorf("%s: first row keeps the first half: %q", tc.kind, x.rows[0].Text)
		}
	}
	// Messages that merely follow each other are left as they are.
	x := &lineExtractor{kind: record.KindMain, source: "/s.jsonl"}
	for i, text := range []string{"run the tests with go test ./...", "commit 3f2a9c8e1b7d4f60a5e2c1d9b8a7f6e5d4c3b2a1 fixed it"} {
		if err := x.add(userLine(t, text), i+1); err != nil {
			t.Fatal(err)
		}
	}
	for _, r := range x.rows {
		if strings.Contains(r.Text, "[REDACTED") {
			t.Errorf("redacted %q", r.Text)
		}
	}
}
