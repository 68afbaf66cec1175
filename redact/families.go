package redact

import (
	"encoding/base64"
	"strings"
)

// recall's rules for the secrets issue 23 found reaching the index, by
// family; each runs only where one of its keywords occurs, and reads
// around it with code rather than an expression.
//
//   - azure-storage-key: AccountKey= and SharedAccessKey= of Azure
//     connection strings (storage, Service Bus, Event Hubs, IoT Hub).
//   - url-signature: the signature or token of a signed URL's query
//     (X-Amz-Signature, X-Amz-Security-Token, X-Goog-Signature, an Azure
//     SAS's sig=, CloudFront's Signature=).
//   - putty-private-key: the Private-Lines of a PuTTY key file and its MAC.
//   - private-key: a private key's DER in base64 without its PEM header
//     (PKCS#1, PKCS#8, SEC1 and OpenSSH keys start with fixed bytes).
//   - telegram-bot-api-token: a bot token (digits:AA…) without the word
//     "telegram" gitleaks' rule needs.
//   - discord-webhook-url: the token of a Discord webhook URL.
//   - azure-identifiable-key: Microsoft's identifiable keys, which carry
//     the signature JQQJ9 at a fixed place.
//   - netrc-password, pgpass-password: the password of a .netrc entry
//     (machine … login … password …) and of a .pgpass line
//     (host:port:db:user:password).
//   - basic-auth: base64 of user:password, as an Authorization: Basic
//     header, a Docker config's "auth" or an .npmrc's _auth holds it.
func familyRules() []*rule {
	return []*rule{
		{kind: "azure-storage-key", keywords: []string{"accountkey=", "sharedaccesskey="}, priority: prioritySpecific,
			anchored: true, window: 256, find: findAzureKey},
		{kind: "url-signature", keywords: []string{"signature=", "sig=", "x-amz-security-token=", "x-goog-credential="},
			priority: priorityStructural, anchored: true, window: 4096, find: findURLSignature},
		{kind: "putty-private-key", keywords: []string{"private-lines:"}, priority: prioritySpecific,
			anchored: true, window: 16 << 10, find: findPuTTY},
		{kind: "private-key", keywords: derKeywords(), priority: prioritySpecific, anchored: true, window: 16 << 10, find: findDERKey},
		{kind: "telegram-bot-api-token", keywords: []string{":aa"}, priority: prioritySpecific, anchored: true, window: 64, find: findTelegram},
		{kind: "discord-webhook-url", keywords: []string{"/api/webhooks/"}, priority: prioritySpecific, anchored: true, window: 256, find: findDiscordWebhook},
		{kind: "azure-identifiable-key", keywords: []string{"jqqj9"}, priority: prioritySpecific, anchored: true, window: 128, find: findAzureIdentifiable},
		{kind: "netrc-password", keywords: []string{"machine"}, priority: priorityStructural, anchored: true, window: 1024, find: findNetrc},
		{kind: "pgpass-password", keywords: []string{":5432:", ":*:", "pgpass"}, priority: priorityStructural, anchored: true, window: 512, find: findPgpass},
		{kind: "basic-auth", keywords: []string{"basic ", `"auth"`, "_auth="}, priority: priorityStructural, anchored: true, window: 1024, find: findBasicAuth},
		{kind: "password", keywords: xmlKeywords, priority: priorityGeneric, anchored: true, window: 256, find: findXMLSecret},
		{kind: "session-cookie", keywords: []string{"cookie:"}, priority: priorityGeneric, anchored: true, window: 4096, find: findCookie},
	}
}

// xmlKeywords end the opening tags of elements that hold a secret
// (Maven's settings.xml <password>, .NET and Java configs).
var xmlKeywords = []string{"password>", "passwd>", "passphrase>", "secret>", "token>", "apikey>", "api_key>", "clientsecret>"}

func findXMLSecret(text string, start, end int, out [][2]int) [][2]int {
	// <password>VALUE</password>, <db.password>…, <client-secret>…
	k := start
	for k > 0 && start-k < 40 && isNameByte(text[k-1]) {
		k--
	}
	if k == 0 || text[k-1] != '<' {
		return out
	}
	lo := strings.IndexByte(text[start:end], '>') + start + 1
	j := strings.Index(text[lo:end], "</")
	if j <= 0 {
		return out
	}
	v := strings.TrimSpace(text[lo : lo+j])
	if strings.ContainsAny(v, " \t\n<>") || !literalSecret(v, true) || camelName(v) || dottedName(v) {
		return out
	}
	lo += strings.Index(text[lo:lo+j], v)
	return append(out, [2]int{lo, lo + len(v)})
}

// findCookie redacts the values of a Cookie or Set-Cookie header that
// look generated (session ids, auth tokens), to the end of the line.
func findCookie(text string, start, end int, out [][2]int) [][2]int {
	i := start + len("cookie:")
	lineEnd := strings.IndexAny(text[i:end], "\r\n\"'")
	if lineEnd >= 0 {
		end = i + lineEnd
	}
	for _, pair := range strings.Split(text[i:end], ";") {
		off := i
		i += len(pair) + 1
		eq := strings.IndexByte(pair, '=')
		if eq < 0 {
			continue
		}
		v := strings.TrimSpace(pair[eq+1:])
		if len(v) < 16 || !looksRandom(v) {
			continue
		}
		lo := off + eq + 1 + strings.Index(pair[eq+1:], v)
		out = append(out, [2]int{lo, lo + len(v)})
	}
	return out
}

// runOfSet returns the end of the run of set's bytes from i, at most end.
func runOfSet(text string, i, end int, set *byteSet) int {
	for i < end && set[text[i]] {
		i++
	}
	return i
}

// backOfSet returns the start of the run of set's bytes that ends at i,
// going back no further than limit bytes.
func backOfSet(text string, i, limit int, set *byteSet) int {
	stop := max(0, i-limit)
	for i > stop && set[text[i-1]] {
		i--
	}
	return i
}

// Azure's storage emulator key, published in Azure's documentation.
const azuriteKey = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="

func findAzureKey(text string, start, end int, out [][2]int) [][2]int {
	i := strings.IndexByte(text[start:end], '=') + start + 1
	j := runOfSet(text, i, end, csB64)
	if j-i < 20 || text[i:j] == azuriteKey || !randomBody(strings.TrimRight(text[i:j], "=")) {
		return out
	}
	return append(out, [2]int{i, j})
}

var csQueryValue = charset(alnumChars + "%+/=_~.-")

func findURLSignature(text string, start, end int, out [][2]int) [][2]int {
	// A parameter: after ?, &, ; or a space or quote, or ends a longer
	// name (X-Amz-Signature=, SharedAccessSignature=).
	if start > 0 {
		switch c := text[start-1]; {
		case c == '?' || c == '&' || c == ';' || c == '-' || isSpace(c) || isQuote(c):
		case hasPrefixFold(text[start:], "signature=") && isAlnum(c):
			// SharedAccessSignature=sv=…&sig=…: the sig= after it is the secret.
			return out
		default:
			return out
		}
	}
	i := strings.IndexByte(text[start:end], '=') + start + 1
	j := runOfSet(text, i, end, csQueryValue)
	v := text[i:j]
	if hasPrefixFold(text[start:], "x-goog-credential=") {
		return out // an account's name, not a secret; its signature follows
	}
	if len(v) < 16 || !randomBody(strings.NewReplacer("%2B", "", "%2F", "", "%3D", "", "%2b", "", "%2f", "", "%3d", "").Replace(v)) {
		return out
	}
	return append(out, [2]int{i, j})
}

// skipSeparators skips whitespace and the \n, \r and \t of a string
// written in code or JSON.
func skipSeparators(text string, i, end int) int {
	for i < end {
		switch {
		case isPerlSpace(text[i]):
			i++
		case text[i] == '\\' && i+1 < end && (text[i+1] == 'n' || text[i+1] == 'r' || text[i+1] == 't'):
			i += 2
		default:
			return i
		}
	}
	return i
}

func findPuTTY(text string, start, end int, out [][2]int) [][2]int {
	i := start + len("private-lines:")
	for i < end && (text[i] == ' ' || text[i] >= '0' && text[i] <= '9') {
		i++
	}
	lo, hi := -1, -1
	b64 := csB64
	for {
		k := skipSeparators(text, i, end)
		j := runOfSet(text, k, end, b64)
		if j-k < 8 || j < end && text[j] == ':' {
			i = k
			break
		}
		if lo < 0 {
			lo = k
		}
		hi, i = j, j
	}
	if hasPrefixFold(text[i:end], "private-mac:") || hasPrefixFold(text[i:end], "private-hash:") {
		k := strings.IndexByte(text[i:end], ':') + i + 1
		for k < end && text[k] == ' ' {
			k++
		}
		if j := runOfSet(text, k, end, csHex); j-k >= 16 {
			if lo < 0 {
				lo = k
			}
			hi = j
		}
	}
	if lo < 0 {
		return out
	}
	return append(out, [2]int{lo, hi})
}

// derPrefixes are the base64 of the first bytes of private keys' DER:
// PKCS#8 RSA (…IBADANBgkqhkiG9w0BAQEFAASC), PKCS#1 RSA (MII…IBAAKCA…),
// SEC1 EC (MHcCAQEEI, P-256; MIGkAgEBBDA, P-384), PKCS#8 EC
// (…AgEAMBMGByqGSM49…), PKCS#8 Ed25519 (MC4CAQAwBQYDK2VwBCIEI) and
// OpenSSH's key format (b3BlbnNzaC1rZXktdjE, "openssh-key-v1").
// Public keys and certificates start otherwise (MIIBIjANBg…, MIID…).
var derPrefixes = []string{
	"IBADANBgkqhkiG9w0BAQEFAASC", "IBAAKCA", "MHcCAQEEI", "MIGkAgEBBDA", "AgEAMBMGByqGSM49",
	"MC4CAQAwBQYDK2VwBCIEI", "b3BlbnNzaC1rZXktdjE",
}

func derKeywords() []string {
	var k []string
	for _, p := range derPrefixes {
		k = append(k, strings.ToLower(p))
	}
	return k
}

func findDERKey(text string, start, end int, out [][2]int) [][2]int {
	ok := false
	for _, p := range derPrefixes {
		if strings.HasPrefix(text[start:end], p) {
			ok = true
			break
		}
	}
	if !ok {
		return out
	}
	b64 := csB64
	lo := backOfSet(text, start, 16, b64)
	if start-lo > 8 {
		return out
	}
	// Under a PEM header the block is the header's: a private key's is
	// the private-key rule's, and another (Go's test keys are "TESTING
	// KEY" blocks, so that scanners pass them by) is not a secret here.
	if h := strings.TrimRight(text[max(0, lo-64):lo], " \t\r\n\\n"); strings.HasSuffix(h, "-----") {
		return out
	}
	hi := runOfSet(text, start, end, b64)
	total := hi - lo
	// Body lines after it, as a key block's.
	for {
		k := skipSeparators(text, hi, end)
		if k == hi {
			break
		}
		j := runOfSet(text, k, end, b64)
		if j-k < 16 {
			break
		}
		total += j - k
		hi = j
	}
	if total < 64 {
		return out
	}
	return append(out, [2]int{lo, hi})
}

func findTelegram(text string, start, end int, out [][2]int) [][2]int {
	// 123456789:AA + 33 of [A-Za-z0-9_-]: the bot's id, a colon, the
	// token (Telegram's Bot API documentation).
	if text[start+1] != 'A' || text[start+2] != 'A' {
		return out
	}
	lo := start
	for lo > 0 && start-lo < 16 && text[lo-1] >= '0' && text[lo-1] <= '9' {
		lo--
	}
	if start-lo < 5 || lo > 0 && (isAlnum(text[lo-1]) && !strings.HasSuffix(text[:lo], "bot")) {
		return out
	}
	j := runOfSet(text, start+1, end, csURL)
	if n := j - start - 1; n < 34 || n > 40 || !randomBody(text[start+1:j]) {
		return out
	}
	return append(out, [2]int{lo, j})
}

func findDiscordWebhook(text string, start, end int, out [][2]int) [][2]int {
	if !strings.Contains(strings.ToLower(text[max(0, start-32):start]), "discord") {
		return out
	}
	i := start + len("/api/webhooks/")
	j := i
	for j < end && text[j] >= '0' && text[j] <= '9' {
		j++
	}
	if j-i < 16 || j >= end || text[j] != '/' {
		return out
	}
	k := runOfSet(text, j+1, end, csURL)
	if k-j-1 < 60 || !randomBody(text[j+1:k]) {
		return out
	}
	return append(out, [2]int{j + 1, k})
}

func findAzureIdentifiable(text string, start, end int, out [][2]int) [][2]int {
	if !strings.HasPrefix(text[start:end], "JQQJ9") {
		return out
	}
	set := csB64
	lo := backOfSet(text, start, 64, set)
	hi := runOfSet(text, start, end, set)
	if start-lo < 40 || hi-lo < 80 || !randomBody(text[lo:start]) {
		return out
	}
	return append(out, [2]int{lo, hi})
}

// shellField returns the next field of text from i (spaces and newlines
// skipped, quotes taken off): its span, and where it ends.
func shellField(text string, i, end int) (lo, hi, next int) {
	for i < end && isPerlSpace(text[i]) {
		i++
	}
	if i >= end {
		return i, i, i
	}
	if q := text[i]; q == '"' || q == '\'' {
		j := strings.IndexByte(text[i+1:end], q)
		if j < 0 {
			return i + 1, end, end
		}
		return i + 1, i + 1 + j, i + 2 + j
	}
	j := i
	for j < end && !isPerlSpace(text[j]) {
		j++
	}
	return i, j, j
}

func findNetrc(text string, start, end int, out [][2]int) [][2]int {
	if !wordStart(text, start) {
		return out
	}
	i := start
	if strings.HasPrefix(text[start:], "machine") {
		i += len("machine")
		_, hi, next := shellField(text, i, end) // the host
		if hi == next && next == i {
			return out
		}
		i = next
	} else {
		return out
	}
	if i >= end || !isPerlSpace(text[i]) {
		return out
	}
	for n := 0; n < 4; n++ {
		klo, khi, next := shellField(text, i, end)
		key := text[klo:khi]
		if key != "login" && key != "password" && key != "account" && key != "port" {
			return out
		}
		vlo, vhi, after := shellField(text, next, end)
		if vlo == vhi {
			return out
		}
		if key == "password" && literalSecret(text[vlo:vhi], true) {
			out = append(out, [2]int{vlo, vhi})
		}
		i = after
	}
	return out
}

func findPgpass(text string, start, end int, out [][2]int) [][2]int {
	lo := start
	if text[start] == ':' {
		// The line's first field ends here: go back to its start.
		for lo > 0 && start-lo < 256 && !isPerlSpace(text[lo-1]) && !isQuote(text[lo-1]) {
			lo--
		}
	} else {
		// "pgpass": the line named comes in the text after it.
		lo = start + len("pgpass")
		for lo < end && !isPerlSpace(text[lo]) {
			lo++
		}
		for lo < end && (isPerlSpace(text[lo]) || isQuote(text[lo])) {
			lo++
		}
	}
	hi := lo
	for hi < end && !isPerlSpace(text[hi]) && !isQuote(text[hi]) {
		hi++
	}
	fields := strings.Split(text[lo:hi], ":")
	if len(fields) != 5 {
		return out
	}
	port := fields[1]
	if port != "*" && (port == "" || strings.Trim(port, digitChars) != "") {
		return out
	}
	pw := fields[4]
	if pw == "" || pw == "*" || !literalSecret(pw, true) {
		return out
	}
	return append(out, [2]int{hi - len(pw), hi})
}

// basicAuthExamples are the user:password pairs of documentation.
var basicAuthExamples = map[string]bool{"Aladdin:open sesame": true, "user:password": true, "username:password": true, "user:pass": true}

func findBasicAuth(text string, start, end int, out [][2]int) [][2]int {
	i := start
	lower := strings.ToLower(text[start:min(end, start+8)])
	switch {
	case strings.HasPrefix(lower, "basic "):
		if !wordStart(text, start) {
			return out
		}
		i += len("basic ")
	case strings.HasPrefix(lower, `"auth"`):
		i += len(`"auth"`)
		for i < end && (text[i] == ' ' || text[i] == ':') {
			i++
		}
		if i >= end || text[i] != '"' {
			return out
		}
		i++
	default: // _auth=
		i += len("_auth=")
	}
	j := runOfSet(text, i, end, csB64)
	if j-i < 8 {
		return out
	}
	raw, err := base64.StdEncoding.DecodeString(text[i:j])
	if err != nil {
		if raw, err = base64.RawStdEncoding.DecodeString(strings.TrimRight(text[i:j], "=")); err != nil {
			return out
		}
	}
	s := string(raw)
	user, pw, ok := strings.Cut(s, ":")
	if !ok || user == "" || pw == "" || basicAuthExamples[s] || !printable(s) {
		return out
	}
	return append(out, [2]int{i, j})
}

func printable(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] == 0x7f {
			return false
		}
	}
	return true
}
