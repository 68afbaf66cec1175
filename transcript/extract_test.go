package transcript

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/recall-dev/recall/filter"
	"github.com/recall-dev/recall/record"
)

func TestToolSummary(t *testing.T) {
	tests := []struct {
		name, input, want string
	}{
		{"Bash", `{"command":"go test ./...","description":"run"}`, "Bash: go test ./..."},
		{"Edit", `{"file_path":"/src/pricing.ts","old_string":"a","new_string":"b"}`, "Edit: /src/pricing.ts"},
		{"Grep", `{"pattern":"jwtSecret","path":"/src"}`, "Grep: jwtSecret in /src"},
		{"Glob", `{"pattern":"**/*.go"}`, "Glob: **/*.go"},
		{"WebFetch", `{"url":"https://example.com/a","prompt":"summarise"}`, "WebFetch: https://example.com/a"},
		{"TaskOutput", `{}`, "TaskOutput"},
		{"Write", `{"file_path":"/a\tb.txt","content":"` + strings.Repeat("x", 5000) + `"}`, "Write: /a\tb.txt"},
		{"Bash", `{"command":"` + strings.Repeat("y", 600) + `"}`, "Bash: " + strings.Repeat("y", maxToolText-len("Bash: ")) + "…"},
		{"", `{"command":"x"}`, ""},
	}
	for _, tt := range tests {
		if got := toolSummary(tt.name, []byte(tt.input)); got != tt.want {
			t.Errorf("toolSummary(%s, %.40s) = %q, want %q", tt.name, tt.input, got, tt.want)
		}
	}
}

func TestJSONScannerSkipsValues(t *testing.T) {
	line := `{"a":"x\"y\\","b":{"c":[1,{"d":"}]"}]},"n":-1.5e3,"t":true,"z":null,"s":"last"}`
	var keys []string
	if err := eachMember([]byte(line), nil, func(k, v []byte) bool {
		keys = append(keys, string(k)+"="+string(v))
		return true
	}); err != nil {
		t.Fatal(err)
	}
	want := `[a="x\"y\\" b={"c":[1,{"d":"}]"}]} n=-1.5e3 t=true z=null s="last"]`
	if fmt.Sprint(keys) != want {
		t.Fatalf("members = %v\nwant      %v", keys, want)
	}
	for _, bad := range []string{``, `{`, `{"a"}`, `{"a":}`, `{"a":"x}`, `{"a":1 "b":2}`, `[1]`, `{"a":{"b":1}`} {
		if err := eachMember([]byte(bad), nil, func(k, v []byte) bool { return true }); err == nil {
			t.Errorf("eachMember accepted %q", bad)
		}
	}
}

// FuzzExtractAnyBytes: no input line makes the extractor panic, and every
// row it keeps has text worth indexing.
func FuzzExtractAnyBytes(f *testing.F) {
	f.Add([]byte(`{"type":"user","message":{"content":"hello there, friend"}}`))
	f.Add([]byte(`{"type":"assistant","message":{"content":[{"type":"text","text":"x"},{"type":"tool_use","name":"Bash","input":{"command":"ls"}}]}}`))
	f.Add([]byte(`{"type":"user","message":{"content":[{"type":"tool_result","content":"x"}]}}`))
	f.Add([]byte(`{"type":"assistant","message":{"content":[{"type":"text","text":"\u0000\ud800"}]}}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		x := &lineExtractor{kind: record.KindMain, source: "/s.jsonl"}
		_ = x.add(line, 1)
		for _, r := range x.rows {
			if r.Role != "tool" && filter.Short(r.Text) {
				t.Fatalf("kept a short row %q from %q", r.Text, line)
			}
		}
	})
}

// FuzzExtractMatchesEncodingJSON builds transcript lines from arbitrary
// field values with encoding/json and checks that the scanner-based
// extractor reads them exactly as a plain encoding/json decoder does.
func FuzzExtractMatchesEncodingJSON(f *testing.F) {
	f.Add(uint8(0), "How do we rotate the signing key?", "Bash", "go test ./...", false, false)
	f.Add(uint8(1), "I'll implement it \"now\" with\ttabs\\ and \u00e9", "Edit", "/src/a.go", true, false)
	f.Add(uint8(2), "<ide_opened_file>x</ide_opened_file>real question here", "Grep", "pattern", false, true)
	f.Add(uint8(3), "\xff\xfe invalid utf8 text here", "Write", "\x00", false, false)
	f.Add(uint8(3), "", strings.Repeat("T", 600), "", false, false) // a bare tool name over the row cap
	f.Add(uint8(4), "Isn't the main agent the coordinator?", "", "", false, false)
	f.Add(uint8(4), "keep the old name", "", "and the tests", true, false)
	f.Add(uint8(4), "<task-notification>x</task-notification>", "", "", false, true)
	f.Add(uint8(4), "not a prompt", "file", "", false, false)
	f.Add(uint8(5), "exit status 1", "", "", false, false)
	f.Add(uint8(5), "", "reject", "keep the old invoice format, please", false, false)
	f.Add(uint8(5), "", "reject", "keep the old invoice format, please", true, false)
	f.Add(uint8(5), "", "reject", "  ", true, false)
	f.Fuzz(func(t *testing.T, shape uint8, text, tool, arg string, meta, sidechain bool) {
		line := fuzzLine(shape, text, tool, arg, meta, sidechain)
		// Secrets kept: this compares decoding, and the reference does
		// not redact (a tool "Pw" with a value reads as "pw: value", a
		// password told in prose). Redaction has tests of its own.
		got := &lineExtractor{kind: record.KindMain, source: "/s.jsonl", keepSecrets: true}
		errGot := got.add(line, 7)
		want, errWant := referenceExtract(line)
		if (errGot != nil) != (errWant != nil) {
			t.Fatalf("errors differ on %s: scanner %v, encoding/json %v", line, errGot, errWant)
		}
		if fmt.Sprint(rowTexts(got.rows)) != fmt.Sprint(want) {
			t.Fatalf("rows differ on %s:\nscanner       %q\nencoding/json %q", line, rowTexts(got.rows), want)
		}
	})
}

func fuzzLine(shape uint8, text, tool, arg string, meta, sidechain bool) []byte {
	rec := map[string]any{"uuid": "u-1", "sessionId": "s-1", "timestamp": "2026-01-01T00:00:00.000Z",
		"cwd": "/p", "isMeta": meta, "isSidechain": sidechain}
	switch shape % 6 {
	case 5:
		// A tool's result; tool "reject" makes it a refused call's, with
		// arg as what the person typed, as a string or (meta) a text
		// block.
		var content any = text
		if tool == "reject" {
			content = rejectPrefix + " The tool use was rejected. " + feedbackMarker + "\n" + arg
		}
		if meta {
			content = []any{map[string]any{"type": "text", "text": content}}
		}
		rec["type"] = "user"
		rec["message"] = map[string]any{"role": "user", "content": []any{
			map[string]any{"type": "tool_result", "tool_use_id": "t-1", "is_error": true, "content": content},
		}}
	case 0:
		rec["type"] = "user"
		rec["message"] = map[string]any{"role": "user", "content": text}
	case 1:
		rec["type"] = "assistant"
		rec["message"] = map[string]any{"role": "assistant", "model": "m", "content": []any{
			map[string]any{"type": "text", "text": text},
		}}
	case 2:
		rec["type"] = "user"
		rec["message"] = map[string]any{"role": "user", "content": []any{
			map[string]any{"type": "text", "text": text}, map[string]any{"type": "text", "text": arg},
		}}
	case 4:
		// A prompt typed mid-turn (queued_command), or a task's
		// notification queued the same way; tool names the
		// attachment's type when it is not "queued_command".
		typ, mode := "queued_command", "prompt"
		if sidechain {
			mode = "task-notification"
		}
		if tool == "file" {
			typ = tool
		}
		var prompt any = text
		if meta {
			prompt = []any{map[string]any{"type": "text", "text": text}, map[string]any{"type": "text", "text": arg}}
		}
		rec["type"] = "attachment"
		rec["attachment"] = map[string]any{"type": typ, "prompt": prompt, "commandMode": mode}
	default:
		rec["type"] = "assistant"
		rec["message"] = map[string]any{"role": "assistant", "content": []any{
			map[string]any{"type": "tool_use", "name": tool, "input": map[string]any{"command": arg, "file_path": text}},
		}}
	}
	b, _ := json.Marshal(rec)
	return b
}

func rowTexts(rows []Extracted) []string {
	out := []string{}
	for _, r := range rows {
		out = append(out, r.Role+":"+r.Text)
	}
	return out
}

// referenceExtract is the extractor written plainly with encoding/json,
// kept as the reference the scanner must agree with.
func referenceExtract(line []byte) ([]string, error) {
	out := []string{}
	var rec struct {
		Type              string          `json:"type"`
		IsMeta            bool            `json:"isMeta"`
		IsCompactSummary  bool            `json:"isCompactSummary"`
		IsAPIErrorMessage bool            `json:"isApiErrorMessage"`
		Message           json.RawMessage `json:"message"`
		Attachment        json.RawMessage `json:"attachment"`
	}
	if err := json.Unmarshal(line, &rec); err != nil {
		return nil, err
	}
	type block struct {
		Type    string                     `json:"type"`
		Text    string                     `json:"text"`
		Name    string                     `json:"name"`
		Input   map[string]json.RawMessage `json:"input"`
		Content json.RawMessage            `json:"content"`
	}
	keep := func(role, text string) {
		if clean, reason := filter.Clean(text); reason == filter.Kept {
			out = append(out, role+":"+clean)
		}
	}
	var a struct {
		Type        string          `json:"type"`
		CommandMode string          `json:"commandMode"`
		Prompt      json.RawMessage `json:"prompt"`
	}
	// A prompt: a string, or the text blocks of an array joined.
	prompt := func(content json.RawMessage) (string, bool) {
		if c := bytes.TrimSpace(content); len(c) > 0 && c[0] == '"' {
			var s string
			json.Unmarshal(c, &s)
			return s, true
		}
		var blocks []block
		json.Unmarshal(content, &blocks)
		var parts, feedback []string
		results := false
		for _, b := range blocks {
			switch b.Type {
			case "text":
				parts = append(parts, b.Text)
			case "tool_result":
				results = true
				// What the person typed when refusing the call: after the
				// marker of a result that starts as Claude Code's refusal.
				var s string
				if json.Unmarshal(b.Content, &s) != nil {
					var inner []block
					if json.Unmarshal(b.Content, &inner) == nil && len(inner) > 0 && inner[0].Type == "text" {
						s = inner[0].Text
					}
				}
				if _, fb, ok := strings.Cut(s, feedbackMarker); ok && strings.HasPrefix(s, rejectPrefix) {
					fb = strings.TrimSpace(withoutMemoryNote(fb))
					if fb != "" && !strings.HasPrefix(fb, clarifyPrefix) && !slices.Contains(feedback, fb) {
						feedback = append(feedback, fb)
					}
				}
			}
		}
		if len(feedback) > 0 {
			return strings.Join(feedback, "\n"), true
		}
		return strings.Join(parts, "\n"), len(parts) > 0 && !results
	}
	if rec.Type == "attachment" && json.Unmarshal(rec.Attachment, &a) == nil && a.Type == "queued_command" && a.CommandMode == "prompt" {
		if text, ok := prompt(a.Prompt); ok {
			keep("user", text)
		}
		return out, nil
	}
	var msg struct {
		Model   string          `json:"model"`
		Content json.RawMessage `json:"content"`
	}
	if json.Unmarshal(rec.Message, &msg) != nil {
		return out, nil
	}
	switch rec.Type {
	case "user":
		if text, ok := prompt(msg.Content); ok && !rec.IsMeta && !rec.IsCompactSummary {
			keep("user", text)
		}
	case "assistant":
		var blocks []block
		json.Unmarshal(msg.Content, &blocks)
		for _, b := range blocks {
			switch {
			case b.Type == "text" && msg.Model != "<synthetic>" && !rec.IsAPIErrorMessage:
				keep("assistant", b.Text)
			case b.Type == "tool_use":
				if s := referenceToolSummary(b.Name, b.Input); s != "" {
					out = append(out, "tool:"+s)
				}
			}
		}
	}
	return out, nil
}

func referenceToolSummary(name string, args map[string]json.RawMessage) string {
	if name == "" {
		return ""
	}
	str := func(k string) string {
		var s string
		if json.Unmarshal(args[k], &s) != nil {
			return ""
		}
		return strings.TrimSpace(s)
	}
	for _, k := range toolArgKeys {
		if s := str(k); s != "" {
			text := name + ": " + s
			if path := str("path"); k == "pattern" && path != "" {
				text += " in " + path
			}
			return truncateRunes(text, maxToolText)
		}
	}
	return truncateRunes(name, maxToolText) // a row is capped, a bare name too
}

// TestToolArgPathNamesPath: toolCall finds a pattern's path by index.
func TestToolArgPathNamesPath(t *testing.T) {
	if toolArgKeys[toolArgPath] != "path" {
		t.Fatalf("toolArgKeys[toolArgPath] = %q", toolArgKeys[toolArgPath])
	}
	if got := toolCall("Grep", []byte(`{"path":"/a","pattern":"x","path":"/src"}`)); got != "Grep: x in /src" {
		t.Fatalf("toolCall = %q", got)
	}
}
