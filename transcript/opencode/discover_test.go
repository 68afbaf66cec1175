package opencode

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/recall-dev/recall/record"
)

func TestDefaultRoot(t *testing.T) {
	home := "/home/dev"
	for _, c := range []struct {
		env  map[string]string
		want string
	}{
		{nil, "/home/dev/.local/share/opencode"},
		{map[string]string{"XDG_DATA_HOME": "/data"}, "/data/opencode"},
		{map[string]string{"OPENCODE_DB": "/srv/oc/sessions.db"}, "/srv/oc/sessions.db"},
		{map[string]string{"XDG_DATA_HOME": "/data", "OPENCODE_DB": "work.db"}, "/data/opencode/work.db"},
		{map[string]string{"OPENCODE_DB": ":memory:"}, "/home/dev/.local/share/opencode"},
	} {
		if got := DefaultRoot(func(k string) string { return c.env[k] }, home); got != c.want {
			t.Errorf("DefaultRoot with %v = %s, want %s", c.env, got, c.want)
		}
	}
}

func TestResumeCommand(t *testing.T) {
	if got := ResumeCommand("ses_alpha", ""); len(got) != 1 || !slices.Equal(got[0], []string{"opencode", "-s", "ses_alpha"}) {
		t.Errorf("ResumeCommand = %q", got)
	}
}

// TestDiscover: the data folder's databases (a write-ahead log counted in
// their size) and the JSON storage's sessions, a database named alone, a
// storage folder named alone; what is not a session store left out.
func TestDiscover(t *testing.T) {
	root := t.TempDir()
	put := func(rel, data string) {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	put("opencode.db", "0123456789")
	put("opencode.db-wal", "01234")
	put("opencode.db-shm", "0")
	put("opencode-beta.db", "01")
	put("auth.json", "{}")
	put("other.db", "0")
	put("log/2026-11-18.log", "")
	put("storage/session/prj/ses_a.json", "{}")
	put("storage/session/prj/.oc-ses_a.json.1.2.tmp", "{")
	put("storage/session/global/ses_b.json", "{}")
	put("storage/session/global/notes.txt", "")
	put("storage/message/ses_a/msg_1.json", "{}")
	if err := syscall.Mkfifo(filepath.Join(root, "opencode-dev.db"), 0o644); err != nil {
		t.Fatal(err)
	}
	var warnings []string
	found := Discover(root, func(s string) { warnings = append(warnings, s) })
	var got []string
	for _, tr := range found {
		rel, _ := filepath.Rel(root, tr.Path)
		got = append(got, rel+" "+tr.Session)
		if tr.Kind != record.KindOf(record.AgentOpenCode, false) || tr.Stat.Ino == 0 || !filepath.IsAbs(tr.Path) {
			t.Errorf("%+v", tr)
		}
		if rel == "opencode.db" && tr.Stat.Size != 15 {
			t.Errorf("opencode.db: size %d, want the file's 10 and its log's 5", tr.Stat.Size)
		}
	}
	want := []string{"opencode-beta.db ", "opencode.db ", "storage/session/global/ses_b.json ses_b", "storage/session/prj/ses_a.json ses_a"}
	if !slices.Equal(got, want) {
		t.Errorf("found:\n%s\nwant:\n%s", joinLines(got), joinLines(want))
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "opencode-dev.db") {
		t.Errorf("warnings %q, want one for the FIFO", warnings)
	}

	one := Discover(filepath.Join(root, "opencode.db"), func(s string) { t.Error(s) })
	if len(one) != 1 || one[0].Stat.Size != 15 {
		t.Errorf("a database named alone: %+v", one)
	}
	storage := Discover(filepath.Join(root, "storage"), func(s string) { t.Error(s) })
	if len(storage) != 2 {
		t.Errorf("a storage folder named alone: %+v", storage)
	}
	if got := Discover(filepath.Join(root, "nothing-here"), func(s string) { t.Error(s) }); got != nil {
		t.Errorf("a missing root: %+v", got)
	}
}

// TestDiscoverNested: a folder holding the data folders of several
// people or machines a few levels down is looked through for them (not
// into .git or dependencies), and the no-change check watches each.
func TestDiscoverNested(t *testing.T) {
	data := t.TempDir()
	put := func(rel string) {
		p := filepath.Join(data, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	put("alice/.local/share/opencode/opencode.db")
	put("bob/opencode/storage/session/prj/ses_b.json")
	put("carol/laptop/opencode-beta.db")
	put("bob/opencode/deeper/opencode.db") // in a data folder: not looked into
	put(".git/x/opencode.db")
	put("web/node_modules/m/opencode.db")
	put("a/b/c/d/e/f/opencode.db") // past maxNestedDepth
	var got []string
	for _, tr := range Discover(data, func(s string) { t.Error(s) }) {
		rel, _ := filepath.Rel(data, tr.Path)
		got = append(got, rel)
	}
	want := []string{"alice/.local/share/opencode/opencode.db", "bob/opencode/storage/session/prj/ses_b.json", "carol/laptop/opencode-beta.db"}
	if !slices.Equal(got, want) {
		t.Errorf("found:\n%s\nwant:\n%s", joinLines(got), joinLines(want))
	}
	watched := WatchPaths(data)
	for _, p := range []string{"alice/.local/share/opencode/opencode.db-wal", "bob/opencode/storage/session/prj", "carol/laptop/opencode-beta.db"} {
		if !slices.Contains(watched, filepath.Join(data, p)) {
			t.Errorf("%s not watched: %q", p, watched)
		}
	}
}

func TestWatchPaths(t *testing.T) {
	root := fixtureRoot(t)
	if err := os.WriteFile(filepath.Join(root, "opencode-beta.db"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range WatchPaths(root) {
		rel, _ := filepath.Rel(root, p)
		got = append(got, rel)
	}
	want := []string{"opencode.db", "opencode.db-wal", "opencode-beta.db", "opencode-beta.db-wal",
		"storage/session", "storage/session/global", "storage/session/prj_legacy"}
	if !slices.Equal(got, want) {
		t.Errorf("WatchPaths:\n%s\nwant:\n%s", joinLines(got), joinLines(want))
	}
	db := filepath.Join(root, "opencode.db")
	if got := WatchPaths(db); !slices.Equal(got, []string{db, db + "-wal"}) {
		t.Errorf("WatchPaths of a database: %q", got)
	}
}

// TestWatchPathsSeeWrites: a write to the database moves the mtime of a
// watched path (the log's), and Discover's stat of it.
func TestWatchPathsSeeWrites(t *testing.T) {
	root := fixtureRoot(t)
	path := filepath.Join(root, "opencode.db")
	before := dbTranscriptOf(t, path).Stat
	db := openRW(t, path)
	defer db.Close()
	addTurn(t, db, "ses_gamma", "w01", fixtureT+200_000, "A prompt written while recall watches", "A reply written while recall watches.")
	after := dbTranscriptOf(t, path).Stat
	if after.Size == before.Size && after.MtimeNs == before.MtimeNs {
		t.Error("a write left the database's stat as it was")
	}
	if _, err := os.Stat(path + "-wal"); err != nil {
		t.Errorf("no log to watch: %v", err)
	}
}
