package mcpserver

// The stdio transport. The SDK's own (mcp.IOTransport) ends the session
// on the first line it cannot decode: `{`, `null`, a batch, an id of
// 1e400, two objects on one line, and most other malformed input stopped
// the server instead of earning an error reply, and the SDK offers no
// option to change that. This transport reads the lines itself: each is
// checked (CheckLine) and either passed on to the SDK as a message or
// answered here with the JSON-RPC 2.0 error it calls for (-32700 parse
// error, -32600 invalid request), and the server reads the next line.
// It also bounds what waits in memory: a line over MaxLineBytes is
// skipped as it streams past, and calls beyond MaxPending (or past
// maxPendingBytes of lines) are answered at once with a busy error.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The transport's bounds.
const (
	// MaxLineBytes is the longest message read: the SDK's own bound
	// (mcp.DefaultMaxLineLength). A longer line is skipped unread and
	// answered with an invalid request error.
	MaxLineBytes = 16 << 20
	// MaxDepth is how deeply a message's arrays and objects may nest;
	// recall's messages nest a few levels.
	MaxDepth = 64
	// MaxPending is how many calls may wait for an answer at once: the
	// ones running (Config.MaxCalls) and the ones queued behind them.
	MaxPending = 64
	// maxPendingBytes bounds the lines of the calls waiting beside the
	// first: a queue of large calls is refused before it fills memory.
	maxPendingBytes = 16 << 20
)

// The JSON-RPC 2.0 error codes the transport answers with.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
	codeBusy           = -32000 // implementation-defined: too many calls waiting
)

// Checked is what CheckLine makes of one line: a message to pass on, or
// the error response to answer with instead (neither for a blank line).
type Checked struct {
	Msg   jsonrpc.Message
	Reply []byte // a JSON-RPC error response, without its newline
	// ID is the call's id as it was sent, null for a notification or a
	// response: what a reply of the transport's own carries.
	ID json.RawMessage
}

// errorReply is a JSON-RPC error response. It is encoded here rather than
// by the SDK, which leaves out an id it cannot tell (JSON-RPC requires
// "id": null there) and cannot echo the id exactly as it was sent.
type errorReply struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func replyLine(id json.RawMessage, code int, format string, args ...any) []byte {
	r := errorReply{JSONRPC: "2.0", ID: id}
	if r.ID == nil {
		r.ID = json.RawMessage("null")
	}
	r.Error.Code, r.Error.Message = code, fmt.Sprintf(format, args...)
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // the id as it was sent: "&" stays "&"
	if err := enc.Encode(r); err != nil {
		panic(err) // the id is valid JSON and the message a string: cannot happen
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

func parseError(format string, args ...any) Checked {
	return Checked{Reply: replyLine(nil, codeParseError, "Parse error: "+format, args...)}
}

func invalid(id json.RawMessage, format string, args ...any) Checked {
	return Checked{Reply: replyLine(id, codeInvalidRequest, "Invalid Request: "+format, args...)}
}

// CheckLine checks one line of input as a JSON-RPC 2.0 message of MCP:
// a single JSON object (batches are not part of MCP since 2025-06-18)
// with "jsonrpc": "2.0", an id that is a string or an integer (MCP allows
// no null id; integers within ±2^53, which every JSON reader holds
// exactly), a string method with object or array params, or, without a
// method, a response's result or error. A line that passes is decoded as
// the SDK decodes it (jsonrpc.DecodeMessage). Every other line gets a
// reply: -32700 with id null when it is not JSON that can be read (not
// UTF-8, malformed, more than one value, nested deeper than MaxDepth),
// -32600 when it is JSON but not such a message, with the message's id
// when it has a valid one.
func CheckLine(line []byte) Checked {
	line = bytes.Trim(line, " \t\r\n")
	if len(line) == 0 {
		return Checked{} // a blank line carries no message
	}
	if !utf8.Valid(line) {
		return parseError("the line is not UTF-8")
	}
	if depthOver(line, MaxDepth) {
		return parseError("arrays and objects nested deeper than %d levels", MaxDepth)
	}
	if !json.Valid(line) {
		var syntax *json.SyntaxError
		if err := json.Unmarshal(line, new(struct{})); errors.As(err, &syntax) {
			return parseError("%s (byte %d)", syntax.Error(), syntax.Offset)
		}
		return parseError("not one JSON value")
	}
	switch line[0] {
	case '{':
	case '[':
		return invalid(nil, "batches are not supported (MCP has no JSON-RPC batching since 2025-06-18): send one message per line")
	default:
		return invalid(nil, "a message is a JSON object")
	}
	members, dup := topMembers(line)
	if dup != "" {
		return invalid(nil, "member %q appears twice", dup)
	}
	rawID, hasID := members["id"]
	var id json.RawMessage
	if hasID {
		if !validID(rawID) {
			return invalid(nil, "id must be a string or an integer of at most 2^53 (MCP allows no null id), not %s", clip(rawID))
		}
		id = rawID
	}
	if v, ok := members["jsonrpc"]; !ok || string(v) != `"2.0"` {
		return invalid(id, `"jsonrpc" must be "2.0"`)
	}
	method, hasMethod := members["method"]
	_, hasResult := members["result"]
	rawErr, hasError := members["error"]
	switch {
	case hasMethod:
		if method[0] != '"' {
			return invalid(id, "method must be a string, not %s", clip(method))
		}
		if hasResult || hasError {
			return invalid(id, "a request has no result or error")
		}
		if p, ok := members["params"]; ok && p[0] != '{' && p[0] != '[' {
			return invalid(id, "params must be an object or an array, not %s", clip(p))
		}
	case !hasID:
		return invalid(nil, "a message needs a method (a request or notification) or an id (a response)")
	case hasResult == hasError:
		return invalid(id, "a response has either a result or an error")
	case hasError && !validErrorObject(rawErr):
		return invalid(id, "error must be an object with an integer code and a string message")
	}
	msg, err := jsonrpc.DecodeMessage(line)
	if err != nil { // what the checks above let through, the SDK must read; if not, say so and go on
		return invalid(id, "%v", err)
	}
	return Checked{Msg: msg, ID: id}
}

// depthOver reports whether line's arrays and objects nest deeper than
// max, outside strings.
func depthOver(line []byte, max int) bool {
	depth, inString, escaped := 0, false, false
	for _, b := range line {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case b == '\\':
				escaped = true
			case b == '"':
				inString = false
			}
		case b == '"':
			inString = true
		case b == '{' || b == '[':
			if depth++; depth > max {
				return true
			}
		case b == '}' || b == ']':
			depth--
		}
	}
	return false
}

// topMembers reads the members of the JSON object line (valid JSON) as
// raw values, and names a member that appears twice (which readers take
// differently: refused).
func topMembers(line []byte) (map[string]json.RawMessage, string) {
	dec := json.NewDecoder(bytes.NewReader(line))
	members := map[string]json.RawMessage{}
	dec.Token() // {
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		key, _ := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			break
		}
		if _, seen := members[key]; seen {
			return nil, key
		}
		members[key] = raw
	}
	return members, ""
}

// maxExactInt is the largest integer every JSON reader holds exactly
// (2^53-1): the SDK reads ids as float64.
const maxExactInt = 1<<53 - 1

// validID reports whether raw (one JSON value) is an id MCP allows: a
// string, or an integer written without fraction or exponent within
// ±maxExactInt.
func validID(raw json.RawMessage) bool {
	if raw[0] == '"' {
		return true
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	return err == nil && n >= -maxExactInt && n <= maxExactInt
}

// validErrorObject reports whether raw is a JSON-RPC error object as the
// SDK reads one: an integer code and a string message.
func validErrorObject(raw json.RawMessage) bool {
	if raw[0] != '{' {
		return false
	}
	m, dup := topMembers(raw)
	if dup != "" {
		return false
	}
	code, msg := m["code"], m["message"]
	if code == nil || msg == nil || msg[0] != '"' {
		return false
	}
	_, err := strconv.ParseInt(string(code), 10, 64)
	return err == nil
}

// clip is a value for an error message: at most 40 bytes of it.
func clip(raw json.RawMessage) string {
	if len(raw) <= 40 {
		return string(raw)
	}
	s := raw[:40]
	for len(s) > 0 && !utf8.Valid(s) {
		s = s[:len(s)-1]
	}
	return string(s) + "…"
}

// lineTransport is the transport the server runs on: Connect hands the
// SDK the one connection.
type lineTransport struct{ conn *lineConn }

func (t *lineTransport) Connect(context.Context) (mcp.Connection, error) { return t.conn, nil }

// lineConn is a JSON-RPC connection over newline-delimited lines: what
// mcp.IOTransport is, with every line checked (CheckLine) and the calls
// waiting for an answer bounded.
type lineConn struct {
	lines   chan inputLine
	stop    chan struct{} // closed by stopReading: Read returns io.EOF
	stopped sync.Once
	ended   chan struct{} // closed when the input has ended

	writeMu sync.Mutex
	out     io.Writer

	mu           sync.Mutex
	pending      map[string]int // calls read and not yet answered, by id: their line's length
	pendingBytes int
}

// inputLine is one line read, or how many bytes an over-long one had, or
// why the input ended.
type inputLine struct {
	data    []byte
	tooLong int64
	err     error
}

func newLineConn(in io.Reader, out io.Writer) *lineConn {
	c := &lineConn{lines: make(chan inputLine), stop: make(chan struct{}), ended: make(chan struct{}), out: out,
		pending: map[string]int{}}
	go c.read(in)
	return c
}

// read reads lines until the input ends. A line is held whole up to
// MaxLineBytes; the rest of a longer one streams past unheld.
func (c *lineConn) read(in io.Reader) {
	defer close(c.ended)
	br := bufio.NewReaderSize(in, 64<<10)
	for {
		data, tooLong, err := readLine(br)
		if len(data) > 0 || tooLong > 0 {
			if !c.send(inputLine{data: data, tooLong: tooLong}) {
				return
			}
		}
		if err != nil {
			c.send(inputLine{err: err})
			return
		}
	}
}

func (c *lineConn) send(l inputLine) bool {
	select {
	case c.lines <- l:
		return true
	case <-c.stop:
		return false
	}
}

// readLine reads one line without its newline. A line over MaxLineBytes
// is returned as its length alone. At the end of the input err is io.EOF
// (a last line without a newline is returned with it).
func readLine(br *bufio.Reader) (line []byte, tooLong int64, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		switch {
		case tooLong > 0:
			tooLong += int64(len(chunk))
		case len(line)+len(chunk) > MaxLineBytes+1: // +1: the newline
			tooLong = int64(len(line) + len(chunk))
			line = nil
		default:
			line = append(line, chunk...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if tooLong > 0 && err == nil {
			tooLong-- // the newline
		}
		return bytes.TrimSuffix(line, []byte("\n")), tooLong, err
	}
}

// Read returns the next message, answering every line that is not one.
func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		var l inputLine
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-c.stop:
			return nil, io.EOF
		case l = <-c.lines:
		}
		if l.err != nil {
			return nil, l.err
		}
		if msg := c.take(l); msg != nil {
			return msg, nil
		}
	}
}

// take checks one line: a message to pass on, or nil after answering it.
func (c *lineConn) take(l inputLine) jsonrpc.Message {
	if l.tooLong > 0 {
		c.writeLine(replyLine(nil, codeInvalidRequest, "Invalid Request: a message of %d bytes is over the %d MiB recall reads", l.tooLong, MaxLineBytes>>20))
		return nil
	}
	ch := CheckLine(l.data)
	if ch.Reply != nil {
		c.writeLine(ch.Reply)
		return nil
	}
	if req, ok := ch.Msg.(*jsonrpc.Request); ok && req.IsCall() {
		if busy := c.admit(req.ID, len(l.data)); busy != "" {
			c.writeLine(replyLine(ch.ID, codeBusy, "%s", busy))
			return nil
		}
	}
	return ch.Msg
}

// admit counts a call as waiting for its answer, or says why it cannot
// wait: too many calls or too many bytes of them already do.
func (c *lineConn) admit(id jsonrpc.ID, size int) string {
	key := idKey(id)
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.pending[key] > 0:
		return fmt.Sprintf("id %v is already in use by a call that has not been answered", id.Raw())
	case len(c.pending) >= MaxPending:
		return fmt.Sprintf("recall is busy: %d calls are waiting for an answer; call again when one has returned", len(c.pending))
	case len(c.pending) > 0 && c.pendingBytes+size > maxPendingBytes:
		return fmt.Sprintf("recall is busy: the calls waiting for an answer hold %d MiB; call again when one has returned", c.pendingBytes>>20)
	}
	c.pending[key] = size + 1
	c.pendingBytes += size
	return ""
}

// answered forgets a call once its answer is written.
func (c *lineConn) answered(id jsonrpc.ID) {
	key := idKey(id)
	c.mu.Lock()
	defer c.mu.Unlock()
	if n, ok := c.pending[key]; ok {
		c.pendingBytes -= n - 1
		delete(c.pending, key)
	}
}

// idKey tells ids apart by type and value: 1 and "1" are different ids.
func idKey(id jsonrpc.ID) string { return fmt.Sprintf("%T:%v", id.Raw(), id.Raw()) }

// Write writes one message as a line.
func (c *lineConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("encode message: %w", err)
	}
	err = c.writeLine(data)
	if resp, ok := msg.(*jsonrpc.Response); ok {
		c.answered(resp.ID)
	}
	return err
}

// writeLine writes data and a newline in one write, whole among the
// server's other writes.
func (c *lineConn) writeLine(data []byte) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	_, err := c.out.Write(append(data, '\n'))
	return err
}

// stopReading makes Read end as at the end of the input: the session
// cancels the calls in progress, answers them and ends. Writes go on.
func (c *lineConn) stopReading() { c.stopped.Do(func() { close(c.stop) }) }

// Close stops reading (the SDK calls it when the session ends).
func (c *lineConn) Close() error {
	c.stopReading()
	return nil
}

func (c *lineConn) SessionID() string { return "" }
