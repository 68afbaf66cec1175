package mcpserver

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// FuzzCheckLine: every line but a blank one gets exactly one outcome: a
// message the SDK reads (and writes back in a form it reads again), or a
// JSON-RPC 2.0 error response, -32700 for what is not JSON, -32600 for
// JSON that is not an MCP message, whose id is null or the line's own.
func FuzzCheckLine(f *testing.F) {
	for _, s := range []string{
		`{`, `null`, `123`, `"x"`, `[]`, `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, `{}`,
		`{"jsonrpc":"1.0","id":1,"method":"ping"}`, `{"jsonrpc":"2.0","id":1e400,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":1,"method":"ping"}{"jsonrpc":"2.0","id":2,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"search","arguments":{"query":"jwt"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`, `{"jsonrpc":"2.0","id":3,"method":123}`,
		`{"jsonrpc":"2.0","id":4,"result":{}}`, `{"jsonrpc":"2.0","id":5,"error":{"code":-1,"message":"m"}}`,
		`{"jsonrpc":"2.0","id":6,"error":{"code":"x","message":"m"}}`, `{"jsonrpc":"2.0","id":null,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}`, `{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":-0,"method":"ping","params":[]}`, `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`,
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"p\xffing\"}", `{"jsonrpc":"2.0","id":"\ud800","method":"ping"}`,
		`{"jsonrpc":"2.0","ID":1,"Method":"ping"}`, `{"jsonrpc":"2.0","id":1,"method":"ping","params":null}`,
		strings.Repeat("[", 70) + strings.Repeat("]", 70), ` {"jsonrpc":"2.0","method":"x"} ` + "\r",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		ch := CheckLine(line)
		trimmed := bytes.Trim(line, " \t\r\n")
		if len(trimmed) == 0 {
			if ch.Msg != nil || ch.Reply != nil {
				t.Fatalf("a blank line got %v %s", ch.Msg, ch.Reply)
			}
			return
		}
		if (ch.Msg == nil) == (ch.Reply == nil) {
			t.Fatalf("%q: message %v and reply %q: want exactly one", line, ch.Msg, ch.Reply)
		}
		if ch.Reply != nil {
			var r struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      json.RawMessage `json:"id"`
				Error   struct {
					Code    int    `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
			}
			dec := json.NewDecoder(bytes.NewReader(ch.Reply))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&r); err != nil || r.JSONRPC != "2.0" || r.Error.Message == "" {
				t.Fatalf("%q: reply %s: %v", line, ch.Reply, err)
			}
			switch r.Error.Code {
			case codeParseError, codeInvalidRequest:
			default:
				t.Fatalf("%q: reply code %d", line, r.Error.Code)
			}
			if !json.Valid(trimmed) && r.Error.Code != codeParseError {
				t.Fatalf("%q is not JSON but got %d", line, r.Error.Code)
			}
			if string(r.ID) != "null" && (!validID(r.ID) || !bytes.Contains(trimmed, r.ID)) {
				t.Fatalf("%q: reply id %s is not the line's", line, r.ID)
			}
			return
		}
		if !json.Valid(trimmed) {
			t.Fatalf("%q is not JSON but passed", line)
		}
		data, err := jsonrpc.EncodeMessage(ch.Msg)
		if err != nil {
			t.Fatalf("%q: the message does not encode: %v", line, err)
		}
		if req, ok := ch.Msg.(*jsonrpc.Request); ok && req.Method == "" {
			return // passed on (the SDK answers a call "method not found"); the SDK writes it without the method
		}
		if _, err := jsonrpc.DecodeMessage(data); err != nil {
			t.Fatalf("%q: the message encodes as %s, which does not decode: %v", line, data, err)
		}
		if req, ok := ch.Msg.(*jsonrpc.Request); ok && req.IsCall() {
			switch id := req.ID.Raw().(type) {
			case string:
			case int64:
				if id > maxExactInt || id < -maxExactInt {
					t.Fatalf("%q: id %d passed", line, id)
				}
			default:
				t.Fatalf("%q: id of type %T passed", line, id)
			}
		}
	})
}
