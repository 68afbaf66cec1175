// Package redacttest makes fake secrets of the shapes recall redacts, for
// the tests of every package that must not keep one: random, so no test
// passes by knowing a fixed string, and seeded, so a failure repeats.
package redacttest

import (
	"encoding/base64"
	"math/rand/v2"
	"strings"
)

// Shape is one secret as a person would type or paste it.
type Shape struct {
	Kind   string // the placeholder's kind: [REDACTED:Kind]
	Text   string // what is typed: the secret with what names it, if anything
	Secret string // the part that must not survive (upper-case folded in the term index)
}

const (
	upper    = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	lower    = "abcdefghijklmnopqrstuvwxyz"
	digits   = "0123456789"
	alnum    = upper + lower + digits
	word     = alnum + "_"
	urlSafe  = alnum + "_-"
	b64chars = alnum + "+/"
)

// Shapes returns one fake secret of each shape, drawn from seed.
func Shapes(seed uint64) []Shape {
	r := rand.New(rand.NewPCG(seed, seed^0x5ec12e7))
	s := func(n int, set string) string { return pick(r, n, set) }
	// mixed starts with a lone letter and a digit, as generated secrets
	// almost always have somewhere: no draw can look like an identifier.
	mixed := func(n int, set string) string { return s(1, lower) + s(1, digits) + s(n-2, set) }
	pw := s(4, lower) + "#" + s(3, digits) + s(4, upper) + "!" + s(2, lower)
	shapes := []Shape{
		{Kind: "aws-access-token", Secret: "AKIA" + s(16, upper+"234567")},
		{Kind: "aws-secret-key", Secret: mixed(40, b64chars)},
		{Kind: "private-key", Secret: privateKey(r)},
		{Kind: "github-pat", Secret: "ghp_" + s(36, alnum)},
		{Kind: "github-fine-grained-pat", Secret: "github_pat_" + s(82, word)},
		{Kind: "gitlab-pat", Secret: "glpat-" + s(20, urlSafe)},
		{Kind: "anthropic-api-key", Secret: "sk-ant-api03-" + s(93, urlSafe) + "AA"},
		{Kind: "openai-api-key", Secret: "sk-proj-" + s(74, urlSafe) + "T3BlbkFJ" + s(74, urlSafe)},
		{Kind: "slack-bot-token", Secret: "xoxb-" + s(12, digits) + "-" + s(13, digits) + "-" + s(24, alnum)},
		{Kind: "slack-webhook-url", Secret: "https://hooks.slack.com/services/T" + s(8, upper+digits) + "/B" + s(10, upper+digits) + "/" + s(24, alnum)},
		{Kind: "stripe-access-token", Secret: "sk_live_" + s(24, alnum)},
		{Kind: "gcp-api-key", Secret: "AIza" + s(35, urlSafe)},
		{Kind: "jwt", Secret: jwt(r)},
		{Kind: "npm-access-token", Secret: "npm_" + s(36, lower+digits)},
		{Kind: "url-password", Secret: pw},
		{Kind: "password", Secret: s(3, digits) + "$" + s(8, lower+digits)},
		{Kind: "generic-secret", Secret: mixed(32, alnum)},
		{Kind: "bearer-token", Secret: mixed(20, alnum) + "." + s(20, alnum)},
	}
	for i := range shapes {
		shapes[i].Text = typed(shapes[i])
	}
	return shapes
}

// typed is how each secret is written where a person would write it.
func typed(sh Shape) string {
	switch sh.Kind {
	case "aws-secret-key":
		return "aws_secret_access_key = " + sh.Secret
	case "url-password":
		return "postgres://shop_app:" + sh.Secret + "@db.internal:5432/shop?sslmode=require"
	case "password":
		return "DB_PASSWORD=" + sh.Secret
	case "generic-secret":
		return `api_key: "` + sh.Secret + `"`
	case "bearer-token":
		return "Authorization: Bearer " + sh.Secret
	}
	return sh.Secret
}

func pick(r *rand.Rand, n int, set string) string {
	var b strings.Builder
	for range n {
		b.WriteByte(set[r.IntN(len(set))])
	}
	return b.String()
}

// privateKey is a PEM block of random bytes shaped like an RSA key.
func privateKey(r *rand.Rand) string {
	raw := make([]byte, 600)
	for i := range raw {
		raw[i] = byte(r.UintN(256))
	}
	body := base64.StdEncoding.EncodeToString(raw)
	var b strings.Builder
	b.WriteString("-----BEGIN RSA PRIVATE KEY-----\n")
	for len(body) > 64 {
		b.WriteString(body[:64] + "\n")
		body = body[64:]
	}
	b.WriteString(body + "\n-----END RSA PRIVATE KEY-----")
	return b.String()
}

// jwt is a token of a standard header, a random payload and signature.
func jwt(r *rand.Rand) string {
	enc := base64.RawURLEncoding
	header := enc.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT"}`))
	payload := enc.EncodeToString([]byte(`{"sub":"` + pick(r, 12, digits) + `","name":"` + pick(r, 10, lower) + `","iat":` + pick(r, 10, digits) + `}`))
	sig := make([]byte, 32)
	for i := range sig {
		sig[i] = byte(r.UintN(256))
	}
	return header + "." + payload + "." + enc.EncodeToString(sig)
}

// Pieces are parts of a secret long enough that finding one in an index
// file means the secret leaked, even cut or wrapped: for a key block, each
// of its body lines; else the secret itself.
func Pieces(sh Shape) []string {
	if sh.Kind != "private-key" {
		return []string{sh.Secret}
	}
	var out []string
	for _, line := range strings.Split(sh.Secret, "\n") {
		if !strings.HasPrefix(line, "-----") && len(line) >= 16 {
			out = append(out, line)
		}
	}
	return out
}
