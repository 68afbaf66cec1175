package evalcorpus

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"time"
)

// Kind says what a Turn becomes in the transcript.
type Kind int

// The turn kinds. They are the record shapes recall's indexer reads (user
// prompts, assistant text, tool calls) plus the tool results it must drop.
const (
	User       Kind = iota // a typed prompt: a "user" record with string content
	Assistant              // an assistant text block
	ToolUse                // an assistant tool_use block: Tool and Input
	ToolResult             // a "user" record carrying the previous call's tool_result: Text
)

// Turn is one transcript line to write.
type Turn struct {
	At    time.Time
	Kind  Kind
	Text  string            // prompt, reply or tool output
	Tool  string            // ToolUse: the tool's name ("Bash", "Edit")
	Input map[string]string // ToolUse: the tool's input ({"command": "go test ./..."})
}

// Session is one transcript: Claude Code writes it to
// projects/<slug of Cwd>/<ID>.jsonl.
type Session struct {
	ID    string
	Cwd   string
	Turns []Turn
	// Entrypoint is written on every record when set ("cli" for an
	// interactive session); the generated corpus leaves it out.
	Entrypoint string
}

// Model is the assistant model written on assistant lines.
const Model = "claude-opus-4-6"

// ProjectSlug is Claude Code's folder name for a working directory: every
// character other than a letter or digit becomes '-'.
func ProjectSlug(cwd string) string {
	return nonAlnum.ReplaceAllString(cwd, "-")
}

var nonAlnum = regexp.MustCompile(`[^A-Za-z0-9]`)

// Path is where s is written under a projects root.
func (s *Session) Path(projectsDir string) string {
	return filepath.Join(projectsDir, ProjectSlug(s.Cwd), s.ID+".jsonl")
}

// Write writes s under projectsDir, creating its project folder.
func (s *Session) Write(projectsDir string) error {
	data, err := s.Marshal()
	if err != nil {
		return err
	}
	path := s.Path(projectsDir)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("create project folder for session %s: %w", s.ID, err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return fmt.Errorf("write session %s: %w", s.ID, err)
	}
	return nil
}

// Marshal renders s as JSONL, one record per turn, each line ending in
// '\n' (the indexer leaves an unterminated last line for later). Every
// identifier is derived from the session id and the turn's position, so
// equal sessions give equal bytes and two sessions never share a uuid.
func (s *Session) Marshal() ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // Claude Code writes <, > and & as they are
	parent := ""
	lastTool := ""
	for i, t := range s.Turns {
		id := derivedID(s.ID, "uuid", i)
		rec, err := s.record(t, id, parent, &lastTool, i)
		if err != nil {
			return nil, err
		}
		if err := enc.Encode(rec); err != nil {
			return nil, fmt.Errorf("encode turn %d of session %s: %w", i, s.ID, err)
		}
		parent = id
	}
	return buf.Bytes(), nil
}

// line is a transcript record with the fields real ones carry; recall
// reads type, uuid, sessionId, timestamp, cwd and message.
type line struct {
	ParentUUID  *string `json:"parentUuid"`
	IsSidechain bool    `json:"isSidechain"`
	UserType    string  `json:"userType"`
	Cwd         string  `json:"cwd"`
	SessionID   string  `json:"sessionId"`
	Version     string  `json:"version"`
	GitBranch   string  `json:"gitBranch"`
	Entrypoint  string  `json:"entrypoint,omitempty"`
	Type        string  `json:"type"`
	UUID        string  `json:"uuid"`
	Timestamp   string  `json:"timestamp"`
	Message     any     `json:"message"`
}

type userMessage struct {
	Role    string `json:"role"`
	Content any    `json:"content"`
}

type assistantMessage struct {
	Model   string `json:"model"`
	ID      string `json:"id"`
	Type    string `json:"type"`
	Role    string `json:"role"`
	Content []any  `json:"content"`
}

type textBlock struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type toolUseBlock struct {
	Type  string            `json:"type"`
	ID    string            `json:"id"`
	Name  string            `json:"name"`
	Input map[string]string `json:"input"`
}

type toolResultBlock struct {
	ToolUseID string `json:"tool_use_id"`
	Type      string `json:"type"`
	Content   string `json:"content"`
}

func (s *Session) record(t Turn, id, parent string, lastTool *string, i int) (line, error) {
	rec := line{UserType: "external", Cwd: s.Cwd, SessionID: s.ID, Version: "2.1.100", GitBranch: "main",
		Entrypoint: s.Entrypoint, UUID: id, Timestamp: t.At.UTC().Format("2006-01-02T15:04:05.000Z")}
	if parent != "" {
		rec.ParentUUID = &parent
	}
	msgID := "msg_" + derivedID(s.ID, "msg", i)[:24]
	switch t.Kind {
	case User:
		rec.Type, rec.Message = "user", userMessage{Role: "user", Content: t.Text}
	case Assistant:
		rec.Type = "assistant"
		rec.Message = assistantMessage{Model: Model, ID: msgID, Type: "message", Role: "assistant",
			Content: []any{textBlock{Type: "text", Text: t.Text}}}
	case ToolUse:
		*lastTool = "toolu_" + derivedID(s.ID, "tool", i)[:24]
		rec.Type = "assistant"
		rec.Message = assistantMessage{Model: Model, ID: msgID, Type: "message", Role: "assistant",
			Content: []any{toolUseBlock{Type: "tool_use", ID: *lastTool, Name: t.Tool, Input: t.Input}}}
	case ToolResult:
		if *lastTool == "" {
			return rec, fmt.Errorf("session %s turn %d: tool result without a tool call before it", s.ID, i)
		}
		rec.Type = "user"
		rec.Message = userMessage{Role: "user", Content: []any{toolResultBlock{ToolUseID: *lastTool, Type: "tool_result", Content: t.Text}}}
	default:
		return rec, fmt.Errorf("session %s turn %d: unknown turn kind %d", s.ID, i, t.Kind)
	}
	return rec, nil
}

// derivedID is a uuid-shaped identifier that depends only on its inputs.
func derivedID(session, what string, i int) string {
	sum := sha256.Sum256(fmt.Appendf(nil, "%s/%s/%d", session, what, i))
	return FormatUUID(sum[:16])
}

// FormatUUID renders 16 bytes as a version-4 style uuid string.
func FormatUUID(b []byte) string {
	var u [16]byte
	copy(u[:], b)
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	h := hex.EncodeToString(u[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}
