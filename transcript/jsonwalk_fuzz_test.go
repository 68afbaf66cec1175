package transcript

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/recall-dev/recall/record"
	"github.com/recall-dev/recall/transcript/jsonscan"
)

// skipMemoSeeds are lines where a remembered end could go wrong if the
// memo were unsound: scalars holding brackets or quotes, duplicate
// messages, blocks past the memo's bound, strings ending at the edge of a
// value, unbalanced and cut messages.
var skipMemoSeeds = []string{
	`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","content":[{"type":"text","text":"` + strings.Repeat("x", 40) + `"}]}]},"toolUseResult":{"a":[1,2]}}`,
	`{"type":"assistant","message":{"content":[{"type":"text","text":"` + strings.Repeat("long text \"quoted\" ", 4) + `"},{"type":"tool_use","name":"Bash","input":{"command":"` + strings.Repeat("ls ", 20) + `"}}]}}`,
	`{"type":"assistant","message":{"content":[{"type":"text","text":x{"y"},{"type":"text","text":"` + strings.Repeat("z", 40) + `"}]}}`,
	`{"type":"assistant","message":{"content":[{"type":"text","text":"a"} {"type":"text","text":"` + strings.Repeat("b", 40) + `"}]}}`,
	`{"type":"user","message":{"content":"` + strings.Repeat("first ", 10) + `"},"message":{"content":"` + strings.Repeat("second ", 10) + `"}}`,
	`{"type":"assistant","message":{"content":[` + strings.Repeat(`{"type":"text","text":"`+strings.Repeat("w", 33)+`"},`, 70) + `{"type":"text","text":"end of many blocks"}]}}`,
	`{"type":"assistant","message":{"content":[{"type":"text","text":"` + strings.Repeat("q", 40) + `\\"}]}}`,
	`{"type":"assistant","message":{"content":[{"type":"text","text":"` + strings.Repeat("c", 40) + `"}]`,
	`{"type":"assistant","message":{"content":[{"type":"text","text":"` + strings.Repeat("d", 40) + `"}]]}}`,
	`{"type":"assistant","message":{"content":{"type":"text","text":"` + strings.Repeat("e", 40) + `"}}}`,
	`{"type":"assistant","message":{"model":x"y,"content":[{"type":"text","text":"` + strings.Repeat("f", 40) + `"}]}}`,
	`{"type":"assistant","message":[{"content":"x"}]}`,
}

// FuzzSkipMemo: the extractor gives the same rows, counts and errors
// whether the walks into a message use the ends its first walk remembered
// (skipMemo) or scan the values again, on any line, valid JSON or not.
func FuzzSkipMemo(f *testing.F) {
	addFixtureLines(f)
	for _, s := range skipMemoSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		with := &lineExtractor{kind: record.KindMain, source: "/p/s.jsonl", gen: 3}
		without := &lineExtractor{kind: record.KindMain, source: "/p/s.jsonl", gen: 3, noMemo: true}
		errWith, errWithout := with.add(line, 7), without.add(line, 7)
		if (errWith == nil) != (errWithout == nil) {
			t.Fatalf("error %v with the memo, %v without, for %q", errWith, errWithout, line)
		}
		if !reflect.DeepEqual(with.rows, without.rows) || with.counts != without.counts ||
			with.session != without.session || with.project != without.project || with.timestamp() != without.timestamp() {
			t.Fatalf("memo changed the result for %q:\nwith    %+v %v\nwithout %+v %v", line, with.rows, with.counts, without.rows, without.counts)
		}
	})
}

// refSkipRecording is skipRecording as it was before it read a byte at a
// time: from quote to quote with IndexByte, each string skipped whole.
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
		end := jsonscan.StringEnd(b, stop) // held to its reference in jsonscan
		if end < 0 {
			return 0, errSyntax
		}
		if depth < memoDepth && end-stop >= memoStrings {
			m.remember(b, stop, end)
		}
		j = end
	}
	return 0, errSyntax
}

// FuzzSkipRecording: skipRecording ends where jsonscan.SkipValue ends (or
// fails where it fails), from every start, as the memo's soundness needs,
// and remembers the values the quote-to-quote scanning remembered.
func FuzzSkipRecording(f *testing.F) {
	for _, s := range skipMemoSeeds {
		f.Add([]byte(s))
	}
	for _, s := range []string{`{"a":"b","c":[1,2,{"d":"e\"}"}]}`, `[{"x":"]"},"[",{}]`, `{"a":[1,2]`, `{"a":"b"}}`, `[[[]]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for i := range b {
			if b[i] != '{' && b[i] != '[' {
				continue
			}
			var gm, wm skipMemo
			got, gerr := gm.skipRecording(b, i)
			want, werr := refSkipRecording(&wm, b, i)
			if got != want || (gerr == nil) != (werr == nil) || !reflect.DeepEqual(gm.ends, wm.ends) {
				t.Fatalf("skipRecording(%q, %d) = %d, %v, %v; reference %d, %v, %v", b, i, got, gerr, gm.ends, want, werr, wm.ends)
			}
			if skip := jsonscan.SkipValue(b, i); gerr == nil && got != skip || gerr != nil && skip >= 0 {
				t.Fatalf("skipRecording(%q, %d) = %d, %v; jsonscan.SkipValue %d", b, i, got, gerr, skip)
			}
		}
	})
}

// FuzzWalkWithMemo: objectWalk, as parseRecord drives it (with a
// recording memo) and as eachMember does (without one), yields the
// members and the error jsonscan.ObjectWalk yields (which
// FuzzWalkMatchesReference holds to the callback walk objectWalk
// replaced), and stopping after any member gives no error.
func FuzzWalkWithMemo(f *testing.F) {
	addFixtureLines(f)
	for _, s := range skipMemoSeeds {
		f.Add([]byte(s))
	}
	for _, s := range []string{`{}`, ` { } `, `{"a":1 , "b" : "c" }`, `{"a":1,}`, `{"a":1 "b":2}`, `{"a"}`, `{"a":}`, `{"a":1`, `{"a":1}x`, `[1]`, `{"message":{"x":[1]}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var want [][2]string
		ref := jsonscan.WalkObject(b, 0)
		for {
			key, val, ok := ref.Next()
			if !ok {
				break
			}
			want = append(want, [2]string{string(key), string(val)})
		}
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
			if !reflect.DeepEqual(got, want) || (w.err != nil) != ref.Failed() {
				t.Fatalf("walk of %q (memo %v): %q, %v; jsonscan %q, failed %v", b, memo != nil, got, w.err, want, ref.Failed())
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
