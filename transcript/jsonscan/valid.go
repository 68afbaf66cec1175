package jsonscan

// MaxDepth is encoding/json's nesting limit: a value nested deeper is not
// valid JSON to it.
const MaxDepth = 10000

// Valid reports whether b is one JSON value, as json.Valid does (which
// does not check that strings are UTF-8).
func Valid(b []byte) bool {
	end, ok := ValidValue(b, SkipSpace(b, 0), 0)
	return ok && SkipSpace(b, end) == len(b)
}

// ValidValue checks the value starting at b[i] as encoding/json does,
// inside depth containers (0 for a top-level value), and returns the
// index just past it; 0, false when it is not valid.
func ValidValue(b []byte, i, depth int) (end int, ok bool) {
	if i >= len(b) {
		return 0, false
	}
	switch c := b[i]; {
	case c == '"':
		end, _, ok = ValidString(b, i)
		return end, ok
	case c == '{' || c == '[':
		return validContainer(b, i, depth)
	case c == '-' || '0' <= c && c <= '9':
		return numberEnd(b, i)
	case c == 't':
		return literalEnd(b, i, "true")
	case c == 'f':
		return literalEnd(b, i, "false")
	case c == 'n':
		return literalEnd(b, i, "null")
	}
	return 0, false
}

// validContainer checks the object or array starting at b[i] ('{' or
// '['). Its members are checked in a loop of its own, not by ObjectWalk
// and ArrayWalk: a call more per member (the walk's step, then the check
// of the value) cost a few percent of the Codex and Gemini readers' time,
// most of which is checking lines.
func validContainer(b []byte, i, depth int) (int, bool) {
	if depth >= MaxDepth {
		return 0, false
	}
	object, close := b[i] == '{', byte(']')
	if object {
		close = '}'
	}
	i = SkipSpace(b, i+1)
	if i < len(b) && b[i] == close {
		return i + 1, true
	}
	for {
		var ok bool
		if object { // the member's key and colon
			if i >= len(b) || b[i] != '"' {
				return 0, false
			}
			if i, _, ok = ValidString(b, i); !ok {
				return 0, false
			}
			if i = SkipSpace(b, i); i >= len(b) || b[i] != ':' {
				return 0, false
			}
			i = SkipSpace(b, i+1)
		}
		if i, ok = ValidValue(b, i, depth+1); !ok {
			return 0, false
		}
		if i = SkipSpace(b, i); i >= len(b) {
			return 0, false
		}
		switch b[i] {
		case ',':
			i = SkipSpace(b, i+1)
		case close:
			return i + 1, true
		default:
			return 0, false
		}
	}
}

// numberEnd checks the number starting at b[i] and returns its end:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func numberEnd(b []byte, i int) (int, bool) {
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		i = digitsEnd(b, i+1)
	default:
		return 0, false
	}
	if i < len(b) && b[i] == '.' {
		j := digitsEnd(b, i+1)
		if j == i+1 {
			return 0, false
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digitsEnd(b, i)
		if j == i {
			return 0, false
		}
		i = j
	}
	return i, true
}

func digitsEnd(b []byte, i int) int {
	for i < len(b) && '0' <= b[i] && b[i] <= '9' {
		i++
	}
	return i
}

// literalEnd checks that lit (true, false or null) starts at b[i].
func literalEnd(b []byte, i int, lit string) (int, bool) {
	if len(b)-i >= len(lit) && string(b[i:i+len(lit)]) == lit {
		return i + len(lit), true
	}
	return 0, false
}
