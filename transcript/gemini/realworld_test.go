package gemini

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/recall-dev/recall/record"
)

// fixtureWindows is a Gemini CLI folder copied from Windows: its paths
// are Windows paths, read on any host.
var fixtureWindows = filepath.Join(fixtures, "windows", ".gemini")

// TestWindowsProject checks that a project whose path is a Windows one
// is found on any host: from .project_root (kept as written), and from
// an older folder named by the hash of the path in its original case
// while projects.json holds it lower-cased.
func TestWindowsProject(t *testing.T) {
	const want = `c:\users\dev\src\shop_api`
	found := Discover(fixtureWindows, func(s string) { t.Errorf("warning: %s", s) })
	if len(found) != 2 {
		t.Fatalf("found %d session files, want 2", len(found))
	}
	for _, tr := range found {
		res := read(t, tr, record.FileState{})
		if res.Err != nil {
			t.Fatalf("%s: %v", tr.Path, res.Err)
		}
		if res.Project != want || len(res.Rows) != 2 || res.Rows[0].Project != want {
			t.Errorf("%s: project %q, %d rows", filepath.Base(tr.Path), res.Project, len(res.Rows))
		}
	}
}

func TestWindowsAbs(t *testing.T) {
	for s, want := range map[string]bool{
		`C:\Users\me`: true, `c:/work`: true, `\\server\share\dir`: true, `\\server\share`: true,
		`C:`: false, `C:work`: false, `\\server`: false, `\\\share`: false, `1:\x`: false, `relative\dir`: false,
	} {
		if got := isWindowsAbs(s); got != want {
			t.Errorf("isWindowsAbs(%q) = %v, want %v", s, got, want)
		}
	}
	if got := cleanRoot(" D:\\src\\app\n"); got != `D:\src\app` {
		t.Errorf("cleanRoot: %q", got)
	}
}

// fixtureIDs is a Gemini CLI folder whose session files name their
// sessions badly: no metadata line, or Cloud Shell's shared id.
var fixtureIDs = filepath.Join(fixtures, "ids", ".gemini")

// TestSessionIDFromFile checks the session of a file with no metadata
// (the id logs.json has for its name's id8, else id8) and of files
// whose metadata names a shared, non-UUID id (each file its own).
func TestSessionIDFromFile(t *testing.T) {
	want := map[string]string{
		"session-2026-05-10T07-15-7c1d2e3f.jsonl": "7c1d2e3f-4a5b-4c6d-8e7f-901a2b3c4d5e",
		"session-2026-05-10T08-00-9f8e7d6c.jsonl": "9f8e7d6c",
		"session-2026-05-10T09-00-a2a-serv.jsonl": "session-2026-05-10T09-00-a2a-serv",
		"session-2026-05-10T09-30-a2a-serv.jsonl": "session-2026-05-10T09-30-a2a-serv",
	}
	found := Discover(fixtureIDs, func(s string) { t.Errorf("warning: %s", s) })
	if len(found) != len(want)+1 {
		t.Fatalf("found %d files, want %d session files and the prompt log", len(found), len(want))
	}
	for _, tr := range found {
		res := read(t, tr, record.FileState{})
		name := filepath.Base(tr.Path)
		if name == logsName {
			// 7c1d2e3f's prompt is its file's; 0a0b0c0d has no file.
			if res.Err != nil || len(res.Rows) != 1 || res.Rows[0].Session != "0a0b0c0d-1e1f-4a2b-9c3d-4e5f60718293" || res.Rows[0].Text != "why is the nightly build slow" {
				t.Errorf("the prompt log: %+v, err %v", res.Rows, res.Err)
			}
			continue
		}
		if res.Err != nil || res.Session != want[name] || len(res.Rows) == 0 || res.Rows[0].Session != want[name] ||
			res.Project != "/home/dev/box" {
			t.Errorf("%s: session %q, project %q, %d rows, err %v", name, res.Session, res.Project, len(res.Rows), res.Err)
		}
	}
	if !isUUID("7c1d2e3f-4a5b-4c6d-8e7f-901a2b3c4d5e") || isUUID("a2a-server") || isUUID("7c1d2e3f-4a5b-4c6d-8e7f-901a2b3c4d5g") {
		t.Error("isUUID")
	}
}

// TestLegacyLines checks that a legacy document's rows are numbered by
// the line each message's object starts on, written indented or on one
// line.
func TestLegacyLines(t *testing.T) {
	found := Discover(fixtureWindows, func(s string) { t.Errorf("warning: %s", s) })
	var lines []int
	for _, tr := range found {
		if isLegacy(tr.Path) {
			for _, r := range read(t, tr, record.FileState{}).Rows {
				lines = append(lines, r.Line)
			}
		}
	}
	if fmt.Sprint(lines) != "[7 13]" {
		t.Errorf("indented: lines %v, want [7 13]", lines)
	}
	path := filepath.Join(t.TempDir(), "session-2026-01-01T00-00-0a0b0c0d.json")
	writeLines(t, path, `{"sessionId":"0a0b0c0d-1e1f-4a2b-9c3d-4e5f60718293","projectHash":"h","messages":[`,
		`{"id":"u1","type":"user","content":"Rename the config package."},{"id":"u2","type":"user","content":"Then update its imports."}`,
		"\r\n"+` , {"id":"u3","type":"user","content":"And run the tests afterwards."}]}`)
	lines = nil
	for _, r := range read(t, mainFile(path), record.FileState{}).Rows {
		lines = append(lines, r.Line)
	}
	if fmt.Sprint(lines) != "[2 2 4]" {
		t.Errorf("compact: lines %v, want [2 2 4]", lines)
	}
}
