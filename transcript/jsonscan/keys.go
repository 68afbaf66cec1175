package jsonscan

import "unicode/utf8"

// PlainKey reports whether a raw key (as written, without its quotes) is
// ASCII without escapes: one that FieldIndex matches as encoding/json
// does. encoding/json unescapes a key and matches it by Unicode case
// folding, which takes some letters past ASCII for ASCII ones (ſ for s,
// K for k): a key that is not plain is for encoding/json to match.
func PlainKey(key []byte) bool {
	for _, c := range key {
		if c >= utf8.RuneSelf || c == '\\' {
			return false
		}
	}
	return true
}

// FieldIndex returns the index of the name in names that a plain key
// (PlainKey) names, as encoding/json matches a key to a struct field:
// exactly, else ignoring ASCII case; -1 for none.
func FieldIndex(key []byte, names []string) int {
	folded := -1
	for f, name := range names {
		if len(name) != len(key) {
			continue
		}
		if string(key) == name {
			return f
		}
		if folded < 0 && equalFoldASCII(key, name) {
			folded = f
		}
	}
	return folded
}

func equalFoldASCII(key []byte, name string) bool {
	for i := range len(key) {
		a, b := key[i], name[i]
		if 'A' <= a && a <= 'Z' {
			a += 'a' - 'A'
		}
		if 'A' <= b && b <= 'Z' {
			b += 'a' - 'A'
		}
		if a != b {
			return false
		}
	}
	return true
}
