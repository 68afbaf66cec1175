package claude

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// StartDetached must give the child a session of its own, /dev/null as
// stdin, the output file and exactly the environment asked for, and return
// before the child is done.
func TestStartDetached(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs /proc")
	}
	dir := t.TempDir()
	out, err := os.OpenFile(filepath.Join(dir, "out"), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	release := filepath.Join(dir, "release")
	script := `echo "pid=$$"; echo "stdin=$(readlink /proc/$$/fd/0)"; echo "foo=$FOO"; echo "home=${HOME-unset}"; echo "cwd=$(pwd)"
set -- $(cat /proc/$$/stat); echo "sid=$6"
while [ ! -e "` + release + `" ]; do sleep 0.01; done; echo done`

	begin := time.Now()
	pid, err := StartDetached(Command{
		Path:   "/bin/sh",
		Args:   []string{"-c", script},
		Env:    []string{"FOO=bar"},
		Dir:    dir,
		Output: out,
	})
	if err != nil {
		t.Fatal(err)
	}
	if elapsed := time.Since(begin); elapsed > time.Second {
		t.Errorf("StartDetached waited %v", elapsed)
	}
	// The child is still waiting for the release file: StartDetached did
	// not wait for it to finish.
	if err := os.WriteFile(release, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	got := waitForLine(t, filepath.Join(dir, "out"), "done")

	mySession, err := unix.Getsid(0)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"pid":   strconv.Itoa(pid),
		"stdin": "/dev/null",
		"foo":   "bar",
		"home":  "unset",
		"cwd":   dir,
		"sid":   strconv.Itoa(pid), // a session leader's session id is its pid
	}
	for key, value := range want {
		if got[key] != value {
			t.Errorf("%s = %q, want %q", key, got[key], value)
		}
	}
	if got["sid"] == strconv.Itoa(mySession) {
		t.Errorf("child stayed in the test's session %d", mySession)
	}
}

// waitForLine polls a key=value output file until it holds the line last.
func waitForLine(t *testing.T, path, last string) map[string]string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		data, _ := os.ReadFile(path)
		if strings.HasSuffix(string(data), last+"\n") {
			values := map[string]string{}
			for _, line := range strings.Split(string(data), "\n") {
				if k, v, ok := strings.Cut(line, "="); ok {
					values[k] = v
				}
			}
			return values
		}
		if time.Now().After(deadline) {
			t.Fatalf("child never wrote %q; output so far: %q", last, data)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
