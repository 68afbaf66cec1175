package freshstate

import (
	"reflect"
	"testing"

	"github.com/recall-dev/recall/store/manifest"

	"github.com/recall-dev/recall/record"
)

func sampleFresh() *State {
	s := New([]string{"/home/u/.claude/projects", "/odd\tpath"})
	s.Manifest = manifest.Stamp{Checkpoint: record.FileID{Dev: 2049, Ino: 77, Size: 1234, MtimeNs: 1775037600000000000}, Journal: record.FileID{Dev: 2049, Ino: 78, Size: 24, MtimeNs: 1775037600000000001}}
	s.SweepNs, s.Files = 1775037600000000001, 8174
	s.Dirs["/home/u/.claude/projects"] = Dir{Root: true, MtimeNs: 5}
	s.Dirs["/home/u/.claude/projects/-a"] = Dir{MtimeNs: 0}
	s.History["/home/u/.claude/history.jsonl"] = History{Dev: 1, Ino: 2, Offset: 300}
	s.Hot["/home/u/.claude/projects/-a/s.jsonl"] = record.FileID{Dev: 1, Ino: 3, Size: 10, MtimeNs: 11}
	s.Hot["/home/u/.claude/projects/-a/new\nline.jsonl"] = record.FileID{Size: -1}
	return s
}

func TestFreshStateRoundTrip(t *testing.T) {
	dir := t.TempDir()
	want := sampleFresh()
	if err := writeFreshState(dir, want); err != nil {
		t.Fatal(err)
	}
	got, err := readFreshState(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("read back\n%+v\nwant\n%+v", got, want)
	}
}

func TestFreshStateDamage(t *testing.T) {
	data := sampleFresh().Encode()
	for i := range data {
		bad := append([]byte(nil), data...)
		bad[i] ^= 1
		if _, err := parseFresh(bad); err == nil {
			t.Fatalf("byte %d flipped: parsed without error", i)
		}
	}
	for n := range len(data) {
		if _, err := parseFresh(data[:n]); err == nil {
			t.Fatalf("cut to %d bytes: parsed without error", n)
		}
	}
}

func FuzzFreshState(f *testing.F) {
	f.Add(sampleFresh().Encode())
	f.Add([]byte(freshMagic + "\nend\t00000000\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := parseFresh(data)
		if err != nil {
			return
		}
		again, err := parseFresh(s.Encode())
		if err != nil {
			t.Fatalf("re-encoded state does not parse: %v", err)
		}
		if !reflect.DeepEqual(s, again) {
			t.Fatalf("round trip changed the state:\n%+v\n%+v", s, again)
		}
	})
}

// Equal says two states are the same exactly when they encode to the
// same bytes: a run that found no change writes the state only then.
func TestEqualIsSameEncoding(t *testing.T) {
	changes := []struct {
		name   string
		change func(*State)
	}{
		{"nothing", func(*State) {}},
		{"feature", func(s *State) { s.Feature++ }},
		{"a source", func(s *State) { s.Sources = append(s.Sources, "/x") }},
		{"the manifest", func(s *State) { s.Manifest.Journal.Size++ }},
		{"the tombstone", func(s *State) { s.Forgotten.Ino = 9 }},
		{"the sweep", func(s *State) { s.SweepNs++ }},
		{"the files", func(s *State) { s.Files-- }},
		{"a folder's mtime", func(s *State) { s.Dirs["/home/u/.claude/projects/-a"] = Dir{MtimeNs: 1} }},
		{"a folder more", func(s *State) { s.Dirs["/b"] = Dir{} }},
		{"a history", func(s *State) { s.History["/home/u/.claude/history.jsonl"] = History{Dev: 1, Ino: 2, Offset: 301} }},
		{"a hot transcript gone", func(s *State) { delete(s.Hot, "/home/u/.claude/projects/-a/s.jsonl") }},
		{"a hot transcript's stat", func(s *State) { s.Hot["/home/u/.claude/projects/-a/s.jsonl"] = record.FileID{Size: 11} }},
	}
	for _, c := range changes {
		a, b := sampleFresh(), sampleFresh()
		c.change(b)
		same := string(a.Encode()) == string(b.Encode())
		if got := a.Equal(b); got != same {
			t.Errorf("%s: Equal = %v, same encoding %v", c.name, got, same)
		}
		if got := b.Equal(a); got != same {
			t.Errorf("%s (other way): Equal = %v, same encoding %v", c.name, got, same)
		}
	}
}
