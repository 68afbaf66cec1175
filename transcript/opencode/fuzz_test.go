package opencode

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"unicode/utf8"

	"github.com/recall-dev/recall/record"
	"github.com/recall-dev/recall/transcript"
)

// FuzzOpenCodePart: any bytes as a message's data and a part's (what the
// database's data columns and the JSON storage's files hold) make at
// most one row, of valid UTF-8 text bounded by what went in, that
// survives its TSV encoding; nothing panics.
func FuzzOpenCodePart(f *testing.F) {
	msgs, _ := filepath.Glob(filepath.Join(fixtures, "storage/message/*/*.json"))
	parts, _ := filepath.Glob(filepath.Join(fixtures, "storage/part/*/*.json"))
	if len(msgs) == 0 || len(parts) == 0 {
		f.Fatal("no fixture files")
	}
	for i, p := range parts {
		part, _ := os.ReadFile(p)
		msg, _ := os.ReadFile(msgs[i%len(msgs)])
		f.Add(msg, part)
	}
	user := []byte(`{"role":"user","time":{"created":1795000000000}}`)
	for _, p := range []string{
		`{"type":"text","text":"Use the deploy token ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8 to push"}`,
		`{"type":"text","text":"\ud83d\ude00 \u0000 \\ \t tab\nnew line long enough","synthetic":"yes","time":{"start":-1}}`,
		`{"type":"tool","tool":"read","state":{"status":"completed","input":{"filePath":"/a/b.go","file_path":7}}}`,
		`{"type":"tool","tool":"bash","state":{"status":"running","input":"ls","time":{"start":1e308}}}`,
		`{"type":"subtask","prompt":"p","description":"d","agent":"a"}`,
		`{"type":"text","text":"bytes \xff\xfe not UTF-8 in a long enough text"}`,
		`[{"type":"text"}]`, `null`, `{"type":`, ``,
	} {
		f.Add(user, []byte(p))
	}
	f.Add([]byte(`{"role":"assistant","summary":true,"time":{"completed":"x"}}`), []byte(`{"type":"text","text":"summary text here"}`))
	f.Fuzz(func(t *testing.T, msgData, partData []byte) {
		w := transcript.Work{T: transcript.Transcript{Path: "/data/opencode/opencode.db", Kind: record.KindOf(record.AgentOpenCode, false)},
			State: record.FileState{Gen: 1}}
		b := transcript.NewBuilder(w, record.AgentOpenCode)
		info, err := decodeMessage(msgData)
		m := message{id: "msg_f", info: info, bad: err != nil}
		d, err := decodePart(partData)
		m.parts = []part{{id: d.ID, data: d, raw: partData, bad: err != nil}}
		s := &session{id: "ses_f", parent: d.SessionID, directory: "/w", title: d.Text}
		e := &emitter{b: b, sessions: map[string]*session{"ses_f": s}}
		_, _ = judge(&m, true, testNow)
		e.title(s)
		e.message(s, &m)
		rows := b.Rows()
		if len(rows) > 2 {
			t.Fatalf("%d rows from one part and a title", len(rows))
		}
		in := len(msgData) + len(partData)
		for i := range rows {
			r := &rows[i].Row
			if !utf8.ValidString(r.Text) {
				t.Fatalf("row text not UTF-8: %q", r.Text)
			}
			if len(r.Text) > 16*in+256 {
				t.Fatalf("%d bytes of text from %d bytes", len(r.Text), in)
			}
			if r.UUID == "" {
				t.Fatal("a row without a UUID")
			}
			enc := r.AppendTSV(nil)
			if bytes.IndexByte(enc[:len(enc)-1], '\n') >= 0 {
				t.Fatalf("row encodes to more than one line: %q", enc)
			}
			got, err := record.ParseRow(enc[:len(enc)-1])
			if err != nil || got != *r {
				t.Fatalf("row round trip: %v\n got %+v\nwant %+v", err, got, *r)
			}
		}
		if in := d.State.Input; json.Valid(in) {
			if out := toolInput(in); !json.Valid(out) {
				t.Fatalf("toolInput(%s) = %s: not JSON", in, out)
			}
		}
	})
}

// FuzzSessionMessage: any bytes as the data of an OpenCode 2.x message
// of any kind make rows of valid UTF-8 text, each with a UUID of its
// own, that survive their TSV encoding; nothing panics.
func FuzzSessionMessage(f *testing.F) {
	for _, c := range []struct{ kind, data string }{
		{"user", `{"time":{"created":1795000000000},"text":"Parse the TOML config and report bad keys","files":[]}`},
		{"assistant", `{"time":{"created":1795000000000,"completed":1795000001000},"content":[{"type":"text","id":"t1","text":"Renamed porrt to port."},` +
			`{"type":"tool","id":"c1","name":"read","state":{"status":"completed","input":{"filePath":"/a/b.go"}}},{"type":"reasoning","id":"r","text":"hm"}]}`},
		{"assistant", `{"content":[{"type":"text","text":"same id"},{"type":"text","text":"same id"},{"type":"tool","name":"bash","state":{"status":"pending","input":"ls"}}]}`},
		{"shell", `{"time":{"created":1},"command":"git status","output":"clean"}`},
		{"synthetic", `{"text":"Continue"}`},
		{"user", `{"text":7,"time":"x"}`}, {"assistant", `{"content":{"type":"text"}}`}, {"user", `[1]`}, {"", ``},
	} {
		f.Add(c.kind, []byte(c.data))
	}
	f.Fuzz(func(t *testing.T, kind string, data []byte) {
		w := transcript.Work{T: transcript.Transcript{Path: "/data/opencode/opencode.db", Kind: record.KindOf(record.AgentOpenCode, false)},
			State: record.FileState{Gen: 1}}
		b := transcript.NewBuilder(w, record.AgentOpenCode)
		m := message{id: "msg_f", line: 3}
		decodeSessionMessage(&m, kind, data)
		s := &session{id: "ses_f", directory: "/w"}
		e := &emitter{b: b, sessions: map[string]*session{"ses_f": s}}
		_, _ = judge(&m, true, testNow)
		e.message(s, &m)
		seen := map[string]bool{}
		for _, x := range b.Rows() {
			r := &x.Row
			if !utf8.ValidString(r.Text) || r.UUID == "" || seen[r.UUID] {
				t.Fatalf("row %+v (UUIDs so far %v)", *r, seen)
			}
			seen[r.UUID] = true
			enc := r.AppendTSV(nil)
			if got, err := record.ParseRow(enc[:len(enc)-1]); err != nil || got != *r {
				t.Fatalf("row round trip: %v\n got %+v\nwant %+v", err, got, *r)
			}
		}
	})
}
