package terms

import (
	"encoding/binary"
	"hash/crc32"
	"slices"
	"testing"
)

// fuzzSeeds are small valid segments: empty, one row, and rows with
// several keys, code, unicode and repeated tokens.
func fuzzSeeds() [][]byte {
	var out [][]byte
	out = append(out, NewBuilder().encode(0, 1))
	out = append(out, build([]Row{{TimeMs: 1, Type: TypeUser, Session: "s", Project: "p", Text: []byte("alpha")}}).encode(0, 1))
	out = append(out, build(roundTripRows()).encode(0, 1))
	rows := make([]Row, 40)
	for i := range rows {
		rows[i] = Row{TimeMs: int64(i), Type: uint8(1 + i%5), Gen: uint32(i % 3), Session: string(rune('a' + i%4)), Project: "/p",
			Text: []byte("lock deadlock `mutex` aa aaa ÉCOLE w" + string(rune('0'+i%10)))}
	}
	out = append(out, build(rows).encode(0, 1))
	out = append(out, build(channelRows()).encode(0, 1))
	return out
}

// FuzzSegment mutates encoded segments. When fixCRC is set the page
// checksums, their table's and the header's are recomputed after the
// mutation, so that mutated header fields and sections reach the section
// checks and the readers instead of stopping at a checksum. newSegment
// must either fail or give a segment whose readers never panic and keep
// their documented ranges; without fixCRC, a mutated body must be
// reported by Err once read.
func FuzzSegment(f *testing.F) {
	for _, seed := range fuzzSeeds() {
		f.Add(seed, false)
		f.Add(seed, true)
	}
	f.Fuzz(func(t *testing.T, data []byte, fixCRC bool) {
		if len(data) > 1<<20 {
			return
		}
		if fixCRC && len(data) >= preambleSize+headerSize {
			data = slices.Clone(data)
			fixChecksums(data)
			binary.LittleEndian.PutUint32(data[12:], crc32.Checksum(data[preambleSize:preambleSize+headerSize], castagnoli()))
		}
		first, end := 0, 1
		if len(data) >= preambleSize+headerSize {
			// Take the blocks from the header, so the name check passes
			// and the rest of the segment is exercised.
			first = int(binary.LittleEndian.Uint64(data[preambleSize:]))
			end = int(binary.LittleEndian.Uint64(data[preambleSize+8:]))
		}
		s, err := newSegment(Ref{Name: "fuzz", First: first, End: end}, data)
		if err != nil {
			return
		}
		rows := s.Rows()
		if rows < 0 || uint64(rows)*rowSize > uint64(len(data)) {
			t.Fatalf("Rows() = %d for %d bytes", rows, len(data))
		}
		keys := s.Keys()
		for i := range rows {
			r := s.Row(i)
			if len(keys) > 0 && int(r.Key) >= len(keys) {
				t.Fatalf("Row(%d).Key = %d, %d keys", i, r.Key, len(keys))
			}
		}
		// A RowReader reads what Row and HasGenBetween read, and finds
		// the damage they find: on segments opened afresh, one read
		// through each.
		byRow, _ := newSegment(Ref{Name: "fuzz", First: first, End: end}, data)
		byReader, _ := newSegment(Ref{Name: "fuzz", First: first, End: end}, data)
		reader := byReader.RowReader()
		for i := range rows {
			info, same := reader.RowNextSame(i)
			want := byRow.Row(i)
			wantSame := byRow.HasGenBetween(i+1, min(i+2, rows), want.Gen)
			if info != want || same != wantSame {
				t.Fatalf("RowNextSame(%d) = %+v, %v; Row and HasGenBetween say %+v, %v", i, info, same, want, wantSame)
			}
		}
		if (byRow.Err() == nil) != (byReader.Err() == nil) {
			t.Fatalf("reading every row: Row's error %v, RowReader's %v", byRow.Err(), byReader.Err())
		}
		n := s.tokens()
		for id := range n {
			_ = s.token(id)
		}
		check := func(run string, whole bool) {
			last := -1
			s.FindTokens(run, whole, func(id, times int) {
				if id <= last || id >= n || times < 1 {
					t.Fatalf("FindTokens(%q, %v): id %d after %d of %d tokens, times %d", run, whole, id, last, n, times)
				}
				last = id
				prev := -1
				_ = s.Postings(id, func(row, hits, code int) {
					if row <= prev || row >= rows {
						t.Fatalf("Postings(%d): row %d after %d of %d rows", id, row, prev, rows)
					}
					prev = row
				})
			})
		}
		for _, run := range []string{"A", "LOCK", "DEADLOCK", "AA", "ÉCOLE", "W1", "\x00", "S"} {
			check(run, false)
			check(run, true)
		}
		inRange := func(what string) func(int, []byte) {
			return func(id int, _ []byte) {
				if id < 0 || id >= n {
					t.Fatalf("%s: token %d of %d", what, id, n)
				}
			}
		}
		for _, fold := range []string{"ECOLE", "CESTINY", "A", "\x00"} {
			s.FindFolded(fold, inRange("FindFolded "+fold))
		}
		for _, key := range []string{"TRANSLAT", "PAINT", "LOCK", "A"} {
			s.FindStem(key, inRange("FindStem "+key))
			s.FindPrefixed(key+"_", inRange("FindPrefixed "+key))
		}
		// Keys read as they are asked for are the keys read whole.
		for i, k := range keys {
			if got := s.Key(uint32(i)); got != k {
				t.Fatalf("Key(%d) = %+v, Keys()[%d] = %+v", i, got, i, k)
			}
		}
		// Unverified, the readers keep within the mapping as well
		// (OpenUnverified: the prompt hook's small binary).
		if u, err := mapSections(Ref{Name: "fuzz", First: first, End: end}, data, false); err == nil {
			for _, key := range []string{"LOCK", "A"} {
				u.FindStem(key, inRange("unverified FindStem "+key))
				u.FindPrefixed(key, inRange("unverified FindPrefixed "+key))
				u.FindTokens(key, true, func(id, _ int) { _, _ = u.AppendPostings(id, nil) })
			}
			for i := range min(rows, 64) {
				k := u.Row(i).Key
				if key := u.Key(k); u.Session(k) != key.Session {
					t.Fatalf("Session(%d) = %q, Key(%d) = %+v", k, u.Session(k), k, key)
				}
			}
		}
		for _, id := range []int{-1, 0, n - 1, n} {
			_ = s.Token(id)
		}
		_ = s.Verify()
		for _, id := range []int{-1, 0, n - 1, n, n + 1} {
			prev := -1
			_ = s.Postings(id, func(row, hits, code int) {
				if row <= prev || row >= rows {
					t.Fatalf("Postings(%d): row %d after %d of %d rows", id, row, prev, rows)
				}
				prev = row
			})
		}
	})
}
