package query

import (
	"strings"
	"unicode/utf8"
)

// Literals returns the pieces of text every match of t must contain: the
// runs between `_` wildcards of a word, or a whole phrase. The index's
// block filters use them to skip blocks that cannot match. A regex term
// returns none (it may match anything). Pieces are case-folded to one
// member of each case orbit; block filters compare case-insensitively.
func (t *Term) Literals() [][]byte {
	key := strings.TrimPrefix(t.key, "f") // a word with channels
	if t.lit == nil || len(key) == 0 || key[0] != 'l' {
		return nil
	}
	var out [][]byte
	var cur []byte
	key = key[1:]
	for len(key) > 0 {
		tag := key[0]
		key = key[1:]
		if tag == 'w' {
			out = appendPiece(out, cur)
			cur = nil
			continue
		}
		r, size := utf8.DecodeRuneInString(key)
		key = key[size:]
		cur = utf8.AppendRune(cur, r)
	}
	return appendPiece(out, cur)
}

func appendPiece(out [][]byte, piece []byte) [][]byte {
	if len(piece) == 0 {
		return out
	}
	return append(out, piece)
}
