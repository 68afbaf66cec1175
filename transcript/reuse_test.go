package transcript

import (
	"bufio"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/recall-dev/recall/record"
)

// TestReadIntoReusedRows reads the test transcripts into fresh slices and
// into a slice a previous result left full of other rows (as the indexer
// hands back what the committer is done with): the rows are the same,
// and the reused slice's backing array is the one written.
func TestReadIntoReusedRows(t *testing.T) {
	paths, err := filepath.Glob("../testdata/transcripts/projects/*/*.jsonl")
	if err != nil || len(paths) < 2 {
		t.Fatalf("test transcripts: %v %v", paths, err)
	}
	br := bufio.NewReaderSize(nil, ReadBufferSize)
	read := func(path string, rows []Extracted) Result {
		return Read(Work{T: Transcript{Path: path, Kind: record.KindMain}, Rows: rows}, "", br)
	}
	var junk []Extracted
	for range 50 {
		junk = append(junk, Extracted{Row: record.Row{Session: "junk", Text: "left over", Line: 99}, Key: 7})
	}
	for _, path := range paths {
		fresh := read(path, nil)
		reused := read(path, junk)
		if fresh.Err != nil || len(fresh.Rows) == 0 {
			t.Fatalf("%s: %d rows, %v", path, len(fresh.Rows), fresh.Err)
		}
		if !reflect.DeepEqual(fresh.Rows, reused.Rows) {
			t.Fatalf("%s: rows read into a reused slice differ from a fresh read", path)
		}
		if len(reused.Rows) <= cap(junk) && &reused.Rows[0] != &junk[:1][0] {
			t.Errorf("%s: the reused slice was not written into", path)
		}
		if reused.Work.Rows != nil {
			t.Errorf("%s: the result's Work still holds the reused slice", path)
		}
	}
}

// TestReadWithLentTailBuffer: a read that fingerprints the consumed end
// into a buffer the caller lends gets the fingerprints a read into a new
// buffer gets, both the one it takes at the end and the check of a stored
// one when continuing (a rewritten file is still told apart), and its
// result does not keep the buffer.
func TestReadWithLentTailBuffer(t *testing.T) {
	paths, err := filepath.Glob("../testdata/transcripts/projects/*/*.jsonl")
	if err != nil || len(paths) == 0 {
		t.Fatalf("test transcripts: %v %v", paths, err)
	}
	br := bufio.NewReaderSize(nil, ReadBufferSize)
	for _, path := range paths {
		for _, lent := range [][]byte{nil, make([]byte, 10), make([]byte, TailBytes), make([]byte, 1, TailBytes+100)} {
			w := Work{T: Transcript{Path: path, Kind: record.KindMain}, Tail: lent}
			fresh := Read(Work{T: w.T}, "", br)
			got := Read(w, "", br)
			if got.Tail != fresh.Tail || got.Tail.Len == 0 {
				t.Fatalf("%s, buffer of %d: tail %+v, want %+v", path, cap(lent), got.Tail, fresh.Tail)
			}
			if got.Work.Tail != nil {
				t.Fatalf("%s: the result's Work still holds the lent buffer", path)
			}
			cont := w
			cont.State = record.FileState{Offset: fresh.Offset, Lines: fresh.Lines, Tail: fresh.Tail}
			if again := Read(cont, "", br); again.Rewritten || again.Err != nil {
				t.Fatalf("%s, buffer of %d: an unchanged file read on reads as rewritten (%v)", path, cap(lent), again.Err)
			}
			cont.State.Tail.CRC++
			if again := Read(cont, "", br); !again.Rewritten {
				t.Fatalf("%s, buffer of %d: a tail that no longer matches was not taken for a rewrite", path, cap(lent))
			}
		}
	}
}
