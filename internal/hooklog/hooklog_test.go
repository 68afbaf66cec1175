package hooklog

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestLine(t *testing.T) {
	at := time.Date(2026, 11, 29, 5, 1, 2, 345e6, time.FixedZone("x", 3600))
	for _, tc := range []struct {
		name     string
		event    string
		fields   [][2]string
		outcome  string
		problems []string
		want     string
	}{
		{"plain", "UserPromptSubmit", [][2]string{{"session", "abc"}}, "no hint", nil,
			"2026-11-29T04:01:02.345Z UserPromptSubmit session=\"abc\": no hint\n"},
		{"no event, empty field left out", "", [][2]string{{"session", ""}, {"cwd", "/p"}}, "done", []string{"one", "two"},
			"2026-11-29T04:01:02.345Z unknown-event cwd=\"/p\": done; one; two\n"},
		{"quoted as Go quotes", "Stop", [][2]string{{"session", "a\"b\x1b[2J\u00e9"}}, "ok", nil,
			"2026-11-29T04:01:02.345Z Stop session=\"a\\\"b\\x1b[2Jé\": ok\n"},
		{"one line whatever the outcome holds", "Stop", nil, "line one\nline two", []string{"p\nq"},
			"2026-11-29T04:01:02.345Z Stop: line one\\nline two; p\\nq\n"},
	} {
		if got := Line(at, tc.event, tc.fields, tc.outcome, tc.problems); got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, tc.want)
		}
	}
}

// Append creates the index directory and the log, appends, and sets a
// full log aside as Open does.
func TestAppend(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "index")
	for _, line := range []string{"one\n", "two\n"} {
		if err := Append(dir, line); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, FileName)
	got, err := os.ReadFile(path)
	if err != nil || string(got) != "one\ntwo\n" {
		t.Fatalf("log %q, %v", got, err)
	}
	if info, err := os.Stat(path); err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("log mode: %v, %v", info, err)
	}
	full := strings.Repeat("x", MaxBytes+1)
	if err := os.WriteFile(path, []byte(full), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Append(dir, "three\n"); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); string(got) != "three\n" {
		t.Fatalf("after a full log: %.20q", got)
	}
	if old, _ := os.ReadFile(path + ".1"); string(old) != full {
		t.Fatalf("the full log was not set aside (%d bytes)", len(old))
	}
}
