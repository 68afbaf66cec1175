package record

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// SessionIDOf is the session id of a transcript named name (without
// .jsonl; for a subagent, its session folder's name). A name that is
// valid UTF-8 is the id. Any other has each byte that is not part of a
// valid UTF-8 sequence written \xNN (and each backslash \\): the id is
// then text that every output prints as it is (JSON included, where an
// invalid byte became U+FFFD) and that can be typed back to --session,
// and it reads back to the name (issue 23: such a session could not be
// addressed by its id). The transcript's path keeps the name's bytes.
func SessionIDOf(name string) string {
	if utf8.ValidString(name) {
		return name
	}
	var b strings.Builder
	for i := 0; i < len(name); {
		r, size := utf8.DecodeRuneInString(name[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			fmt.Fprintf(&b, `\x%02x`, name[i])
		case r == '\\':
			b.WriteString(`\\`)
		default:
			b.WriteString(name[i : i+size])
		}
		i += max(size, 1)
	}
	return b.String()
}

// SessionHasPrefix reports whether the session id holds prefix at its
// start, as --session, show and forget take it. An id an older recall
// indexed with the raw bytes of a name that is not UTF-8 is also taken
// in its SessionIDOf form, which is how it is printed now.
func SessionHasPrefix(id, prefix string) bool {
	return strings.HasPrefix(id, prefix) || !utf8.ValidString(id) && strings.HasPrefix(SessionIDOf(id), prefix)
}
