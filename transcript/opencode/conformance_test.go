package opencode

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/recall-dev/recall/filter"
	"github.com/recall-dev/recall/record"
	"github.com/recall-dev/recall/transcript"
)

// schemaSQL is the fixture's schema: opencode.sql up to its first row.
var schemaSQL = sync.OnceValue(func() string {
	data, err := os.ReadFile(filepath.Join(fixtures, "opencode.sql"))
	if err != nil {
		panic(err)
	}
	s, _, _ := strings.Cut(string(data), "INSERT INTO")
	return s
})

// store is one message of a session, with its parts, written both as
// OpenCode's database and as its JSON storage.
type store struct {
	msg   string   // the message's data
	parts []string // each part's data
}

// conformanceT is when the one message of a conformance case was
// written: long before the tests' clock, so that a message without its
// end is one abandoned.
const conformanceT = fixtureT - 7*86400000

// writeDB writes s as a database at dir/opencode.db.
func (s store) writeDB(t *testing.T, dir string) transcript.Transcript {
	t.Helper()
	path := filepath.Join(dir, "opencode.db")
	buildDB(t, path, schemaSQL())
	db := openRW(t, path)
	defer db.Close()
	execSQL(t, db, `INSERT INTO project VALUES ('prj', '/w', 'git', NULL, NULL, NULL, 1, 1, 1, '[]', NULL)`)
	execSQL(t, db, `INSERT INTO session (id, project_id, slug, directory, title, version, time_created, time_updated)
		VALUES ('ses_c', 'prj', 'c', '/w', 'New session - 2026-11-11T11:06:40.000Z', '1', ?, ?)`, conformanceT, conformanceT)
	execSQL(t, db, `INSERT INTO message VALUES ('msg_c', 'ses_c', ?, ?, ?)`, conformanceT, conformanceT, s.msg)
	for i, p := range s.parts {
		execSQL(t, db, `INSERT INTO part VALUES (?, 'msg_c', 'ses_c', ?, ?, ?)`, fmt.Sprintf("prt_c%02d", i), conformanceT+int64(i), conformanceT+int64(i), p)
	}
	return dbTranscriptOf(t, path)
}

// writeJSON writes s as a session of the JSON storage under dir.
func (s store) writeJSON(t *testing.T, dir string) transcript.Transcript {
	t.Helper()
	put := func(rel, data string) string {
		p := filepath.Join(dir, "storage", rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	path := put("session/prj/ses_c.json", fmt.Sprintf(`{"id":"ses_c","projectID":"prj","directory":"/w","title":"New session - 2026-11-11T11:06:40.000Z","time":{"created":%d,"updated":%d}}`, conformanceT, conformanceT))
	put("message/ses_c/msg_c.json", s.msg)
	for i, p := range s.parts {
		put(fmt.Sprintf("part/msg_c/prt_c%02d.json", i), p)
	}
	st, err := transcript.StatFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return transcript.Transcript{Path: path, Kind: record.KindOf(record.AgentOpenCode, false), Session: "ses_c", Stat: st}
}

func userMsg() string { return fmt.Sprintf(`{"role":"user","time":{"created":%d}}`, conformanceT) }

func assistantMsg(extra string) string {
	return fmt.Sprintf(`{"role":"assistant","time":{"created":%d,"completed":%d},"path":{"cwd":"/w"}%s}`, conformanceT, conformanceT+5000, extra)
}

func toolPart(name, status, input string) string {
	return fmt.Sprintf(`{"type":"tool","callID":"c1","tool":%q,"state":{"status":%q,"input":%s,"output":"out","time":{"start":%d,"end":%d}}}`,
		name, status, input, conformanceT, conformanceT+1)
}

// TestRecordClasses: each kind of part (and message) becomes the rows it
// should, or none and the reason counted, alike in the database and in
// the JSON storage.
func TestRecordClasses(t *testing.T) {
	long := "The retry test in payments fails on CI about one run in five."
	cases := []struct {
		name  string
		store store
		rows  []string
		count map[filter.Reason]int64
	}{
		{"user text", store{userMsg(), []string{`{"type":"text","text":"` + long + `"}`}}, []string{"user/user: " + long}, nil},
		{"assistant text", store{assistantMsg(""), []string{`{"type":"text","text":"` + long + `"}`}}, []string{"assistant/assistant: " + long}, nil},
		{"synthetic text", store{userMsg(), []string{`{"type":"text","text":"` + long + `","synthetic":true}`}}, nil, map[filter.Reason]int64{filter.Noise: 1}},
		{"ignored text", store{userMsg(), []string{`{"type":"text","text":"` + long + `","ignored":true}`}}, nil, map[filter.Reason]int64{filter.Noise: 1}},
		{"acknowledgement", store{userMsg(), []string{`{"type":"text","text":"thanks!"}`}}, nil, map[filter.Reason]int64{filter.Acknowledgement: 1}},
		{"compaction summary", store{assistantMsg(`,"summary":true`), []string{`{"type":"text","text":"` + long + `"}`}}, nil, map[filter.Reason]int64{filter.Noise: 1}},
		{"role not written by OpenCode", store{`{"role":"system"}`, []string{`{"type":"text","text":"` + long + `"}`}}, nil, map[filter.Reason]int64{filter.Noise: 1}},
		{"reasoning", store{assistantMsg(""), []string{`{"type":"reasoning","text":"` + long + `","time":{"start":1}}`}}, nil, nil},
		{"tool completed", store{assistantMsg(""), []string{toolPart("bash", "completed", `{"command":"go vet ./...","description":"Vet"}`)}},
			[]string{"tool/tool: bash: go vet ./..."}, nil},
		{"tool error, filePath", store{assistantMsg(""), []string{toolPart("edit", "error", `{"filePath":"/w/a.go","oldString":"x","newString":"y"}`)}},
			[]string{"tool/tool: edit: /w/a.go"}, nil},
		{"tool pending in a finished turn", store{assistantMsg(""), []string{toolPart("bash", "pending", `{"command":"ls"}`)}}, nil, nil},
		{"tool running in an abandoned turn", store{assistantMsg(""), []string{toolPart("bash", "running", `{"command":"ls"}`)}}, nil, nil},
		{"subtask", store{userMsg(), []string{`{"type":"subtask","prompt":"` + long + `","description":"d","agent":"explore"}`}}, nil, map[filter.Reason]int64{filter.Noise: 1}},
		{"compaction", store{userMsg(), []string{`{"type":"compaction","auto":true}`}}, nil, map[filter.Reason]int64{filter.Noise: 1}},
		{"file, agent", store{userMsg(), []string{`{"type":"file","mime":"text/plain","url":"file:///w/a.go"}`, `{"type":"agent","name":"plan"}`}}, nil, nil},
		{"steps, patch, snapshot, retry", store{assistantMsg(""), []string{`{"type":"step-start"}`, `{"type":"step-finish","reason":"stop","cost":0,"tokens":{}}`,
			`{"type":"patch","hash":"h","files":[]}`, `{"type":"snapshot","snapshot":"s"}`, `{"type":"retry","attempt":1,"error":{},"time":{"created":1}}`}}, nil, nil},
		{"unknown part type", store{userMsg(), []string{`{"type":"hologram","text":"` + long + `"}`}}, nil, nil},
		{"part not JSON", store{userMsg(), []string{`{"type":"text","text":"cut`}}, nil, map[filter.Reason]int64{filter.BadLine: 1}},
		{"part not an object", store{userMsg(), []string{`"text"`}}, nil, map[filter.Reason]int64{filter.BadLine: 1}},
		{"message not JSON", store{`garbage`, []string{`{"type":"text","text":"` + long + `"}`}}, nil, map[filter.Reason]int64{filter.BadLine: 1}},
		{"assistant turn abandoned", store{fmt.Sprintf(`{"role":"assistant","time":{"created":%d}}`, conformanceT), []string{`{"type":"text","text":"` + long + `"}`}},
			[]string{"assistant/assistant: " + long}, nil},
	}
	for _, c := range cases {
		for _, kind := range []string{"database", "json"} {
			t.Run(c.name+"/"+kind, func(t *testing.T) {
				var tr transcript.Transcript
				if kind == "database" {
					tr = c.store.writeDB(t, t.TempDir())
				} else {
					tr = c.store.writeJSON(t, t.TempDir())
				}
				res := read(t, testFormat(), tr, record.FileState{})
				if got := texts(res.Rows); !slices.Equal(got, c.rows) {
					t.Errorf("rows:\n%s\nwant:\n%s", joinLines(got), joinLines(c.rows))
				}
				for _, r := range res.Rows {
					if r.Session != "ses_c" || r.Project != "/w" || r.Entrypoint != "opencode" || r.Agent != "opencode" || !strings.HasPrefix(r.UUID, "prt_c") {
						t.Errorf("row %+v", r.Row)
					}
				}
				for _, reason := range filter.Reasons() {
					if got, want := res.Counts[reason], c.count[reason]; got != want {
						t.Errorf("%s counted %d, want %d", reason, got, want)
					}
				}
			})
		}
	}
}

// TestTurnInProgress: a message still being written makes no row and
// keeps the cursor before it; one abandoned (a day old, or followed by
// another) is read as it is.
func TestTurnInProgress(t *testing.T) {
	text := `{"type":"text","text":"A reply that is still being streamed by the model"}`
	msg := fmt.Sprintf(`{"role":"assistant","time":{"created":%d}}`, conformanceT)
	done := assistantMsg("")
	cases := []struct {
		name    string
		store   store
		now     int64
		rows    int
		held    bool // the cursor stays before the message
		comment string
	}{
		{"writing", store{msg, []string{text}}, conformanceT + 60_000, 0, true, "no time.completed, a minute old"},
		{"abandoned", store{msg, []string{text}}, conformanceT + 2*86400000, 1, false, "no time.completed, two days old"},
		{"tool running", store{done, []string{text, toolPart("bash", "running", `{"command":"sleep 100"}`)}}, conformanceT + 60_000, 0, true, "complete, but a call still runs"},
		{"prompt just written", store{userMsg(), []string{text}}, conformanceT + 5_000, 1, true, "its parts may not all be written yet"},
		{"prompt settled", store{userMsg(), []string{text}}, conformanceT + 120_000, 1, false, ""},
		{"done", store{done, []string{text}}, conformanceT + 6_000, 1, false, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr := c.store.writeDB(t, t.TempDir())
			// A later change elsewhere (the session touched), so that
			// the cursor would pass the message were it not held.
			db := openRW(t, tr.Path)
			execSQL(t, db, `UPDATE session SET time_updated = ?`, conformanceT+30_000)
			db.Close()
			res := read(t, newFormat(clockAt(c.now)), tr, record.FileState{})
			if len(res.Rows) != c.rows {
				t.Errorf("%d rows, want %d (%s)", len(res.Rows), c.rows, c.comment)
			}
			if held := res.Offset < conformanceT; held != c.held {
				t.Errorf("cursor %d: held before the message %v, want %v", res.Offset, held, c.held)
			}
			js := c.store.writeJSON(t, t.TempDir())
			if got := len(read(t, newFormat(clockAt(c.now)), js, record.FileState{}).Rows); got != c.rows {
				t.Errorf("JSON storage: %d rows, want %d", got, c.rows)
			}
		})
	}
}

func TestToolInput(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"filePath":"/a.go"}`, `{"file_path":"/a.go","filePath":"/a.go"}`},
		{` {"filePath":"/a.go","limit":20} `, `{"file_path":"/a.go","filePath":"/a.go","limit":20}`},
		{`{"filePath":"/a.go","file_path":"/b.go"}`, `{"filePath":"/a.go","file_path":"/b.go"}`},
		{`{"command":"ls"}`, `{"command":"ls"}`},
		{`{"x":"\"filePath\""}`, `{"x":"\"filePath\""}`},
		{`"ls -la"`, `"ls -la"`},
		{`{"filePath":`, `{"filePath":`},
		{``, ``},
	} {
		got := string(toolInput(json.RawMessage(c.in)))
		if got != c.want {
			t.Errorf("toolInput(%s) = %s, want %s", c.in, got, c.want)
		}
		if json.Valid([]byte(c.in)) && !json.Valid([]byte(got)) {
			t.Errorf("toolInput(%s) = %s: not JSON", c.in, got)
		}
	}
}

func TestDefaultTitle(t *testing.T) {
	for title, want := range map[string]bool{
		"New session - 2026-11-18T11:06:40.000Z":   true,
		"Child session - 2026-11-18T11:06:40.123Z": true,
		"New session - 2026-11-18":                 false,
		"New session - yesterday at noon, roughly": false,
		"Fix the flaky payments retry test":        false,
		"":                                         false,
	} {
		if got := isDefaultTitle(title); got != want {
			t.Errorf("isDefaultTitle(%q) = %v", title, got)
		}
	}
}
