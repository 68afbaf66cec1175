package redact

import (
	"strings"

	"github.com/recall-dev/recall/redact/gitleaks"
)

// Priorities: when spans of two rules overlap, the lower number names the
// placeholder.
const (
	prioritySpecific   = 10 // a provider's token format, a key block
	priorityStructural = 15 // where a secret sits: a URL's password
	priorityGeneric    = 20 // an assignment to a name like "password"
)

// droppedGitleaksRule says why recall does not run one of gitleaks'
// default rules, or "" if it does.
func droppedGitleaksRule(id string) string {
	if id == "generic-api-key" {
		// Measured (docs/benchmarks.md, "Redaction cost"): over 68 MB of
		// Go's own source 10 of its 12 findings were identifiers ("key is
		// not valid, NewEncapsulationKey768"), and over the generated
		// benchmark corpus it took 2.0 of gitleaks' 3.4 seconds. recall's
		// password and generic-secret rules (curated.go) take its place.
		return "matches ordinary identifiers in code and prose; replaced by the password and generic-secret rules"
	}
	return ""
}

// gitleaksGuard returns a test that every match of rule id passes at the
// occurrence of keyword, for the rules whose keywords occur in most texts,
// or nil. Each guard checks only what the rule's expression itself
// requires around the keyword, so it never drops a match; the tests run
// every guarded rule with and without its guard to show that.
func gitleaksGuard(id, keyword string) func(text string, start, end int) bool {
	switch {
	case id == "jwt" && keyword == "ey":
		// \b(ey[a-zA-Z0-9]{17,}\.ey…: "ey" is in "key" and "they".
		return func(text string, start, end int) bool {
			return text[start] == 'e' && text[start+1] == 'y' && wordStart(text, start) &&
				runOf(text, end, 17, isAlnum)
		}
	case id == "vault-service-token" && keyword == "s.":
		// \b(?:hvs\.…|s\.(?i:[a-z0-9]{24})): "s." ends many sentences.
		return func(text string, start, end int) bool {
			return wordStart(text, start) && runOf(text, end, 24, isAlnum)
		}
	}
	return nil
}

// gitleaksMayMatch returns, for a rule that runs over whole texts, a
// cheap test that every text it matches passes, or nil.
func gitleaksMayMatch(id string) func(text string) bool {
	if id == "kubernetes-secret-yaml" {
		// Both of its alternatives hold kind: and data: (case folded),
		// and it ran its expression over each whole text holding
		// "secret" (0.08 s at 1 GB, the costliest rule).
		return hasKindAndData
	}
	return nil
}

// hasKindAndData reports whether text holds "ind:" and "data:" in any
// ASCII case: what (?i)kind: and (?i)data: need (the Kelvin sign that
// (?i)k also matches is left out with the k; no other rune folds to
// i, n, d, a or t). It looks at the bytes before each ':'.
func hasKindAndData(text string) bool {
	var kind, data bool
	for i := 0; ; i++ {
		j := strings.IndexByte(text[i:], ':')
		if j < 0 {
			return false
		}
		i += j
		kind = kind || i >= 3 && strings.EqualFold(text[i-3:i], "ind")
		data = data || i >= 4 && strings.EqualFold(text[i-4:i], "data")
		if kind && data {
			return true
		}
	}
}

// gitleaksRuleSet turns the generated table into rules.
func gitleaksRuleSet() []*rule {
	var rules []*rule
	for i := range gitleaks.Rules {
		g := &gitleaks.Rules[i]
		if droppedGitleaksRule(g.ID) != "" {
			continue
		}
		r := &rule{
			kind: g.ID, keywords: g.Keywords, priority: prioritySpecific, source: g.Regex,
			secretGroup: g.SecretGroup, entropy: g.Entropy, allow: g.Allowlists,
			mayMatch: gitleaksMayMatch(g.ID),
		}
		rules = append(rules, r)
	}
	return rules
}

// wordStart reports whether a \b holds before text[i] for a word
// character there: i is the start of text or follows a non-word byte.
func wordStart(text string, i int) bool {
	return i == 0 || !isWord(text[i-1])
}

// runOf reports whether text[i:i+n] exists and every byte of it passes ok.
func runOf(text string, i, n int, ok func(byte) bool) bool {
	if i+n > len(text) {
		return false
	}
	for j := i; j < i+n; j++ {
		if !ok(text[j]) {
			return false
		}
	}
	return true
}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isWord(c byte) bool { return isAlnum(c) || c == '_' }
