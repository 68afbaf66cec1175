package transcript

import (
	"bytes"
	"reflect"
	"testing"
)

// The JSON skipping as it was before stringEnd: an IndexByte call per
// string, and skipNested and skipRecording jumping from quote to quote.
// FuzzSkipMatchesReference holds the skipping to it.

func refSkipString(b []byte, i int) (int, error) {
	j := i + 1
	for {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return 0, errSyntax
		}
		j += k
		n := 0
		for p := j - 1; p > i && b[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			return j + 1, nil
		}
		j++
	}
}

func refSkipValue(b []byte, i int) (int, error) {
	if i >= len(b) {
		return 0, errSyntax
	}
	switch b[i] {
	case '"':
		return refSkipString(b, i)
	case '{', '[':
		return refSkipNested(b, i)
	default:
		j := i
		for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\t' && b[j] != '\n' && b[j] != '\r' {
			j++
		}
		if j == i {
			return 0, errSyntax
		}
		return j, nil
	}
}

func refSkipNested(b []byte, i int) (int, error) {
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
					return j + 1, nil
				}
			}
		}
		if q < 0 {
			break
		}
		end, err := refSkipString(b, stop)
		if err != nil {
			return 0, err
		}
		j = end
	}
	return 0, errSyntax
}

func refSkipRecording(m *skipMemo, b []byte, i int) (int, error) {
	var open [memoDepth]int
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
				if depth <= memoDepth {
					open[depth-1] = j
				}
			case '}', ']':
				if depth >= 2 && depth <= memoDepth {
					m.remember(b, open[depth-1], j+1)
				}
				depth--
				if depth == 0 {
					return j + 1, nil
				}
			}
		}
		if q < 0 {
			break
		}
		end, err := refSkipString(b, stop)
		if err != nil {
			return 0, err
		}
		if depth < memoDepth && end-stop >= memoStrings {
			m.remember(b, stop, end)
		}
		j = end
	}
	return 0, errSyntax
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

// FuzzSkipMatchesReference: skipValue, skipNested and skipRecording find
// the end (or the error) the quote-to-quote scanning found, from every
// start, and skipRecording remembers the same values.
func FuzzSkipMatchesReference(f *testing.F) {
	for _, s := range skipSeeds {
		f.Add([]byte(s))
	}
	for _, s := range skipMemoSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for i := range b {
			got, gerr := skipValue(b, i)
			want, werr := refSkipValue(b, i)
			if got != want || (gerr == nil) != (werr == nil) {
				t.Fatalf("skipValue(%q, %d) = %d, %v; reference %d, %v", b, i, got, gerr, want, werr)
			}
			if b[i] != '{' && b[i] != '[' {
				continue
			}
			var gm, wm skipMemo
			got, gerr = gm.skipRecording(b, i)
			want, werr = refSkipRecording(&wm, b, i)
			if got != want || (gerr == nil) != (werr == nil) || !reflect.DeepEqual(gm.ends, wm.ends) {
				t.Fatalf("skipRecording(%q, %d) = %d, %v, %v; reference %d, %v, %v", b, i, got, gerr, gm.ends, want, werr, wm.ends)
			}
		}
	})
}

// refEachMember is eachMember as it was before objectWalk: a callback per
// member, the separators checked after it.
func refEachMember(b []byte, fn func(key, val []byte) bool) error {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return errSyntax
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return nil
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return errSyntax
		}
		kend, err := refSkipString(b, i)
		if err != nil {
			return err
		}
		key := b[i+1 : kend-1]
		i = skipSpace(b, kend)
		if i >= len(b) || b[i] != ':' {
			return errSyntax
		}
		vstart := skipSpace(b, i+1)
		vend, err := refSkipValue(b, vstart)
		if err != nil {
			return err
		}
		if !fn(key, b[vstart:vend]) {
			return nil
		}
		i = skipSpace(b, vend)
		if i >= len(b) {
			return errSyntax
		}
		if b[i] == '}' {
			return nil
		}
		if b[i] != ',' {
			return errSyntax
		}
		i = skipSpace(b, i+1)
	}
}

// FuzzWalkMatchesReference: objectWalk, as parseRecord drives it (with a
// recording memo) and as eachMember does (without one), yields the
// members and the error the callback walk yielded, and stopping after
// any member gives no error, as the callback's false did.
func FuzzWalkMatchesReference(f *testing.F) {
	addFixtureLines(f)
	for _, s := range skipMemoSeeds {
		f.Add([]byte(s))
	}
	for _, s := range []string{`{}`, ` { } `, `{"a":1 , "b" : "c" }`, `{"a":1,}`, `{"a":1 "b":2}`, `{"a"}`, `{"a":}`, `{"a":1`, `{"a":1}x`, `[1]`, `{"message":{"x":[1]}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var want [][2]string
		werr := refEachMember(b, func(key, val []byte) bool {
			want = append(want, [2]string{string(key), string(val)})
			return true
		})
		for _, memo := range []*skipMemo{nil, {record: true}} {
			var got [][2]string
			w := objectWalk{b: b}
			for {
				key, val, ok := w.next(memo)
				if !ok {
					break
				}
				got = append(got, [2]string{string(key), string(val)})
			}
			if !reflect.DeepEqual(got, want) || (w.err == nil) != (werr == nil) {
				t.Fatalf("walk of %q (memo %v): %q, %v; reference %q, %v", b, memo != nil, got, w.err, want, werr)
			}
		}
		for stop := range want {
			n := 0
			err := eachMember(b, nil, func(key, val []byte) bool {
				n++
				return n <= stop
			})
			if err != nil || n != stop+1 {
				t.Fatalf("eachMember of %q stopped after member %d: %d calls, %v", b, stop, n, err)
			}
		}
	})
}
