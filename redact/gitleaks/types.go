// Package gitleaks is recall's copy of gitleaks' default rules
// (config/gitleaks.toml, MIT licence), as redact/gen writes them from the
// gitleaks release in its go.mod; the redactor runs those that apply to
// text beside its own.
package gitleaks

//go:generate sh -c "cd ../gen && go run . -out ../gitleaks/rules.go"

// Rule is one of gitleaks' default rules as gen wrote it.
type Rule struct {
	ID          string
	Regex       string
	Keywords    []string
	Entropy     float64
	SecretGroup int
	Allowlists  []Allowlist
}

// Allowlist is the part of a gitleaks allowlist that can apply to
// text.
type Allowlist struct {
	Target    string // "" (the secret), "match" or "line"
	And       bool   // every condition must hold, not any
	Regexes   []string
	StopWords []string
}
