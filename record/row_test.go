package record

import (
	"bytes"
	"testing"
)

func TestRowRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		row  Row
	}{
		{"plain", Row{Session: "s1", Timestamp: "2026-03-01T10:00:00.000Z", Type: TypeUser, Text: "hello world", Project: "/p", Source: "/p/s1.jsonl", Line: 3, UUID: "u", Role: "user", Gen: 7, Ordinal: 2}},
		{"escapes", Row{Session: "s", Text: "a\tb\nc\\d\re\\n", Project: "/with\ttab", Source: "x", Line: 1, Gen: 1}},
		{"empty fields", Row{Line: 0, Gen: 0}},
		{"trailing backslash", Row{Text: `ends with \`, Line: 1}},
		{"unicode", Row{Text: "école — 日本語 ✓", Line: 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			line := tt.row.AppendTSV(nil)
			if bytes.Count(line, []byte("\n")) != 1 || line[len(line)-1] != '\n' {
				t.Fatalf("row is not one line: %q", line)
			}
			got, err := ParseRow(line[:len(line)-1])
			if err != nil {
				t.Fatalf("ParseRow: %v", err)
			}
			if got != tt.row {
				t.Fatalf("round trip:\n got %+v\nwant %+v", got, tt.row)
			}
		})
	}
}

// TestAppendTSVAfterRowsMatchesAlone: rows written one after another
// into a block, remembering the fields that needed no escape, come out
// as each row alone would, whether a field repeats, changes, or changes
// between plain and escaped.
func TestAppendTSVAfterRowsMatchesAlone(t *testing.T) {
	rows := []Row{
		{Session: "s1", Text: "a", Project: "/p", Source: "/p/s1.jsonl", Line: 1},
		{Session: "s1", Text: "b", Project: "/p", Source: "/p/s1.jsonl", Line: 2},
		{Session: "s1", Text: "c", Project: "/p\tab", Source: "/p/s1.jsonl", Line: 3},
		{Session: "s1", Text: "d", Project: "/p\tab", Source: "/p\n/s1.jsonl", Line: 4},
		{Session: "s\t2", Text: "e", Project: "/p", Source: "/p/s1.jsonl", Line: 5},
		{Session: "s1", Text: "f", Project: "/q", Source: "/q/s1.jsonl", Line: 6},
		{Session: "", Text: "g", Project: "", Source: "", Line: 7},
		{Session: "s1", Text: "h", Project: "/q", Source: "/q/s1.jsonl", Line: 8},
	}
	var plain Repeats
	var got, want []byte
	for i := range rows {
		got = rows[i].appendTSV(got, &plain)
		want = rows[i].AppendTSV(want)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("rows in a block:\n%q\nwant\n%q", got, want)
	}
}

func TestParseRowRejectsWrongColumnCount(t *testing.T) {
	for _, line := range []string{"", "a\tb", "a\tb\tc\td\te\tf\tg\th\ti\tj\tk", "a\tb\tc\td\te\tf\tg\th\ti\tj\tk\tl\tm"} {
		if _, err := ParseRow([]byte(line)); err == nil {
			t.Errorf("ParseRow(%q) accepted a malformed row", line)
		}
	}
}

func TestHeaderNamesEveryColumn(t *testing.T) {
	h := Header()
	if got := bytes.Count([]byte(h), []byte("\t")) + 1; got != NumColumns {
		t.Fatalf("header has %d columns, want %d", got, NumColumns)
	}
	if h[:len("session_id\ttimestamp\ttype\ttext\tproject_path\t")] != "session_id\ttimestamp\ttype\ttext\tproject_path\t" {
		t.Fatalf("header does not start with the classic layout: %q", h)
	}
}

// FuzzRowRoundTrip: any bytes in any field survive encoding, and a row is
// always exactly one line.
func FuzzRowRoundTrip(f *testing.F) {
	f.Add("s", "t", "user", "text\twith\ttabs\nand lines\\", "/p", "/src", 12, "uuid", "agent", uint32(3))
	f.Add("", "", "", "", "", "", 0, "", "", uint32(0))
	f.Add("\\", "\\t", "\n", "\r\n", "\x00", "\xff", -1, "\\\\", "\t", uint32(1<<31))
	f.Fuzz(func(t *testing.T, session, ts, typ, text, project, source string, line int, uuid, agent string, gen uint32) {
		r := Row{Session: session, Timestamp: ts, Type: typ, Text: text, Project: project, Source: source,
			Line: line, UUID: uuid, AgentID: agent, Role: typ, Gen: gen, Ordinal: line / 2}
		enc := r.AppendTSV(nil)
		// A block writes each row after others whose plain fields it
		// remembers (appendTSV): the bytes must be AppendTSV's.
		var plain Repeats
		prev := Row{Session: session, Project: session, Source: project}
		prev.appendTSV(nil, &plain)
		if again := r.appendTSV(nil, &plain); !bytes.Equal(again, enc) {
			t.Fatalf("after a row: %q, alone: %q", again, enc)
		}
		if bytes.IndexByte(enc[:len(enc)-1], '\n') >= 0 {
			t.Fatalf("encoded row holds a newline: %q", enc)
		}
		got, err := ParseRow(enc[:len(enc)-1])
		if err != nil {
			t.Fatalf("ParseRow(%q): %v", enc, err)
		}
		if got != r {
			t.Fatalf("round trip:\n got %+v\nwant %+v", got, r)
		}
	})
}

// FuzzUnescape: decoding never fails or panics on arbitrary input, and
// escaping what it returns gives back a form that decodes to the same.
func FuzzUnescape(f *testing.F) {
	f.Add([]byte(`a\tb\nc\\`))
	f.Add([]byte(`\`))
	f.Add([]byte(`\q\`))
	f.Fuzz(func(t *testing.T, b []byte) {
		s := Unescape(b)
		again := Unescape(appendEscaped(nil, s))
		if again != s {
			t.Fatalf("escape/unescape not stable: %q -> %q -> %q", b, s, again)
		}
	})
}
