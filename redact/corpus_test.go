package redact

import (
	"bufio"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"slices"
	"strings"
	"testing"
)

// The corpus (testdata/secrets.txt, testdata/lookalikes.txt) is a set of
// templates of realistic text: a secret of a family in the context it
// turns up in (a shell command, a config line, a chat sentence, a log
// line), and text that looks like one but is not (commit hashes, uuids,
// checksums, digests, ids in code). Every value is drawn at random from
// the template, so no test passes by knowing a string, and no real key is
// in the repository.
//
// Template syntax: «…» marks a secret (a line may hold several); {set:N}
// is N random characters of a set (corpusSets); {b64enc:T}, {b64url:T},
// {hexenc:T}, {urlenc:T} encode the expansion of template T; {uuid} and
// {word} are a uuid and a lower-case word; \n and \t are a newline and
// a tab.

var corpusSets = map[string]string{
	"lower":   "abcdefghijklmnopqrstuvwxyz",
	"upper":   "ABCDEFGHIJKLMNOPQRSTUVWXYZ",
	"digit":   "0123456789",
	"hex":     "0123456789abcdef",
	"HEX":     "0123456789ABCDEF",
	"letters": "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
	"alnum":   "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
	"ud":      "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
	"ld":      "abcdefghijklmnopqrstuvwxyz0123456789",
	"word":    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_",
	"url":     "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-",
	"b64":     "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+/",
	"b32":     "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567",
	"b32l":    "abcdefghijklmnopqrstuvwxyz234567",
	"pw":      "abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789!#%^*-_=+.@",
	"django":  "abcdefghijklmnopqrstuvwxyz0123456789!@#$%^&*(-_=+)",
}

var corpusWords = []string{"sunshine", "dragonfly", "marmalade", "pinecone", "lighthouse", "velvet", "copper",
	"harbor", "meadow", "falcon", "juniper", "saffron", "tangerine", "glacier", "walrus", "orchid", "canyon", "nebula"}

// corpusEntry is one template of a file.
type corpusEntry struct {
	family, kind, template string
	line                   int
}

func readCorpus(t testing.TB, path string, fields int) []corpusEntry {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []corpusEntry
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		parts := strings.SplitN(line, "\t", fields)
		if len(parts) != fields {
			t.Fatalf("%s:%d: want %d tab-separated fields", path, n, fields)
		}
		e := corpusEntry{line: n, template: parts[fields-1]}
		e.family = parts[0]
		if fields == 3 {
			e.kind = parts[1]
		}
		out = append(out, e)
	}
	return out
}

// expand fills a template; secrets are the expansions of its «…» parts.
func expand(rng *rand.Rand, tpl string) (text string, secrets []string) {
	tpl = strings.NewReplacer(`\n`, "\n", `\t`, "\t").Replace(tpl)
	var b strings.Builder
	for {
		i := strings.Index(tpl, "«")
		if i < 0 {
			b.WriteString(expandPart(rng, tpl))
			return b.String(), secrets
		}
		j := strings.Index(tpl[i:], "»")
		b.WriteString(expandPart(rng, tpl[:i]))
		s := expandPart(rng, tpl[i+len("«"):i+j])
		secrets = append(secrets, s)
		b.WriteString(s)
		tpl = tpl[i+j+len("»"):]
	}
}

func expandPart(rng *rand.Rand, tpl string) string {
	var b strings.Builder
	for i := 0; i < len(tpl); i++ {
		if tpl[i] != '{' {
			b.WriteByte(tpl[i])
			continue
		}
		depth, j := 0, i
		for ; j < len(tpl); j++ {
			if tpl[j] == '{' {
				depth++
			} else if tpl[j] == '}' {
				if depth--; depth == 0 {
					break
				}
			}
		}
		if j == len(tpl) {
			b.WriteString(tpl[i:])
			break
		}
		inner := tpl[i+1 : j]
		name, arg, _ := strings.Cut(inner, ":")
		v, ok := generate(rng, name, arg)
		if !ok {
			b.WriteByte('{') // not a generator: a literal brace
			continue
		}
		b.WriteString(v)
		i = j
	}
	return b.String()
}

func generate(rng *rand.Rand, name, arg string) (string, bool) {
	switch name {
	case "b64enc":
		return base64.StdEncoding.EncodeToString([]byte(expandPart(rng, arg))), true
	case "b64url":
		return base64.RawURLEncoding.EncodeToString([]byte(expandPart(rng, arg))), true
	case "hexenc":
		return hex.EncodeToString([]byte(expandPart(rng, arg))), true
	case "urlenc":
		return url.QueryEscape(expandPart(rng, arg)), true
	case "uuid":
		return randomUUID(rng), true
	case "word":
		return corpusWords[rng.IntN(len(corpusWords))], true
	}
	set, ok := corpusSets[name]
	if !ok {
		return "", false
	}
	var n int
	if _, err := fmt.Sscanf(arg, "%d", &n); err != nil {
		return "", false
	}
	var b strings.Builder
	for range n {
		b.WriteByte(set[rng.IntN(len(set))])
	}
	return b.String(), true
}

// leaked reports whether out still holds the secret or a piece of it long
// enough to matter: 16 bytes in a row (the whole secret when shorter).
func leaked(out, secret string) bool {
	n := min(len(secret), 16)
	for i := 0; i+n <= len(secret); i++ {
		if strings.Contains(out, secret[i:i+n]) {
			return true
		}
	}
	return false
}

const corpusSeeds = 3

// TestCorpus: every secret of testdata/secrets.txt is redacted, with the
// kind the template names (gitleaks' rule id where one of its rules
// matches; * takes any), and no look-alike of testdata/lookalikes.txt is
// touched. It logs the catch rate by family (go test -run Corpus -v);
// RECALL_CORPUS_REPORT=1 reports without failing (to measure an older
// redactor on the same corpus).
func TestCorpus(t *testing.T) {
	report := os.Getenv("RECALL_CORPUS_REPORT") != ""
	fail := t.Errorf
	if report {
		fail = t.Logf
	}
	r := New()
	type tally struct{ caught, total int }
	byFamily := map[string]*tally{}
	var all, kept tally
	for _, e := range readCorpus(t, "testdata/secrets.txt", 3) {
		for seed := uint64(1); seed <= corpusSeeds; seed++ {
			rng := rand.New(rand.NewPCG(seed, uint64(e.line)))
			text, secrets := expand(rng, e.template)
			out := r.String(text)
			ok := true
			for _, s := range secrets {
				if leaked(out, s) {
					ok = false
					fail("secrets.txt:%d (%s): %q kept in\n%s", e.line, e.family, s, out)
				}
			}
			if ok && e.kind != "*" && !strings.Contains(out, Placeholder(e.kind)) {
				fail("secrets.txt:%d (%s): no %s in\n%s", e.line, e.family, Placeholder(e.kind), out)
			}
			tl := byFamily[e.family]
			if tl == nil {
				tl = &tally{}
				byFamily[e.family] = tl
			}
			tl.total++
			all.total++
			if ok {
				tl.caught++
				all.caught++
			}
		}
	}
	for _, e := range readCorpus(t, "testdata/lookalikes.txt", 2) {
		for seed := uint64(1); seed <= corpusSeeds; seed++ {
			rng := rand.New(rand.NewPCG(seed, uint64(e.line)))
			text, _ := expand(rng, e.template)
			kept.total++
			if f := r.Find(text); len(f) > 0 {
				fail("lookalikes.txt:%d (%s): %q redacted as %s in\n%s", e.line, e.family, text[f[0].Start:f[0].End], f[0].Kind, text)
				continue
			}
			kept.caught++
		}
	}
	families := make([]string, 0, len(byFamily))
	for f := range byFamily {
		families = append(families, f)
	}
	slices.Sort(families)
	var b strings.Builder
	for _, f := range families {
		tl := byFamily[f]
		fmt.Fprintf(&b, "  %-22s %3d/%-3d\n", f, tl.caught, tl.total)
	}
	t.Logf("secrets caught %d/%d (%.1f%%), look-alikes kept %d/%d, by family:\n%s",
		all.caught, all.total, 100*float64(all.caught)/float64(all.total), kept.caught, kept.total, b.String())
}
