package redact

import "strings"

// Prechecks: for the rules that meet most keyword occurrences in
// conversations, a hand-written test of what the rule's expression
// requires right after (or around) the keyword, run before the
// expression. Each is a necessary condition, never a match of its own:
// where it says false, the expression and the rule's check in Go would
// have found nothing; where it says true, both run as before. In the
// prechecks of case-folded rules (the assignments and the quoted run), a
// byte past ASCII, which a folded class can match as part of ſ or K,
// always answers true. FuzzPrechecks runs every text through a redactor with
// and one without them (newRedactor(false)) and compares the findings.

// anchoredPrecheck returns the precheck of the anchored rule kind, or
// nil: a test of text[start:end] (end the rule's window), which starts
// with one of its keywords.
func anchoredPrecheck(kind string) func(text string, start, end int) bool {
	switch kind {
	case "password", "generic-secret":
		return mayBeAssignment
	case "url-password":
		return mayBeURLPassword
	}
	return nil
}

// wholePrecheck returns, for a gitleaks rule that runs over windows or
// whole texts, a test that every window or text it matches passes, or
// nil.
func wholePrecheck(id string) func(text string) bool {
	switch id {
	case "hashicorp-tf-password":
		// Every match holds ("[a-z0-9=_\-]{8,20}"), case folded; the
		// rule is keyed by "password", which conversations are full of,
		// and its expression starts with [\w.-]{0,50}? (run by the
		// slow machine over each window).
		return hasQuotedRun8
	case "curl-auth-user":
		// [ \t\n\r](?:-u|--user), after curl and any lines: the
		// expression runs over each whole text holding "curl".
		return func(text string) bool { return hasFlag(text, "-u", "--user") }
	case "curl-auth-header":
		// [ \t\n\r](?:-H|--header), the same way.
		return func(text string) bool { return hasFlag(text, "-H", "--header") }
	}
	return nil
}

// hasFlag reports whether text holds short or long after one of
// [ \t\n\r], case sensitive (both start with '-').
func hasFlag(text, short, long string) bool {
	for i := 1; i < len(text); i++ {
		j := strings.IndexByte(text[i:], '-')
		if j < 0 {
			return false
		}
		i += j
		if c := text[i-1]; (c == ' ' || c == '\t' || c == '\n' || c == '\r') &&
			(strings.HasPrefix(text[i:], short) || strings.HasPrefix(text[i:], long)) {
			return true
		}
	}
	return false
}

// maxAssignedName bounds the keyword and name of an assignment (the
// longest keyword, encryption_key, and the 20 more [\w.-] the expression
// allows), in ASCII bytes.
const maxAssignedName = len("encryption_key") + 20

// isNameByte is an ASCII byte of [\w.-].
func isNameByte(c byte) bool { return isWord(c) || c == '.' || c == '-' }

// isPerlSpace is Go's \s: [\t\n\f\r ].
func isPerlSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'
}

func isQuote(c byte) bool { return c == '"' || c == '\'' || c == '`' }

// mayBeAssignment is the precheck of assignment()'s expression as the
// password and generic-secret rules accept it. The keyword and the rest
// of the name are [\w.-], so they run to the first byte that is not one
// (the separator or quote after them is not), and that run is at most
// maxAssignedName bytes. Then come an optional backslash and quote, and
// the separator: \s{0,3} before one of := => = :, or spaces alone, which
// the rules' check turns down unless the keyword is a flag's name
// (spacedInProse).
func mayBeAssignment(text string, start, end int) bool {
	i := start
	for i < end && isNameByte(text[i]) {
		i++
	}
	if i-start > maxAssignedName {
		return false
	}
	if i < end && text[i] == '\\' {
		i++
	}
	quoted := false
	if i < end && isQuote(text[i]) {
		i++
		quoted = true
	}
	if i >= end {
		return false
	}
	switch c := text[i]; {
	case c >= 0x80:
		return true
	case c == ':' || c == '=':
		return true
	case c == ',':
		return quoted // define('DB_PASSWORD', …): a quote, then the comma
	case isPerlSpace(c):
		n := 0
		for i+n < end && n <= 3 && isPerlSpace(text[i+n]) {
			n++
		}
		if n <= 3 && i+n < end && (text[i+n] == ':' || text[i+n] == '=' || text[i+n] == ',' && quoted) {
			return true
		}
		// Spaces alone: a flag's value, or prose.
		return (c == ' ' || c == '\t') && flagName(text, start)
	}
	return false
}

// flagName reports a keyword that starts a command-line flag ("--password",
// " -password"): spacedInProse's exception.
func flagName(text string, start int) bool {
	return start > 0 && text[start-1] == '-' &&
		(start == 1 || text[start-2] == '-' || isSpace(text[start-2]))
}

// isURLUserByte is a byte the url-password rule's user part can hold: not
// one of [\s:@/?#\[\]"'\x60<>\\].
func isURLUserByte(c byte) bool {
	switch c {
	case ':', '@', '/', '?', '#', '[', ']', '"', '\'', '`', '<', '>', '\\':
		return false
	}
	return !isPerlSpace(c)
}

// isURLPasswordByte is a byte the url-password rule's password can hold:
// not one of [\s/?"'\x60<>\\] (':' and '@' can).
func isURLPasswordByte(c byte) bool {
	switch c {
	case '/', '?', '"', '\'', '`', '<', '>', '\\':
		return false
	}
	return !isPerlSpace(c)
}

// mayBeURLPassword is the precheck of the url-password rule: after "://"
// the user part runs to a ':' (it holds none), and the password after it
// to an '@' that follows at least one byte of it.
func mayBeURLPassword(text string, start, end int) bool {
	i := start + len("://")
	for i < end && isURLUserByte(text[i]) {
		i++
	}
	if i >= end || text[i] != ':' {
		return false
	}
	for j := i + 1; j < end && isURLPasswordByte(text[j]); j++ {
		if text[j] == '@' && j > i+1 {
			return true
		}
	}
	return false
}

// isQuotedRunByte is a byte a character of (?i)[a-z0-9=_\-] can be made
// of: the ASCII ones, and any byte past ASCII (ſ and K fold to s and k).
func isQuotedRunByte(c byte) bool {
	return isAlnum(c) || c == '=' || c == '_' || c == '-' || c >= 0x80
}

// hasQuotedRun8 reports whether text holds a '"', 8 or more bytes of
// isQuotedRunByte and a '"'.
func hasQuotedRun8(text string) bool {
	for i := 0; i < len(text); i++ {
		if text[i] != '"' {
			continue
		}
		j := i + 1
		for j < len(text) && isQuotedRunByte(text[j]) {
			j++
		}
		if j < len(text) && text[j] == '"' && j-i-1 >= 8 {
			return true
		}
		i = j - 1
	}
	return false
}
