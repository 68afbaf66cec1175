// Package tsvfield escapes and unescapes the fields of recall's TSV
// files: the rows, the manifest, the events and the term index's keys all
// write a backslash, tab, newline and carriage return as \\, \t, \n and
// \r, so every record is one line.
package tsvfield

import (
	"bytes"
	"strings"
)

// Append appends s with '\\', '\t', '\n' and '\r' escaped so that a
// row is always one line with a fixed number of columns.
func Append(dst []byte, s string) []byte {
	if !needsEscape(s) {
		return append(dst, s...)
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\':
			dst = append(dst, '\\', '\\')
		case '\t':
			dst = append(dst, '\\', 't')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

// needsEscape reports whether s holds a byte Append rewrites. Four
// vectorised searches beat one byte-at-a-time loop on message text.
func needsEscape(s string) bool {
	return strings.IndexByte(s, '\\') >= 0 || strings.IndexByte(s, '\n') >= 0 ||
		strings.IndexByte(s, '\t') >= 0 || strings.IndexByte(s, '\r') >= 0
}

// Unescape reverses Append. An unknown escape keeps both bytes, so
// any input decodes without error.
func Unescape(b []byte) string {
	if bytes.IndexByte(b, '\\') < 0 {
		return string(b)
	}
	return string(UnescapeAppend(nil, b))
}

// UnescapeAppend appends the unescaped form of b to dst.
func UnescapeAppend(dst, b []byte) []byte {
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c != '\\' || i+1 == len(b) {
			dst = append(dst, c)
			continue
		}
		i++
		switch b[i] {
		case '\\':
			dst = append(dst, '\\')
		case 't':
			dst = append(dst, '\t')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		default:
			dst = append(dst, '\\', b[i])
		}
	}
	return dst
}
