package redact

import "strings"

// jwtRule finds JSON Web Tokens where gitleaks' jwt rule cannot: cut by
// a terminal that wrapped a long line (pasted output of a program that
// printed one, a diff of an .env file), the rest of the token on the
// next lines after their indentation, or with no signature. A token's
// header and payload are base64url JSON objects ("eyJ" is `{"`), which
// is what makes it one; the span covers what of it there is.
func jwtRule() *rule {
	return &rule{kind: "jwt", keywords: []string{"eyj"}, priority: prioritySpecific, anchored: true,
		window: jwtMaxLines * 4096, find: findJWT}
}

// csJWT is the bytes of a token's parts and of the dots between them.
var csJWT = charset(alnumChars + "_-.=")

// jwtMaxLines bounds the lines a wrapped token is followed over.
const jwtMaxLines = 8

// jwtSignature is the length of the shortest signature (HMAC-SHA256's,
// 43 base64url characters): a token whose signature is shorter than
// that at a line's end goes on on the next line.
const jwtSignature = 43

func findJWT(text string, start, end int, out [][2]int) [][2]int {
	if !strings.HasPrefix(text[start:], "eyJ") || !wordStart(text, start) {
		return out
	}
	var token strings.Builder
	i := runOfSet(text, start, end, csJWT)
	token.WriteString(text[start:i])
	for range jwtMaxLines {
		if !jwtShort(token.String()) {
			break
		}
		j, next := wrappedRun(text, i, end)
		if next == j {
			break
		}
		token.WriteString(text[j:next])
		i = next
	}
	if !jwtHeaderPayload(token.String()) {
		return out
	}
	return append(out, [2]int{start, i})
}

// wrappedRun is the run of token bytes on the line after text[i], when
// text[i] ends a line and that line holds nothing but the run (after
// its indentation and a diff's mark, before trailing blanks): [j, next),
// next == j if none.
func wrappedRun(text string, i, end int) (j, next int) {
	k := i
	if k < end && text[k] == '\r' {
		k++
	}
	if k >= end || text[k] != '\n' {
		return i, i
	}
	k++
	for k < end && (text[k] == ' ' || text[k] == '\t') {
		k++
	}
	if k < end && text[k] == '+' {
		k++ // a diff's added line ('-', a removed one's, is a token byte)
	}
	r := runOfSet(text, k, end, csJWT)
	rest := r
	for rest < end && (text[rest] == ' ' || text[rest] == '\t') {
		rest++
	}
	if r == k || rest < end && text[rest] != '\n' && text[rest] != '\r' {
		return i, i
	}
	return k, r
}

// jwtShort reports whether a token, as read so far, lacks a part or has
// a signature too short to be whole.
func jwtShort(token string) bool {
	parts := strings.Split(token, ".")
	return len(parts) < 3 || len(parts[2]) < jwtSignature
}

// jwtHeaderPayload reports whether token starts with a header and a
// payload: "eyJ" and ten more bytes each, a dot between.
func jwtHeaderPayload(token string) bool {
	header, rest, ok := strings.Cut(token, ".")
	if !ok || len(header) < 13 || !strings.HasPrefix(rest, "eyJ") {
		return false
	}
	payload, _, _ := strings.Cut(rest, ".")
	return len(payload) >= 13 && !strings.ContainsAny(header+payload, "=")
}
