package transcript

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// Discovery's stat must give what stat(2) gives (an index's recorded
// stats are compared with it: a device or mtime read another way would
// make every transcript look replaced) and the creation time BirthNs
// gives, which orders a first index's reads.
func TestStatAtMatchesStat(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.jsonl"), []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("a.jsonl", filepath.Join(dir, "link.jsonl")); err != nil {
		t.Fatal(err)
	}
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	for _, name := range []string{"a.jsonl", "link.jsonl"} {
		got, err := statAt(fd, name)
		if err != nil {
			t.Fatal(err)
		}
		var st unix.Stat_t
		if err := unix.Stat(filepath.Join(dir, name), &st); err != nil {
			t.Fatal(err)
		}
		if want := fileStatOf(&st); got.stat != want {
			t.Errorf("%s: statAt = %+v, stat(2) = %+v", name, got.stat, want)
		}
		if got.mode != uint32(st.Mode) {
			t.Errorf("%s: mode %o, stat(2) %o", name, got.mode, st.Mode)
		}
	}
	got, _ := statAt(fd, "a.jsonl")
	if want := BirthNs(filepath.Join(dir, "a.jsonl")); got.bornNs != want {
		t.Errorf("born %d, BirthNs %d", got.bornNs, want)
	}
	if _, err := statAt(fd, "missing.jsonl"); err == nil {
		t.Error("statAt of a missing file: no error")
	}
}

// Discover hands the indexer each transcript's creation time, so that a
// first index orders its reads without a second stat of each.
func TestDiscoverReadsCreationTime(t *testing.T) {
	root := t.TempDir()
	project := filepath.Join(root, "-home-me-app")
	if err := os.MkdirAll(project, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(project, "0b7a3c1e-2f4d-4e5a-9b6c-7d8e9f0a1b2c.jsonl")
	if err := os.WriteFile(path, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	found := Discover([]string{root}, func(msg string) { t.Error(msg) })
	if len(found) != 1 {
		t.Fatalf("found %d transcripts, want 1", len(found))
	}
	want := BirthNs(path)
	if want == 0 {
		t.Skip("the file system keeps no creation time")
	}
	if found[0].BornNs != want {
		t.Errorf("BornNs = %d, BirthNs = %d", found[0].BornNs, want)
	}
}
