package indexer

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/recall-dev/recall/internal/problem"
	"github.com/recall-dev/recall/store"
	"github.com/recall-dev/recall/store/storetest"
	"github.com/recall-dev/recall/transcript"
)

// flipBlockByte garbles a byte in the middle of block i's frame.
func flipBlockByte(t *testing.T, idx string, i int) { storetest.FlipBlockByte(t, idx, i) }

// TestRepairRereadsDamagedBlocks: a rows block that does not decode is
// found by Verify; --repair reads the transcripts still on disk again and
// lists exactly the rows it could not recover (those of a deleted one).
// Before, a damaged block failed every search and `index` said nothing.
func TestRepairRereadsDamagedBlocks(t *testing.T) {
	src, idx, before := archiveIndex(t)
	flipBlockByte(t, idx, 0)
	d, err := store.Open(idx).Verify()
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Blocks) != 1 || d.Blocks[0].Index != 0 {
		t.Fatalf("Verify found %+v, want block 0 damaged", d.Blocks)
	}
	gone := filepath.Join(src, "-home-dev-src-blog", "44444444-4444-4444-8444-444444444444.jsonl")
	if d.Affected[gone] == 0 {
		t.Fatalf("Verify does not name the deleted transcript among the affected: %v", d.Affected)
	}

	sum, err := Run(Options{Config: Config{Sources: []string{src}, IndexDir: idx}, Repair: true})
	if err != nil {
		t.Fatalf("repair: %v", err)
	}
	rep := sum.Repair
	if rep == nil || rep.DamagedBlocks != 1 || rep.Lost[gone] != d.Affected[gone] || len(rep.Lost) != 1 || len(rep.Reread) == 0 {
		t.Fatalf("repair report %+v", rep)
	}
	if !strings.Contains(FormatSummary(&sum), "could not recover") {
		t.Errorf("the summary does not list what was lost: %s", FormatSummary(&sum))
	}
	var want []string
	for _, r := range before {
		if !strings.Contains(r, "44444444-4444") || !strings.Contains(r, "$SRC/-home-dev-src-blog/44444444") {
			want = append(want, r)
		}
	}
	if after := rowLines(liveRows(t, idx), src); !slices.Equal(after, want) {
		t.Errorf("rows after repair:\n got %q\nwant %q", after, want)
	}
	if d, err := store.Open(idx).Verify(); err != nil || !d.None() {
		t.Errorf("after repair Verify = %+v, %v", d, err)
	}
}

// TestDamagedDerivedFilesFoundAndRebuilt: a flipped byte in the events or
// keys file is caught by its checksum; searches find the recall events in
// the rows meanwhile, and --repair rebuilds the files.
func TestDamagedDerivedFilesFoundAndRebuilt(t *testing.T) {
	for _, file := range []string{"events", "keys"} {
		t.Run(file, func(t *testing.T) {
			src, idx, _ := archiveIndex(t)
			m, err := store.Open(idx).Manifest()
			if err != nil {
				t.Fatal(err)
			}
			name := map[string]string{"events": m.EventsName(), "keys": m.KeysName()}[file]
			path := filepath.Join(idx, name)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			data[len(data)-2] ^= 0x01
			if err := os.WriteFile(path, data, 0o600); err != nil {
				t.Fatal(err)
			}
			d, err := store.Open(idx).Verify()
			if err != nil {
				t.Fatal(err)
			}
			if len(d.Derived) == 0 || !strings.Contains(strings.Join(d.Derived, " "), name) && file == "keys" {
				t.Fatalf("Verify missed the damaged %s file: %+v", file, d)
			}
			sum, err := Run(Options{Config: Config{Sources: []string{src}, IndexDir: idx}, Repair: true})
			if err != nil {
				t.Fatal(err)
			}
			if sum.Repair == nil || len(sum.Repair.Derived) == 0 {
				t.Errorf("repair report %+v", sum.Repair)
			}
			if d, err := store.Open(idx).Verify(); err != nil || !d.None() {
				t.Errorf("after repair Verify = %+v, %v", d, err)
			}
		})
	}
}

// TestRewrittenInPlace: a transcript truncated and written again longer,
// in place (same inode), is read again as a new generation. Before, the
// stale row stayed, the new line was lost, and a row pointed past the end
// of the file.
func TestRewrittenInPlace(t *testing.T) {
	src, path := newSessionFile(t)
	idx := t.TempDir()
	appendText(t, path, promptLine(1, "the original first prompt about websockets")+promptLine(2, "the original second prompt about caches"))
	runIndex(t, src, idx, "")
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0o644) // same inode
	if err != nil {
		t.Fatal(err)
	}
	rewritten := promptLine(3, "a rewritten first prompt about the scheduler") + promptLine(4, "a rewritten second prompt about retries") +
		promptLine(5, "a rewritten third prompt about backoff")
	if _, err := f.WriteString(rewritten); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if after, _ := os.Stat(path); !os.SameFile(info, after) {
		t.Fatal("the rewrite changed the inode: not the case under test")
	}
	sum := runIndex(t, src, idx, "")
	if sum.Replaced != 1 {
		t.Errorf("Replaced = %d, want 1", sum.Replaced)
	}
	var got []string
	for _, r := range liveRows(t, idx) {
		got = append(got, fmt.Sprintf("%d %s", r.Line, r.Text))
	}
	want := []string{"1 a rewritten first prompt about the scheduler", "2 a rewritten second prompt about retries", "3 a rewritten third prompt about backoff"}
	if !slices.Equal(got, want) {
		t.Errorf("rows after the rewrite:\n got %q\nwant %q", got, want)
	}
}

// TestHostileFilesStayBounded: an over-long line is skipped without being
// held and counted, a binary file named .jsonl is skipped whole, and a
// long message keeps a capped text with a marker; the lines around them
// are indexed. (Memory is measured in docs/reliability.md; here the
// behaviour.)
func TestHostileFilesStayBounded(t *testing.T) {
	src, path := newSessionFile(t)
	idx := t.TempDir()
	huge := strings.Repeat("x", transcript.MaxLineBytes+10)
	long := strings.Repeat("word ", transcript.MaxRowText/5+100)
	appendText(t, path, promptLine(1, "before the storm of bytes")+
		`{"type":"user","message":{"role":"user","content":"`+huge+`"}}`+"\n"+
		promptLine(3, long)+promptLine(4, "after the storm of bytes"))
	binary := filepath.Join(filepath.Dir(path), "66666666-6666-4666-8666-666666666666.jsonl")
	if err := os.WriteFile(binary, append([]byte{0x89, 'P', 'N', 'G', 0, 0, '\n'}, make([]byte, 1<<20)...), 0o644); err != nil {
		t.Fatal(err)
	}
	var warnings []string
	sum, err := Run(Options{Config: Config{Sources: []string{src}, IndexDir: idx}, Warn: func(s string) { warnings = append(warnings, s) }})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Excluded["too_long"] != 1 || sum.Excluded["binary_file"] != 1 {
		t.Errorf("excluded %v, want one too_long line and one binary file", sum.Excluded)
	}
	if len(warnings) != 2 {
		t.Errorf("warnings %q, want one for the long line and one for the binary file", warnings)
	}
	var lines []int
	for _, r := range liveRows(t, idx) {
		lines = append(lines, r.Line)
		if r.Line == 3 && (len(r.Text) > transcript.MaxRowText+200 || !strings.Contains(r.Text, "recall kept the first")) {
			t.Errorf("the long message kept %d bytes without the marker", len(r.Text))
		}
	}
	if !slices.Equal(lines, []int{1, 3, 4}) {
		t.Errorf("rows from lines %v, want 1, 3, 4", lines)
	}
	if again := runIndex(t, src, idx, ""); again.FilesRead != 0 {
		t.Errorf("a second run read %d files again", again.FilesRead)
	}
}

// TestRowsFileCutShort: a rows file shorter than its committed length (a
// bad copy or restore) stops `recall index` with the way out, before any
// run appends after the hole; --repair reads the transcripts again.
// Before, an index run said nothing, and one with rows to add failed
// advising --rebuild, which drops the archive.
func TestRowsFileCutShort(t *testing.T) {
	src := copyTree(t, fixtureRoot)
	idx := t.TempDir()
	runIndex(t, src, idx, "")
	before := rowLines(liveRows(t, idx), src)
	m, err := store.Open(idx).Manifest()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(filepath.Join(idx, m.RowsName()), m.RowsBytes-100); err != nil {
		t.Fatal(err)
	}
	_, err = Run(Options{Config: Config{Sources: []string{src}, IndexDir: idx}})
	if p, ok := problem.Find(err); !ok || p.Remedy != problem.Repair {
		t.Fatalf("index over a rows file cut short: %v, want an error whose remedy is a repair", err)
	}
	if _, err := Run(Options{Config: Config{Sources: []string{src}, IndexDir: idx}, Repair: true}); err != nil {
		t.Fatalf("repair: %v", err)
	}
	if after := rowLines(liveRows(t, idx), src); !slices.Equal(before, after) {
		t.Errorf("rows after the repair differ: %d before, %d after", len(before), len(after))
	}
}
