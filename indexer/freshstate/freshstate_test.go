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
