package main

import (
	"github.com/recall-dev/recall/mcpserver/stdio"

	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// lockedBuffer is a bytes.Buffer safe for a writer and a reader at once.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// rawMCP is `recall mcp` run in process, spoken to in raw lines.
type rawMCP struct {
	t      *testing.T
	in     *io.PipeWriter
	out    chan map[string]any
	code   chan int
	stderr *lockedBuffer
}

func startRawMCP(t *testing.T, args ...string) *rawMCP {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	r := &rawMCP{t: t, in: inW, out: make(chan map[string]any, 100), code: make(chan int, 1), stderr: &lockedBuffer{}}
	wd, _ := os.Getwd()
	go func() {
		// recall-mcp's own entry point, in process (`recall mcp` execs it).
		r.code <- stdio.Main(args, "test", stdio.Env{Stdin: inR, Stdout: outW, Stderr: r.stderr, Cwd: wd, Getenv: os.Getenv, ParentPID: os.Getppid()})
		outW.Close()
	}()
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				t.Errorf("stdout line is not JSON: %.200q", sc.Text())
				continue
			}
			r.out <- m
		}
		close(r.out)
	}()
	t.Cleanup(func() { inW.Close() })
	r.send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if m := r.next(); m["id"] != "init" || m["result"] == nil {
		t.Fatalf("initialize: %v (stderr %q)", m, r.stderr)
	}
	r.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return r
}

func (r *rawMCP) send(line string) {
	r.t.Helper()
	if _, err := io.WriteString(r.in, line+"\n"); err != nil {
		r.t.Fatalf("write: %v", err)
	}
}

func (r *rawMCP) next() map[string]any {
	r.t.Helper()
	select {
	case m, ok := <-r.out:
		if !ok {
			r.t.Fatalf("recall mcp ended (stderr %q)", r.stderr)
		}
		return m
	case <-time.After(30 * time.Second):
		r.t.Fatalf("no response within 30s (stderr %q)", r.stderr)
		return nil
	}
}

// until reads responses until the one with id, and returns the others.
func (r *rawMCP) until(id string) (got map[string]any, others []map[string]any) {
	r.t.Helper()
	for {
		m := r.next()
		if m["id"] == id {
			return m, others
		}
		others = append(others, m)
	}
}

func toolText(m map[string]any) (string, bool) {
	res, _ := m["result"].(map[string]any)
	content, _ := res["content"].([]any)
	var b strings.Builder
	for _, c := range content {
		if c, ok := c.(map[string]any); ok {
			b.WriteString(fmt.Sprint(c["text"]))
		}
	}
	isErr, _ := res["isError"].(bool)
	return b.String(), isErr
}

// TestMCPAnswersEveryMalformedLine: `recall mcp` answers each malformed
// line with exactly one JSON-RPC error of the right code (a parse error
// with id null for what is not JSON, an invalid request for JSON that is
// not a message, with its id when it has a valid one), answers bad
// arguments as tool errors, answers no notification, and serves the
// search call sent after each.
func TestMCPAnswersEveryMalformedLine(t *testing.T) {
	idx := t.TempDir()
	src, _ := filepath.Abs(fixtures)
	if r := runCLI(t, "index", "-q", "--source", src, "--index-dir", idx); r.code != 0 {
		t.Fatalf("index: %d %s", r.code, r.stderr)
	}
	r := startRawMCP(t, "--source", src, "--index-dir", idx)
	deep := strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000)
	big := strings.Repeat("jwt ", 512<<10) // 2 MiB
	tests := []struct {
		name, line string
		code       int    // the JSON-RPC error code; 0: a result
		id         any    // the reply's id (nil: null)
		tool       string // with code 0: the tool error's text holds this; "": no reply at all
	}{
		{"open brace", `{`, -32700, nil, ""},
		{"null", `null`, -32600, nil, ""},
		{"number", `123`, -32600, nil, ""},
		{"string", `"ping"`, -32600, nil, ""},
		{"empty object", `{}`, -32600, nil, ""},
		{"empty batch", `[]`, -32600, nil, ""},
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, -32600, nil, ""},
		{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":1,"method":"ping"}`, -32600, 1.0, ""},
		{"no jsonrpc", `{"id":"x","method":"ping"}`, -32600, "x", ""},
		{"id 1e400", `{"jsonrpc":"2.0","id":1e400,"method":"ping"}`, -32600, nil, ""},
		{"id past 2^53", `{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}`, -32600, nil, ""},
		{"id fraction", `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, -32600, nil, ""},
		{"id null", `{"jsonrpc":"2.0","id":null,"method":"ping"}`, -32600, nil, ""},
		{"id object", `{"jsonrpc":"2.0","id":{},"method":"ping"}`, -32600, nil, ""},
		{"two objects", `{"jsonrpc":"2.0","id":2,"method":"ping"}{"jsonrpc":"2.0","id":3,"method":"ping"}`, -32700, nil, ""},
		{"trailing garbage", `{"jsonrpc":"2.0","id":2,"method":"ping"} x`, -32700, nil, ""},
		{"duplicate member", `{"jsonrpc":"2.0","id":4,"method":"ping","method":"tools/list"}`, -32600, nil, ""},
		{"method 123", `{"jsonrpc":"2.0","id":5,"method":123}`, -32600, 5.0, ""},
		{"unknown method", `{"jsonrpc":"2.0","id":6,"method":"no/such"}`, -32601, 6.0, ""},
		{"params a string", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":"search"}`, -32600, 7.0, ""},
		{"params a number", `{"jsonrpc":"2.0","id":8,"method":"tools/list","params":5}`, -32600, 8.0, ""},
		{"tool name a number", `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":5}}`, -32602, 9.0, ""},
		{"unknown tool", `{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"nosuch"}}`, -32602, 10.0, ""},
		{"arguments a string", `{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"search","arguments":"jwt"}}`, 0, 11.0, "arguments"},
		{"limit a string", `{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"search","arguments":{"query":"jwt","limit":"five"}}}`, 0, 12.0, "limit"},
		{"limit 2^63-1", `{"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"name":"search","arguments":{"query":"jwt","limit":9223372036854775807}}}`, 0, 13.0, "limit 9223372036854775807: at most 100000 (0 means all)"},
		{"limit 1e300", `{"jsonrpc":"2.0","id":14,"method":"tools/call","params":{"name":"sessions","arguments":{"limit":1e300}}}`, 0, 14.0, "at most 100000"},
		{"context 2^63-1", `{"jsonrpc":"2.0","id":15,"method":"tools/call","params":{"name":"show","arguments":{"session":"1111111","context":9223372036854775807}}}`, 0, 15.0, "at most 100000 messages"},
		{"query a number", `{"jsonrpc":"2.0","id":16,"method":"tools/call","params":{"name":"search","arguments":{"query":5}}}`, 0, 16.0, "query"},
		{"100k excluded words", `{"jsonrpc":"2.0","id":17,"method":"tools/call","params":{"name":"search","arguments":{"query":"jwt","exclude":"` + words("x", 100_000) + `"}}}`, 0, 17.0, "exclude: 688890 bytes of words, at most 65536"},
		{"deeply nested arrays", deep, -32700, nil, ""},
		{"deep params", `{"jsonrpc":"2.0","id":18,"method":"ping","params":{"a":` + strings.Repeat("[", 70) + strings.Repeat("]", 70) + `}}`, -32700, nil, ""},
		{"invalid UTF-8", "{\"jsonrpc\":\"2.0\",\"id\":19,\"method\":\"pi\xffng\"}", -32700, nil, ""},
		{"a 2 MB line cut short", `{"jsonrpc":"2.0","id":20,"method":"tools/call","params":{"name":"search","arguments":{"query":"` + big, -32700, nil, ""},
		{"a 17 MB line", `{"jsonrpc":"2.0","id":21,"method":"ping","params":{"x":"` + strings.Repeat("x", 17<<20) + `"}}`, -32600, nil, ""},
		{"a response without result", `{"jsonrpc":"2.0","id":22}`, -32600, 22.0, ""},
		{"a response with a bad error", `{"jsonrpc":"2.0","id":23,"error":{"code":"x","message":"m"}}`, -32600, 23.0, ""},
		{"result and method", `{"jsonrpc":"2.0","id":24,"method":"ping","result":{}}`, -32600, 24.0, ""},
		{"unknown notification", `{"jsonrpc":"2.0","method":"notifications/no_such"}`, 0, nil, ""},
		{"cancel of nothing", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"nope"}}`, 0, nil, ""},
		{"cancel with a bad id", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1e400}}`, 0, nil, ""},
		{"a response to nothing", `{"jsonrpc":"2.0","id":"r","result":{}}`, 0, nil, ""},
		{"blank line", `   `, 0, nil, ""},
	}
	for i, tt := range tests {
		r.send(tt.line)
		probe := fmt.Sprint("probe-", i)
		r.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%q,"method":"tools/call","params":{"name":"search","arguments":{"query":"jwt"}}}`, probe))
		got, others := r.until(probe)
		if text, isErr := toolText(got); isErr || !strings.Contains(text, "recall: jwt") {
			t.Fatalf("%s: the search after it was not served: %v", tt.name, got)
		}
		if tt.code == 0 && tt.tool == "" { // no reply: make sure none comes late
			r.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":"ping-%d","method":"ping"}`, i))
			_, more := r.until(fmt.Sprint("ping-", i))
			if others = append(others, more...); len(others) > 0 {
				t.Errorf("%s: replies %v, want none", tt.name, others)
			}
			continue
		}
		for len(others) == 0 {
			others = append(others, r.next())
		}
		if len(others) != 1 {
			t.Errorf("%s: %d replies %v, want 1", tt.name, len(others), others)
			continue
		}
		m := others[0]
		if m["id"] != tt.id {
			t.Errorf("%s: reply id %v, want %v", tt.name, m["id"], tt.id)
		}
		if tt.code != 0 {
			if code := codeOfReply(m); code != tt.code {
				t.Errorf("%s: %v, want code %d", tt.name, m, tt.code)
			}
			continue
		}
		if text, isErr := toolText(m); !isErr || !strings.Contains(text, tt.tool) {
			t.Errorf("%s: %v, want a tool error saying %q", tt.name, m, tt.tool)
		}
	}

	// A 10 MB query is searched by its start, and says the rest was left out.
	r.send(`{"jsonrpc":"2.0","id":"long","method":"tools/call","params":{"name":"search","arguments":{"query":"jwt ` + strings.Repeat("lorem ipsum ", 900_000) + `"}}}`)
	got, _ := r.until("long")
	if text, isErr := toolText(got); isErr || !strings.Contains(text, "Warning: the query is longer than recall reads (256 words or 64 KiB") {
		t.Errorf("a 10 MB query: %.300v", got)
	}
	r.in.Close()
	select {
	case code := <-r.code:
		if code != 0 {
			t.Errorf("exit %d when the input ended, stderr %q", code, r.stderr)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("recall mcp did not end with its input")
	}
}

func codeOfReply(m map[string]any) int {
	e, _ := m["error"].(map[string]any)
	c, _ := e["code"].(float64)
	return int(c)
}

// TestMCPStopsCleanlyOnSignals: SIGTERM and SIGINT end `recall mcp` at
// once with status 0 and nothing on stderr, a call in progress or not.
func TestMCPStopsCleanlyOnSignals(t *testing.T) {
	bin := recallBinary(t)
	src, _ := filepath.Abs(fixtures)
	idx := t.TempDir()
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		cmd := exec.Command(bin, "mcp", "--source", src, "--index-dir", idx)
		cmd.Env = hermeticEnv(t)
		stdin, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		stdout, _ := cmd.StdoutPipe()
		var stderr lockedBuffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`+"\n")
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 1<<20)
		if !sc.Scan() {
			t.Fatalf("no initialize response (stderr %q)", stderr.String())
		}
		io.WriteString(stdin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
		io.WriteString(stdin, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search","arguments":{"query":"jwt"}}}`+"\n")
		cmd.Process.Signal(sig)
		done := make(chan error, 1)
		go func() {
			for sc.Scan() {
			}
			done <- cmd.Wait()
		}()
		select {
		case err := <-done:
			if err != nil || stderr.String() != "" {
				t.Errorf("%v: %v, stderr %q; want status 0 and no output", sig, err, stderr.String())
			}
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			t.Fatalf("%v: recall mcp still running after 5s", sig)
		}
		stdin.Close()
	}
}
