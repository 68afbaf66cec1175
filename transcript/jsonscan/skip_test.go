package jsonscan

import (
	"bytes"
	"testing"
)

// The JSON skipping as it was before StringEnd: an IndexByte call per
// string, and nested values skipped from quote to quote.
// FuzzSkipMatchesReference holds the skipping to it.

func refStringEnd(b []byte, i int) int {
	j := i + 1
	for {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return -1
		}
		j += k
		n := 0
		for p := j - 1; p > i && b[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			return j + 1
		}
		j++
	}
}

func refSkipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return refStringEnd(b, i)
	case '{', '[':
		return refSkipNested(b, i)
	default:
		j := i
		for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\t' && b[j] != '\n' && b[j] != '\r' {
			j++
		}
		if j == i {
			return -1
		}
		return j
	}
}

func refSkipNested(b []byte, i int) int {
	depth := 0
	for j := i; j < len(b); {
		q := bytes.IndexByte(b[j:], '"')
		stop := len(b)
		if q >= 0 {
			stop = j + q
		}
		for ; j < stop; j++ {
			switch b[j] {
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		if q < 0 {
			break
		}
		if j = refStringEnd(b, stop); j < 0 {
			return -1
		}
	}
	return -1
}

// skipSeeds are values whose ends fall at every offset of an eight-byte
// word, with escaped quotes and runs of backslashes before a quote at and
// across word edges, strings longer than the words tested before
// IndexByte takes over, and values cut short.
var skipSeeds = []string{
	`""`, `"a"`, `"0123456"`, `"01234567"`, `"012345678"`, `"` + string(bytes.Repeat([]byte("x"), 40)) + `"`,
	`"ab\"cd"`, `"abcdef\\"`, `"abcdef\\\"gh"`, `"abcdefg\"hijklmnop\\\\"`, `"\\\\\\\\\\\\\\\\\"x"`,
	`"` + string(bytes.Repeat([]byte(`\"`), 30)) + `"`, `"unterminated`, `"ends in escape\"`,
	`{"a":"b","c":[1,2,{"d":"e\"}"}]}`, `[{"x":"]"},"[",{}]`, `{"a":{"b":{"c":{"d":{"e":"` + string(bytes.Repeat([]byte("y"), 33)) + `"}}}}}`,
	`{"a":[1,2]`, `{"a":"b"}}`, `{"a":"b"]`, `[[[]]`, `true,`, `123}`, ` x`,
	`{"type":"tool_result","content":"` + string(bytes.Repeat([]byte(`line \"q\" \\n `), 9)) + `"}`,
}

// FuzzSkipMatchesReference: SkipValue and StringEnd find the end (or
// the failure) the quote-to-quote scanning found, from every start.
func FuzzSkipMatchesReference(f *testing.F) {
	for _, s := range skipSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for i := range b {
			if got, want := SkipValue(b, i), refSkipValue(b, i); got != want {
				t.Fatalf("SkipValue(%q, %d) = %d; reference %d", b, i, got, want)
			}
			if b[i] != '"' {
				continue
			}
			if got, want := StringEnd(b, i), refStringEnd(b, i); got != want {
				t.Fatalf("StringEnd(%q, %d) = %d; reference %d", b, i, got, want)
			}
		}
	})
}
