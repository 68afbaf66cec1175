package cpuprofile

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

func TestStartWritesAProfileOnlyWhenAsked(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(EnvDir, "")
	var stderr bytes.Buffer
	Start("recall", &stderr)()
	if entries, _ := os.ReadDir(dir); len(entries) != 0 || stderr.Len() != 0 {
		t.Fatalf("unset: wrote %v, said %q", entries, stderr.String())
	}
	t.Setenv(EnvDir, dir)
	Start("recall", &stderr)()
	matches, _ := filepath.Glob(filepath.Join(dir, "recall-*.pprof"))
	if len(matches) != 1 || stderr.Len() != 0 {
		t.Fatalf("set: wrote %v, said %q", matches, stderr.String())
	}
	if info, err := os.Stat(matches[0]); err != nil || info.Size() == 0 {
		t.Errorf("profile %s: %v, %v", matches[0], info, err)
	}
	t.Setenv(EnvDir, filepath.Join(dir, "missing"))
	Start("recall", &stderr)()
	if stderr.Len() == 0 {
		t.Error("a folder that does not exist: nothing said")
	}
}
