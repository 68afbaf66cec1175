package redact

import (
	"slices"
	"strings"
	"testing"

	"github.com/recall-dev/recall/redact/redacttest"
)

// precheckTexts are texts with the shapes and near misses of what the
// prechecks look at: assignments spelled every way the expression takes
// them, flags, prose, URLs with and without a password, quoted runs.
func precheckTexts() []string { return append(precheckSpelledTexts(), precheckSpecialTexts()...) }

// precheckSpelledTexts are the shapes in every context and assignments
// in every spelling.
func precheckSpelledTexts() []string {
	var texts []string
	for seed := uint64(1); seed <= 20; seed++ {
		for _, sh := range redacttest.Shapes(seed) {
			for _, ctx := range contexts {
				texts = append(texts, typedIn(ctx, sh))
			}
			texts = append(texts, "key: "+sh.Text+"\nnext line")
		}
	}
	secret := "aZ3kQ9vX2mW7pL5tR8nB"
	for _, name := range []string{"password", "passwd", "passphrase", "pwd", "pass", "db_pass", "PASSWORD", "secret",
		"token", "api_key", "apiKey", "access-key", "private_key", "auth_key", "client_secret_value_for_prod",
		"password_name_that_is_much_longer_than_twenty_bytes"} {
		for _, sep := range []string{"=", ": ", ":", " = ", " :", "   :", "    :", ":=", "=>", " ", "\t", "  ", "\n", " \n= ", "\f:"} {
			for _, q := range []string{"", `"`, "'", "`", `\"`} {
				for _, pre := range []string{"", "--", " -", "-", "x-", "DB_", "export "} {
					texts = append(texts, pre+name+q+sep+q+secret+q+" end")
				}
			}
		}
	}
	return texts
}

// precheckSpecialTexts are special cases, written one by one.
func precheckSpecialTexts() []string {
	return []string{
		"--password hunter2x9", "-password hunter2x9", "a -password hunter2x9", "x--pass hunter2x9!",
		"password\u212A= aZ3kQ9vX2mW7pL5tR8nB", "tokenſ: aZ3kQ9vX2mW7pL5tR8nB", "pass\u00e9: aZ3kQ9vX2mW7pL5tR8nB",
		"the password reset flow sends a token by mail; pass it on",
		"postgres://shop:s3cr3t-Pa55@db.internal:5432/shop", "http://localhost:8080/a@b", "https://u:@h", "https://u:p@",
		"ftp://us\u00e9r:p\u00e4ss@host", "x://:pw@host", "s3://bucket/key@v2", "https://a:b:c@d/e", "://a:@@b",
		`{"password": "abcdefgh12"}`, `password = "AbCdEfGh12345678"`, `"password":"short"`, `PASSWORD => "ab_cd-ef=gh"`,
		`password: "K` + "\u212A" + `abcdefgh"`, `administrator_login_password = "Passw0rdPassw0rd"`,
		"curl -u admin:Zx9qW3rT https://api.example.com", "curl https://x \\\n  --user 'deploy:Zx9qW3rTy7' -X POST",
		`curl -s -H "Authorization: Bearer abcd1234efgh5678" https://api.example.com`, "curl --header 'X-Api-Key: abcd1234efgh5678' x",
		"curl -uadmin:Zx9qW3rT x", "curl\t-H\t\"Authorization: Basic dXNlcjpwYXNzd29yZA==\" y", "-u x curl", "curl x-u a:bcdefgh",
	}
}

// TestPrechecksFindTheSame: a redactor with the prechecks finds exactly
// what one without them finds.
func TestPrechecksFindTheSame(t *testing.T) {
	fast, plain := New(), newRedactor(false)
	found := 0
	for _, text := range precheckTexts() {
		got, want := fast.Find(text), plain.Find(text)
		if !slices.Equal(got, want) {
			t.Errorf("%q:\nwith prechecks    %v\nwithout prechecks %v", text, got, want)
		}
		found += len(want)
	}
	if found < 1000 {
		t.Errorf("only %d findings: the texts do not exercise the prechecked rules", found)
	}
}

// TestPrechecksAreNecessary: at every position of every text, a precheck
// that says no is a rule that finds nothing there.
func TestPrechecksAreNecessary(t *testing.T) {
	plain := newRedactor(false)
	for _, text := range precheckTexts() {
		checkPrechecks(t, plain, text)
	}
}

// checkPrechecks runs each prechecked rule of plain (which has no
// prechecks of its own) at every position of text, and each whole-text
// precheck over every piece of text.
func checkPrechecks(t *testing.T, plain *Redactor, text string) {
	t.Helper()
	global := plain.global()
	for _, ru := range plain.rules {
		if pre := anchoredPrecheck(ru.kind); pre != nil && ru.find == nil {
			for start := range len(text) {
				if !hasKeywordAt(ru, text, start) {
					continue
				}
				end := min(len(text), start+ru.window)
				if !pre(text, start, end) {
					if got := ru.findAt(text, start, global, nil); len(got) > 0 {
						t.Fatalf("%s: precheck says no at %d of %q, the rule finds %q", ru.kind, start, text, text[got[0].lo:got[0].hi])
					}
				}
			}
		}
		if pre := wholePrecheck(ru.kind); pre != nil && !ru.anchored {
			re := ru.compiled().re
			for _, m := range re.FindAllStringIndex(text, -1) {
				if !pre(text[m[0]:m[1]]) {
					t.Fatalf("%s: precheck says no to its own match %q", ru.kind, text[m[0]:m[1]])
				}
			}
		}
	}
}

// hasKeywordAt reports whether one of ru's keywords starts at text[start],
// ASCII case folded, as the prefilter finds them.
func hasKeywordAt(ru *rule, text string, start int) bool {
	for _, k := range ru.keywords {
		if start+len(k) <= len(text) && strings.EqualFold(text[start:start+len(k)], k) && isASCII(text[start:start+len(k)]) {
			return true
		}
	}
	return false
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

func TestPrecheckExamples(t *testing.T) {
	tests := []struct {
		text string
		want bool
	}{
		{"password=x", true},
		{"password x", false},
		{"--password x", true},
		{"password   : x", true},
		{"password    : x", false},
		{"passwords are hashed", false},
		{"password_of_the_database_for_production_use=x", false},
		{`password\": x`, true},
		{"password\u00e9 x", true},
	}
	for _, tt := range tests {
		start := strings.Index(tt.text, "pass")
		if got := mayBeAssignment(tt.text, start, len(tt.text)); got != tt.want {
			t.Errorf("mayBeAssignment(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
	for text, want := range map[string]bool{
		"https://u:p@h": true, "https://h/x@y": false, "https://h:80/x@y": false, "https://u:@h": false, "https://u:a@": true,
	} {
		if got := mayBeURLPassword(text, strings.Index(text, "://"), len(text)); got != want {
			t.Errorf("mayBeURLPassword(%q) = %v, want %v", text, got, want)
		}
	}
	for text, want := range map[string]bool{
		`"abcdefgh"`: true, `"abcdefg"`: false, `"abc defgh"`: false, `x "a" "abcd=_-9Z" y`: true, `"` + "\u212A" + `bcdef"`: true,
	} {
		if got := hasQuotedRun8(text); got != want {
			t.Errorf("hasQuotedRun8(%q) = %v, want %v", text, got, want)
		}
	}
}

// FuzzPrechecks: on any text, the redactor with the prechecks finds what
// the one without them finds, and each precheck that says no is a rule
// that finds nothing there.
func FuzzPrechecks(f *testing.F) {
	// One text in eight of the tests' set (every shape of seed 1 in some
	// contexts, every spelling of an assignment in some), so that the
	// seed corpus is read in a second of a short -fuzztime, and the
	// special cases at the end, all of them.
	for i, text := range precheckSpelledTexts() {
		if i%8 == 0 {
			f.Add(text)
		}
	}
	for _, text := range precheckSpecialTexts() {
		f.Add(text)
	}
	fast, plain := New(), newRedactor(false)
	f.Fuzz(func(t *testing.T, text string) {
		got, want := fast.Find(text), plain.Find(text)
		if !slices.Equal(got, want) {
			t.Fatalf("%q:\nwith prechecks    %v\nwithout prechecks %v", text, got, want)
		}
		if fast.String(text) != plain.String(text) {
			t.Fatalf("%q: String differs", text)
		}
		checkPrechecks(t, plain, text)
	})
}

// TestPrecheckNameLengthBoundary: an assignment whose name runs up to,
// to, and past maxAssignedName bytes, for every keyword of the
// prechecked assignment rules and every separator form, is redacted
// alike with and without the prechecks. An off-by-one in the bound
// would let the longest names through unredacted.
func TestPrecheckNameLengthBoundary(t *testing.T) {
	fast, plain := New(), newRedactor(false)
	secret := "aZ3kQ9vX2mW7pL5tR8nB"
	found := 0
	for _, ru := range plain.rules {
		if anchoredPrecheck(ru.kind) == nil || ru.find != nil {
			continue
		}
		for _, kw := range ru.keywords {
			for extra := maxAssignedName - len(kw) - 3; extra <= maxAssignedName-len(kw)+2; extra++ {
				if extra < 0 {
					continue
				}
				name := kw + strings.Repeat("x", extra)
				for _, sep := range []string{"=", ":", " = ", "   :", ":=", "=>", `"="`, `\":`} {
					text := name + sep + secret + " end"
					got, want := fast.Find(text), plain.Find(text)
					if !slices.Equal(got, want) {
						t.Errorf("%q (name %d bytes):\nwith prechecks    %v\nwithout prechecks %v", text, len(name), got, want)
					}
					found += len(want)
				}
			}
		}
	}
	if found == 0 {
		t.Fatal("no findings: the texts do not reach the prechecked rules")
	}
}

// TestPrecheckByteClasses puts every byte value at each place a
// precheck's byte classes decide (a name, a URL's user and password, a
// quoted run, a curl flag's neighbour) and checks that the prechecks
// change no finding and that no precheck says no where its rule finds.
func TestPrecheckByteClasses(t *testing.T) {
	fast, plain := New(), newRedactor(false)
	templates := []string{
		"private_keyXx=aZ3kQ9vX2mW7pL5tR8nB end",
		"passwordX= aZ3kQ9vX2mW7pL5tR8nB end",
		"password X: aZ3kQ9vX2mW7pL5tR8nB end",
		"postgres://usXer:s3cr3t-Pa55@db.internal/shop",
		"postgres://user:s3Xcr3t-Pa55@db.internal/shop",
		"postgres://user:X@db.internal/shop",
		`password = "AbCdXEfGh12345678"`,
		`password = "AbCdEfGhX"`,
		"curlX-u admin:Zx9qW3rT https://api.example.com",
		"curl X-H \"Authorization: Bearer abcd1234efgh5678\" x",
	}
	for _, tmpl := range templates {
		for c := range 256 {
			text := strings.Replace(tmpl, "X", string([]byte{byte(c)}), 1)
			got, want := fast.Find(text), plain.Find(text)
			if !slices.Equal(got, want) {
				t.Errorf("%q:\nwith prechecks    %v\nwithout prechecks %v", text, got, want)
			}
			checkPrechecks(t, plain, text)
		}
	}
}
