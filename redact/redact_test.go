package redact

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/recall-dev/recall/redact/gitleaks"
	"github.com/recall-dev/recall/redact/redacttest"
)

// contexts are the places a secret turns up in a conversation.
var contexts = []string{
	"%s",
	"here is the key I used: %s — can you check why the request fails?",
	"export CREDENTIAL='%s'\ncurl -s https://api.example.com/v1/items",
	"```\n%s\n```",
	"config:\n  value: %s\n  region: eu-west-1",
	`{"note": "%s"}`,
}

// typedIn puts a shape in a context. Shapes that carry their own name
// (DB_PASSWORD=…) are written on a line of their own, as they would be.
func typedIn(ctx string, sh redacttest.Shape) string {
	if sh.Text != sh.Secret && ctx != "%s" {
		return strings.Replace(ctx, "%s", "x", 1) + "\n" + sh.Text + "\nthat's all"
	}
	if sh.Kind == "private-key" && strings.HasPrefix(ctx, `{"note"`) {
		return fmt.Sprintf(ctx, strings.ReplaceAll(sh.Secret, "\n", `\n`)) // as JSON writes it
	}
	return fmt.Sprintf(ctx, sh.Text)
}

func TestRedactsEveryShape(t *testing.T) {
	r := New()
	for seed := uint64(1); seed <= 20; seed++ {
		for _, sh := range redacttest.Shapes(seed) {
			for _, ctx := range contexts {
				in := typedIn(ctx, sh)
				out := r.String(in)
				for _, piece := range redacttest.Pieces(sh) {
					if strings.Contains(out, piece) || strings.Contains(out, strings.ReplaceAll(piece, "\n", `\n`)) {
						t.Fatalf("seed %d %s in %q: secret kept:\n%s", seed, sh.Kind, ctx, out)
					}
				}
				if !strings.Contains(out, Placeholder(sh.Kind)) {
					t.Errorf("seed %d %s in %q: no %s in\n%s", seed, sh.Kind, ctx, Placeholder(sh.Kind), out)
				}
			}
		}
	}
}

func TestRedactKeepsTheContext(t *testing.T) {
	r := New()
	sh := redacttest.Shapes(7)
	byKind := map[string]redacttest.Shape{}
	for _, s := range sh {
		byKind[s.Kind] = s
	}
	tests := []struct{ kind, in, want string }{
		{"github-pat", "git remote set-url origin https://x:%s@github.com/o/r.git", "git remote set-url origin https://x:[REDACTED:github-pat]@github.com/o/r.git"},
		{"url-password", "psql %s", "psql postgres://shop_app:[REDACTED:url-password]@db.internal:5432/shop?sslmode=require"},
		{"password", "set %s in .env", "set DB_PASSWORD=[REDACTED:password] in .env"},
		{"aws-secret-key", "%s", "aws_secret_access_key = [REDACTED:aws-secret-key]"},
		{"generic-secret", "%s", `api_key: "[REDACTED:generic-secret]"`},
		{"bearer-token", "send the header %s with each request", "send the header Authorization: Bearer [REDACTED:bearer-token] with each request"},
	}
	for _, tt := range tests {
		s := byKind[tt.kind]
		text := s.Text
		if tt.kind == "github-pat" {
			text = s.Secret
		}
		if got := r.String(fmt.Sprintf(tt.in, text)); got != tt.want {
			t.Errorf("%s:\n got %q\nwant %q", tt.kind, got, tt.want)
		}
	}
}

// TestNotSecrets: what a conversation about code is full of, and what
// rules for secrets are prone to take for one.
func TestNotSecrets(t *testing.T) {
	r := New()
	for _, text := range []string{
		"commit 3f2a9c8e1b7d4f60a5e2c1d9b8a7f6e5d4c3b2a1 fixed the flaky test",
		"git show 3f2a9c8:store/manifest.go | head",
		"docker pull golang@sha256:9b2a4e3f8c1d7e6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a",
		`{"sessionId": "11111111-1111-4111-8111-111111111111", "uuid": "0f8e2b7a-3c4d-4e5f-9a1b-2c3d4e5f6a7b"}`,
		"password := os.Getenv(\"DB_PASSWORD\")",
		"token := strings.Fields(line)[0]",
		"const maxTokens = 4096 // max_tokens=4096 in the request",
		"apiKey: process.env.OPENAI_API_KEY,",
		"password: ${{ secrets.DB_PASSWORD }}",
		`Password string ` + "`json:\"password\"`",
		"the password reset flow sends a token by mail",
		"--- PASS: TestRedact2 (0.00s)\nPASS\nok  \tgithub.com/recall-dev/recall/redact\t0.291s",
		"a one-pass compiler, a two-pass export",
		"postgres://user:password@localhost:5432/db is the example in the docs",
		"http://username:p@ssword@google.com",
		"AKIAIOSFODNN7EXAMPLE is AWS's documented example key",
		"secret: hashedSecret",
		"tokenizer = AutoTokenizer.from_pretrained(\"bert-base-uncased\")",
		"Authorization: Bearer $TOKEN",
		"-----BEGIN RSA PRIVATE KEY----- starts the file; -----END RSA PRIVATE KEY----- ends it",
		"The format of /etc/group is groupname:password:GID:user_list",
		"key is not valid, NewEncapsulationKey768",
		"pat := regexp.MustCompile(`ghp_[0-9a-zA-Z]{36}`)",
		"password = e.target.value",
		"const password = req.body.password;",
		"x.password = cfg.db.password_hash",
		"mysql -u root --password=$MYSQL_ROOT_PASSWORD",
		"resource_group: rg-prod-secret-store-01",
	} {
		if f := r.Find(text); len(f) > 0 {
			t.Errorf("%q: redacted %q as %s", text, text[f[0].Start:f[0].End], f[0].Kind)
		}
	}
}

func TestRedactTwiceChangesNothing(t *testing.T) {
	r := New()
	for _, sh := range redacttest.Shapes(3) {
		for _, ctx := range contexts {
			once := r.String(typedIn(ctx, sh))
			if twice := r.String(once); twice != once {
				t.Errorf("%s: redacting again changed\n%q\nto\n%q", sh.Kind, once, twice)
			}
		}
	}
}

func TestNothingToRedactReturnsTheSameString(t *testing.T) {
	r := New()
	in := strings.Repeat("an ordinary sentence about keys and tokens. ", 10)
	if out := r.String(in); unsafe.StringData(out) != unsafe.StringData(in) {
		t.Fatalf("copied or changed: %q", out)
	}
}

// Every rule compiles: expressions compile on first use, so a bad one
// would otherwise fail only when its keyword first turns up.
func TestEveryRuleCompiles(t *testing.T) {
	r := New()
	for _, ru := range r.rules {
		func() {
			defer func() {
				if e := recover(); e != nil {
					t.Errorf("%s: %v", ru.kind, e)
				}
			}()
			ru.compiled()
		}()
	}
	if len(r.rules) != len(gitleaks.Rules)-1+len(curatedRuleSet()) {
		t.Errorf("%d rules, want gitleaks' %d but generic-api-key, and recall's %d", len(r.rules), len(gitleaks.Rules), len(curatedRuleSet()))
	}
	if slices.Contains(r.Kinds(), "generic-api-key") {
		t.Error("generic-api-key runs")
	}
}

// TestGuardsKeepEveryMatch finds the same with and without the guards on
// texts full of near misses and of the tokens themselves.
func TestGuardsKeepEveryMatch(t *testing.T) {
	guarded, plain := New(), New()
	for _, ts := range plain.targets {
		for i := range ts {
			ts[i].guard = nil
		}
	}
	for _, ru := range plain.rules {
		ru.guarded = false
	}
	var texts []string
	for seed := uint64(1); seed <= 50; seed++ {
		for _, s := range redacttest.Shapes(seed) {
			if s.Kind == "jwt" {
				texts = append(texts, "they key hey "+s.Secret+" ok", "("+s.Secret+")", s.Secret[:40]+" and "+s.Secret,
					"Bearer "+s.Secret, strings.ReplaceAll(s.Secret, ".", ". "))
			}
		}
	}
	texts = append(texts,
		"token=s.abcdefghij0123456789ABCD done",
		"vault: s.Ab3dEf6hIj9kLm2nOp5qRs8t\n",
		"this.abcdefghijklmnopqrstuvwx is not; xs.abcdefghij0123456789ABCD; s.abcdefghijklmnopqrstuvwx",
		"hvs."+strings.Repeat("aB3", 35)+" s.0123456789abcdefghijKLMN;",
		"key they obey eyJhbGciOiJIUzI1NiJ9 eyeyeyeyeyeyeyeyeyeyey.eyeyeyeyeyeyeyeyeyeyeyey.eyeyeyeyeyeyeyey",
	)
	found := 0
	for _, text := range texts {
		got, want := guarded.Find(text), plain.Find(text)
		if !slices.Equal(got, want) {
			t.Errorf("%q:\nguarded %v\nplain   %v", text, got, want)
		}
		found += len(want)
	}
	if found < 100 {
		t.Errorf("only %d findings: the texts do not exercise the guarded rules", found)
	}
}

func TestPlaceholder(t *testing.T) {
	if got := Placeholder("jwt"); got != "[REDACTED:jwt]" {
		t.Fatal(got)
	}
}

// A placeholder's kind name is not a keyword: text redacted once stays as
// it is when redacted again, even where the kind's name ("password") is
// what a rule keys on.
func TestPlaceholderKindsAreNotKeywords(t *testing.T) {
	r := Default()
	for _, text := range []string{
		"://:[REDACTED:url-password]@0: 000",
		"[REDACTED:prose-password] is hunter2x",
		"the [REDACTED:password] = swordfish9",
		"password=[REDACTED:password] ${{ secrets.X }} postgres://u: 00000000",
	} {
		if got := r.String(text); got != text {
			t.Errorf("String(%q) = %q, want it unchanged", text, got)
		}
	}
	// Outside a placeholder the keyword still counts.
	if got := r.String("[REDACTED:aws-access-key] and the password is hunter2x"); !strings.Contains(got, "[REDACTED:prose-password]") {
		t.Errorf("a password told after a placeholder was kept: %q", got)
	}
}

// Kinds lists every placeholder kind the redactor can produce, sorted.
func (r *Redactor) Kinds() []string {
	var kinds []string
	for _, ru := range r.rules {
		kinds = append(kinds, ru.kind)
	}
	slices.Sort(kinds)
	return slices.Compact(kinds)
}

// TestKeyOfLettersAlone: a key whose body is lower-case letters alone (a
// SiliconFlow key: "sk-" and 48 of them) is no name, however it reads.
func TestKeyOfLettersAlone(t *testing.T) {
	const key = "sk-qwhzvbtnkdmpyrlcfxgjeoasuiqwhzvbtnkdmpyrlcfxgj"
	out := New().String("use " + key + " in the .env")
	if strings.Contains(out, key[3:]) || !strings.Contains(out, "in the .env") {
		t.Errorf("got %q", out)
	}
}
