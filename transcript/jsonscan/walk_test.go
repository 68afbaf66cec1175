package jsonscan

import (
	"encoding/json"
	"reflect"
	"testing"
)

// refEachMember is the member walk as it was before ObjectWalk: a
// callback per member, the separators checked after it; false where the
// object is malformed.
func refEachMember(b []byte, fn func(key, val []byte)) bool {
	i := SkipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false
	}
	i = SkipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return true
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return false
		}
		kend := refStringEnd(b, i)
		if kend < 0 {
			return false
		}
		key := b[i+1 : kend-1]
		i = SkipSpace(b, kend)
		if i >= len(b) || b[i] != ':' {
			return false
		}
		vstart := SkipSpace(b, i+1)
		vend := refSkipValue(b, vstart)
		if vend < 0 {
			return false
		}
		fn(key, b[vstart:vend])
		i = SkipSpace(b, vend)
		if i >= len(b) {
			return false
		}
		if b[i] == '}' {
			return true
		}
		if b[i] != ',' {
			return false
		}
		i = SkipSpace(b, i+1)
	}
}

// refEachElement is refEachMember for an array's elements.
func refEachElement(b []byte, fn func(val []byte)) bool {
	i := SkipSpace(b, 0)
	if i >= len(b) || b[i] != '[' {
		return false
	}
	i = SkipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return true
	}
	for {
		end := refSkipValue(b, i)
		if end < 0 {
			return false
		}
		fn(b[i:end])
		i = SkipSpace(b, end)
		if i >= len(b) {
			return false
		}
		if b[i] == ']' {
			return true
		}
		if b[i] != ',' {
			return false
		}
		i = SkipSpace(b, i+1)
	}
}

// FuzzWalkMatchesReference: ObjectWalk and ArrayWalk yield the members,
// elements and failures the callback walks yield, by Next and by their
// two steps (Key or Elem, then Skipped), end where the container ends,
// and from WalkValidObject read a valid object as it is.
func FuzzWalkMatchesReference(f *testing.F) {
	for _, s := range skipSeeds {
		f.Add([]byte(s))
	}
	for _, s := range []string{`{}`, ` { } `, `{"a":1 , "b" : "c" }`, `{"a":1,}`, `{"a":1 "b":2}`, `{"a"}`, `{"a":}`, `{"a":1`,
		`{"a":1}x`, `{"":0"}`, `[1]`, ` [ 1 , "b" , {} ] `, `[1,]`, `[`, `[]`, `{"a\"b":1}`, `{"\u0041":"` + "\x01" + `"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var want, got, stepped [][2]string
		wantOK := refEachMember(b, func(key, val []byte) { want = append(want, [2]string{string(key), string(val)}) })
		w := WalkObject(b, 0)
		for key, val, ok := w.Next(); ok; key, val, ok = w.Next() {
			got = append(got, [2]string{string(key), string(val)})
		}
		s := WalkObject(b, 0)
		for key, at, ok := s.Key(); ok; key, at, ok = s.Key() {
			end := SkipValue(b, at)
			if end > at {
				stepped = append(stepped, [2]string{string(key), string(b[at:end])})
			}
			s.Skipped(end)
		}
		if !reflect.DeepEqual(got, want) || w.Failed() == wantOK || !reflect.DeepEqual(stepped, want) || s.Failed() == wantOK {
			t.Fatalf("walk of %q: %q, failed %v; by steps %q, failed %v; reference %q, %v", b, got, w.Failed(), stepped, s.Failed(), want, wantOK)
		}
		end, ok := w.End()
		if ok != wantOK || ok && b[end-1] != '}' {
			t.Fatalf("walk of %q ends at %d, %v; reference %v", b, end, ok, wantOK)
		}
		valid := json.Valid(b)
		if valid && ok && refSkipValue(b, SkipSpace(b, 0)) != end {
			t.Fatalf("walk of %q ends at %d, not at the value's end", b, end)
		}
		if valid {
			v := WalkValidObject(b, 0)
			var checked [][2]string
			for key, val, ok := v.Next(); ok; key, val, ok = v.Next() {
				checked = append(checked, [2]string{string(key), string(val)})
			}
			if !reflect.DeepEqual(checked, want) || v.Failed() == wantOK {
				t.Fatalf("valid walk of %q: %q, failed %v; reference %q", b, checked, v.Failed(), want)
			}
		}

		var wantElems, gotElems []string
		wantOK = refEachElement(b, func(val []byte) { wantElems = append(wantElems, string(val)) })
		a := WalkArray(b, 0)
		for val, ok := a.Next(); ok; val, ok = a.Next() {
			gotElems = append(gotElems, string(val))
		}
		if !reflect.DeepEqual(gotElems, wantElems) || a.Failed() == wantOK {
			t.Fatalf("array walk of %q: %q, failed %v; reference %q, %v", b, gotElems, a.Failed(), wantElems, wantOK)
		}
		end, ok = a.End()
		if ok != wantOK || ok && b[end-1] != ']' || valid && ok && refSkipValue(b, SkipSpace(b, 0)) != end {
			t.Fatalf("array walk of %q ends at %d, %v; reference %v", b, end, ok, wantOK)
		}
	})
}
