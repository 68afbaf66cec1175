package redact

import (
	"strings"
	"sync"
)

// literalSecret reports whether v, found where a password or secret is
// given (a flag's value, a .netrc's password, an assignment to a
// secret's name in a configuration), is a literal one rather than a
// reference to one ($VAR, ${VAR}, $(cmd), %VAR%, {{ x }}), a placeholder
// (<password>, ****, changeit is a password), a word of code or prose
// (None, required, input) or, unless letters is true, a name (a value of
// letters alone, which in code is as often a variable).
func literalSecret(v string, letters bool) bool {
	if len(v) < 3 || isReference(v) || strings.Trim(v, "*xX.•-_#?") == "" {
		return false
	}
	if v[0] == '/' || strings.HasPrefix(v, "~/") || strings.HasPrefix(v, "./") || strings.HasPrefix(v, "../") {
		return false // a path: PWD=/tmp
	}
	if strings.ContainsAny(v[:1], "<[{") && strings.ContainsAny(v[len(v)-1:], ">]}") {
		return false // <password>, [password], {password}
	}
	l := strings.ToLower(v)
	if stop := valueStopWords(); stop[l] || stop[unLeet(l)] {
		return false
	}
	if !letters && !hasDigitOrSymbol(v) {
		return false
	}
	return true
}

// isReference reports a value that names where the secret is: a shell,
// template or batch variable, a command substitution.
func isReference(v string) bool {
	switch {
	case strings.HasPrefix(v, "${") || strings.HasPrefix(v, "$(") || strings.HasPrefix(v, "{{") || strings.HasPrefix(v, "`"):
		return true
	case v[0] == '$':
		return isIdentifier(v[1:]) || v == "$" // $PGPASS; $ecr3t! is a literal
	case v[0] == '%' && len(v) > 2 && v[len(v)-1] == '%':
		return true
	case strings.HasPrefix(v, "env:") || strings.HasPrefix(v, "file:") || strings.HasPrefix(v, "fd:") || v == "stdin" || v == "-":
		return true // openssl's -passin env:VAR, file:PATH, stdin
	}
	return false
}

// valueStopWords are the values that are not secrets where one could be:
// placeholders, types, keywords of code, and the words of prose that
// follow "password is" or "password:". Built on first use, like
// cliToolsByName.
var valueStopWords = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`
		true false null nil none undefined yes no on off empty blank unset default auto
		string str bool boolean int integer number text varchar char bytes secretstr any object
		required optional missing invalid incorrect wrong correct valid expired needed necessary
		redacted hidden masked secret secrets password passwords passwd pass pwd token tokens key keys
		example sample placeholder dummy test value values your yours mine my the a an this that these those
		input output data args kwargs form params param request req res response result body user username
		self this cls config settings options opts env environ os getpass prompt field ask stdin
		hash hashed salt salted encrypted decrypted plain plaintext raw new old current same different
		here there below above following attached stored saved set reset changed generated provided
		too not also still now just only already being been is was be will should must can cannot
		in on at of for to from with without by via into as and or but if then else when while
		what which who where how why it its it's there their them they we you he she
		ok okay fine good bad weak strong long short simple secure insecure safe unsafe
		sent shown printed logged visible case sensitive protected encoded
		admin root guest login email name id
	`) {
		m[w] = true
	}
	return m
})

// proseWord reports a lower-case word that ends like an adjective, a
// participle or an adverb (hashed, missing, securely), or is one of
// valueStopWords: what follows "the password is" in prose that gives no
// password.
func proseWord(w string) bool {
	l := strings.ToLower(w)
	if valueStopWords()[l] {
		return true
	}
	for _, suf := range []string{"ed", "ing", "ly", "able", "ible", "ive", "ous", "ful", "less", "tion", "ment", "ness"} {
		if len(l) > len(suf)+2 && len(l) <= 12 && strings.HasSuffix(l, suf) && isLetters(l) {
			return true
		}
	}
	return false
}

func isLetters(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return s != ""
}

// camelName reports a value of letters that is a name in code:
// hashedPassword, userInput (words, with a change of case).
//
// Random letters read as words too (lzSdXVMNrg: lz, Sd, XVM, Nrg): a
// name's words have vowels, and its capitals start words of a few
// letters each.
func camelName(v string) bool {
	if !wordsIdentifier(v) || strings.Contains(v, "-") {
		return false // kebab-case is words of a passphrase, not a name in code
	}
	upper := 0
	for i := 0; i < len(v); i++ {
		if v[i] >= 'A' && v[i] <= 'Z' {
			upper++
		}
	}
	if 4*upper > len(v)+1 {
		return false // a capital in every few letters: random (VakuvXIBools), not words
	}
	words := 0
	for _, w := range splitWords(v) {
		if !strings.ContainsAny(strings.ToLower(w), "aeiouy") {
			return false
		}
		words++
	}
	if words >= 2 {
		return true
	}
	return strings.ContainsAny(v, "_.") // snake_case, dotted
}

// splitWords cuts a name at _, -, ., / and changes of case.
func splitWords(v string) []string {
	var out []string
	start := 0
	for i := 1; i <= len(v); i++ {
		if i == len(v) || strings.IndexByte("_-./", v[i]) >= 0 ||
			v[i] >= 'A' && v[i] <= 'Z' && v[i-1] >= 'a' && v[i-1] <= 'z' {
			if w := strings.Trim(v[start:i], "_-./"); w != "" {
				out = append(out, w)
			}
			start = i
		}
	}
	return out
}
