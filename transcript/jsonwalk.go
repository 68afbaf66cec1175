package transcript

import (
	"errors"

	"github.com/recall-dev/recall/transcript/jsonscan"
)

// The walks of a transcript line.
//
// encoding/json validates every byte of a line before decoding it, and an
// assistant line that writes a file carries the whole file in its input:
// most of the indexer's time went there. The walks here read only the
// structure recall reads (top-level members, the message, its content
// blocks) and skip every other value with jsonscan's byte searches. They
// are lenient: they check structure, not every number and literal, and a
// differential fuzz test holds them to encoding/json's results on every
// line encoding/json accepts. What is the Claude Code reader's own is
// skipMemo: the first walk over a line remembers where the message's
// values end, for the walks into it that follow.

var errSyntax = errors.New("malformed JSON")

// eachMember calls fn with the raw key (without quotes, still escaped) and
// the raw value of each member of the object in b, in order. fn returns
// false to stop early. m (which may be nil) holds where values skipped
// before end.
func eachMember(b []byte, m *skipMemo, fn func(key, val []byte) bool) error {
	w := objectWalk{b: b}
	for {
		key, val, ok := w.next(m)
		if !ok {
			return w.err
		}
		if !fn(key, val) {
			return nil
		}
	}
}

// objectWalk is eachMember as a loop the caller writes (next), for the
// walks that run on every line: a call of fn per member cost more than
// the switch on its key. It is jsonscan.ObjectWalk with the memo's skip
// in the same function: jsonscan's Key, then the memo's skip, cost a call
// more per member, 5% of the extractor's time.
type objectWalk struct {
	b       []byte
	i       int
	started bool
	err     error // why the walk stopped early: errSyntax, or nil
}

// next returns the raw key and value of the object's next member, or
// ok false at its end or at an error (w.err).
func (w *objectWalk) next(m *skipMemo) (key, val []byte, ok bool) {
	b, i := w.b, w.i
	if !w.started {
		w.started = true
		i = jsonscan.SkipSpace(b, 0)
		if i >= len(b) || b[i] != '{' {
			return w.fail()
		}
		i = jsonscan.SkipSpace(b, i+1)
		if i < len(b) && b[i] == '}' {
			return nil, nil, false
		}
	} else {
		i = jsonscan.SkipSpace(b, i)
		if i >= len(b) {
			return w.fail()
		}
		if b[i] == '}' {
			return nil, nil, false
		}
		if b[i] != ',' {
			return w.fail()
		}
		i = jsonscan.SkipSpace(b, i+1)
	}
	if i >= len(b) || b[i] != '"' {
		return w.fail()
	}
	kend := jsonscan.StringEnd(b, i)
	if kend < 0 {
		return w.fail()
	}
	key = b[i+1 : kend-1]
	i = jsonscan.SkipSpace(b, kend)
	if i >= len(b) || b[i] != ':' {
		return w.fail()
	}
	vstart := jsonscan.SkipSpace(b, i+1)
	vend, err := m.skipMember(key, b, vstart)
	if err != nil {
		return w.fail()
	}
	w.i = vend
	return key, b[vstart:vend], true
}

// rest returns what follows the object once the walk has reached its
// closing brace (nothing after an error, nor after an empty object).
func (w *objectWalk) rest() []byte {
	if w.err != nil || !w.started {
		return nil
	}
	i := jsonscan.SkipSpace(w.b, w.i)
	if i < len(w.b) && w.b[i] == '}' {
		return w.b[i+1:]
	}
	return nil
}

func (w *objectWalk) fail() ([]byte, []byte, bool) {
	w.err = errSyntax
	w.i = len(w.b)
	return nil, nil, false
}

// eachElement calls fn with the raw value of each element of the array
// in b. m (which may be nil) holds where values skipped before end.
func eachElement(b []byte, m *skipMemo, fn func(val []byte) bool) error {
	w := jsonscan.WalkArray(b, 0)
	for {
		at, ok := w.Elem()
		if !ok {
			break
		}
		end, err := m.skipValue(b, at)
		if err != nil {
			return err
		}
		w.Skipped(end)
		if !fn(b[at:end]) {
			return nil
		}
	}
	if w.Failed() {
		return errSyntax
	}
	return nil
}

// skipValue returns the index just past the value starting at b[i]
// (jsonscan.SkipValue), or errSyntax.
func skipValue(b []byte, i int) (int, error) {
	if end := jsonscan.SkipValue(b, i); end >= 0 {
		return end, nil
	}
	return 0, errSyntax
}

// skipString returns the index just past the string starting at b[i]
// ('"').
func skipString(b []byte, i int) (int, error) {
	if end := jsonscan.StringEnd(b, i); end >= 0 {
		return end, nil
	}
	return 0, errSyntax
}

// skipMemo remembers where the values inside a line's message end, as
// the first walk over the line (parseRecord) skips the message: the walks
// into the message, its content and its blocks that follow find each
// value's end here instead of scanning its bytes again (a tool result's
// content was scanned four times). An end is the one jsonscan.SkipValue
// would find from the same byte: it scans forward from the value's first
// byte only, and the message's scan meets each nested value's first byte
// outside any string, in the same state.
type skipMemo struct {
	ends []skippedValue
	// record is set during the first walk: a "message" member's value
	// is skipped recording what it holds.
	record bool
}

type skippedValue struct {
	at *byte // the value's first byte
	n  int   // its length
}

const (
	// memoDepth is how deep inside the message values are remembered:
	// message, content, block, a block's input or content.
	memoDepth = 4
	// memoStrings is the shortest string worth remembering.
	memoStrings = 32
	// memoEntries bounds the memo; past it values are scanned again (a
	// line of many thousand tiny blocks must not make lookups quadratic).
	memoEntries = 64
)

func (m *skipMemo) reset() { m.ends = m.ends[:0] }

// skipMember is skipValue for the value of member key. During the first
// walk nothing is looked up: the memo holds only values inside a message,
// never a top-level value.
func (m *skipMemo) skipMember(key, b []byte, i int) (int, error) {
	if m == nil || m.record {
		if i < len(b) && b[i] == '"' {
			return skipString(b, i)
		}
		if m != nil && string(key) == "message" && i < len(b) && (b[i] == '{' || b[i] == '[') {
			return m.skipRecording(b, i)
		}
		return skipValue(b, i)
	}
	return m.skipValue(b, i)
}

// skipValue returns the index just past the value starting at b[i],
// remembered or found.
func (m *skipMemo) skipValue(b []byte, i int) (int, error) {
	if m != nil && i < len(b) && (b[i] == '"' || b[i] == '{' || b[i] == '[') {
		at := &b[i]
		for _, e := range m.ends {
			if e.at == at {
				if i+e.n <= len(b) {
					return i + e.n, nil
				}
				break // ends past b: scan, and fail as a scan would
			}
		}
	}
	return skipValue(b, i)
}

func (m *skipMemo) remember(b []byte, start, end int) {
	if len(m.ends) < memoEntries {
		m.ends = append(m.ends, skippedValue{at: &b[start], n: end - start})
	}
}

// skipRecording is jsonscan's skip of a nested value that remembers the
// objects and arrays it passes up to memoDepth deep, and the long strings
// inside them.
func (m *skipMemo) skipRecording(b []byte, i int) (int, error) {
	var open [memoDepth]int // where the open bracket at each depth is
	depth := 0
	for j := i; j < len(b); j++ {
		if !jsonscan.IsStructural(b[j]) {
			continue
		}
		switch b[j] {
		case '"':
			end := jsonscan.StringEnd(b, j)
			if end < 0 {
				return 0, errSyntax
			}
			if depth < memoDepth && end-j >= memoStrings {
				m.remember(b, j, end)
			}
			j = end - 1
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
	return 0, errSyntax
}

// decodeBool reads a raw JSON true.
func decodeBool(raw []byte) bool { return string(raw) == "true" }
