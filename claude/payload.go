package claude

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/recall-dev/recall/internal/parallel"
)

// MaxPayloadBytes caps what a hook reads from stdin. Stop payloads carry
// the last assistant message, which can be long, but never this long.
const MaxPayloadBytes = 4 << 20

// Hook event names recall treats specially.
const (
	EventSessionEnd       = "SessionEnd"
	EventSessionStart     = "SessionStart"
	EventUserPromptSubmit = "UserPromptSubmit"
)

// Payload is the part of a hook's stdin JSON that recall uses; Claude Code
// sends more, and the rest is ignored.
type Payload struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	Cwd            string `json:"cwd"`
	HookEventName  string `json:"hook_event_name"`
	// Source is why a session started (SessionStart): startup, resume,
	// clear, compact or fork.
	Source string `json:"source"`
	// Reason is why a session ended (SessionEnd): clear, resume, logout,
	// prompt_input_exit or other.
	Reason string `json:"reason"`
	// Prompt is what was submitted (UserPromptSubmit): typed, or a
	// scheduled task's or a subagent's notification.
	Prompt string `json:"prompt"`
}

// PayloadReader returns what to read the payload from: stdin itself, or
// nothing when stdin is a terminal or another character device (someone
// typed `recall hook` by hand), where a read would wait for a human.
func PayloadReader(stdin *os.File) io.Reader {
	info, err := stdin.Stat()
	if err != nil || info.Mode()&os.ModeCharDevice != 0 {
		return strings.NewReader("")
	}
	return stdin
}

// ReadPayload decodes the hook JSON from r. It stops at the end of the
// first JSON value rather than at end of file, and gives up after timeout,
// so a writer that never closes stdin cannot hang the hook. On a field of
// the wrong type it returns the fields it could read with the error.
func ReadPayload(r io.Reader, timeout time.Duration) (Payload, error) {
	type result struct {
		payload Payload
		err     error
	}
	done := make(chan result, 1)
	var p Payload
	parallel.Go(func() (err error) {
		p, err = decodePayload(io.LimitReader(r, MaxPayloadBytes))
		return err
	}, func(err error) { done <- result{p, err} })
	select {
	case res := <-done:
		return res.payload, res.err
	case <-time.After(timeout):
		// The reading goroutine stays blocked; the process exits soon.
		return Payload{}, fmt.Errorf("no complete payload on stdin after %v", timeout)
	}
}

func decodePayload(r io.Reader) (Payload, error) {
	var p Payload
	err := json.NewDecoder(r).Decode(&p)
	var typeErr *json.UnmarshalTypeError
	switch {
	case err == nil:
		return p, nil
	case errors.Is(err, io.EOF):
		return p, errors.New("empty stdin, no payload")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return Payload{}, fmt.Errorf("payload cut short (malformed, or over %d bytes)", MaxPayloadBytes)
	case errors.As(err, &typeErr):
		return p, fmt.Errorf("payload: %w", err)
	}
	return Payload{}, fmt.Errorf("malformed payload: %w", err)
}
