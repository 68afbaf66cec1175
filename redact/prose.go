package redact

import "strings"

// Passwords told in prose: "the wifi password is sunshine42", "my
// password is X", "Password for the staging server: X", "heslo k wifi je
// X", "use X as the password". The rule is keyed by the words for a
// password in a few languages; after one comes at most a few words that
// say whose (for the staging server, to the router, k wifi), a link (is,
// was, :, =, je, ist, est) and the value. A value of letters alone is a
// password unless it is a word prose puts there ("the password is
// incorrect", "… is stored in …", proseWord); a quoted value always is;
// a passphrase may be words.

var proseKeywords = []string{"password", "passwort", "passphrase", "passcode", "kennwort", "heslo", "wachtwoord", "senha", "mot de passe", "pw", "pwd", "pass",
	"creds", "credentials", "login"}

func proseRule() *rule {
	return &rule{kind: "prose-password", keywords: proseKeywords, priority: priorityGeneric, anchored: true, window: 160, find: findProsePassword}
}

var proseLinks = []string{" is ", " was ", " je ", " ist ", " est ", " es ", " é ", " = ", ": ", ":\t", " : "}

func findProsePassword(text string, start, end int, out [][2]int) [][2]int {
	if start > 0 && isAlnum(text[start-1]) {
		return out // "superpassword" is a word of its own; "wifipassword" too
	}
	kwEnd := start
	for kwEnd < end && (text[kwEnd] >= 'a' && text[kwEnd] <= 'z' || text[kwEnd] >= 'A' && text[kwEnd] <= 'Z') {
		kwEnd++
	}
	if hasPrefixFold(text[start:end], "mot de passe") {
		kwEnd = start + len("mot de passe")
	}
	kw := ""
	for _, k := range proseKeywords {
		if kwEnd-start == len(k) && strings.EqualFold(text[start:kwEnd], k) {
			kw = k
			break
		}
	}
	switch kw {
	case "password", "passwort", "passphrase", "passcode", "kennwort", "heslo", "wachtwoord", "senha", "mot de passe", "pw", "pwd", "pass":
	case "creds", "credentials", "login":
		return userSlashPassword(text, kwEnd, end, out)
	default:
		return out // passwords, passwordless, pwdhash
	}
	if lo, hi, ok := useAsPassword(text, start); ok {
		out = append(out, [2]int{lo, hi})
	}
	// The qualifier: up to 5 words before the link, on the line.
	i := kwEnd
	limit := min(end, kwEnd+60)
	link := -1
	linkLen := 0
	for j := i; j < limit; j++ {
		c := text[j]
		if c != ' ' && c != ':' && c != '\t' && c != '\n' && c != '.' && c != ',' && c != ';' && c != '(' && !isQuote(c) {
			continue // neither a link's start nor the end of the qualifier
		}
		if c == '\n' || c == '.' && j+1 < limit && text[j+1] == ' ' || c == ',' || c == ';' || c == '(' || c == '"' || c == '\'' || c == '`' {
			if c != '"' && c != '\'' {
				break
			}
		}
		for _, l := range proseLinks {
			if strings.HasPrefix(text[j:limit], l) {
				link, linkLen = j, len(l)
				break
			}
		}
		if link >= 0 {
			break
		}
		if c == '"' || c == '\'' || c == '`' {
			break
		}
	}
	if link < 0 {
		return out
	}
	if text[start:kwEnd] == "PASS" {
		return out // go test's "--- PASS: TestX"
	}
	if kw == "pw" || kw == "pwd" || kw == "pass" {
		if t := strings.TrimSpace(text[link : link+linkLen]); t != ":" && t != "=" || link != kwEnd {
			return out // "pwd is the directory", pwd: a field of code
		}
	}
	qualifier := text[kwEnd:link]
	if strings.Count(qualifier, " ") > 5 || strings.Contains(qualifier, placeholderPrefix) {
		// A placeholder in between stands for a value already told:
		// what follows it is not this keyword's, and on a second pass
		// it would be (the redacted value no longer breaks the words).
		return out
	}
	v := skipLeadIns(text, link+linkLen, end)
	if lo, hi, ok := proseValue(text, v, end, kw == "passphrase"); ok {
		if w := text[lo:hi]; kw == "pass" && (isLetters(w) && (strings.ToLower(w) == w || strings.ToUpper(w) == w) || !passValue(w)) {
			return out // a compiler's "pass: assign", a test's "PASS: x", a review's "this pass: E2E"
		}
		out = append(out, [2]int{lo, hi})
	}
	return out
}

// passValue reports whether w can be the value of a "pass:" in prose,
// where the word is as often a stage of work ("this pass: E2E closure",
// "Pressure pass: **complete**", "files in this pass: `8 -> 0`"): at
// least four characters ("E2E" is not), no space, not set in markdown.
func passValue(w string) bool {
	return len(w) >= 4 && !strings.ContainsAny(w, " \t") && !strings.HasPrefix(w, "*") && !strings.HasPrefix(w, "~")
}

// skipLeadIns skips "now", "still", "set to", "just" before a value.
func skipLeadIns(text string, i, end int) int {
	for {
		for i < end && (text[i] == ' ' || text[i] == '\t') {
			i++
		}
		moved := false
		for _, w := range []string{"now ", "still ", "set to ", "just ", "simply ", "literally "} {
			if hasPrefixFold(text[i:end], w) {
				i += len(w)
				moved = true
			}
		}
		if !moved {
			return i
		}
	}
}

// proseValue is the value that starts at text[i]: a quoted string, or a
// word; for a passphrase, up to the end of the line when the line is
// words alone.
func proseValue(text string, i, end int, phrase bool) (int, int, bool) {
	if i >= end {
		return 0, 0, false
	}
	if q := text[i]; q == '"' || q == '\'' || q == '`' || strings.HasPrefix(text[i:end], "“") {
		open, closing := 1, string(q)
		if q != '"' && q != '\'' && q != '`' {
			open, closing = len("“"), "”"
		}
		j := strings.Index(text[i+open:end], closing)
		if j <= 0 || j > 100 || strings.ContainsAny(text[i+open:i+open+j], "\n") {
			return 0, 0, false
		}
		lo, hi := i+open, i+open+j
		v := text[lo:hi]
		if !literalSecret(v, true) || !strings.ContainsRune(v, ' ') && proseWord(v) {
			return 0, 0, false
		}
		return lo, hi, true
	}
	j := i
	for j < end && !isPerlSpace(text[j]) {
		j++
	}
	// Punctuation that ends the sentence is not the password's.
	for j > i && strings.IndexByte(".,;!?)]}\"'`", text[j-1]) >= 0 {
		j--
	}
	v := text[i:j]
	if !literalSecret(v, true) || proseWord(v) || camelName(v) || dottedName(v) || strings.ContainsAny(v[:1], "/~(<[{$") || strings.ContainsAny(v, "([{") {
		return 0, 0, false
	}
	if isLetters(v) && len(v) < 5 {
		return 0, 0, false
	}
	if phrase {
		// correct horse battery staple: the words to the end of the line.
		k := j
		words := 1
		for k < end && text[k] == ' ' {
			n := k + 1
			for n < end && text[n] >= 'a' && text[n] <= 'z' {
				n++
			}
			if n == k+1 || n < end && !isPerlSpace(text[n]) && strings.IndexByte(".,;!?", text[n]) < 0 || valueStopWords()[text[k+1:n]] {
				break
			}
			k = n
			words++
		}
		if words >= 3 {
			j = k
		}
	}
	return i, j, true
}

// useAsPassword finds "use X as the password" (and "set X as my
// password") before the keyword at start.
func useAsPassword(text string, start int) (int, int, bool) {
	before := text[max(0, start-80):start]
	if !strings.Contains(before, " as ") && !strings.Contains(before, " AS ") && !strings.Contains(before, " As ") {
		return 0, 0, false
	}
	lb := strings.ToLower(before)
	for _, tail := range []string{" as the ", " as my ", " as your ", " as a ", " as the new ", " as "} {
		if !strings.HasSuffix(lb, tail) {
			continue
		}
		rest := before[:len(before)-len(tail)]
		// The value is the last word of rest, after use/set/try.
		k := strings.LastIndexAny(rest, " \t\n")
		if k < 0 {
			return 0, 0, false
		}
		v := strings.Trim(rest[k+1:], "\"'`")
		verb := strings.ToLower(rest[:k])
		if !(strings.HasSuffix(verb, "use") || strings.HasSuffix(verb, "set") || strings.HasSuffix(verb, "try") || strings.HasSuffix(verb, "using")) {
			return 0, 0, false
		}
		if !literalSecret(v, true) || proseWord(v) || camelName(v) {
			return 0, 0, false
		}
		off := max(0, start-80) + k + 1
		lo := off + strings.Index(rest[k+1:], v)
		return lo, lo + len(v), true
	}
	return 0, 0, false
}

// userSlashPassword finds the password of "creds are app / PW", "login:
// admin/PW", "credentials: admin:PW" and "login admin password PW" after
// the keyword, which ends at i.
func userSlashPassword(text string, i, end int, out [][2]int) [][2]int {
	end = min(end, i+120)
	j := i
	for _, l := range []string{" are ", " is ", ": ", " - ", " "} {
		if strings.HasPrefix(text[j:end], l) {
			j += len(l)
			break
		}
	}
	if j == i {
		return out
	}
	ulo, uhi, next := shellField(text, j, end)
	if ulo == uhi || ulo != j && !isQuote(text[j]) {
		return out
	}
	user := text[ulo:uhi]
	// user/PW, user:PW in one word
	if k := strings.IndexAny(user, "/:"); k > 0 && k < len(user)-1 && !strings.Contains(user, "://") && !strings.ContainsAny(user[:k], "/.") {
		lo, hi := ulo+k+1, uhi
		for hi > lo && strings.IndexByte(".,;)", text[hi-1]) >= 0 {
			hi--
		}
		if literalSecret(text[lo:hi], false) {
			return append(out, [2]int{lo, hi})
		}
		return out
	}
	if !isUserName(user) {
		return out
	}
	// user / PW, user password PW
	k := next
	for k < end && text[k] == ' ' {
		k++
	}
	switch {
	case strings.HasPrefix(text[k:end], "/ "), strings.HasPrefix(text[k:end], ": "):
		k += 2
	case strings.HasPrefix(text[k:end], "password "):
		k += len("password ")
	default:
		return out
	}
	lo, hi, _ := shellField(text, k, end)
	for hi > lo && strings.IndexByte(".,;)", text[hi-1]) >= 0 {
		hi--
	}
	if lo < hi && literalSecret(text[lo:hi], false) && !proseWord(text[lo:hi]) {
		out = append(out, [2]int{lo, hi})
	}
	return out
}

// isUserName reports a word that can be a user's name: letters, digits,
// and . _ - @.
func isUserName(u string) bool {
	if u == "" || len(u) > 64 {
		return false
	}
	for i := 0; i < len(u); i++ {
		if !isNameByte(u[i]) && u[i] != '@' {
			return false
		}
	}
	return true
}

// hasPrefixFold is strings.HasPrefix with ASCII case folded.
func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}
