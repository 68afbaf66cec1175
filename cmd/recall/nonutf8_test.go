package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNonUTF8SessionIsAddressable: a transcript whose file name is not
// valid UTF-8 gets the id of its name with \xNN for each invalid byte
// (record.SessionIDOf). Every output prints that id as it is, JSON too
// (where the byte used to become U+FFFD), and show, search --session and
// forget --session take it back (issue 23: no command could name such a
// session, and the arguments' invalid bytes never reach recall intact).
func TestNonUTF8SessionIsAddressable(t *testing.T) {
	tmp := t.TempDir()
	src, idx := filepath.Join(tmp, "projects"), filepath.Join(tmp, "idx")
	dir := filepath.Join(src, "-srv-odd")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	name := "ab\xffcd\\x-sess" // an invalid byte and a backslash
	const id = `ab\xffcd\\x-sess`
	line := `{"type":"user","uuid":"u-odd-1","sessionId":"x","timestamp":"2026-03-01T10:00:00.000Z","cwd":"/srv/odd","message":{"role":"user","content":"the zorblax latency question from the odd session"}}` + "\n"
	if err := os.WriteFile(filepath.Join(dir, name+".jsonl"), []byte(line), 0o644); err != nil {
		t.Skipf("the file system refuses a name that is not UTF-8: %v", err)
	}
	dirs := []string{"--source", src, "--index-dir", idx}
	expectExit(t, "index", runCLI(t, append([]string{"index", "-q"}, dirs...)...), 0)

	res := runCLI(t, append([]string{"sessions", "--json", "--no-update"}, dirs...)...)
	var s struct {
		ID string `json:"session_id"`
	}
	if err := json.Unmarshal([]byte(strings.TrimSpace(res.stdout)), &s); err != nil || s.ID != id {
		t.Fatalf("sessions --json: id %q (%v), want %q; stdout %q", s.ID, err, id, res.stdout)
	}
	expectExit(t, "sessions", runCLI(t, append([]string{"sessions", "--no-update"}, dirs...)...), 0, id)
	expectExit(t, "search -l", runCLI(t, append([]string{"zorblax", "-l", "--no-update"}, dirs...)...), 0, id)
	expectExit(t, "show by id", runCLI(t, append([]string{"show", id, "--no-update"}, dirs...)...), 0, "zorblax latency")
	expectExit(t, "show by prefix", runCLI(t, append([]string{"show", `ab\xff`, "--no-update"}, dirs...)...), 0, "zorblax latency")
	expectExit(t, "search --session", runCLI(t, append([]string{"zorblax", "--session", id, "-l", "--no-update"}, dirs...)...), 0, id)
	expectExit(t, "forget --dry-run", runCLI(t, append([]string{"forget", "--dry-run", "--session", id}, dirs...)...), 0, "would remove 1 row of 1 session", id)
	expectExit(t, "forget", runCLI(t, append([]string{"forget", "--session", id}, dirs...)...), 0, "removed 1 row of 1 session")
	expectExit(t, "search after forget", runCLI(t, append([]string{"zorblax"}, dirs...)...), 1)
	expectExit(t, "undo", runCLI(t, append([]string{"forget", "--undo", "--session", id}, dirs...)...), 0, "took back 1 forget")
	expectExit(t, "search after undo", runCLI(t, append([]string{"zorblax", "-l"}, dirs...)...), 0, id)
}
