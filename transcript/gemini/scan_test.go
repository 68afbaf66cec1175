package gemini

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// FuzzScanMatchesJSON holds the scanner (scan.go) to encoding/json: a
// record, its content's text, its tool calls, their args and times, and
// a checkpoint's ids read from any bytes are what the reader made when
// it decoded them with encoding/json (the ref functions below, kept
// from it).
func FuzzScanMatchesJSON(f *testing.F) {
	for _, s := range []string{
		`{"id":"a","type":"gemini","content":[{"text":"x\n\u00e9\ud83d\ude00"},{"text":"<hook_context>y","thought":true}],"toolCalls":[{"name":"n","args":{"dir_path":"d","absolute_path":"p"},"result":[{"functionResponse":{"response":{"output":"big \"out\""}}}],"timestamp":"2026-01-03T06:03:58.929Z"},3,null]}`,
		`{"ID":"a","TYPE":"user","Content":"hi","displayContent":[{"text":"shown"}],"timestamp":"2024-02-29T23:59:59.999Z"}`,
		`{"\u0069d":"a","type":"user","content":{"functionResponse":{}}}`,
		`{"ıd":"a","ſessionId":"s"}`,
		`{"id":"a","id":"b","type":"gemini","content":"x"}   `,
		`{"sessionId":"s","projectHash":"h","startTime":"2025-02-29T00:00:00.000Z","messages":[{"id":"m","type":"user","content":"q"}]}`,
		`{"$set":{"messages":[{"id":"x"},null,{"ID":"y"}],"lastUpdated":"2026-01-01T00:00:00Z"}}`,
		`{"$set":{"messages":[{"id":"x"},1]}}`,
		`{"$rewindTo":"a"}`,
		`{"a":[1,-0.5e+3,true,false,null,{"b":[]}],"c":"\/"}`,
		`{"a":01}`, `{"a":"\x01"}`, `{"a":"\q"}`, `{"a":1.}`, `{"a":[1,]}`, `{"a" 1}`, `{"a":1}x`,
		`{"a":"` + "\xff\xfe" + `","id":"` + "\xed\xa0\x80" + `"}`,
		`{"id":"a","type":"gemini","toolCalls":[{"name":"n","args":{"dir\u005fpath":"d"}},{"name":"m","args":{"path":"p","dir_path":"d"}},{"args":[]}]}`,
		`{"d":` + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + `}`,
		`{"d":` + strings.Repeat("[", 9999) + strings.Repeat("]", 9999) + `}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := parseRecord(data)
		want, werr := refParseRecord(data)
		if fmt.Sprint(err) != fmt.Sprint(werr) {
			t.Fatalf("error %v, encoding/json %v", err, werr)
		}
		if err != nil {
			return
		}
		if !reflect.DeepEqual(normRecord(r), normRecord(want)) {
			t.Fatalf("record\n%+v\nencoding/json\n%+v", normRecord(r), normRecord(want))
		}
		for _, raw := range []json.RawMessage{r.ID, r.Type, r.Timestamp, r.Content, r.DisplayContent, r.SessionID, r.Summary} {
			if got, want := str(raw), refStr(raw); got != want {
				t.Fatalf("str(%q) = %q, encoding/json %q", raw, got, want)
			}
			if got, want := stamp(raw), refStamp(raw); got != want {
				t.Fatalf("stamp(%q) = %q, encoding/json %q", raw, got, want)
			}
		}
		for _, raw := range []json.RawMessage{r.Content, r.DisplayContent} {
			text, res := partsText(raw)
			wtext, wres := refPartsText(raw)
			if text != wtext || res != wres {
				t.Fatalf("partsText(%q) = %q %v, encoding/json %q %v", raw, text, res, wtext, wres)
			}
		}
		got, wantCalls := toolCalls(r.ToolCalls, "ts"), refToolCalls(r.ToolCalls, "ts")
		if len(got) != len(wantCalls) {
			t.Fatalf("toolCalls(%q): %d, encoding/json %d", r.ToolCalls, len(got), len(wantCalls))
		}
		for i := range got {
			g, w := got[i], wantCalls[i]
			if g.name != w.name || g.ts != w.ts || !bytes.Equal(g.args, w.args) {
				t.Fatalf("toolCalls(%q)[%d] = %+v, encoding/json %+v", r.ToolCalls, i, g, w)
			}
		}
		if isObject(r.Set) {
			var s struct {
				Messages json.RawMessage `json:"messages"`
			}
			_ = json.Unmarshal(r.Set, &s)
			if isArray(s.Messages) {
				ids, ok := checkpointIDs(s.Messages)
				if ok != refCheckpointOK(s.Messages) {
					t.Fatalf("checkpointIDs(%q) ok %v", s.Messages, ok)
				}
				if ok && fmt.Sprintf("%q", ids) != fmt.Sprintf("%q", refCheckpointIDs(s.Messages)) {
					t.Fatalf("checkpointIDs(%q) = %q, encoding/json %q", s.Messages, ids, refCheckpointIDs(s.Messages))
				}
			}
		}
	})
}

// normRecord is r with its absent members and empty ones told apart
// the same way for both (a nil slice and an empty one).
func normRecord(r rawRecord) []string {
	var out []string
	for _, raw := range []json.RawMessage{r.ID, r.Type, r.Timestamp, r.Content, r.DisplayContent, r.ToolCalls,
		r.SessionID, r.ProjectHash, r.StartTime, r.Summary, r.Messages, r.Set, r.RewindTo} {
		if raw == nil {
			out = append(out, "<absent>")
		} else {
			out = append(out, string(raw))
		}
	}
	return out
}

func refParseRecord(raw []byte) (rawRecord, error) {
	var r rawRecord
	if raw = bytes.TrimSpace(raw); len(raw) == 0 || raw[0] != '{' {
		return r, errNotObject
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return r, fmt.Errorf("not a JSON record: %w", err)
	}
	return r, nil
}

func refStr(raw json.RawMessage) string {
	var s string
	if !isString(raw) || json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

func refStamp(raw json.RawMessage) string {
	s := refStr(raw)
	if s == "" {
		return ""
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil || t.Year() < 0 || t.UTC().Year() > 9999 {
		return ""
	}
	return t.UTC().Format(rowTime)
}

func refCheckpointOK(raw json.RawMessage) bool {
	var msgs []struct {
		ID json.RawMessage `json:"id"`
	}
	return json.Unmarshal(raw, &msgs) == nil
}

func refCheckpointIDs(raw json.RawMessage) [][]byte {
	var msgs []struct {
		ID json.RawMessage `json:"id"`
	}
	_ = json.Unmarshal(raw, &msgs)
	var ids [][]byte
	for _, m := range msgs {
		ids = append(ids, m.ID)
	}
	return ids
}

func refPartsText(raw json.RawMessage) (text string, toolResult bool) {
	var sb strings.Builder
	add := func(raw json.RawMessage) {
		switch {
		case isString(raw):
			refAddText(&sb, refStr(raw))
		case isObject(raw):
			var part struct {
				Text             json.RawMessage `json:"text"`
				Thought          json.RawMessage `json:"thought"`
				FunctionResponse json.RawMessage `json:"functionResponse"`
			}
			if json.Unmarshal(raw, &part) != nil {
				return
			}
			if isObject(part.FunctionResponse) {
				toolResult = true
			}
			if string(part.Thought) != "true" {
				refAddText(&sb, refStr(part.Text))
			}
		}
	}
	if isArray(raw) {
		var parts []json.RawMessage
		if json.Unmarshal(raw, &parts) == nil {
			for _, part := range parts {
				add(part)
			}
		}
	} else {
		add(raw)
	}
	return sb.String(), toolResult
}
func refAddText(sb *strings.Builder, s string) {
	t := strings.TrimLeft(s, " \t\r\n")
	if strings.HasPrefix(t, "<session_context>") || strings.HasPrefix(t, "<hook_context>") {
		return
	}
	sb.WriteString(s)
}
func refToolCalls(raw json.RawMessage, ts string) []toolCall {
	var entries []json.RawMessage
	if !isArray(raw) || json.Unmarshal(raw, &entries) != nil {
		return nil
	}
	out := make([]toolCall, len(entries))
	for i, e := range entries {
		var c struct {
			Name      json.RawMessage `json:"name"`
			Args      json.RawMessage `json:"args"`
			Timestamp json.RawMessage `json:"timestamp"`
		}
		if !isObject(e) || json.Unmarshal(e, &c) != nil {
			continue
		}
		out[i] = toolCall{name: refStr(c.Name), args: refWithAliases(c.Args), ts: refStamp(c.Timestamp)}
		if out[i].ts == "" {
			out[i].ts = ts
		}
	}
	return out
}
func refWithAliases(args json.RawMessage) json.RawMessage {
	aliases := [...]struct{ from, to string }{
		{"absolute_path", "file_path"},
		{"dir_path", "path"},
	}
	if !isObject(args) {
		return json.RawMessage("{}")
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(args, &m) != nil {
		return args
	}
	out := args
	for _, a := range aliases {
		v, ok := m[a.from]
		if _, has := m[a.to]; !ok || has || !isString(v) {
			continue
		}
		if len(out) == len(args) {
			out = slices.Clone(args)
		}
		body := bytes.TrimSpace(out[:len(out)-1]) // the object without its '}'
		if len(body) > 1 {
			body = append(body, ',')
		}
		key, _ := json.Marshal(a.to)
		body = append(append(append(body, key...), ':'), v...)
		out = append(body, '}')
	}
	return out
}
