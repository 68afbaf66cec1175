package redact

import "strings"

// Keys of a known prefix, wherever they stand. gitleaks' rules for
// prefixed keys want a word boundary before the key and a delimiter
// (space, quote, ';' or the end) after it, so a key glued into a path
// (~/keys/sk_live_…/config), an identifier (customer_sk_test_…_v2) or a
// URL path is not theirs to find; and some providers have no gitleaks
// rule at all (Stripe's webhook secrets, Groq, xAI, Tailscale, Docker
// Hub, Google OAuth, …). These rules run where the prefix occurs, case
// sensitive, whatever precedes it, take the run of the body's characters
// after it, and want a body of the format's length that looks generated
// (randomBody): a prefix is not enough, as sk_test_helper or
// AKIA_REGION are names. The kind is gitleaks' rule id where gitleaks has
// a rule for the format.
//
// Formats: each provider's documentation of its keys, as gitleaks' rules
// cite them, and for those gitleaks lacks: Stripe (whsec_, webhook
// signing secrets), Groq (gsk_), xAI (xai-), OpenRouter (sk-or-v1-),
// Replicate (r8_), LangSmith (lsv2_pt_, lsv2_sk_), Pinecone (pcsk_),
// Google OAuth (GOCSPX- client secrets, ya29. access tokens, 1//0
// refresh tokens), Docker Hub (dckr_pat_, dckr_oat_), Tailscale
// (tskey-…), Supabase (sbp_, sb_secret_), Figma (figd_), Buildkite
// (bkua_), CircleCI (CCIPAT_), Netlify (nfp_), Render (rnd_), Neon
// (napi_), Doppler (dp.st., dp.sa., dp.ct.), NuGet (oy2), AWS session
// tokens (IQoJb3JpZ2lu…, FwoGZXIvYXdz…, the base64 of their fixed
// header), Anthropic's OAuth and session tokens (sk-ant-oat01-, …).
type prefixFormat struct {
	prefix string
	kind   string
	body   *byteSet // the characters of the body
	min    int      // the shortest body
	max    int      // the longest body taken (0: no bound)
	// word: the prefix must start a word, for prefixes that end words
	// (sk- ends disk-, task-).
	word bool
}

// byteSet is a set of bytes, the characters a secret's body is made of.
type byteSet [256]bool

// charset is the set of the bytes of chars. The sets are built once and
// only read after.
func charset(chars string) *byteSet {
	var set byteSet
	for i := 0; i < len(chars); i++ {
		set[chars[i]] = true
	}
	return &set
}

const (
	lettersChars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	digitChars   = "0123456789"
	alnumChars   = lettersChars + digitChars
	hexChars     = "0123456789abcdefABCDEF"
)

var (
	csAlnum   = charset(alnumChars)
	csWord    = charset(alnumChars + "_")
	csURL     = charset(alnumChars + "_-")
	csURLDot  = charset(alnumChars + "_-.")
	csB64     = charset(alnumChars + "+/=")
	csHex     = charset(hexChars)
	csLetters = charset(lettersChars)
	csLD      = charset("abcdefghijklmnopqrstuvwxyz0123456789")
	csB32     = charset("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
	csAlnumD  = charset(alnumChars + "-")
)

var prefixFormats = []prefixFormat{
	{"sk_live_", "stripe-access-token", csAlnum, 10, 99, false},
	{"sk_test_", "stripe-access-token", csAlnum, 10, 99, false},
	{"sk_prod_", "stripe-access-token", csAlnum, 10, 99, false},
	{"rk_live_", "stripe-access-token", csAlnum, 10, 99, false},
	{"rk_test_", "stripe-access-token", csAlnum, 10, 99, false},
	{"rk_prod_", "stripe-access-token", csAlnum, 10, 99, false},
	{"whsec_", "stripe-webhook-secret", csB64, 24, 0, false},
	{"ghp_", "github-pat", csAlnum, 36, 36, false},
	{"gho_", "github-oauth", csAlnum, 36, 36, false},
	{"ghu_", "github-app-token", csAlnum, 36, 36, false},
	{"ghs_", "github-app-token", csAlnum, 36, 36, false},
	{"ghr_", "github-refresh-token", csAlnum, 36, 76, false},
	{"github_pat_", "github-fine-grained-pat", csWord, 82, 82, false},
	{"glpat-", "gitlab-pat", csURLDot, 20, 0, false},
	{"gldt-", "gitlab-deploy-token", csURL, 20, 0, false},
	{"glrt-", "gitlab-runner-authentication-token", csURLDot, 20, 0, false},
	{"xoxb-", "slack-bot-token", csAlnumD, 20, 0, false},
	{"xoxp-", "slack-user-token", csAlnumD, 20, 0, false},
	{"xoxe.xoxp-", "slack-user-token", csAlnumD, 20, 0, false},
	{"xoxa-", "slack-legacy-token", csAlnumD, 20, 0, false},
	{"xoxr-", "slack-legacy-token", csAlnumD, 20, 0, false},
	{"xoxs-", "slack-legacy-token", csAlnumD, 20, 0, false},
	{"xapp-", "slack-app-token", csAlnumD, 20, 0, false},
	{"sk-ant-api03-", "anthropic-api-key", csURL, 80, 0, false},
	{"sk-ant-admin01-", "anthropic-admin-api-key", csURL, 80, 0, false},
	{"sk-ant-oat01-", "anthropic-oauth-token", csURL, 40, 0, false},
	{"sk-ant-ort01-", "anthropic-oauth-token", csURL, 40, 0, false},
	{"sk-ant-sid01-", "anthropic-session-key", csURL, 40, 0, false},
	{"sk-proj-", "openai-api-key", csURL, 40, 0, false},
	{"sk-", "openai-api-key", csAlnum, 32, 0, true},
	{"sk-svcacct-", "openai-api-key", csURL, 40, 0, false},
	{"sk-admin-", "openai-api-key", csURL, 40, 0, false},
	{"sk-or-v1-", "openrouter-api-key", csHex, 64, 64, false},
	{"gsk_", "groq-api-key", csAlnum, 48, 56, false},
	{"xai-", "xai-api-key", csAlnum, 70, 90, false},
	{"r8_", "replicate-api-token", csAlnum, 37, 40, false},
	{"lsv2_pt_", "langsmith-api-key", csWord, 32, 0, false},
	{"lsv2_sk_", "langsmith-api-key", csWord, 32, 0, false},
	{"pcsk_", "pinecone-api-key", csWord, 50, 0, false},
	{"hf_", "huggingface-access-token", csLetters, 34, 34, false},
	{"api_org_", "huggingface-organization-api-token", csLetters, 34, 34, false},
	{"AIza", "gcp-api-key", csURL, 35, 35, false},
	{"GOCSPX-", "google-oauth-client-secret", csURL, 24, 32, false},
	{"ya29.", "google-oauth-access-token", csURLDot, 30, 0, false},
	{"1//0", "google-oauth-refresh-token", csURL, 40, 0, false},
	{"npm_", "npm-access-token", csAlnum, 36, 36, false},
	{"pypi-AgEIcHlwaS5vcmc", "pypi-upload-token", csURL, 50, 0, false},
	{"dckr_pat_", "docker-hub-token", csURL, 24, 0, false},
	{"dckr_oat_", "docker-hub-token", csURL, 24, 0, false},
	{"AKIA", "aws-access-token", csB32, 16, 16, false},
	{"ASIA", "aws-access-token", csB32, 16, 16, false},
	{"IQoJb3JpZ2lu", "aws-session-token", csB64, 100, 0, false},
	{"FwoGZXIvYXdz", "aws-session-token", csB64, 100, 0, false},
	{"dop_v1_", "digitalocean-pat", csHex, 64, 64, false},
	{"doo_v1_", "digitalocean-access-token", csHex, 64, 64, false},
	{"dor_v1_", "digitalocean-refresh-token", csHex, 64, 64, false},
	{"shpat_", "shopify-access-token", csHex, 32, 32, false},
	{"shpca_", "shopify-custom-access-token", csHex, 32, 32, false},
	{"shppa_", "shopify-private-app-access-token", csHex, 32, 32, false},
	{"shpss_", "shopify-shared-secret", csHex, 32, 32, false},
	{"hvs.", "vault-service-token", csURL, 24, 0, false},
	{"hvb.", "vault-batch-token", csURL, 138, 0, false},
	{"lin_api_", "linear-api-key", csAlnum, 40, 40, false},
	{"tskey-", "tailscale-key", csAlnumD, 30, 0, false},
	{"sbp_", "supabase-access-token", csHex, 40, 40, false},
	{"sb_secret_", "supabase-secret-key", csURL, 24, 0, false},
	{"figd_", "figma-access-token", csURL, 30, 0, false},
	{"bkua_", "buildkite-token", csHex, 40, 40, false},
	{"CCIPAT_", "circleci-token", csWord, 30, 0, false},
	{"nfp_", "netlify-access-token", csAlnum, 30, 0, false},
	{"rnd_", "render-api-key", csAlnum, 28, 0, false},
	{"napi_", "neon-api-key", csAlnum, 40, 0, false},
	{"dp.pt.", "doppler-api-token", csAlnum, 40, 0, false},
	{"dp.st.", "doppler-api-token", csURLDot, 40, 0, false},
	{"dp.sa.", "doppler-api-token", csAlnum, 40, 0, false},
	{"dp.ct.", "doppler-api-token", csAlnum, 40, 0, false},
	{"oy2", "nuget-api-key", csLD, 43, 43, false},
	{"glsa_", "grafana-service-account-token", csWord, 40, 0, false},
	{"glc_", "grafana-cloud-api-token", csB64, 32, 0, false},
	{"PMAK-", "postman-api-token", csAlnumD, 59, 59, false},
	{"sntrys_", "sentry-org-token", csB64, 60, 0, false},
	{"sntryu_", "sentry-user-token", csHex, 64, 64, false},
	{"xkeysib-", "sendinblue-api-token", csAlnumD, 70, 0, false},
	{"HRKU-AA", "heroku-api-key-v2", csURL, 58, 58, false},
	{"ATATT3", "atlassian-api-token", csURL, 180, 0, false},
	{"pscale_tkn_", "planetscale-api-token", csWord, 32, 0, false},
	{"pscale_pw_", "planetscale-password", csWord, 32, 0, false},
	{"rubygems_", "rubygems-api-token", csHex, 48, 48, false},
	{"dapi", "databricks-api-token", csHex, 32, 32, false},
}

// prefixRules makes one rule of each kind of prefixFormats.
func prefixRules() []*rule {
	byKind := map[string][]prefixFormat{}
	var kinds []string
	for _, f := range prefixFormats {
		if _, ok := byKind[f.kind]; !ok {
			kinds = append(kinds, f.kind)
		}
		byKind[f.kind] = append(byKind[f.kind], f)
	}
	var rules []*rule
	for _, kind := range kinds {
		formats := byKind[kind]
		var keywords []string
		for _, f := range formats {
			keywords = append(keywords, strings.ToLower(f.prefix))
		}
		rules = append(rules, &rule{
			kind: kind, keywords: keywords, priority: prioritySpecific, anchored: true, window: 1024,
			find: func(text string, start, end int, out [][2]int) [][2]int {
				for _, f := range formats {
					if lo, hi, ok := f.at(text, start, end); ok {
						return append(out, [2]int{lo, hi})
					}
				}
				return out
			},
		})
	}
	return rules
}

// at finds a key of format f at text[start:], reading no further than end.
func (f *prefixFormat) at(text string, start, end int) (int, int, bool) {
	if !strings.HasPrefix(text[start:end], f.prefix) || f.word && start > 0 && isAlnum(text[start-1]) {
		return 0, 0, false
	}
	set := f.body
	i := start + len(f.prefix)
	j := i
	for j < end && set[text[j]] {
		j++
	}
	if f.body == csB64 {
		for j > i && text[j-1] == '=' && j-i > f.min {
			j-- // padding is kept below
		}
	}
	n := j - i
	if n < f.min {
		return 0, 0, false
	}
	if f.max > 0 && n > f.max {
		if f.max == f.min && set == csB32 {
			return 0, 0, false // an access key id is exactly 16: more is a word
		}
		j = i + f.max
	}
	if !randomBody(text[i:j]) {
		return 0, 0, false
	}
	for f.body == csB64 && j < end && text[j] == '=' {
		j++
	}
	return start, j, true
}

// randomBody reports a key's body that looks generated: letters and
// digits mixed, or, long enough, letters of high entropy; not a name.
func randomBody(b string) bool {
	if wordsIdentifier(b) {
		return false
	}
	letters, digits := 0, 0
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case c >= '0' && c <= '9':
			digits++
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			letters++
		}
	}
	if letters > 0 && digits > 0 {
		return true
	}
	if digits > 0 && letters == 0 {
		return len(b) >= 20 // hex of digits alone: long enough
	}
	return len(b) >= 16 && shannonEntropy(b) >= 3.5
}
