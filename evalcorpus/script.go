package evalcorpus

import (
	"bufio"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/recall-dev/recall/internal/errpath"
)

// Session scripts are hand-written transcripts, for the hard relevance
// set (hard.go): conversations as people have them, with tool calls,
// other languages and several sessions of one piece of work, which the
// generator's templates cannot write. A script file holds sessions:
//
//	=== NAME PROJECT START
//	@user
//	the prompt, any number of lines
//	@assistant
//	the reply
//	@tool NAME [INPUT-KEY]
//	the tool call's input (INPUT-KEY defaults to command)
//	@result
//	what the tool returned (the indexer drops it)
//
// NAME names the session in hard-queries.tsv; PROJECT is its working
// directory; START is when it began (2006-01-02T15:04, UTC). Turns follow
// two minutes apart, a tool's result five seconds after its call. Lines
// before the first session that start with '#' are comments; inside a
// turn every line is text, trimmed of blank lines at its ends.

// Script is one session of a script file.
type Script struct {
	Name    string
	Project string
	Session Session
}

// turnGap and resultGap space a script's turns.
const (
	turnGap   = 2 * time.Minute
	resultGap = 5 * time.Second
)

// ReadScripts reads a script file.
func ReadScripts(path string) ([]Script, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read scripts: %w", err)
	}
	defer f.Close()
	return ParseScripts(f, path)
}

// ParseScripts reads script sessions from r (name is for errors).
func ParseScripts(r io.Reader, name string) ([]Script, error) {
	var out []Script
	var cur *Script
	var turn *Turn
	var text []string
	at := time.Time{}
	flush := func() {
		if turn != nil {
			body := strings.Trim(strings.Join(text, "\n"), "\n")
			switch turn.Kind {
			case ToolUse:
				turn.Input[turn.Text] = body
				turn.Text = ""
			default:
				turn.Text = body
			}
			cur.Session.Turns = append(cur.Session.Turns, *turn)
		}
		turn, text = nil, nil
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for n := 1; sc.Scan(); n++ {
		l := sc.Text()
		switch {
		case strings.HasPrefix(l, "=== "):
			if cur != nil {
				flush()
				out = append(out, *cur)
			}
			s, err := scriptHeader(l)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %w", name, n, err)
			}
			cur, at = &s, s.Session.Turns[0].At
			cur.Session.Turns = nil
		case cur == nil:
			if strings.TrimSpace(l) != "" && !strings.HasPrefix(l, "#") {
				return nil, fmt.Errorf("%s:%d: text before the first session", name, n)
			}
		case strings.HasPrefix(l, "@"):
			flush()
			t, err := scriptTurn(l, &at)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %w", name, n, err)
			}
			turn = &t
		case turn == nil:
			if strings.TrimSpace(l) != "" {
				return nil, fmt.Errorf("%s:%d: text outside a turn", name, n)
			}
		default:
			text = append(text, l)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, errpath.Wrap("read", name, err)
	}
	if cur != nil {
		flush()
		out = append(out, *cur)
	}
	return out, checkScripts(out, name)
}

// scriptHeader reads "=== NAME PROJECT START"; the session it returns
// carries the start time in a placeholder turn.
func scriptHeader(l string) (Script, error) {
	f := strings.Fields(strings.TrimPrefix(l, "=== "))
	if len(f) != 3 {
		return Script{}, fmt.Errorf("want \"=== NAME PROJECT START\", got %q", l)
	}
	start, err := time.Parse("2006-01-02T15:04", f[2])
	if err != nil {
		return Script{}, fmt.Errorf("start %q: %w", f[2], err)
	}
	return Script{Name: f[0], Project: f[1], Session: Session{
		ID: scriptID(f[0]), Cwd: f[1], Turns: []Turn{{At: start}},
	}}, nil
}

// scriptTurn reads a turn marker and advances the clock.
func scriptTurn(l string, at *time.Time) (Turn, error) {
	f := strings.Fields(strings.TrimPrefix(l, "@"))
	if len(f) == 0 {
		return Turn{}, fmt.Errorf("empty turn marker")
	}
	switch f[0] {
	case "user", "assistant":
		*at = at.Add(turnGap)
		kind := User
		if f[0] == "assistant" {
			kind = Assistant
		}
		return Turn{At: *at, Kind: kind}, nil
	case "tool":
		if len(f) < 2 || len(f) > 3 {
			return Turn{}, fmt.Errorf("want \"@tool NAME [INPUT-KEY]\", got %q", l)
		}
		key := "command"
		if len(f) == 3 {
			key = f[2]
		}
		*at = at.Add(turnGap)
		// Text holds the input key until the body is read.
		return Turn{At: *at, Kind: ToolUse, Tool: f[1], Text: key, Input: map[string]string{}}, nil
	case "result":
		return Turn{At: at.Add(resultGap), Kind: ToolResult}, nil
	}
	return Turn{}, fmt.Errorf("unknown turn %q", f[0])
}

// checkScripts refuses duplicate names and results without a call.
func checkScripts(scripts []Script, name string) error {
	seen := map[string]bool{}
	for _, s := range scripts {
		if seen[s.Name] {
			return fmt.Errorf("%s: session %s appears twice", name, s.Name)
		}
		seen[s.Name] = true
		if len(s.Session.Turns) == 0 {
			return fmt.Errorf("%s: session %s has no turns", name, s.Name)
		}
		for i, t := range s.Session.Turns {
			if t.Kind == ToolResult && (i == 0 || s.Session.Turns[i-1].Kind != ToolUse) {
				return fmt.Errorf("%s: session %s: a result not right after a tool call", name, s.Name)
			}
		}
	}
	return nil
}

// scriptID is the session id of a script: a uuid derived from its name.
func scriptID(name string) string {
	sum := sha256.Sum256([]byte("script/" + name))
	return FormatUUID(sum[:16])
}
