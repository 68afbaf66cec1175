// Package tsvfield escapes and unescapes the fields of recall's TSV
// files: the rows, the manifest, the events and the term index's keys all
// write a backslash, tab, newline and carriage return as \\, \t, \n and
// \r, so every record is one line.
package tsvfield

import "bytes"

// Append appends s with '\\', '\t', '\n' and '\r' escaped so that a
// row is always one line with a fixed number of columns. The runs between
// those bytes are copied whole: most message texts hold a newline, and
// escaping them a byte at a time was 3% of a full index.
func Append(dst []byte, s string) []byte {
	for {
		i := indexSpecial(s)
		if i < 0 {
			return append(dst, s...)
		}
		dst = append(dst, s[:i]...)
		dst = append(dst, '\\', escapeLetter[s[i]])
		s = s[i+1:]
	}
}

// escapeLetter is the letter after the backslash that stands for each
// byte Append escapes.
var escapeLetter = [256]byte{'\\': '\\', '\t': 't', '\n': 'n', '\r': 'r'}

// Plain reports whether Append writes s as it is: s holds no byte it
// escapes.
func Plain(s string) bool { return indexSpecial(s) < 0 }

// indexSpecial is the index of the first '\\', '\t', '\n' or '\r' in s,
// or -1. It tests eight bytes at a time.
func indexSpecial(s string) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	i := 0
	for ; i+8 <= len(s); i += 8 {
		x := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		// Three of the four special bytes are below 14 ('\t' 9, '\n'
		// 10, '\r' 13): a byte of x below 14 sets its high bit in
		// (x-ones*14)&^x. A backslash makes y = x^(ones*'\\') zero
		// there, which sets its high bit in (y-ones)&^y. A borrow may
		// also flag a byte above a flagged one, never one before the
		// first, and a control byte below 14 that needs no escape flags
		// a word with none: its bytes are then looked at one by one.
		y := x ^ (ones * '\\')
		if ((x-ones*14)&^x|(y-ones)&^y)&highs == 0 {
			continue
		}
		for j := i; j < i+8; j++ {
			if isSpecial(s[j]) {
				return j
			}
		}
	}
	for ; i < len(s); i++ {
		if isSpecial(s[i]) {
			return i
		}
	}
	return -1
}

// isSpecial reports whether c is written escaped.
func isSpecial(c byte) bool { return c == '\\' || c == '\t' || c == '\n' || c == '\r' }

// Unescape reverses Append. An unknown escape keeps both bytes, so
// any input decodes without error.
func Unescape(b []byte) string {
	if bytes.IndexByte(b, '\\') < 0 {
		return string(b)
	}
	return string(UnescapeAppend(nil, b))
}

// UnescapeAppend appends the unescaped form of b to dst. The runs
// between backslashes are copied whole: a byte at a time, undoing the
// escapes of a search's candidate rows was a tenth of matching them.
func UnescapeAppend(dst, b []byte) []byte {
	for {
		i := bytes.IndexByte(b, '\\')
		if i < 0 || i+1 == len(b) {
			return append(dst, b...) // a last lone backslash is kept
		}
		dst = append(dst, b[:i]...)
		switch b[i+1] {
		case '\\':
			dst = append(dst, '\\')
		case 't':
			dst = append(dst, '\t')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		default:
			dst = append(dst, '\\', b[i+1])
		}
		b = b[i+2:]
	}
}

// ParseUint32 reads a field that holds a uint32 in decimal digits and
// nothing else.
func ParseUint32(b []byte) (uint32, bool) {
	if len(b) == 0 || len(b) > 10 {
		return 0, false
	}
	var v uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + uint64(c-'0')
	}
	return uint32(v), v <= 1<<32-1
}
