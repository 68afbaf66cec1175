package indexer

import (
	"os"
	"path/filepath"
	"testing"
)

// TestLinkedProjectFolderIsIndexed: a project folder linked to another
// disk is indexed, by a sweep and by the quick check of a search's update
// alike, each row once, and a loop below it does not stop the run.
func TestLinkedProjectFolderIsIndexed(t *testing.T) {
	tmp := t.TempDir()
	src, idx, elsewhere := filepath.Join(tmp, "projects"), t.TempDir(), filepath.Join(tmp, "otherdisk", "-home-dev-src-linked")
	must(t, os.MkdirAll(src, 0o755))
	must(t, os.MkdirAll(filepath.Join(elsewhere, testSession, "subagents"), 0o755))
	if err := os.Symlink(elsewhere, filepath.Join(src, "-home-dev-src-linked")); err != nil {
		t.Skipf("no symbolic links: %v", err)
	}
	must(t, os.Symlink(filepath.Join(elsewhere, testSession), filepath.Join(elsewhere, testSession, "subagents", "loop")))
	path := filepath.Join(src, "-home-dev-src-linked", testSession+".jsonl")
	appendText(t, path, promptLine(1, "the narwhalquill question in a linked folder"))
	runIndex(t, src, idx, "")
	if texts(liveRows(t, idx))["the narwhalquill question in a linked folder"] != 1 {
		t.Fatal("the sweep did not index the linked folder's transcript once")
	}
	appendText(t, path, promptLine(2, "a second narwhalquill prompt appended later"))
	quick := Options{Config: Config{IndexDir: idx, Sources: []string{src}}, Quick: true}
	if _, _, err := Update(quick); err != nil {
		t.Fatal(err)
	}
	runIndex(t, src, idx, "")
	got := texts(liveRows(t, idx))
	for _, text := range []string{"the narwhalquill question in a linked folder", "a second narwhalquill prompt appended later"} {
		if got[text] != 1 {
			t.Errorf("%q is indexed %d times, want once", text, got[text])
		}
	}
	for _, r := range liveRows(t, idx) {
		if r.Source != path {
			t.Errorf("a row names %s, not the path under the root", r.Source)
		}
	}
}
