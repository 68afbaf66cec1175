package mcpserver

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/recall-dev/recall/internal/parallel"
)

// lineRig is Serve over pipes: lines in, responses out.
type lineRig struct {
	t    *testing.T
	in   *io.PipeWriter
	out  chan map[string]any
	done chan error
}

func serveLines(t *testing.T, ctx context.Context, cfg Config) *lineRig {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	r := &lineRig{t: t, in: inW, out: make(chan map[string]any, 1000), done: make(chan error, 1)}
	go func() { r.done <- Serve(ctx, cfg, inR, outW) }()
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				t.Errorf("output line is not JSON: %q", sc.Text())
				continue
			}
			r.out <- m
		}
	}()
	t.Cleanup(func() { inW.Close(); outR.Close() })
	r.send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if m := r.next(); m["id"] != "init" {
		t.Fatalf("initialize: %v", m)
	}
	r.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return r
}

func (r *lineRig) send(line string) {
	r.t.Helper()
	if _, err := io.WriteString(r.in, line+"\n"); err != nil {
		r.t.Fatalf("write: %v", err)
	}
}

func (r *lineRig) next() map[string]any {
	r.t.Helper()
	select {
	case m := <-r.out:
		return m
	case <-time.After(20 * time.Second):
		r.t.Fatal("no response within 20s")
		return nil
	}
}

// waitServe waits for Serve to return, within limit.
func (r *lineRig) waitServe(limit time.Duration) error {
	r.t.Helper()
	select {
	case err := <-r.done:
		return err
	case <-time.After(limit):
		r.t.Fatalf("Serve still running after %v", limit)
		return nil
	}
}

func searchCall(id string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%q,"method":"tools/call","params":{"name":"search","arguments":{"query":"jwt"}}}`, id)
}

func codeOf(m map[string]any) int {
	e, _ := m["error"].(map[string]any)
	c, _ := e["code"].(float64)
	return int(c)
}

// Calls past MaxPending are answered busy at once, the others wait their
// turn (MaxCalls at a time) and are all answered when the update they
// wait for ends; then the end of the input ends Serve.
func TestServeBoundsWaitingCalls(t *testing.T) {
	release := make(chan struct{})
	r := serveLines(t, context.Background(), Config{IndexDir: t.TempDir(), Freshen: func() { <-release },
		FreshenWait: time.Hour, CallTimeout: time.Hour, MaxCalls: 2})
	const extra = 4
	for i := range MaxPending + extra {
		r.send(searchCall(fmt.Sprint("c", i)))
	}
	for range extra {
		m := r.next()
		if codeOf(m) != codeBusy || !strings.Contains(fmt.Sprint(m["error"]), "recall is busy: 64 calls are waiting") {
			t.Fatalf("want a busy error first, got %v", m)
		}
	}
	close(release)
	seen := map[any]bool{}
	for range MaxPending {
		m := r.next()
		seen[m["id"]] = true
		if res, _ := m["result"].(map[string]any); res["isError"] != true || !strings.Contains(fmt.Sprint(res["content"]), "has no index") {
			t.Errorf("waiting call: %v", m)
		}
	}
	if len(seen) != MaxPending {
		t.Errorf("%d distinct calls answered, want %d", len(seen), MaxPending)
	}
	r.in.Close()
	if err := r.waitServe(5 * time.Second); err != nil {
		t.Errorf("Serve: %v", err)
	}
}

// The end of the input, or of Serve's context (a signal), cancels the
// calls in progress and ends Serve at once, cleanly, even when a call's
// work would never end.
func TestServeEndsWithCallsInProgress(t *testing.T) {
	for _, how := range []string{"input closed", "context cancelled"} {
		t.Run(how, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			block := make(chan struct{})
			defer close(block)
			r := serveLines(t, ctx, Config{IndexDir: t.TempDir(), Freshen: func() { <-block }, FreshenWait: time.Hour, CallTimeout: time.Hour})
			r.send(searchCall("stuck"))
			time.Sleep(50 * time.Millisecond)
			start := time.Now()
			if how == "input closed" {
				r.in.Close()
			} else {
				cancel()
			}
			if err := r.waitServe(stopGrace + 3*time.Second); err != nil {
				t.Errorf("Serve: %v, want nil", err)
			}
			if d := time.Since(start); d > stopGrace+time.Second {
				t.Errorf("Serve took %v to end", d)
			}
		})
	}
}

// A call's deadline answers it; its work keeps its slot until it ends, so
// abandoned work never adds up past MaxCalls.
func TestTurnDeadline(t *testing.T) {
	h := handlers{cfg: Config{CallTimeout: 50 * time.Millisecond, Log: slog.New(slog.DiscardHandler)}, slots: make(chan struct{}, 1)}
	release := make(chan struct{})
	_, err := turn(context.Background(), h, "search", func(context.Context) (int, error) { <-release; return 1, nil })
	if err == nil || !strings.Contains(err.Error(), "did not finish within 50ms") {
		t.Fatalf("err %v", err)
	}
	if len(h.slots) != 1 {
		t.Errorf("the abandoned work gave its slot back before it ended")
	}
	// The next call waits for the slot, past its own deadline here.
	if _, err := turn(context.Background(), h, "show", func(context.Context) (int, error) { return 2, nil }); err == nil ||
		!strings.Contains(err.Error(), "waiting for its turn") {
		t.Errorf("a call behind the abandoned work: %v", err)
	}
	close(release)
	for deadline := time.Now().Add(5 * time.Second); len(h.slots) != 0 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	if v, err := turn(context.Background(), h, "show", func(context.Context) (int, error) { return 2, nil }); v != 2 || err != nil {
		t.Errorf("after the work ended: %v %v", v, err)
	}
	// A panic is the call's error, and gives the slot back.
	if _, err := turn(context.Background(), h, "show", func(context.Context) (int, error) { panic("boom") }); err == nil ||
		!strings.Contains(err.Error(), "boom") {
		t.Errorf("panic: %v", err)
	}
	if _, err := turn(context.Background(), h, "show", func(context.Context) (int, error) { return 0, errors.New("x") }); err == nil || err.Error() != "x" {
		t.Errorf("after a panic: %v", err)
	}
}

// readLine holds a line up to MaxLineBytes and only counts a longer one.
func TestReadLine(t *testing.T) {
	long := strings.Repeat("x", MaxLineBytes+10)
	br := bufio.NewReaderSize(strings.NewReader("a\r\n"+long+"\nlast"), 64<<10)
	for _, want := range []struct {
		line    string
		tooLong int64
		err     error
	}{{"a\r", 0, nil}, {"", int64(len(long)), nil}, {"last", 0, io.EOF}} {
		line, tooLong, err := readLine(br)
		if string(line) != want.line || tooLong != want.tooLong || err != want.err {
			t.Errorf("readLine = %.20q, %d, %v; want %q, %d, %v", line, tooLong, err, want.line, want.tooLong, want.err)
		}
	}
}

// A call whose work panics on a worker goroutine (a search's parallel
// stages run on several) is answered with an error, and the server goes
// on: the next call is served. Before package parallel raised worker
// panics on the caller's goroutine, such a panic ended the process.
func TestServeSurvivesAPanickingCall(t *testing.T) {
	var calls atomic.Int32
	cfg := Config{IndexDir: t.TempDir(), Current: func() (string, []string) {
		if calls.Add(1) == 1 {
			parallel.Each(64, func(i int) {
				if i == 13 {
					panic("bad row 13")
				}
			})
		}
		return "", nil
	}}
	r := serveLines(t, context.Background(), cfg)
	r.send(searchCall("a"))
	first := r.next()
	if text := toolText(first); !isToolError(first) || !strings.Contains(text, "bad row 13") {
		t.Fatalf("the panicking call: %v, want a tool error naming the panic", first)
	}
	r.send(searchCall("b"))
	second := r.next()
	if second["id"] != "b" || !strings.Contains(toolText(second), "recall has no index in") {
		t.Fatalf("the call after: %v, want it served (the empty index's own answer)", second)
	}
}

// toolText is the text of a tools/call response's content.
func toolText(m map[string]any) string {
	res, _ := m["result"].(map[string]any)
	content, _ := res["content"].([]any)
	var b strings.Builder
	for _, c := range content {
		if cm, ok := c.(map[string]any); ok {
			s, _ := cm["text"].(string)
			b.WriteString(s)
		}
	}
	return b.String()
}

// isToolError reports whether a tools/call response is a tool error.
func isToolError(m map[string]any) bool {
	res, _ := m["result"].(map[string]any)
	isErr, _ := res["isError"].(bool)
	return isErr
}
