package gemini

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/recall-dev/recall/record"
	"github.com/recall-dev/recall/transcript"
)

// FuzzGeminiLine feeds arbitrary bytes to the parser, as the lines of a
// session file and as a legacy session document: no panic, only UTF-8
// in the rows, and rows no larger than their input allows (memory is
// bounded by the input). Seeds are the fixtures' lines and documents.
func FuzzGeminiLine(f *testing.F) {
	_ = filepath.WalkDir(fixtureGemini, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !isSessionName(d.Name()) {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return nil
		}
		if isLegacy(path) {
			f.Add(data)
			return nil
		}
		for _, l := range bytes.Split(data, []byte("\n")) {
			f.Add(l)
		}
		f.Add(data)
		return nil
	})
	f.Add([]byte(`{"id":"a","type":"gemini","content":"x","toolCalls":[{"name":"n","args":{"dir_path":"d","absolute_path":"p"}}]}` +
		"\n" + `{"id":"a","type":"gemini","content":"y"}` + "\n" + `{"$rewindTo":"a"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		w := transcript.Work{T: transcript.Transcript{Path: "/nonexistent/.gemini/tmp/p/chats/session-f.jsonl",
			Kind: record.KindOf(record.AgentGemini, false)}, State: record.FileState{Gen: 1}}

		b := transcript.NewBuilder(w, record.AgentGemini)
		p := newParser(w)
		lines := bytes.Split(data, []byte("\n"))
		for n, line := range lines {
			_ = p.Line(b, line, n+1)
		}
		check(t, b.Rows(), len(data), len(lines))
		if s, _ := p.Where(); !utf8.ValidString(s) {
			t.Errorf("session %q not UTF-8", s)
		}

		b = transcript.NewBuilder(w, record.AgentGemini)
		p = newParser(w)
		_ = p.document(b, transcript.NewDocument(bytes.NewReader(data)))
		check(t, b.Rows(), len(data), 1)
	})
}

// check checks rows made from n bytes of input in records records.
func check(t *testing.T, rows []transcript.Extracted, n, records int) {
	t.Helper()
	total := 0
	for _, r := range rows {
		if !utf8.ValidString(r.Text) || !utf8.ValidString(r.Session) || !utf8.ValidString(r.Timestamp) {
			t.Fatalf("row not UTF-8: %+v", r.Row)
		}
		if r.UUID == "" {
			t.Fatalf("row %q has no UUID", r.Text)
		}
		if r.Timestamp != "" {
			if _, ok := record.ParseTimestamp(r.Timestamp); !ok || !strings.HasSuffix(r.Timestamp, "Z") {
				t.Fatalf("timestamp %q", r.Timestamp)
			}
		}
		total += len(r.Text)
	}
	// A row's text comes from its record's bytes: decoding shrinks them,
	// a tool row adds its name's separator, redaction its label.
	if limit := 4*n + 64*len(rows); total > limit {
		t.Fatalf("%d bytes of rows from %d bytes of input", total, n)
	}
}

// FuzzGeminiLogs: a project's prompt log, whatever its bytes, gives rows
// only of prompts of sessions with a UUID, each row a user row of that
// session, and never fails the read for a bad element (counted instead).
func FuzzGeminiLogs(f *testing.F) {
	for _, path := range []string{filepath.Join(fixtureGemini, "tmp", "webapp", logsName), filepath.Join(fixtureGemini, "tmp", "prelog", logsName)} {
		if data, err := os.ReadFile(path); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte(`[{"sessionId":"6d5c4b3a-2f1e-4d0c-9b8a-7f6e5d4c3b2a","messageId":7,"type":"user","message":"x\u0000y","timestamp":1}]`))
	f.Add([]byte(`[1, "a", null, {"sessionId": 3}]`))
	f.Add([]byte(`{"not":"an array"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := filepath.Join(t.TempDir(), "tmp", "p")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, logsName)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		w := transcript.Work{T: transcript.Transcript{Path: path, Kind: record.KindOf(record.AgentGemini, false)}, State: record.FileState{Gen: 1}}
		b := transcript.NewBuilder(w, record.AgentGemini)
		if _, _, _, err := readLogs(w, b); err != nil && json.Valid(data) && bytes.HasPrefix(bytes.TrimSpace(data), []byte("[")) {
			t.Fatalf("a JSON array failed the read: %v", err)
		}
		for _, r := range b.Rows() {
			if !isUUID(r.Session) || r.Role != "user" || r.Type != "user" {
				t.Fatalf("row %+v: want a user row of a session with a UUID", r)
			}
		}
	})
}
