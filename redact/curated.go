package redact

import (
	"strings"
)

// recall's own rules cover what gitleaks' default rules leave to the
// generic rule recall does not run (droppedGitleaksRule), and key blocks
// cut short. Each is anchored at its keyword and decides with a check in
// Go, which is where the care against false alarms lives: a value that is
// a reference (os.Getenv(…), $VAR, ${{ secrets.X }}, config.Password), a
// type (string), a placeholder (<password>, ****) or an identifier is not
// a secret.
//
// Sources of the formats:
//   - aws-secret-key: AWS access keys are an access key id and a 40
//     character secret (docs.aws.amazon.com/IAM/latest/UserGuide/
//     id_credentials_access-keys.html); the names it is assigned to are
//     those of the AWS CLI's credentials file and environment
//     (aws_secret_access_key, AWS_SECRET_ACCESS_KEY) and of STS output
//     (SecretAccessKey).
//   - url-password: userinfo in a URL, scheme://user:password@host (RFC
//     3986 section 3.2.1), as in detect-secrets' BasicAuthDetector.
//   - password, generic-secret: what gitleaks' generic-api-key looks for
//     (a secret-like name, an assignment, a value), with stricter values.
//   - bearer-token: the Authorization header's bearer token (RFC 6750
//     section 2.1). Basic credentials are left to gitleaks' curl rules:
//     outside a command they are as often the examples of documentation
//     ("Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==" is RFC 7617's).
//   - private-key: the PEM block of RFC 7468, also when its end is missing
//     (gitleaks' private-key rule needs the END line).
func curatedRuleSet() []*rule {
	rules := []*rule{
		{
			kind:     "aws-secret-key",
			keywords: []string{"secret_access_key", "secretaccesskey", "secret-access-key", "aws_secret", "awssecret", "aws-secret"},
			priority: prioritySpecific,
			source:   `(?i)^(?:secret[_-]?access[_-]?key|aws[_-]?secret(?:[_-]?access)?(?:[_-]?key)?)[\\"'\x60]*\s{0,3}(?::=|=>|=|:)\s{0,3}[\\"'\x60]*([A-Za-z0-9/+=]{40,})`,
			anchored: true,
			window:   256,
			accept:   acceptAWSSecret,
		},
		{
			kind:     "url-password",
			keywords: []string{"://"},
			priority: priorityStructural,
			// The user part stops at the first ':', '@' or '/'; the
			// password runs to the last '@' before the host, so one with
			// an unescaped '@' or '#' is still covered whole ('/' and '?'
			// end it: host:8080/a@b and host:8080?to=a@b are not
			// credentials).
			source:   `^://[^\s:@/?#\[\]"'\x60<>\\]{0,128}:([^\s/?"'\x60<>\\]{1,256})@[A-Za-z0-9\[._-]`,
			anchored: true,
			window:   512,
			accept:   acceptURLPassword,
		},
		{
			kind:     "password",
			keywords: []string{"password", "passwd", "passphrase", "pwd", "pass"},
			priority: priorityGeneric,
			source:   assignment(`password|passwd|passphrase|pwd|pass`),
			anchored: true,
			window:   512,
			accept:   acceptPassword,
		},
		{
			kind: "generic-secret",
			keywords: []string{"secret", "token", "api_key", "apikey", "api-key", "access_key", "accesskey", "access-key",
				"private_key", "privatekey", "private-key", "auth_key", "authkey", "auth-key",
				"encryption_key", "encryptionkey", "encryption-key", "signing_key", "signingkey", "signing-key",
				"master_key", "masterkey", "master-key"},
			priority: priorityGeneric,
			source:   assignment(`secret|token|api[_-]?key|access[_-]?key|private[_-]?key|auth[_-]?key|encryption[_-]?key|signing[_-]?key|master[_-]?key`),
			anchored: true,
			window:   512,
			accept:   acceptGenericSecret,
		},
		{
			kind:     "bearer-token",
			keywords: []string{"bearer"},
			priority: priorityGeneric,
			source:   `(?i)^bearer[ \t]+([A-Za-z0-9._~+/-]{8,}=*)`,
			anchored: true,
			window:   4200,
			accept:   acceptBearer,
		},
		{
			kind:     "private-key",
			keywords: []string{"-----begin"},
			priority: prioritySpecific,
			// Body lines of base64 (or PEM headers), separated by
			// whitespace or by \n written out, as in a JSON or code string.
			source: `(?i)^-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----` +
				`(?:(?:\s|\\[nr])*(?:[A-Za-z0-9+/=]{8,}|(?:Proc-Type|DEK-Info|Comment|Version|Hash|Charset):[^\r\n\\]*))+` +
				`(?:(?:\s|\\[nr])*-----END[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----)?`,
			anchored: true,
			window:   64 << 10,
			accept:   wholeMatch,
		},
	}
	rules = append(rules, prefixRules()...)
	rules = append(rules, familyRules()...)
	rules = append(rules, cliRule(), proseRule(), encodedRule(), jwtRule())
	return rules
}

// assignment is the expression of a value assigned to a name holding one
// of keywords: the name may go on (db_password_prod), be quoted, and be
// followed by =, :, :=, => or, for a command-line flag, spaces (or, in
// PHP's define('DB_PASSWORD', '…'), a comma). Groups:
// 1 the name's rest, 2 the separator, 3–6 the value in double, single or
// back quotes, or bare.
func assignment(keywords string) string {
	return `(?i)^(?:` + keywords + `)([\w.-]{0,20}?)\\?["'\x60]?` +
		`(\s{0,3}(?::=|=>|=|:|,)\s{0,3}|[ \t]+)` +
		`(?:\\?"([^"\r\n]{1,200})"|'([^'\r\n]{1,200})'|\x60([^\x60\r\n]{1,200})\x60|([^\s"'\x60,;&|)}\]\\]{1,200}))`
}

// assigned is an assignment match taken apart.
type assigned struct {
	name   string // the keyword and the rest of the name
	sep    string
	sepAt  int // where sep starts in the text
	lo, hi int // the value
	value  string
	quoted bool
}

func parseAssignment(text string, m []int) assigned {
	a := assigned{name: text[m[0]:m[3]], sep: text[m[4]:m[5]], sepAt: m[4]}
	for g := 3; g <= 6; g++ {
		if m[2*g] >= 0 {
			a.lo, a.hi = m[2*g], m[2*g+1]
			a.quoted = g < 6
			break
		}
	}
	if a.quoted && a.hi > a.lo && text[a.hi-1] == '\\' {
		a.hi-- // "…\" in an escaped JSON string
	}
	a.value = text[a.lo:a.hi]
	return a
}

// spacedInProse reports an "assignment" by spaces that is not a
// command-line flag (--password x, -token x): in prose, "password reset"
// assigns nothing.
func (a assigned) spacedInProse(text string, start int) bool {
	if strings.TrimSpace(a.sep) != "" {
		return false
	}
	// A flag starts a word: "--password", " -password"; "one-pass
	// machine" is prose.
	flag := start > 0 && text[start-1] == '-' &&
		(start == 1 || text[start-2] == '-' || isSpace(text[start-2]))
	return !flag
}

// bareColon reports "name:value" with no space after the colon and no
// quotes: a field list or a path (groupname:password:GID), not the
// "password: x" of YAML or prose.
func (a assigned) bareColon() bool {
	return !a.quoted && strings.HasSuffix(strings.TrimLeft(a.sep, " \t"), ":")
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func acceptPassword(text string, m []int) (int, int, bool) {
	start := m[0]
	a := parseAssignment(text, m)
	if a.spacedInProse(text, start) || a.bareColon() {
		return 0, 0, false
	}
	// "pass" alone is a password only as the end of a name (DB_PASS=,
	// --pass x): "--- PASS: TestX" and "passes: 3" are not.
	if strings.EqualFold(a.name, "pass") {
		if start == 0 || (text[start-1] != '_' && text[start-1] != '-') && !envPass(text, start) {
			return 0, 0, false
		}
	} else if len(a.name) >= 4 && strings.EqualFold(a.name[:4], "pass") && !strings.HasPrefix(strings.ToLower(a.name), "passw") &&
		!strings.HasPrefix(strings.ToLower(a.name), "passphrase") {
		return 0, 0, false // passes, passed, passing
	}
	if a.commaOutsideDefine(text, start) {
		return 0, 0, false
	}
	if a.quoted {
		// A quoted name is a label or a key ("encodeUserPassword").
		ok := plausibleValue(a.value) || a.nameEnds("password", "passwd", "pwd", "pass", "passphrase")
		return a.lo, a.hi, ok && plausibleQuoted(a.value) && len(a.value) >= 4 && !(containsName(a.value) && wordsIdentifier(a.value))
	}
	// Unquoted, a value of letters alone is as likely a variable
	// (password: hashedPassword) as a password; one with a digit or a
	// symbol is a literal.
	if plausibleValue(a.value) && len(a.value) >= 6 && hasDigitOrSymbol(a.value) && !containsName(a.value) {
		return a.lo, a.hi, true
	}
	// Where only a literal can stand (PGPASSWORD=…, password=… in a
	// connection string or a .properties file), letters alone are one.
	return a.lo, a.hi, configLiteral(text, start, a, 4, "password", "passwd", "pwd", "pass", "passphrase")
}

// configLiteral reports an unquoted value that plausibleValue or the
// rules' checks turn down (letters alone, a first character such as #
// or @) but that is a literal for where it is assigned, to a name that
// ends with one of names (PGPASSWORD, not PASSWORD_MIN_LENGTH):
//   - to an environment variable's name (upper case: PGPASSWORD=x,
//     POSTGRES_PASSWORD: x);
//   - with a bare = (a flag --password=x, a property repo.password=x, a
//     query's or a connection string's password=x);
//   - or on a line of its own (an ini file's password = x).
//
// A value followed by what follows a variable in code (a comma, a
// parenthesis) is not one, nor a reference, a placeholder, a word of
// code or a name (hashedPassword, cfg.password).
func configLiteral(text string, start int, a assigned, minLen int, names ...string) bool {
	v := a.value
	// After a bare = (PGPASSWORD=x, --password=x) a name in code is rare:
	// f(password=userInput) ends in a parenthesis, checked below.
	if len(v) < minLen || !literalSecret(v, true) || a.sep != "=" && camelName(v) || dottedName(v) || strings.ContainsAny(v, "([") ||
		strings.ContainsAny(a.sep, "\n\r") || !a.nameEnds(names...) {
		return false // case X_PWD:\n\treturn
	}
	if a.hi < len(text) {
		switch c := text[a.hi]; {
		case isSpace(c), c == ';', c == '&', isQuote(c), c == '\\' && a.hi+1 < len(text) && text[a.hi+1] == 'n':
		default:
			return false // password=pw, f(password=x)
		}
	}
	nameStart := start
	for nameStart > 0 && start-nameStart < 64 && isNameByte(text[nameStart-1]) {
		nameStart--
	}
	sep := strings.TrimSpace(a.sep)
	switch {
	case envName(strings.TrimLeft(text[nameStart:start]+a.name, "-.")) && (sep == "=" || sep == ":"):
		return true
	case a.sep == "=":
		return true
	}
	// A line of its own: name = value, and nothing after it.
	ls := nameStart
	for ls > 0 && (text[ls-1] == ' ' || text[ls-1] == '\t') {
		ls--
	}
	if ls > 0 && text[ls-1] != '\n' {
		return false
	}
	rest := a.hi
	for rest < len(text) && (text[rest] == ' ' || text[rest] == '\t' || text[rest] == '\r') {
		rest++
	}
	return rest == len(text) || text[rest] == '\n'
}

// envPass reports an environment variable's name that ends in PASS
// (SSHPASS, MYPASS), at start its PASS.
func envPass(text string, start int) bool {
	if !strings.HasPrefix(text[start:], "PASS") {
		return false
	}
	n := start
	for n > 0 && start-n < 32 && (text[n-1] >= 'A' && text[n-1] <= 'Z' || text[n-1] >= '0' && text[n-1] <= '9' || text[n-1] == '_') {
		n--
	}
	return n < start && (n == 0 || !isNameByte(text[n-1])) // not PASS alone: "--- PASS: TestX"
}

// nameEnds reports whether the assigned name ends with one of names.
func (a assigned) nameEnds(names ...string) bool {
	name := strings.ToLower(a.name)
	for _, n := range names {
		if strings.HasSuffix(name, n) {
			return true
		}
	}
	return false
}

// envName reports an environment variable's name: upper case letters,
// digits and underscores, with a letter.
func envName(n string) bool {
	letter := false
	for i := 0; i < len(n); i++ {
		switch c := n[i]; {
		case c >= 'A' && c <= 'Z':
			letter = true
		case c >= '0' && c <= '9' || c == '_':
		default:
			return false
		}
	}
	return letter
}

// commaOutsideDefine reports a comma separator anywhere but PHP's
// define('NAME', 'value'): (password, hash) is a list.
func (a assigned) commaOutsideDefine(text string, start int) bool {
	if !strings.Contains(a.sep, ",") {
		return false
	}
	if a.sepAt == 0 || !isQuote(text[a.sepAt-1]) {
		return true // the name is quoted in define('NAME', …)
	}
	before := strings.TrimRight(text[max(0, start-40):start], "\"'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_ \t")
	return !strings.HasSuffix(strings.ToLower(before), "define(")
}

// plausibleQuoted is plausibleValue for a quoted value: inside quotes a
// ( or a leading $, # or @ is a character of the secret (Django's keys
// are made of them), but a whole reference or template is not one.
func plausibleQuoted(v string) bool {
	if v == "" || isReference(v) || strings.HasPrefix(v, "%(") || strings.HasPrefix(v, "#{") || strings.HasPrefix(v, "{{") {
		return false
	}
	if v[0] == '<' && v[len(v)-1] == '>' || strings.Trim(v, "*xX.•-_") == "" || strings.ContainsAny(v, " \t") {
		return false
	}
	if dottedName(v) || placeholderWord(v) {
		return false
	}
	return true
}

func acceptGenericSecret(text string, m []int) (int, int, bool) {
	a := parseAssignment(text, m)
	if a.spacedInProse(text, m[0]) || a.bareColon() || len(a.value) < 8 || a.commaOutsideDefine(text, m[0]) || otherWord(a.name) {
		return 0, 0, false
	}
	if a.quoted {
		// Symbols plausibleValue turns down are a secret's only where the
		// name ends as one's (SECRET_KEY = "…(…", not token_name = "…(…").
		ok := plausibleValue(a.value) || a.nameEnds("secret", "token", "key", "passphrase")
		return a.lo, a.hi, ok && plausibleQuoted(a.value) && looksRandom(a.value)
	}
	if plausibleValue(a.value) && !containsName(a.value) && tokenChars(a.value) && looksRandom(a.value) {
		return a.lo, a.hi, true // not GITHUB_TOKEN, 2*maxConcurrency
	}
	// SESSION_SECRET=saffron-pinecone-dragonfly: a literal, words or not.
	return a.lo, a.hi, !containsName(a.value) && configLiteral(text, m[0], a, 8, "secret", "token", "key", "passphrase")
}

// otherWord reports whether a name that starts with a keyword goes on
// into another word, which holds no secret: a tokenizer (vLLM's
// tokenizer='org/model'), a secretary.
func otherWord(name string) bool {
	lower := strings.ToLower(name)
	for _, w := range []string{"tokeniz", "secretar"} {
		if strings.HasPrefix(lower, w) {
			return true
		}
	}
	return false
}

func acceptAWSSecret(text string, m []int) (int, int, bool) {
	lo, hi := m[2], m[3]
	v := text[lo:hi]
	return lo, hi, len(v) == 40 && looksRandom(v)
}

func acceptURLPassword(text string, m []int) (int, int, bool) {
	lo, hi := m[2], m[3]
	v := text[lo:hi]
	if !plausibleValue(v) {
		return 0, 0, false
	}
	switch unLeet(strings.ToLower(v)) {
	case "pass", "pwd":
		return 0, 0, false // the usual placeholders in documentation
	}
	return lo, hi, true
}

func acceptBearer(text string, m []int) (int, int, bool) {
	lo, hi := m[2], m[3]
	v := text[lo:hi]
	return lo, hi, plausibleValue(v) && looksRandom(strings.TrimRight(v, "="))
}

func wholeMatch(_ string, m []int) (int, int, bool) { return m[0], m[1], true }

// plausibleValue rules out what is assigned where a secret could be but is
// not one: references to variables and templates, calls, placeholders,
// masks and types.
func plausibleValue(v string) bool {
	if v == "" || strings.ContainsAny(v[:1], "$%{<[(@*&#") {
		return false // $VAR, %VAR%, {{ x }}, <password>, [list], ****
	}
	if strings.Contains(v, "(") || dottedName(v) {
		return false // os.Getenv("X"), config.Password, process.env.TOKEN
	}
	if i := strings.IndexByte(v, '['); i > 0 && (isIdentifier(v[:i]) || dottedName(v[:i])) {
		return false // form.cleaned_data["password"], args[1]
	}
	if strings.Trim(v, "*xX.•-_") == "" {
		return false // masked
	}
	if strings.ContainsAny(v, " \t") {
		return false // a phrase: a label or a sentence, not a secret
	}
	return !placeholderWord(v)
}

// placeholderWord reports a value that stands for no secret: a keyword,
// a type, a placeholder.
func placeholderWord(v string) bool {
	switch unLeet(strings.ToLower(v)) {
	case "true", "false", "null", "nil", "none", "undefined", "string", "str", "bool", "int",
		"required", "optional", "redacted", "hidden", "secret", "password", "passwd", "token", "env",
		"example":
		return true // p@ssw0rd is the documentation's password too
	}
	return false
}

// unLeet undoes the digit and symbol spellings of documentation
// placeholders (p@ssw0rd, s3cr3t).
func unLeet(s string) string { return leet.Replace(s) }

// leet is read-only once built (a Replacer is safe for concurrent use).
var leet = strings.NewReplacer("@", "a", "4", "a", "3", "e", "1", "i", "0", "o", "5", "s", "$", "s", "7", "t")

// tokenChars reports a value made only of the characters generated
// tokens use (base64, base64url, hex, and the separators of key formats).
func tokenChars(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; !isWord(c) && !strings.ContainsRune("-./+=~:", rune(c)) {
			return false
		}
	}
	return true
}

// dottedName reports a.b or a.b.c of names made of words: a field or a
// module path (config.Password, process.env.API_KEY), not a token with
// dots in it.
func dottedName(v string) bool {
	parts := strings.Split(v, ".")
	if len(parts) < 2 {
		return false
	}
	for _, p := range parts {
		if !isIdentifier(p) || len(p) > 2 && !wordsIdentifier(p) {
			return false // e.target.value is one; AbX9k.Qz7Yp is not
		}
	}
	return true
}

func isIdentifier(p string) bool {
	if p == "" || p[0] >= '0' && p[0] <= '9' {
		return false
	}
	for i := 0; i < len(p); i++ {
		if !isWord(p[i]) {
			return false
		}
	}
	return true
}

// containsName reports a value that names what it holds (hashedPassword,
// GITHUB_TOKEN, client_secret_path): a variable, not the secret.
func containsName(v string) bool {
	l := strings.ToLower(v)
	for _, w := range []string{"pass", "pwd", "secret", "token", "key"} {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}

func hasDigitOrSymbol(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return true
		}
	}
	return false
}

// looksRandom reports a value that is a generated secret rather than a
// word, a name or a number: letters and digits mixed in a way identifiers
// are not, or a long string of high entropy.
func looksRandom(v string) bool {
	if len(v) < 8 || wordsIdentifier(v) {
		return false
	}
	letters, digits := 0, 0
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c >= '0' && c <= '9':
			digits++
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			letters++
		}
	}
	if letters > 0 && digits > 0 {
		return true
	}
	return len(v) >= 20 && shannonEntropy(v) >= 3.5
}

// wordsIdentifier reports a value made of words: camelCase, snake_case,
// kebab-case or dotted, each word of two letters or more, digits only at a
// word's end (NewEncapsulationKey768, max_tokens_v2, node-18-alpine is
// not: "18" stands alone). Generated secrets are full of one-letter runs
// between digits and case changes.
// maxWordLetters is the longest run of letters read as a word of a name:
// a longer one is random letters (a SiliconFlow key is "sk-" and 48
// lower-case letters), not a word.
const maxWordLetters = 30

func wordsIdentifier(v string) bool {
	words, letters := 0, 0
	i := 0
	for i < len(v) {
		c := v[i]
		switch {
		case c == '_' || c == '-' || c == '.' || c == '/':
			i++
			continue
		case c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z':
		default:
			return false // a word starts with a letter
		}
		j := i + 1
		if c >= 'A' && c <= 'Z' {
			for j < len(v) && v[j] >= 'A' && v[j] <= 'Z' {
				j++
			}
			if j-i > 1 && j < len(v) && v[j] >= 'a' && v[j] <= 'z' {
				j-- // HTTPServer: "HTTP", then "Server"
			}
		}
		for j < len(v) && v[j] >= 'a' && v[j] <= 'z' {
			j++
		}
		if j-i < 2 || j-i > maxWordLetters {
			return false
		}
		letters += j - i
		for j < len(v) && v[j] >= '0' && v[j] <= '9' {
			j++
		}
		words++
		i = j
	}
	// Many short words are random letters read as words (ia37ouJou7TrJcm:
	// ia, ou, Jou, Tr, Jcm); a name's words are longer.
	return words > 0 && (words < 4 || letters >= 3*words)
}
