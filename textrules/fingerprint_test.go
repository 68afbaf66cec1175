package textrules

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"flag"
	"fmt"
	"hash"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

var updateFingerprint = flag.Bool("update", false, "rewrite testdata/fingerprint.golden after a FeatureVersion bump")

// fingerprintSamples exercise the rules that are not plain tables: code
// spans, tokens, acknowledgements and recall events.
var fingerprintSamples = []string{
	"How should we implement JWT authentication for the checkout API?",
	"Use `jwt.Parse` then check ```go\nclaims := token.Claims\n``` and ~~~\nraw\n~~~ done",
	"an unclosed ``` fence\nstill code",
	"inline `code` and a stray ` backtick, ``double `tick` code``",
	"ok thanks, continue", "Sounds good!", "I'll help you with that.", "ok thanks for the detailed plan",
	"École naïve café ÉCOLE Straße ǅemal K-sign ſ long-s ΣΑΣ σας 東京 ٣ snake_case x²",
	"I'll search my memory for the JWT refresh work.",
	"Bash: cd /src && ~/go/bin/recall search kubernetes ingress | head",
	"mcp__recall__search: flaky reconnect test",
	"Did you remember what we talked about caching?",
	"I ran `recall pricing rounding` and found two sessions.",
	"Translated the Czech articles: články přeložené do češtiny, cestiny, naïve cafés, painted paintings generously, dying skies",
}

// fingerprintStemWords exercise the English stemmer beyond the samples:
// regular and irregular endings, Porter2's exceptional forms, accents.
var fingerprintStemWords = strings.Fields("agents agent translate translated translation translating articles article " +
	"painted painting paints painter generously generous happiness happy relational conformably cries cried " +
	"hoping hopes organization organize running runs ran caresses ponies ties dying lying tying skies news " +
	"reviews reviewed rounds issues issue found findings decided decision deciding weekly weeks cafés naïveté " +
	"supported support groups grouping children child pets pet camping camped swimming swims")

// fingerprint hashes everything the rules decide: every rune's word-ness
// and fold, the tables, and the rules' answers on the samples.
func fingerprint() string {
	h := sha256.New()
	for r := rune(0); r <= utf8.MaxRune; r++ {
		if word, fold := IsWordRune(r), CanonicalFold(r); word || fold != r {
			binary.Write(h, binary.LittleEndian, [3]int32{r, boolInt(word), fold})
		}
	}
	writeSet(h, "ack words", ackWords)
	writeSet(h, "ack phrases", ackPhrases)
	writeSet(h, "stop words", stopWords)
	for r := rune(0); r <= utf8.MaxRune; r++ {
		if a := AccentFold(r); a != CanonicalFold(r) {
			binary.Write(h, binary.LittleEndian, [2]int32{r, a})
		}
	}
	fmt.Fprintf(h, "stem letters %d-%d\n", MinStemLetters, maxStemLetters)
	for _, w := range fingerprintStemWords {
		key, ok := StemKey([]byte(w))
		fmt.Fprintf(h, "%s %s %v %s\n", w, key, ok, FormPrefix(key))
	}
	fmt.Fprintf(h, "max ack words %d\nrecall phrases %q\n", maxAckWords, recallPhrases)
	for _, ep := range []string{"", "cli", "sdk-cli", "sdk-ts", "sdk-py", "claude-vscode", "claude-desktop", "sdk", "SDK-CLI"} {
		fmt.Fprintf(h, "entrypoint %q headless %v\n", ep, IsHeadlessEntrypoint(ep))
	}
	var z Tokenizer
	for _, s := range fingerprintSamples {
		fmt.Fprintf(h, "%q spans %v ack %v\n", s, CodeSpans(s), IsAcknowledgement(s))
		z.Each([]byte(s), func(tok []byte, inCode bool) {
			key, ok := StemKey(tok)
			fmt.Fprintf(h, "%q %v %q %v,", tok, inCode, key, ok)
		})
		for _, role := range []string{"user", "assistant", "tool"} {
			words, ok := DetectRecallEvent(role, s)
			fmt.Fprintf(h, "\n%s %v %q\n", role, ok, words)
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

func writeSet(h hash.Hash, name string, set map[string]bool) {
	keys := make([]string, 0, len(set))
	for k, v := range set {
		if v {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	fmt.Fprintf(h, "%s %q\n", name, keys)
}

func boolInt(b bool) int32 {
	if b {
		return 1
	}
	return 0
}

// TestFingerprint fails when a rule changes without a FeatureVersion bump:
// derived index files record the version, and only a bump makes older
// ones rebuild. After a bump, run `go test ./textrules -run Fingerprint
// -update` and commit the golden file with it.
func TestFingerprint(t *testing.T) {
	path := filepath.Join("testdata", "fingerprint.golden")
	got := fmt.Sprintf("feature %d %s\n", FeatureVersion, fingerprint())
	if *updateFingerprint {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var version int
	var want string
	if _, err := fmt.Sscanf(string(data), "feature %d %s", &version, &want); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	gotPrint := strings.Fields(got)[2]
	switch {
	case gotPrint != want && version == FeatureVersion:
		t.Errorf("the text rules changed but FeatureVersion is still %d: bump it (with a changelog line in version.go) so that indexes rebuild their derived files, then run with -update", FeatureVersion)
	case version != FeatureVersion:
		t.Errorf("FeatureVersion is %d, %s records %d: run with -update and commit it", FeatureVersion, path, version)
	}
}
