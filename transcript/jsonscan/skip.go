package jsonscan

// SkipSpace returns the index of the first byte at or after b[i] that is
// not JSON whitespace (len(b) for none).
func SkipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// SkipValue returns the index just past the value starting at b[i], -1
// when it does not end. It reads structure only: a string to its end
// (StringEnd), an object or array to its matching bracket, anything else
// to the next comma, bracket or space. Valid JSON skips as encoding/json
// reads it; what else it accepts is for lenient walks (FuzzSkipMatches
// Reference holds it to the quote-to-quote scanning it replaced).
func SkipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return StringEnd(b, i)
	case '{', '[':
		return skipNested(b, i)
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\t' && b[j] != '\n' && b[j] != '\r' {
		j++
	}
	if j == i {
		return -1
	}
	return j
}

// skipNested skips an object or array by counting brackets outside
// strings. In transcript JSON nearly every byte is inside a string, and
// the structure between two strings is a few bytes long: it is read a
// byte at a time, and each string skipped whole (StringEnd), instead of
// an IndexByte call to find each string's opening quote.
func skipNested(b []byte, i int) int {
	depth := 0
	for j := i; j < len(b); j++ {
		if !structural[b[j]] {
			continue
		}
		switch b[j] {
		case '"':
			end := StringEnd(b, j)
			if end < 0 {
				return -1
			}
			j = end - 1
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return j + 1
			}
		}
	}
	return -1
}

// IsStructural reports whether c is one of the bytes a scan of a nested
// value acts on: a quote or a bracket. One table load tells them from the
// rest (a colon, a comma, a digit), for scans like skipNested that keep
// more than a depth.
func IsStructural(c byte) bool { return structural[c] }

// structural is IsStructural's table.
var structural = [256]bool{'"': true, '{': true, '[': true, '}': true, ']': true}
