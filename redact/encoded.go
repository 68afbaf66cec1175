package redact

import (
	"encoding/base64"
	"encoding/hex"
	"strings"
	"sync"
)

// Known keys in base64 (standard or URL-safe) or hex: a key pasted as a
// Kubernetes secret's data, a Basic header's user:key, a config blob, a
// hex dump. The base64 of a key's fixed prefix is fixed too, at each of
// the three places it can fall in a group of three bytes: those
// encodings are the rule's keywords, so it runs only where one occurs.
// There it decodes the run of base64 (or hex) around the keyword and
// redacts the run if the redactor finds a secret in what it decodes to.

// encodedPrefixes are the prefixes looked for encoded.
var encodedPrefixes = []string{
	"sk_live_", "sk_test_", "rk_live_", "whsec_", "ghp_", "gho_", "ghs_", "github_pat_", "glpat-",
	"xoxb-", "xoxp-", "xapp-", "sk-ant-", "sk-proj-", "sk-svcacct-", "sk-or-v1-", "AKIA", "ASIA", "AIza",
	"npm_", "hf_", "dop_v1_", "shpat_", "glsa_", "pypi-AgE", "hvs.", "-----BEGIN", "dckr_pat_",
	"gsk_", "xai-", "GOCSPX-", "SG.", "ya29.",
}

// encoding is how a keyword of the rule is encoded.
type encoding struct {
	exact string // the keyword as it occurs, case and all (hex: lower case)
	hex   bool
}

// minEncodedKeyword is the shortest encoding kept as a keyword: shorter
// ones are in too much base64 by chance.
const minEncodedKeyword = 5

// maxEncodedKeyword is where a keyword is cut (twice that for hex): the
// rest of the encoding adds states to the prefilter and no certainty, as
// the decoded text is what decides.
const maxEncodedKeyword = 6

// encodedKeywords maps each keyword, lower-cased, to its encodings. It
// and encodings are built on first use, like cliToolsByName.
var encodedKeywords = sync.OnceValue(func() map[string][]encoding {
	m := map[string][]encoding{}
	add := func(exact string, hx bool) {
		k := strings.ToLower(exact)
		for _, e := range m[k] {
			if e.exact == exact {
				return
			}
		}
		m[k] = append(m[k], encoding{exact: exact, hex: hx})
	}
	for _, p := range encodedPrefixes {
		for a := 0; a < 3; a++ {
			buf := make([]byte, a+len(p)+3)
			copy(buf[a:], p)
			for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
				s := enc.EncodeToString(buf)
				first := (8*a + 5) / 6
				last := 8 * (a + len(p)) / 6 // exclusive
				if last-first >= minEncodedKeyword {
					add(s[first:min(last, first+maxEncodedKeyword)], false)
				}
			}
		}
		h := hex.EncodeToString([]byte(p))
		add(h[:min(len(h), 2*maxEncodedKeyword)], true)
	}
	return m
})

// encodings lists encodedKeywords' encodings.
var encodings = sync.OnceValue(func() []encoding {
	var out []encoding
	var keys []string
	byKeyword := encodedKeywords()
	for k := range byKeyword {
		keys = append(keys, k)
	}
	sortStrings(keys)
	for _, k := range keys {
		out = append(out, byKeyword[k]...)
	}
	return out
})

func encodedRule() *rule {
	var keywords []string
	for k := range encodedKeywords() {
		keywords = append(keywords, k)
	}
	// The order of keywords does not matter to the prefilter; sorted, the
	// automaton is the same from run to run.
	sortStrings(keywords)
	return &rule{kind: "encoded-secret", keywords: keywords, priority: prioritySpecific, anchored: true, window: maxEncodedRun}
}

// maxEncodedRun bounds the run decoded on each side of the keyword.
const maxEncodedRun = 8 << 10

var csB64Any = charset(alnumChars + "+/_-")

// findEncoded is the encoded-secret rule's find, run by r.
func (r *Redactor) findEncoded(text string, start, _ int, out [][2]int) [][2]int {
	var enc *encoding
	all := encodings()
	for i := range all {
		e := &all[i]
		if strings.HasPrefix(text[start:], e.exact) || e.hex && len(text)-start >= len(e.exact) && strings.EqualFold(text[start:start+len(e.exact)], e.exact) {
			enc = e
			break
		}
	}
	if enc == nil {
		return out
	}
	set := csB64Any
	if enc.hex {
		set = csHex
	}
	lo := backOfSet(text, start, maxEncodedRun, set)
	hi := runOfSet(text, start, min(len(text), start+maxEncodedRun), set)
	run := text[lo:hi]
	var decoded []byte
	if enc.hex {
		if (start-lo)%2 == 1 {
			lo++
			run = run[1:]
		}
		decoded, _ = hex.DecodeString(run[:len(run)&^1])
	} else {
		for hi < len(text) && hi-lo < maxEncodedRun*2+2 && text[hi] == '=' {
			hi++
		}
		decoded = decodeBase64Run(run)
	}
	if len(decoded) < 8 {
		return out
	}
	if len(r.Find(string(decoded))) == 0 {
		return out
	}
	return append(out, [2]int{lo, hi})
}

// decodeBase64Run decodes a run of base64 of either alphabet, without
// its padding; a run whose start is not a group's start is decoded from
// the next place that decodes.
func decodeBase64Run(run string) []byte {
	enc := base64.RawStdEncoding
	if strings.ContainsAny(run, "-_") {
		enc = base64.RawURLEncoding
	}
	n := len(run) &^ 3
	if len(run)%4 >= 2 {
		n = len(run)
	}
	b, err := enc.DecodeString(run[:n])
	if err != nil {
		return nil
	}
	return b
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}
