package gemini

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recall-dev/recall/record"
)

// TestProjectOfHashFolders reads the sessions of a Gemini CLI of 2025:
// folders named by the hash of the project's path, registered nowhere.
// The project is the ancestor of a path the sessions name whose hash is
// the folder's: from a tool's absolute path, from a sibling session of
// the same folder, from a Windows path, from a shell command's words;
// and none when the paths named lie outside the project.
func TestProjectOfHashFolders(t *testing.T) {
	root := filepath.Join(fixtures, "hashonly", ".gemini")
	want := map[string]string{
		"aaaa1111-0000-4000-8000-000000000001": "/home/dev/legacy-app", // read_file's absolute_path
		"bbbb2222-0000-4000-8000-000000000002": "/home/dev/legacy-app", // no tool: its sibling's
		"cccc3333-0000-4000-8000-000000000003": `C:\Users\Dev\shop`,    // a Windows file_path
		"dddd4444-0000-4000-8000-000000000004": "/srv/api",             // cd /srv/api/cmd && …
		"eeee5555-0000-4000-8000-000000000005": "",                     // /etc/hosts and /home/dev only
	}
	found := Discover(root, func(s string) { t.Errorf("warning: %s", s) })
	if len(found) != len(want) {
		t.Fatalf("found %d session files, want %d", len(found), len(want))
	}
	for _, tr := range found {
		res := read(t, tr, record.FileState{})
		if res.Err != nil {
			t.Fatalf("%s: %v", tr.Path, res.Err)
		}
		w, ok := want[res.Session]
		if !ok {
			t.Fatalf("%s: unexpected session %q", tr.Path, res.Session)
		}
		if res.Project != w {
			t.Errorf("%s: project %q, want %q", res.Session, res.Project, w)
		}
		for _, r := range res.Rows {
			if r.Project != w {
				t.Errorf("%s: row %q has project %q, want %q", res.Session, r.Text, r.Project, w)
			}
		}
	}
}

// TestRootFinderScan holds the search to JSON text of every shape a
// session names a path in, and to what it must not take.
func TestRootFinderScan(t *testing.T) {
	tests := []struct {
		name, root, data, want string
	}{
		{"absolute path", "/home/u/app", `{"absolute_path":"/home/u/app/main.go"}`, "/home/u/app"},
		{"the root itself", "/home/u/app", `{"path":"/home/u/app"}`, "/home/u/app"},
		{"path with a space", "/home/u/my app", `{"file_path":"/home/u/my app/x.go"}`, "/home/u/my app"},
		{"escaped slashes", "/home/u/app", `{"p":"\/home\/u\/app\/x"}`, "/home/u/app"},
		{"unicode escape", "/home/u/café", `{"p":"/home/u/caf\u00e9/x"}`, "/home/u/café"},
		{"shell command", "/srv/api", `{"command":"cd /srv/api && make"}`, "/srv/api"},
		{"quoted word", "/srv/api", `{"command":"ls '/srv/api/bin'"}`, "/srv/api"},
		{"windows", `C:\Users\Dev\shop`, `{"file_path":"C:\\Users\\Dev\\shop\\a.ts"}`, `C:\Users\Dev\shop`},
		{"windows forward slashes", `C:/work/shop`, `{"file_path":"C:/work/shop/a.ts"}`, `C:/work/shop`},
		// The spelling the CLI hashed, which all of the folder's sessions
		// share, not the one a tool was given.
		{"windows lower-cased drive", `C:\work\shop`, `{"file_path":"c:\\work\\shop\\a.ts"}`, `C:\work\shop`},
		{"windows upper-cased drive", `c:\Users\Dev\shop`, `{"file_path":"C:\\Users\\Dev\\shop\\a.ts"}`, `c:\Users\Dev\shop`},
		{"outside the project", "/home/u/app", `{"p":"/home/u","q":"/etc/hosts","r":"/home/u/other/app"}`, ""},
		{"a closing quote before a slash", "/x", `{"a":"b"/x"}`, ""},
		{"relative path", "/home/u/app", `{"file_path":"app/main.go"}`, ""},
		{"url", "/home/u/app", `{"url":"//cdn.example.com/home/u/app"}`, ""},
		{"unterminated", "/home/u/app", `{"p":"/home/u/app/x`, ""},
		{"text after a path", "/home/u/app", `["/home/u/app/a.go is where it panics"]`, "/home/u/app"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sum := sha256.Sum256([]byte(tc.root))
			f := &rootFinder{hash: hex.EncodeToString(sum[:]), tried: map[string]struct{}{}}
			f.scan([]byte(tc.data))
			if f.found != tc.want {
				t.Errorf("found %q, want %q", f.found, tc.want)
			}
		})
	}
}

// TestByFilesBounded: a folder whose sessions name no path of the
// project is read up to maxHashScanBytes in all, not file after file.
func TestByFilesBounded(t *testing.T) {
	hash := strings.Repeat("ab", sha256.Size)
	chats := filepath.Join(t.TempDir(), "tmp", hash, "chats")
	if err := os.MkdirAll(chats, 0o755); err != nil {
		t.Fatal(err)
	}
	big := `{"p":"/elsewhere/` + strings.Repeat("x", maxHashScanBytes) + `"}`
	for _, name := range []string{"session-1.json", "session-2.json", "session-3.json"} {
		if err := os.WriteFile(filepath.Join(chats, name), []byte(big), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p := projectsOf(filepath.Join(chats, "session-1.json"), false)
	if got := p.filesNaming(p.file); len(got) != 3 || got[0] != p.file {
		t.Fatalf("files %q: want the session's own first, then its 2 siblings", got)
	}
	if got := p.byFiles(hash, p.file); got != "" {
		t.Errorf("found %q in files naming no project path", got)
	}
}

// FuzzRootFinderScan: on any bytes the scan stays in bounds, and what
// it finds is a folder whose hash is the one sought (here that of
// /home/u/app or of C:\Users\Dev\app). On valid JSON it finds what a
// walk of every string encoding/json decodes finds.
func FuzzRootFinderScan(f *testing.F) {
	for _, s := range []string{
		`{"absolute_path":"/home/u/app/main.go"}`, `{"command":"cd /home/u/app && make"}`,
		`{"file_path":"C:\\Users\\Dev\\app\\a.ts"}`, `["\/home\/u\/app"]`, `{"a":"b"/x"}`, `"/home/u/app`,
		`{"p":"/home/u/caf\u00e9/x","q":"\ud800/home/u/app"}`, `{"k":"` + "\x01" + `/home/u/app"}`,
	} {
		f.Add([]byte(s))
	}
	roots := []string{"/home/u/app", `C:\Users\Dev\app`}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, root := range roots {
			sum := sha256.Sum256([]byte(root))
			hash := hex.EncodeToString(sum[:])
			got := &rootFinder{hash: hash, tried: map[string]struct{}{}}
			got.scan(data)
			if got.found != "" && !hashesTo(got.found, hash) {
				t.Fatalf("scan(%q) found %q, whose hash is not %s", data, got.found, hash)
			}
			if !json.Valid(data) {
				continue
			}
			want := &rootFinder{hash: hash, tried: map[string]struct{}{}}
			var v any
			_ = json.Unmarshal(data, &v)
			eachString(v, func(s string) {
				if want.found == "" && len(s) <= maxPathBytes && strings.ContainsAny(s, `/\`) {
					want.tryString(s)
				}
			})
			if (got.found == "") != (want.found == "") {
				t.Fatalf("scan(%q) found %q; a walk of the decoded strings %q", data, got.found, want.found)
			}
		}
	})
}

// hashesTo reports whether a spelling of path hashes to hash.
func hashesTo(path, hash string) bool {
	for _, c := range hashCandidates(path) {
		if sum := sha256.Sum256([]byte(c)); hex.EncodeToString(sum[:]) == hash {
			return true
		}
	}
	return false
}

// eachString calls fn with every string of a decoded JSON value, keys
// included, in document order for arrays (objects' order does not
// matter to the finder's verdict).
func eachString(v any, fn func(string)) {
	switch v := v.(type) {
	case string:
		fn(v)
	case []any:
		for _, e := range v {
			eachString(e, fn)
		}
	case map[string]any:
		for k, e := range v {
			fn(k)
			eachString(e, fn)
		}
	}
}
